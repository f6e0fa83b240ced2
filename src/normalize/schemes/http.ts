/**
 * http, https (RFC 9110 §4.2), ws, wss (RFC 6455 §3) and ftp (RFC 1738 §3.2): the WHATWG special
 * schemes with a network authority.
 */
import type { SchemeRule } from './scheme-rule.js';

function networkScheme(scheme: string, defaultPort: string): SchemeRule {
  return {
    scheme,
    defaultPort,
    specialHost: true,
    requiresHost: true,
    emptyPathIsRoot: true,
    dropEmptyUserinfo: true,
  };
}

export const http = networkScheme('http', '80');
export const https = networkScheme('https', '443');
export const ws = networkScheme('ws', '80');
export const wss = networkScheme('wss', '443');
export const ftp = networkScheme('ftp', '21');
