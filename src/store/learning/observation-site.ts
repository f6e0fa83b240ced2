/**
 * Where an observation lies (rule-scope.ts `Support`, `ContradictionSite`): the place in its
 * host's path tree and the scope value it shows; and the evidence read by prefix around it.
 */
import type { UriRecord } from '../../normalize/index.js';
import { readRange, type Kv } from '../backends/kv.js';
import { prefixRange } from '../keys.js';
import { scopeValue, type RuleSpec } from '../rules.js';
import { bareParameterPath } from './parameter-difference.js';

/** Where a URL lies in its host's path tree (rule-scope.ts): its path without segment parameters. */
export function placeOf(rec: UriRecord): string {
  return bareParameterPath(rec.path === '' ? '/' : rec.path);
}

/** The scope value of `rec` under `spec` (what a parameter rule removes, a case shape), for the support it gives. */
export function valueOf(spec: RuleSpec, rec: UriRecord): { v?: string } {
  // a path variant's kind is its path's, segment parameters (a session id) aside
  const v = scopeValue(spec, spec.kind === 'suffix' || spec.kind === 'case-insensitive' ? { ...rec, path: bareParameterPath(rec.path) } : rec);
  return v === undefined ? {} : { v };
}

/** The entries of `prefix` in the evidence space, `limit` at most, in key order. */
export function readPrefix(kv: Pick<Kv, 'entries' | 'range'>, prefix: string, limit: number): Promise<[string, string][]> {
  return readRange(kv, 'evidence', { ...prefixRange(prefix), limit });
}
