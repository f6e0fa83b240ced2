/** The scheme registry: one rule per scheme, and the generic fallback for the rest. */
import { file } from './file.js';
import { genericRule } from './generic.js';
import { ftp, http, https, ws, wss } from './http.js';
import { mailto } from './mailto.js';
import type { SchemeRule } from './scheme-rule.js';

const registry = new Map<string, SchemeRule>(
  [http, https, ws, wss, ftp, file, mailto].map((rule) => [rule.scheme, rule]),
);

/** The rule for a lowercase scheme; a generic rule when there is none. */
export function schemeRule(scheme: string): SchemeRule {
  return registry.get(scheme) ?? genericRule(scheme);
}

/** The schemes with a rule of their own. */
export function knownSchemes(): string[] {
  return [...registry.keys()];
}

export type { SchemeRule } from './scheme-rule.js';
