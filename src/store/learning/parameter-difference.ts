/**
 * Parameter difference: the set of parameters by which two URLs of one path differ, when that is
 * all they differ by. RFC 3986 §3.4 leaves a query's structure to the server; the common
 * `name=value` fields joined by `&` (and §3.3's `;name=value` segment parameters) are how servers
 * write session ids and tracking tags. Two documents fetched as themselves, `variant` and `base`,
 * where `variant` is `base` with some fields added, are the evidence a parameter rule is learned
 * from: equal content says the fields are irrelevant there, different content that they matter.
 *
 * The difference is a set, not one name: tracking tags travel together (`utm_source`,
 * `utm_medium`, `utm_campaign`), so removing one of them never yields a fetched URL; removing the
 * set does (Dasgupta et al., KDD 2008, learn such multi-field rewrites offline).
 */
import type { UriRecord } from '../../normalize/index.js';
import { isAspNetCookielessSegment } from '../../normalize/presets/session-ids.js';
import { recordOfKey } from '../engine/url-state.js';

export type ParameterPlace = 'query' | 'path';

export interface ParameterDifference {
  readonly place: ParameterPlace;
  /** The names `variant` has and `base` has not, sorted, each once. */
  readonly names: readonly string[];
}

/** `name` of a `name=value` (or bare `name`) field. */
export function fieldName(field: string): string {
  const eq = field.indexOf('=');
  return eq === -1 ? field : field.slice(0, eq);
}

/** The fields of a query, in order (none for an absent or empty query). */
export function queryFields(query: string | undefined): string[] {
  return query === undefined || query === '' ? [] : query.split('&');
}

/**
 * The query without the fields named in `names`. The "?" goes with the last field: `/?sid=1` is
 * the tagged form of `/`, not of `/?`, so removing every field gives an absent query.
 */
export function removeQueryFields(query: string | undefined, names: ReadonlySet<string>): string | undefined {
  if (query === undefined || query === '') return query;
  const kept = query.split('&').filter((f) => !names.has(fieldName(f)));
  return kept.length === 0 ? undefined : kept.join('&');
}

/**
 * An ASP.NET cookieless-state segment (`/(S(id))/page`, `(A(id)S(id)F(id))`, the 1.x `(id)`:
 * presets/session-ids.ts) read as a segment parameter: a session the server adds to the path, as a
 * servlet container adds `;jsessionid=`. Its name is its tags in parentheses (`(S)`, `(ASF)`, `()`
 * for the 1.x form), its value its ids, so that a parameter rule (`path-parameter:(S)`) removes it
 * and the learner's pairs, own-form redirects and places see it as they see `;jsessionid=`.
 */
function cookielessSegment(segment: string): { name: string; value: string } | undefined {
  if (segment.charCodeAt(0) !== 0x28 /* ( */ || !isAspNetCookielessSegment(segment)) return undefined;
  const inner = segment.slice(1, -1);
  if (inner.indexOf('(') === -1) return { name: '()', value: inner };
  let name = '(';
  let value = '';
  for (const m of inner.matchAll(/([AaSsFf])\(([^)]*)\)/g)) {
    name += m[1]!.toUpperCase();
    value += m[2]!;
  }
  return { name: name + ')', value };
}

/** True when `path` may hold a segment parameter or a cookieless segment. */
function mayHoldParameters(path: string): boolean {
  return path.indexOf(';') !== -1 || path.indexOf('(') !== -1;
}

/** The segments of `path` less its cookieless segments named in `names` (all of them without `names`). */
function withoutCookieless(path: string, names?: ReadonlySet<string>): string {
  if (path.indexOf('(') === -1) return path;
  const kept = path.split('/').filter((segment) => {
    const c = cookielessSegment(segment.split(';')[0]!);
    return c === undefined || (names !== undefined && !names.has(c.name));
  });
  return kept.join('/') || '/';
}

/**
 * Names of the segment parameters of a path (§3.3), each once, a cookieless segment's among them.
 * An encoded `%3B` is data.
 */
export function pathParameterNames(path: string): string[] {
  if (!mayHoldParameters(path)) return [];
  const names = new Set<string>();
  for (const segment of path.split('/')) {
    const parts = segment.split(';');
    const c = cookielessSegment(parts[0]!);
    if (c !== undefined) names.add(c.name);
    for (let i = 1; i < parts.length; i++) names.add(fieldName(parts[i]!));
  }
  return [...names];
}

/** The path without the segment parameters (and cookieless segments) named in `names`. */
export function removePathParameters(path: string, names: ReadonlySet<string>): string {
  if (!mayHoldParameters(path)) return path;
  return withoutCookieless(path, names)
    .split('/')
    .map((segment) => {
      if (segment.indexOf(';') === -1) return segment;
      const parts = segment.split(';');
      return [parts[0]!, ...parts.slice(1).filter((p) => !names.has(fieldName(p)))].join(';');
    })
    .join('/');
}

/** The path with every segment parameter and cookieless segment removed: where a URL's parameter variants are indexed. */
export function bareParameterPath(path: string): string {
  if (!mayHoldParameters(path)) return path;
  const bare = withoutCookieless(path);
  return bare.indexOf(';') === -1 ? bare : bare.split('/').map((s) => s.split(';')[0]!).join('/');
}

/**
 * The directory a path lies in, its segment parameters aside (`/a;jsessionid=1/b` and
 * `/(S(x))/a/b` lie in `/a/`): where evidence about it is read and a probe's signature holds.
 */
export function bareDirOf(path: string): string {
  const bare = bareParameterPath(path);
  return bare.slice(0, bare.lastIndexOf('/') + 1) || '/';
}

function namesOnlyIn(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return [...new Set(a.filter((n) => !other.has(n)))].sort();
}

/**
 * How `variant` differs from `base` when it is `base` with some parameters added and nothing else
 * changed (scheme, authority, the rest of the path and query, field order); `undefined` otherwise.
 * Both URLs are in normal form. Two values of one parameter (`?sid=1` and `?sid=2`) are not a
 * difference of this kind: neither is the URL without it.
 */
export function parameterDifference(variant: UriRecord, base: UriRecord): ParameterDifference | undefined {
  if (variant.scheme !== base.scheme || variant.host !== base.host || variant.port !== base.port || variant.userinfo !== base.userinfo) return undefined;
  if (variant.path === base.path) {
    if (variant.query === base.query) return undefined;
    const names = namesOnlyIn(queryFields(variant.query).map(fieldName), queryFields(base.query).map(fieldName));
    if (names.length === 0 || removeQueryFields(variant.query, new Set(names)) !== base.query) return undefined;
    return { place: 'query', names };
  }
  if (variant.query !== base.query) return undefined;
  const names = namesOnlyIn(pathParameterNames(variant.path), pathParameterNames(base.path));
  if (names.length === 0 || removePathParameters(variant.path, new Set(names)) !== base.path) return undefined;
  return { place: 'path', names };
}

/**
 * `to` without the segment parameters and query fields whose names `from` lacks: where a redirect
 * `from` → `to` that adds a session (`/A.html` → 302 → `/a.html;jsessionid=…`, a servlet container
 * without cookies) sends `from` once the session is set aside. `undefined` when it adds none.
 */
export function withoutAddedParameters(to: UriRecord, from: UriRecord): UriRecord | undefined {
  const inPath = namesOnlyIn(pathParameterNames(to.path), pathParameterNames(from.path));
  const inQuery = namesOnlyIn(queryFields(to.query).map(fieldName), queryFields(from.query).map(fieldName));
  if (inPath.length === 0 && inQuery.length === 0) return undefined;
  const path = inPath.length === 0 ? to.path : removePathParameters(to.path, new Set(inPath));
  const query = inQuery.length === 0 ? to.query : removeQueryFields(to.query, new Set(inQuery));
  return { ...to, path, query };
}

/** A segment's parameters as `name=value` fields, a cookieless segment's first. */
function pathFields(segment: string): string[] {
  const parts = segment.split(';');
  const c = cookielessSegment(parts[0]!);
  const fields = parts.slice(1);
  return c === undefined ? fields : [`${c.name}=${c.value}`, ...fields];
}

/**
 * The values of the fields (query) or segment parameters (path) named `names` in a URL, in the
 * order met, joined by `&`: what a parameter rule removes from it.
 */
export function parameterValues(place: 'query' | 'path', rec: UriRecord, names: ReadonlySet<string>): string {
  const out: string[] = [];
  const fields = place === 'query' ? queryFields(rec.query) : rec.path.split('/').flatMap(pathFields);
  for (const f of fields) {
    if (!names.has(fieldName(f))) continue;
    const eq = f.indexOf('=');
    out.push(eq === -1 ? '' : f.slice(eq + 1));
  }
  return out.join('&');
}

/**
 * True when `src`, the key of the page a URL was first linked from, is a page of the URL's own
 * host and path, parameters aside: a page that links a variant of itself (`/a` → `/a?lang=de`,
 * `/list` → `/list?order=desc`), a choice it offers.
 */
export function ownPageOffered(rec: UriRecord, src: string | undefined): boolean {
  if (src === undefined) return false;
  const from = recordOfKey(src);
  return from.host === rec.host && from.port === rec.port && from.scheme === rec.scheme && bareParameterPath(from.path) === bareParameterPath(rec.path);
}
