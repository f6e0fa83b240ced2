/**
 * Where an observation lies (rule-scope.ts `Support`, `ContradictionSite`): the place in its
 * host's path tree and the scope value it shows; and the evidence read by prefix around it.
 */
import type { UriRecord } from '../../normalize/index.js';
import { readRange, type Kv } from '../backends/kv.js';
import { prefixRange } from '../keys.js';
import { hasQueryKind, isParameterRule, scopeValue, type RuleSpec } from '../rules.js';
import { bareParameterPath } from './parameter-difference.js';
import type { Support } from './rule-scope.js';

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

/**
 * The support a redirect `from` → `to` (`to` the document's key `d`) gives `spec`, one of the
 * rules that explain it; `undefined` when it shows nothing of `spec`. A server that drops the
 * whole query as it changes the path or host (nginx `return 301 $uri/;`, `$uri` being "without
 * arguments") answers `/dir?page=2` with `/dir/`: the path's rule is shown for query-less URLs
 * only (`/dir/?page=2` is another page), and no parameter rule is shown at all (the parameters
 * went with the path's change, not on their own).
 */
export function redirectSupport(spec: RuleSpec, explained: readonly RuleSpec[], from: { readonly rec: UriRecord; readonly key: string }, to: UriRecord, d: string): Support | undefined {
  const dropped = from.rec.query !== undefined && to.query === undefined && !explained.every(isParameterRule);
  if (dropped && isParameterRule(spec)) return undefined;
  return { p: placeOf(from.rec), d, q: !dropped && hasQueryKind(spec, from.rec), s: from.key, ...valueOf(spec, from.rec) };
}

/** The entries of `prefix` in the evidence space, `limit` at most, in key order. */
export function readPrefix(kv: Pick<Kv, 'entries' | 'range'>, prefix: string, limit: number): Promise<[string, string][]> {
  return readRange(kv, 'evidence', { ...prefixRange(prefix), limit });
}
