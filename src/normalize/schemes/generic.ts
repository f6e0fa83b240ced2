/**
 * Any scheme without a rule of its own: only what RFC 3986 licenses for every scheme
 * (§3.2.3: an empty port is omitted; §3.2.2: an IPv6 literal in its canonical text form).
 */
import type { SchemeRule } from './scheme-rule.js';

export function genericRule(scheme: string): SchemeRule {
  return {
    scheme,
    defaultPort: undefined,
    specialHost: false,
    requiresHost: false,
    emptyPathIsRoot: false,
    dropEmptyUserinfo: false,
  };
}
