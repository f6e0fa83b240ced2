/**
 * Explaining a redirect: which host-rule transforms (rules.ts) compose to map a redirect's source
 * onto its target, and what a redirect says for or against one rule (RFC 3986 §6.2.4: "the
 * observed behavior of the origin server"). A permanent redirect explained by a composition of
 * transforms supports each of them; one from a URL in a rule's domain that changes the rule's
 * component otherwise, or maps the other way, contradicts it.
 */
import type { UriRecord } from '../../normalize/index.js';
import {
  applies,
  apply,
  componentOf,
  componentValue,
  defaultDocuments,
  formatSpec,
  hostOf,
  isParameterRule,
  lastSegment,
  parameterSpec,
  queryNames,
  withoutFragment,
  type RuleSpec,
  type Verdict,
} from '../rules.js';
import { removeQueryFields } from './parameter-difference.js';
import { foldCase, slashesMergeTo, suffixApplies, suffixPair } from './path-variants.js';

function pathTransforms(p: string, q: string, documents: readonly string[]): RuleSpec[] | undefined {
  // empty segments dropped, wherever they are (`/a//b` → `/a/b`, `/a//` → `/a/`)
  if (slashesMergeTo(p, q)) return [{ kind: 'merge-slashes' }];
  if (q === p + '/') {
    const last = lastSegment(p);
    return last !== '' && last.indexOf('.') === -1 ? [{ kind: 'slash-add' }] : undefined;
  }
  if (p === q + '/') return q === '' ? undefined : [{ kind: 'slash-remove' }];
  // the case of letters (`/A` → `/a`; `/a.Html` → `/a.html` folds, no pair), or a suffix (`/a.htm` → `/a.html`)
  if (q !== p && foldCase(p) === q) return [{ kind: 'case-insensitive' }];
  const pair = suffixPair(p, q);
  if (pair !== undefined) {
    const from = p.endsWith(pair.from) && p.slice(0, p.length - pair.from.length) + pair.to === q ? pair : { from: pair.to, to: pair.from };
    if (suffixApplies(from, p)) return [{ kind: 'suffix', ...from }];
  }
  for (const name of documents) {
    if (!p.endsWith('/' + name)) continue;
    const dir = p.slice(0, p.length - name.length);
    if (q === dir) return [{ kind: 'default-document', name }];
    if (dir.length > 1 && q === dir.slice(0, -1)) return [{ kind: 'default-document', name }, { kind: 'slash-remove' }];
  }
  // path-prefix: what precedes the longest common run of trailing segments
  const heads = prefixesBeforeCommonTail(p, q);
  if (heads === undefined) return undefined;
  const { from, to } = heads;
  if (!from.startsWith('/') || !to.startsWith('/')) return undefined;
  // a prefix that grows into itself would apply again to its own output
  if (to.startsWith(from)) return undefined;
  return [{ kind: 'path-prefix', from, to }];
}

/**
 * What precedes the longest common run of trailing segments of two paths (at least one segment,
 * never the leading ""), each ending in `/`: `/old/a/b` and `/a/b` give `/old/` and `/`.
 */
export function prefixesBeforeCommonTail(p: string, q: string): { from: string; to: string } | undefined {
  const a = p.split('/');
  const b = q.split('/');
  let s = 0;
  while (s < a.length - 1 && s < b.length - 1 && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  if (s === 0) return undefined;
  return { from: a.slice(0, a.length - s).join('/') + '/', to: b.slice(0, b.length - s).join('/') + '/' };
}

function removedParameters(uq: string | undefined, vq: string | undefined): RuleSpec[] | undefined {
  const uNames = queryNames(uq);
  const vNames = new Set(queryNames(vq));
  const removed = new Set<string>();
  for (const n of uNames) if (!vNames.has(n)) removed.add(n);
  if (removed.size === 0) return undefined;
  if (removeQueryFields(uq, removed) !== vq) return undefined;
  return [parameterSpec('query-parameter', [...removed])];
}

/**
 * The transforms whose composition maps `u` onto `v`, or `undefined` when the redirect is not
 * explained by them (another site, another page, a login form, …) or changes nothing.
 */
export function explainRedirect(u: UriRecord, v: UriRecord, documents: readonly string[] = defaultDocuments): RuleSpec[] | undefined {
  if (u.host === undefined || v.host === undefined || u.userinfo !== v.userinfo) return undefined;
  const out: RuleSpec[] = [];
  if (u.scheme !== v.scheme) {
    if (u.scheme === 'http' && v.scheme === 'https' && u.port === undefined && v.port === undefined) out.push({ kind: 'https' });
    else return undefined;
  }
  if (u.port !== v.port) return undefined;
  if (u.host !== v.host) {
    if (v.host === 'www.' + u.host && applies({ kind: 'www-add' }, u)) out.push({ kind: 'www-add' });
    else if (u.host === 'www.' + v.host && applies({ kind: 'www-remove' }, u)) out.push({ kind: 'www-remove' });
    else return undefined;
  }
  if (u.path !== v.path) {
    const t = pathTransforms(u.path, v.path, documents);
    if (t === undefined) return undefined;
    out.push(...t);
  }
  if (u.query !== v.query) {
    const t = removedParameters(u.query, v.query);
    if (t === undefined) return undefined;
    out.push(...t);
  }
  return out.length === 0 ? undefined : out;
}

/**
 * What a redirect `u → v` (any status) says about a rule of `u`'s or `v`'s host.
 * `explained` is `explainRedirect(u, v)`.
 */
export function judgeRedirect(spec: RuleSpec, host: string, u: UriRecord, v: UriRecord, explained: readonly RuleSpec[] | undefined): Verdict | undefined {
  const text = formatSpec(spec);
  if (hostOf(u) === host && applies(spec, u)) {
    if (explained?.some((t) => formatSpec(t) === text)) return 'for';
    // a mirror sent to the host it mirrors: for, on the same path; on another, nothing either way
    if (spec.kind === 'mirror' && hostOf(v) === spec.host) return v.path === u.path && v.query === u.query ? 'for' : undefined;
    // parameters are judged on content: a server may rewrite one parameter and keep another
    if (isParameterRule(spec)) return undefined;
    const c = componentOf(spec);
    // unchanged: the host may take this step on a later hop
    if (componentValue(u, c) === componentValue(v, c)) return undefined;
    // a redirect that changes more of the path than its letters' case (`/A.html` → `/A`, a suffix
    // dropped, the case kept as asked) says nothing of case: a host that folds case answers any
    // spelling, and a rewrite rule keeps the spelling it was given
    if (spec.kind === 'case-insensitive' && hostOf(v) === hostOf(u) && foldCase(u.path) !== foldCase(v.path)) return undefined;
    return 'against';
  }
  if (hostOf(v) === host && applies(spec, v) && !isParameterRule(spec) && withoutFragment(apply(spec, v)) === withoutFragment(u)) {
    return 'against'; // the host maps the other way
  }
  return undefined;
}
