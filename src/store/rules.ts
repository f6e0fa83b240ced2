/**
 * Host rules: RFC 3986 §6.2.4 (protocol-based normalization) learned from evidence.
 *
 * "Substantial effort to reduce the incidence of false negatives is often cost-effective for web
 * spiders. Therefore, they … normalize URIs … based on the expectations of specific schemes
 * and on the observed behavior of the origin server" (§6.2.4). A rule is a transform of one URL of
 * a host onto another that the host's own behaviour licenses. Rules are learned per host
 * (`host[:port]` of the source URL), each from observations of distinct source URLs:
 *
 * | spec                          | transform                       | applies to (its domain)                          |
 * |-------------------------------|---------------------------------|--------------------------------------------------|
 * | `https`                       | `http:` → `https:`              | http URLs without an explicit port               |
 * | `www-add` / `www-remove`      | `a.b` ↔ `www.a.b`               | domain names with (without) a leading `www.`     |
 * | `slash-add`                   | `/a/b` → `/a/b/`                | paths whose last segment is non-empty, no `.`    |
 * | `slash-remove`                | `/a/b/` → `/a/b`                | paths ending in `/`, other than `/`              |
 * | `default-document:<name>`     | `/a/index.html` → `/a/`         | paths whose last segment is `<name>`             |
 * | `path-prefix:<from>><to>`     | `/old/x` → `/x`                 | paths below `<from>`, not its own page           |
 * | `merge-slashes`               | `/a//b.html` → `/a/b.html`      | paths with two or more slashes in a row          |
 * | `query-parameter:<name>`      | `?sid=1&a=2` → `?a=2`           | queries with a field named `<name>`              |
 * | `path-parameter:<name>`       | `/a;jsessionid=1` → `/a`        | paths with a `;<name>` parameter in a segment    |
 * | `suffix:<from>><to>`          | `/a.htm` → `/a.html`            | last segments ending in `<from>` after a stem    |
 * | `case-insensitive`            | `/Docs/A.html` → `/docs/a.html` | paths with an upper-case letter, no `;params`    |
 * | `mirror:<host>`               | `m.a.b/x` → `a.b/x`             | every URL of the host (opt-in: `learnMirrors`)   |
 *
 * A `suffix` rule names one pair (path-variants.ts): `.htm>.html`, `.html>` (extension-less names),
 * `.en>` (a negotiated variant onto its generic name), never a family of suffixes.
 *
 * A `query-parameter` rule may name a group (`query-parameter:utm_campaign&utm_medium`): names
 * that travel together are removed together, and only from a query that holds all of them. A
 * `path-parameter` rule's name may be an ASP.NET cookieless segment's tags (`(S)`: `/(S(id))/a` →
 * `/a`), which learning/parameter-difference.ts reads as a segment parameter.
 *
 * Evidence (the learner in learning/learner.ts gathers it, learning/redirect-explanation.ts explains
 * redirects; this module keeps the algebra):
 * - **support**: a permanent redirect `u → v` (301/308; also 302/303/307 with
 *   `temporaryRedirectsMerge`) explained as a composition of these transforms supports each of
 *   them; equal content of two documents fetched as themselves, `u` and `R(u)`, supports `R`.
 *   Support counts distinct documents (rule-scope.ts): one body under many URLs counts once.
 * - **contradiction**: a permanent redirect from a URL in `R`'s domain that changes `R`'s component
 *   otherwise, or maps the other way; different, stable content of `u` and `R(u)`; a rewrite by `R`
 *   that did not answer with a document.
 *
 * A rule holds in its scopes (rule-scope.ts): the places with `threshold` (default 3) distinct
 * documents of support and no contradiction. It is a candidate while it has none, active while it
 * has some, withdrawn when contradictions left it none (or an operator withdrew it). The store
 * keeps every rule with its evidence.
 */
import { recompose, type UriRecord } from '../normalize/index.js';
import { bareParameterPath, fieldName, parameterValues, pathParameterNames, queryFields, removePathParameters, removeQueryFields } from './learning/parameter-difference.js';
import { applySuffix, caseApplies, caseShape, foldCase, isSuffixPair, mergeSlashes, suffixApplies, suffixStemKind } from './learning/path-variants.js';
import { activeScopes, inScope, keptSupport, readsAsCopy, scopeEvidence, type ContradictionSite, type Scope, type Support } from './learning/rule-scope.js';

export type RuleSpec =
  | { readonly kind: 'https' }
  | { readonly kind: 'www-add' }
  | { readonly kind: 'www-remove' }
  | { readonly kind: 'slash-add' }
  | { readonly kind: 'slash-remove' }
  | { readonly kind: 'default-document'; readonly name: string }
  | { readonly kind: 'path-prefix'; readonly from: string; readonly to: string }
  /**
   * Empty segments dropped: a server that reads a path with its slashes merged (nginx
   * `merge_slashes`, on by default; Apache `MergeSlashes`, on by default since 2.4.39).
   */
  | { readonly kind: 'merge-slashes' }
  | { readonly kind: 'query-parameter'; readonly name: string }
  /** RFC 3986 §3.3: a segment's parameters follow ";" (`/a;jsessionid=1`), as servlet containers write session ids. */
  | { readonly kind: 'path-parameter'; readonly name: string }
  | { readonly kind: 'suffix'; readonly from: string; readonly to: string }
  | { readonly kind: 'case-insensitive' }
  /** A second name of a host (Apache `ServerAlias`): its URLs onto `host` (`name[:port]`). */
  | { readonly kind: 'mirror'; readonly host: string };

export type RuleKind = RuleSpec['kind'];
export type RuleComponent = 'scheme' | 'host' | 'path' | 'query';
export type RuleState = 'candidate' | 'active' | 'withdrawn';
export type Verdict = 'for' | 'against';

/** How an observation was made. */
export type ObservationKind = 'redirect' | 'content' | 'content-location' | 'canonical' | 'inverse-redirect' | 'rewrite' | 'sample' | 'operator';

export interface Observation {
  readonly v: Verdict;
  readonly how: ObservationKind;
  /** The source URL's key. */
  readonly source: string;
  /** Redirect target, or the key whose content was compared. */
  readonly to?: string;
  readonly status?: number;
  /** Content hashes compared: the source's, and the other's when they differ. */
  readonly hash?: string;
  readonly otherHash?: string;
  readonly t: number;
}

/** A learned rule with its evidence counts, as stored in the `rule` sublevel. */
export interface RuleRecord {
  /** `host/spec`, e.g. `example.com/https`, `example.com/path-prefix:/old/>/`. */
  readonly id: string;
  readonly host: string;
  readonly spec: string;
  readonly state: RuleState;
  /** Observations for, from distinct source URLs. */
  readonly for: number;
  readonly against: number;
  readonly created: number;
  readonly activated?: number;
  readonly withdrawn?: number;
  /** The last contradiction. */
  readonly contradiction?: Observation;
  /** Where the rule holds (derived from `support` and `contra`, kept for readers). */
  readonly scopes?: readonly Scope[];
  /** Supporting observations (bounded). */
  readonly support?: readonly Support[];
  /** Where contradictions were observed (bounded). */
  readonly contra?: readonly ContradictionSite[];
  /** Withdrawn by an operator: never active again. */
  readonly manual?: boolean;
}

export type { ContradictionSite, Scope, Support } from './learning/rule-scope.js';

/** Default documents a server serves for a directory (the `default-document` rule's names). */
export const defaultDocuments: readonly string[] = [
  'index.html',
  'index.htm',
  'index.shtml',
  'index.php',
  'index.asp',
  'index.aspx',
  'index.jsp',
  'index.cgi',
  'default.htm',
  'default.html',
  'default.asp',
  'default.aspx',
];

// ---- spec text ------------------------------------------------------------------------------

export function formatSpec(spec: RuleSpec): string {
  switch (spec.kind) {
    case 'default-document':
    case 'query-parameter':
    case 'path-parameter':
      return `${spec.kind}:${spec.name}`;
    case 'path-prefix':
    case 'suffix':
      return `${spec.kind}:${spec.from}>${spec.to}`;
    case 'mirror':
      return `mirror:${spec.host}`;
    default:
      return spec.kind;
  }
}

export function parseSpec(text: string): RuleSpec | undefined {
  const colon = text.indexOf(':');
  const kind = colon === -1 ? text : text.slice(0, colon);
  const arg = colon === -1 ? '' : text.slice(colon + 1);
  switch (kind) {
    case 'https':
    case 'www-add':
    case 'www-remove':
    case 'slash-add':
    case 'slash-remove':
    case 'case-insensitive':
    case 'merge-slashes':
      return colon === -1 ? { kind } : undefined;
    case 'default-document':
    case 'query-parameter':
    case 'path-parameter':
      return arg === '' ? undefined : { kind, name: arg };
    case 'path-prefix': {
      // a normal-form path holds no raw ">" (it is percent-encoded), so the first ">" splits
      const gt = arg.indexOf('>');
      return gt === -1 ? undefined : { kind, from: arg.slice(0, gt), to: arg.slice(gt + 1) };
    }
    case 'suffix': {
      const gt = arg.indexOf('>');
      const from = arg.slice(0, gt);
      const to = arg.slice(gt + 1);
      return gt === -1 || !isSuffixPair(from, to) ? undefined : { kind, from, to };
    }
    case 'mirror':
      // a host as rules name it, `name[:port]`: no `/`, `@`, `?` or `#`, and not empty
      return /^[^/@?#\s]+$/.test(arg) ? { kind, host: arg } : undefined;
    default:
      return undefined;
  }
}

export function ruleId(host: string, spec: RuleSpec): string {
  return `${host}/${formatSpec(spec)}`;
}

/** True when `id` (`host/spec`) is a `mirror:` rule's, read without parsing the spec. */
export function isMirrorRuleId(id: string): boolean {
  return id.startsWith('mirror:', id.indexOf('/') + 1);
}

/** Splits a rule id at the first `/` (a host never holds one). */
export function parseRuleId(id: string): { host: string; spec: RuleSpec } | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0) return undefined;
  const spec = parseSpec(id.slice(slash + 1));
  return spec === undefined ? undefined : { host: id.slice(0, slash), spec };
}

export function componentOf(spec: RuleSpec): RuleComponent {
  switch (spec.kind) {
    case 'https':
      return 'scheme';
    case 'www-add':
    case 'www-remove':
    case 'mirror':
      return 'host';
    case 'query-parameter':
      return 'query';
    default:
      return 'path';
  }
}

/** Order in which a host's active rules are applied: scheme, host, path, query. */
const APPLY_ORDER: Readonly<Record<RuleKind, number>> = {
  https: 0,
  'www-add': 1,
  'www-remove': 1,
  mirror: 1,
  'path-parameter': 2,
  'merge-slashes': 2,
  'case-insensitive': 2,
  'default-document': 2,
  suffix: 3,
  'slash-remove': 4,
  'slash-add': 5,
  'path-prefix': 6,
  'query-parameter': 7,
};

export function compareForApply(a: RuleSpec, b: RuleSpec): number {
  return APPLY_ORDER[a.kind] - APPLY_ORDER[b.kind];
}

// ---- the record side ------------------------------------------------------------------------

/** `host[:port]`: the authority without userinfo, which names a rule's host and a frontier queue. */
export function hostOf(rec: UriRecord): string {
  const host = rec.host ?? '';
  return rec.port === undefined ? host : `${host}:${rec.port}`;
}

function isDomainName(host: string): boolean {
  if (host === '' || host.charCodeAt(0) === 0x5b /* [ */) return false;
  const lastDot = host.lastIndexOf('.');
  if (lastDot === -1 || lastDot === host.length - 1) return false;
  const c = host.charCodeAt(lastDot + 1);
  return !(c >= 0x30 && c <= 0x39); // an IPv4 address ends in a number
}

export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `rest`, a path below a directory, names the directory's own page: nothing, or a default document. */
function isOwnPage(rest: string): boolean {
  return rest === '' || defaultDocuments.includes(rest);
}

export function queryNames(query: string | undefined): string[] {
  return queryFields(query).map(fieldName);
}

/** The names of a `query-parameter` or `path-parameter` rule: one, or a group joined by `&`. */
export function parameterNames(spec: RuleSpec): string[] {
  return spec.kind === 'query-parameter' || spec.kind === 'path-parameter' ? spec.name.split('&') : [];
}

/** The spec of a parameter rule for these names (sorted, so one group has one id). */
export function parameterSpec(kind: 'query-parameter' | 'path-parameter', names: readonly string[]): RuleSpec {
  return { kind, name: [...new Set(names)].sort().join('&') };
}

/** Rules judged on content alone: a server may serve a URL with or without the parameter. */
export function isParameterRule(spec: RuleSpec): boolean {
  return spec.kind === 'query-parameter' || spec.kind === 'path-parameter';
}

/** True when `spec` maps `rec` onto a different URL. */
export function applies(spec: RuleSpec, rec: UriRecord): boolean {
  if (rec.host === undefined) return false;
  switch (spec.kind) {
    case 'https':
      return rec.scheme === 'http' && rec.port === undefined;
    case 'www-add':
      return isDomainName(rec.host) && !rec.host.startsWith('www.');
    case 'www-remove':
      return rec.host.startsWith('www.') && isDomainName(rec.host.slice(4));
    case 'slash-add': {
      // the path's own segments: `/a/;jsessionid=1` ends in a directory, whatever its parameters
      const path = bareParameterPath(rec.path);
      if (path === '' || path.endsWith('/') || path !== rec.path) return false;
      const last = lastSegment(path);
      return last !== '' && last.indexOf('.') === -1;
    }
    case 'slash-remove':
      return rec.path.length > 1 && rec.path.endsWith('/');
    case 'default-document':
      return rec.path.endsWith('/' + spec.name);
    case 'merge-slashes':
      return rec.path.includes('//');
    case 'path-prefix':
      // the paths under the prefix, not the prefix's own page: `/old/` may be an archive page of
      // its own while `/old/x` moved to `/x`
      // (its own page with segment parameters, `/old/;jsessionid=1`, or under a default document
      // name, `/old/index.html`, is still its own page)
      return rec.path.startsWith(spec.from) && !isOwnPage(bareParameterPath(rec.path).slice(spec.from.length));
    case 'query-parameter': {
      const names = queryNames(rec.query);
      return parameterNames(spec).every((n) => names.includes(n));
    }
    case 'path-parameter': {
      const names = pathParameterNames(rec.path);
      return parameterNames(spec).every((n) => names.includes(n));
    }
    case 'suffix':
      // a default document (`/a/index.html`) names its directory's page (Apache DirectoryIndex,
      // nginx `index`), not a file beside the others: its suffix is not the file's to change
      return suffixApplies(spec, rec.path) && !defaultDocuments.includes(lastSegment(rec.path));
    case 'case-insensitive':
      return caseApplies(rec.path);
    case 'mirror':
      return hostOf(rec) !== spec.host;
  }
}

/** `spec` applied to `rec` (which it must apply to). The result is in normal form when `rec` is. */
export function apply(spec: RuleSpec, rec: UriRecord): UriRecord {
  switch (spec.kind) {
    case 'https':
      return { ...rec, scheme: 'https' };
    case 'www-add':
      return { ...rec, host: 'www.' + rec.host };
    case 'www-remove':
      return { ...rec, host: rec.host!.slice(4) };
    case 'slash-add':
      return { ...rec, path: rec.path + '/' };
    case 'slash-remove':
      return { ...rec, path: rec.path.slice(0, -1) };
    case 'default-document':
      return { ...rec, path: rec.path.slice(0, rec.path.length - spec.name.length) };
    case 'path-prefix':
      return { ...rec, path: spec.to + rec.path.slice(spec.from.length) };
    case 'merge-slashes':
      return { ...rec, path: mergeSlashes(rec.path) };
    case 'query-parameter':
      return { ...rec, query: removeQueryFields(rec.query, new Set(parameterNames(spec))) };
    case 'path-parameter':
      return { ...rec, path: removePathParameters(rec.path, new Set(parameterNames(spec))) };
    case 'suffix':
      return { ...rec, path: applySuffix(spec, rec.path) };
    case 'case-insensitive':
      return { ...rec, path: foldCase(rec.path) };
    case 'mirror':
      return withHost(rec, spec.host);
  }
}

/** `rec` on `host` (`name[:port]`, `[v6][:port]`). */
export function withHost(rec: UriRecord, host: string): UriRecord {
  const close = host.charCodeAt(0) === 0x5b ? host.indexOf(']') : -1;
  const colon = host.indexOf(':', close + 1);
  if (colon === -1) return { ...rec, host, port: undefined };
  return { ...rec, host: host.slice(0, colon), port: host.slice(colon + 1) };
}

/**
 * The mirror pair of two hosts that served one document under one path: the host mapped (the
 * one with more labels, `docs-mirror.example.com` onto `example.com`; between equals, the greater
 * in code-unit order) and its rule. One direction for one pair, so two mirrors never map onto each
 * other.
 */
export function mirrorPair(a: string, b: string): { readonly from: string; readonly spec: RuleSpec } | undefined {
  if (a === b) return undefined;
  const labels = (h: string): number => h.split('.').length;
  const aFirst = labels(a) > labels(b) || (labels(a) === labels(b) && a > b);
  return aFirst ? { from: a, spec: { kind: 'mirror', host: b } } : { from: b, spec: { kind: 'mirror', host: a } };
}

export function componentValue(rec: UriRecord, c: RuleComponent): string {
  switch (c) {
    case 'scheme':
      return `${rec.scheme}:${rec.port ?? ''}`;
    case 'host':
      return rec.host ?? '';
    case 'path':
      return rec.path;
    case 'query':
      return rec.query === undefined ? '' : '?' + rec.query;
  }
}

export function withoutFragment(rec: UriRecord): string {
  return recompose(rec.fragment === undefined ? rec : { ...rec, fragment: undefined });
}

/**
 * A 2xx answer with content (RFC 9110 §15.3; not 204 No Content or 205 Reset Content): the only
 * kind of answer that shows a document. Error statuses, redirects and empty answers say nothing
 * about which URLs name the same document.
 */
export function isDocumentStatus(status: number): boolean {
  return status >= 200 && status < 300 && status !== 204 && status !== 205;
}

// ---- the state machine ----------------------------------------------------------------------

/** What an observation changed: scopes gained (activated, widened), lost (narrowed, withdrawn), or nothing. */
export type RuleChange = 'activated' | 'widened' | 'narrowed' | 'withdrawn' | undefined;

export interface Transition {
  readonly rule: RuleRecord;
  readonly change: RuleChange;
}

export interface LearningLimits {
  /** Distinct documents a scope needs. */
  readonly threshold: number;
  /** Supporting observations kept per rule. */
  readonly maxSupport: number;
}

export function newCandidate(host: string, spec: RuleSpec, now: number): RuleRecord {
  return { id: ruleId(host, spec), host, spec: formatSpec(spec), state: 'candidate', for: 0, against: 0, created: now, scopes: [], support: [], contra: [] };
}

const MAX_CONTRA = 64;

function sameExcept(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return (a ?? []).join('\u0000') === (b ?? []).join('\u0000');
}

function sameScopes(a: readonly Scope[], b: readonly Scope[]): boolean {
  return a.length === b.length && a.every((s, i) => s.at === b[i]!.at && s.flat === b[i]!.flat && s.query === b[i]!.query && sameExcept(s.except, b[i]!.except) && sameExcept(s.values, b[i]!.values));
}

/** True when every URL `a` covers is covered by `b` (a new exception in `b` narrows it). */
function within(a: readonly Scope[], b: readonly Scope[]): boolean {
  return a.every((s) => {
    const path = s.at.charCodeAt(0) === 0x3d ? s.at.slice(1) : s.at;
    // a scope of `b` over the same place, its queries and its values (more values is wider)
    const wider = b.find((o) => {
      if (!(o.at.charCodeAt(0) === 0x3d ? o.at.slice(1) === path : path.startsWith(o.at))) return false;
      if (s.query && !o.query) return false;
      // a flat directory covers its own files, never a directory's (deep or flat) but its own
      if (o.flat === true && s.at.charCodeAt(0) !== 0x3d && !(s.flat === true && s.at === o.at)) return false;
      if (o.values !== undefined && (s.values === undefined || !s.values.every((v) => o.values!.includes(v)))) return false;
      return inScope([{ ...o, values: undefined }], path, s.query);
    });
    if (wider === undefined) return false;
    return (wider.except ?? []).every((e) => !e.startsWith(path) || (s.except ?? []).includes(e));
  });
}

/** `rule` with `support` and `contra` replaced, its scopes and state derived again. */
export function rederive(rule: RuleRecord, support: readonly Support[], contra: readonly ContradictionSite[], limits: LearningLimits, o: Observation | undefined): Transition {
  const before = rule.scopes ?? [];
  // a host that folds case (its file system does) can never answer two names that differ only in
  // case differently: one contradiction shows the host does not, everywhere. So with a mirror, a
  // second name for one document root, or a prefix read alike on content alone: one path that
  // answers otherwise under the two names shows trees that differ page by page (rule-scope.ts)
  const hostWide = (rule.spec === 'case-insensitive' || readsAsCopy(rule.spec, support)) && contra.length > 0;
  const scopes = rule.manual === true || hostWide ? [] : activeScopes(scopeEvidence(rule.spec, support), contra, limits.threshold, rule.spec === 'case-insensitive' || rule.spec.startsWith('suffix:'));
  const state: RuleState = rule.manual === true ? 'withdrawn' : scopes.length > 0 ? 'active' : contra.length > 0 ? 'withdrawn' : 'candidate';
  let next: RuleRecord = { ...rule, support, contra, scopes, state };
  let change: RuleChange;
  if (sameScopes(before, scopes)) change = undefined;
  else if (before.length === 0) change = 'activated';
  else if (scopes.length === 0) change = 'withdrawn';
  else change = within(before, scopes) ? 'widened' : 'narrowed';
  const t = o?.t ?? Date.now();
  if (change === 'activated' && rule.activated === undefined) next = { ...next, activated: t };
  if (change === 'withdrawn') next = { ...next, withdrawn: t };
  // a candidate contradicted before it ever held a scope is withdrawn too (nothing to give back):
  // its time is kept, so a report shows it
  else if (state === 'withdrawn' && rule.state !== 'withdrawn') next = { ...next, withdrawn: t };
  return { rule: next, change };
}

/** One supporting observation (a distinct source URL; the caller keeps one per source). */
export function support(rule: RuleRecord, s: Support, o: Observation, limits: LearningLimits): Transition {
  return rederive({ ...rule, for: rule.for + 1 }, keptSupport(rule.support ?? [], s, limits.maxSupport), rule.contra ?? [], limits, o);
}

/** One contradiction, at the path of the URL it is about. */
export function contradict(rule: RuleRecord, c: ContradictionSite, o: Observation, limits: LearningLimits): Transition {
  const kept = rule.contra ?? [];
  const list = kept.length >= MAX_CONTRA || kept.some((k) => k.p === c.p) ? kept : [...kept, c];
  return rederive({ ...rule, against: rule.against + 1, contradiction: o }, rule.support ?? [], list, limits, o);
}

/**
 * A contradiction taken back: the rewrite failed, and so did the original, alike (a dead link is
 * dead under both names). Two failures agree; they show no difference between the URLs.
 */
export function retract(rule: RuleRecord, source: string, limits: LearningLimits): Transition {
  const kept = rule.contra ?? [];
  const list = kept.filter((c) => c.s !== source);
  if (list.length === kept.length) return { rule, change: undefined };
  return rederive({ ...rule, against: Math.max(0, rule.against - 1) }, rule.support ?? [], list, limits, undefined);
}

/** Support that turned out not to be evidence (a shell body, a not-found page) taken back. */
export function discount(rule: RuleRecord, drop: (s: Support) => boolean, limits: LearningLimits): Transition {
  const kept = rule.support ?? [];
  const list = kept.filter((s) => !drop(s));
  if (list.length === kept.length) return { rule, change: undefined };
  return rederive(rule, list, rule.contra ?? [], limits, undefined);
}

/** An operator's withdrawal: no scope, never learned again. */
export function withdrawByHand(rule: RuleRecord, now: number, limits: LearningLimits): Transition {
  return rederive({ ...rule, manual: true }, rule.support ?? [], rule.contra ?? [], limits, { v: 'against', how: 'operator', source: '', t: now });
}

// ---- applying active rules ------------------------------------------------------------------

export interface ActiveRule {
  readonly id: string;
  readonly spec: RuleSpec;
  /** Where it holds: it rewrites only URLs in these scopes. */
  readonly scopes: readonly Scope[];
}

/**
 * The query kind of a URL for a rule's scope (rule-scope.ts): whether it has a query, or, for a
 * `query-parameter` rule, whether its rewrite keeps one (fields other than the rule's).
 */
export function hasQueryKind(spec: RuleSpec, rec: UriRecord): boolean {
  if (rec.query === undefined) return false;
  if (spec.kind !== 'query-parameter' || !applies(spec, rec)) return true;
  return apply(spec, rec).query !== undefined;
}

/** True when the active rule `r` maps `rec` elsewhere: in its domain and in one of its scopes. */
export function rewrites(r: ActiveRule, rec: UriRecord): boolean {
  return applies(r.spec, rec) && inScope(r.scopes, bareParameterPath(rec.path === '' ? '/' : rec.path), hasQueryKind(r.spec, rec), () => scopeValue(r.spec, rec));
}

/**
 * The value a rule's scope may be limited to (rule-scope.ts `values`): what a parameter rule
 * removes from `rec` (its values, joined by `&`), the case shape of the path for the case rule,
 * the stem kind for a suffix rule, `undefined` for other rules.
 */
export function scopeValue(spec: RuleSpec, rec: UriRecord): string | undefined {
  if (spec.kind === 'case-insensitive') return caseShape(rec.path);
  if (spec.kind === 'suffix') return suffixStemKind(spec, rec.path);
  if (spec.kind !== 'query-parameter' && spec.kind !== 'path-parameter') return undefined;
  return parameterValues(spec.kind === 'query-parameter' ? 'query' : 'path', rec, new Set(parameterNames(spec)));
}

/** Rounds of rule application (each round may move to another host, e.g. after `www-add`). */
const MAX_ROUNDS = 6;

/**
 * The host rules applied to `rec` until nothing changes. `first` is the id of the first rule that
 * changed it. When the rules of the hosts involved map a URL back onto itself (a cycle, which
 * contradictory evidence would soon withdraw), no rule is applied.
 */
export function applyRules(
  rec: UriRecord,
  rulesOf: (host: string) => readonly ActiveRule[] | undefined,
  skip?: string,
  /** Told each rule applied and the URL after it (explain.ts); not told when a cycle undoes them. */
  trace?: (id: string, after: UriRecord) => void,
): { record: UriRecord; first: string | undefined } {
  let cur = rec;
  let first: string | undefined;
  let seen: Set<string> | undefined;
  const steps: [string, UriRecord][] | undefined = trace === undefined ? undefined : [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const host = hostOf(cur);
    const rules = rulesOf(host);
    if (rules === undefined) break;
    let changed = false;
    for (const r of rules) {
      if (r.id === skip || !rewrites(r, cur)) continue;
      cur = apply(r.spec, cur);
      first ??= r.id;
      steps?.push([r.id, cur]);
      changed = true;
      if (hostOf(cur) !== host) break;
    }
    if (!changed) break;
    seen ??= new Set([withoutFragment(rec)]);
    const text = withoutFragment(cur);
    if (seen.has(text)) return { record: rec, first: undefined };
    seen.add(text);
  }
  if (steps !== undefined) for (const [id, after] of steps) trace!(id, after);
  return { record: cur, first };
}
