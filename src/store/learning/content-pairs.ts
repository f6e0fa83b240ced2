/**
 * Content pairs: the URLs whose content, compared with a document just fetched, is evidence about a
 * host rule (RFC 3986 §6.2.4). Both sides of a pair are URLs the host answered as themselves: a
 * URL and its image under a rule, never two variants of one URL (two session ids both answered
 * with one page show nothing about the URL without them).
 *
 * 1. The live rules of the host, both ways: `u` and `R(u)`, and each `p` with `R(p) = u`.
 * 2. A default document and its directory (`/a/index.html` and `/a/`).
 * 3. Parameters: the other documents fetched under the same path (path-documents.ts), where one
 *    is the other with a set of parameters added (parameter-difference.ts); the set is the rule
 *    (a group of tracking tags is one rule).
 * 4. Path variants (path-variants.ts): the documents fetched under a name that differs only in the
 *    last segment's suffix (`.htm`/`.html`, `/a`/`/a.html`, `P`/`P.en`: a `suffix` rule in its
 *    canonical direction) or only in the case of letters (`case-insensitive`).
 */
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { bareParameterPath, parameterDifference } from './parameter-difference.js';
import { foldCase, slashesMergeTo, suffixPair } from './path-variants.js';
import { evidenceKeys, prefixRange, SEP } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { applies, apply, hostOf, mirrorPair, parameterSpec, withHost, parseRuleId, parseSpec, type RuleRecord, type RuleSpec } from '../rules.js';
import { prefixesBeforeCommonTail } from './redirect-explanation.js';
import type { LearnedUrl } from './contract.js';
import type { PathDocuments } from './path-documents.js';
import { recordOfKey } from '../engine/url-state.js';
import { getUrl, type Txn } from '../engine/batch.js';

/** `spec(variant)` = `base`, both to be compared. */
export interface ContentPair {
  readonly variant: string;
  readonly base: string;
  readonly spec: RuleSpec;
  /** A rewritten URL fetched as itself to check the rule (DUSTBuster's validation). */
  readonly sample?: boolean;
  /** Evidence against the rule alone: equal content in this direction supports nothing (`canonicalSuffix`). */
  readonly against?: true;
}

/** Other documents of one path read for parameter pairs. */
const SAME_PATH_SAMPLE = 32;

/** The URLs `p` (other than by parameters) with `spec(p)` = `rec`. */
export function preimages(spec: RuleSpec, rec: UriRecord): UriRecord[] {
  const host = rec.host ?? '';
  let pre: UriRecord | undefined;
  switch (spec.kind) {
    case 'https':
      if (rec.scheme === 'https' && rec.port === undefined) pre = { ...rec, scheme: 'http' };
      break;
    case 'www-add':
      if (host.startsWith('www.')) pre = { ...rec, host: host.slice(4) };
      break;
    case 'www-remove':
      if (!host.startsWith('www.')) pre = { ...rec, host: 'www.' + host };
      break;
    case 'slash-add':
      if (rec.path.length > 1 && rec.path.endsWith('/')) pre = { ...rec, path: rec.path.slice(0, -1) };
      break;
    case 'slash-remove':
      if (rec.path !== '' && !rec.path.endsWith('/')) pre = { ...rec, path: rec.path + '/' };
      break;
    case 'default-document':
      if (rec.path.endsWith('/')) pre = { ...rec, path: rec.path + spec.name };
      break;
    case 'path-prefix':
      if (rec.path.startsWith(spec.to)) pre = { ...rec, path: spec.from + rec.path.slice(spec.to.length) };
      break;
    case 'suffix':
      if (rec.path.endsWith(spec.to)) pre = { ...rec, path: rec.path.slice(0, rec.path.length - spec.to.length) + spec.from };
      break;
    default:
      return []; // parameters: found through the documents of the path (below)
  }
  if (pre === undefined || !applies(spec, pre)) return [];
  const back = apply(spec, pre);
  return keyFromRecord(back) === keyFromRecord(rec) ? [pre] : [];
}

/** The key `spec` maps `rec` onto, or its own key where it does not apply. */
export function imageKey(spec: RuleSpec, rec: UriRecord): string {
  return keyFromRecord(applies(spec, rec) ? apply(spec, rec) : rec);
}

/**
 * True when a URL given back redirected to `to` as its rewrite redirected to `rewriteTo` (the same
 * status checked by the caller): to the same URL, or to the URL rule `id` maps onto it (`/a?utm=1`
 * → 302 → `/a;jsessionid=9?utm=1` beside `/a` → 302 → `/a;jsessionid=9`). The server treats both
 * names alike, as the rule says.
 */
export function sameRedirect(id: string, to: LearnedUrl, rewriteTo: string): boolean {
  if (to.key === rewriteTo) return true;
  const parsed = parseRuleId(id);
  return parsed !== undefined && applies(parsed.spec, to.rec) && keyFromRecord(apply(parsed.spec, to.rec)) === rewriteTo;
}

/**
 * False for a suffix rule whose direction between `from` and `to` is not the one `suffixPair`
 * gives them: equal content shows two names are one document, not which name a rewrite may land
 * on, and the rule language's canonical direction never lands on a name a catch-all route
 * answers. A rule whose pairs cut `.html` from a stem with a `.` of its own (`/a.de.html` →
 * `/a.de`, the negotiated name) collects no content support from pairs of plain stems
 * (`/search.html` and `/search`, whose canonical name is the file's): were it to, it would rewrite
 * every `.html` name onto an extension-less one.
 */
function canonicalSuffix(spec: RuleSpec, from: string, to: string): boolean {
  if (spec.kind !== 'suffix') return true;
  const pair = suffixPair(bareParameterPath(from), bareParameterPath(to));
  return pair !== undefined && pair.from === spec.from && pair.to === spec.to;
}

/** Documents of other names read for path-variant pairs. */
const VARIANT_SAMPLE = 8;

export async function contentPairs(fetched: Pick<PathDocuments, 'documents' | 'variants'>, u: LearnedUrl, rules: readonly RuleRecord[], documents: readonly string[]): Promise<ContentPair[]> {
  const out: ContentPair[] = [];
  // 1. the live rules of the host, both ways (a suffix rule supported only where its direction is
  // the one equal content gives that pair, `canonicalSuffix`)
  for (const rule of rules) {
    const spec = parseSpec(rule.spec);
    if (spec === undefined) continue;
    if (applies(spec, u.rec)) {
      const to = apply(spec, u.rec);
      // a rule acts in the direction it has, whatever equal content would say: a page it sends
      // elsewhere, fetched as itself, refutes it there if the two differ
      out.push(canonicalSuffix(spec, u.rec.path, to.path) ? { variant: u.key, base: keyFromRecord(to), spec } : { variant: u.key, base: keyFromRecord(to), spec, against: true });
    }
    for (const p of preimages(spec, u.rec)) out.push(canonicalSuffix(spec, p.path, u.rec.path) ? { variant: keyFromRecord(p), base: u.key, spec } : { variant: keyFromRecord(p), base: u.key, spec, against: true });
  }
  // 2. a default document and its directory
  const path = u.rec.path;
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (documents.includes(last)) {
    const spec: RuleSpec = { kind: 'default-document', name: last };
    out.push({ variant: u.key, base: keyFromRecord(apply(spec, u.rec)), spec });
  }
  if (path.endsWith('/')) {
    for (const name of documents) out.push({ variant: keyFromRecord({ ...u.rec, path: path + name }), base: u.key, spec: { kind: 'default-document', name } });
  }
  // 3. parameters: other documents fetched under the same path
  const host = hostOf(u.rec);
  let n = 0;
  for (const w of await fetched.documents(host, bareParameterPath(path), SAME_PATH_SAMPLE)) {
    if (w === u.key) continue;
    const wrec = recordOfKey(w);
    const there = parameterDifference(u.rec, wrec);
    if (there !== undefined) out.push({ variant: u.key, base: w, spec: parameterSpec(there.place === 'query' ? 'query-parameter' : 'path-parameter', there.names) });
    const back = parameterDifference(wrec, u.rec);
    if (back !== undefined) out.push({ variant: w, base: u.key, spec: parameterSpec(back.place === 'query' ? 'query-parameter' : 'path-parameter', back.names) });
    if (++n >= SAME_PATH_SAMPLE) break;
  }
  // 3b. the URL without its segment parameters, where the host answers that name only through a
  // redirect to its own session form (`/a` → 302 → `/a;jsessionid=Z`): not a document of its own,
  // so not among those above; the learner compares with the document of that form (content-comparison.ts `compare`)
  const barePath = bareParameterPath(path);
  if (barePath !== path) {
    const b = { ...u.rec, path: barePath };
    const there = parameterDifference(u.rec, b);
    const base = keyFromRecord(b);
    if (there !== undefined && !out.some((x) => x.variant === u.key && x.base === base)) out.push({ variant: u.key, base, spec: parameterSpec('path-parameter', there.names) });
  }
  // 4. path variants: a suffix or the case of letters, of the paths without their segment
  // parameters (a server that redirects every name to its session form, `/A.html` → 302 →
  // `/A.html;jsessionid=1`, answers the document only there: the two spellings' session forms
  // are the names it showed to be one)
  const bare = bareParameterPath(path);
  const folded = foldCase(bare);
  for (const [other, w] of await fetched.variants(host, bare, VARIANT_SAMPLE)) {
    const wrec = recordOfKey(w);
    if (wrec.query !== u.rec.query || hostOf(wrec) !== host || wrec.scheme !== u.rec.scheme) continue;
    const pair = variantPair(u.key, bare, w, other, folded);
    if (pair !== undefined) out.push(pair);
  }
  return out;
}

/**
 * Moved prefixes from content (DUSTBuster's substitution rules, Bar-Yossef et al., WWW 2007):
 * another document of the host with `u`'s body (`others`, read from `evidenceKeys.document`)
 * under a path that is `u`'s with leading segments inserted (`/index.php/a/b` beside `/a/b`,
 * PATHINFO front controllers) gives a `path-prefix` pair that drops them. Only an inserted run:
 * two sibling prefixes (`/3.1/x`, `/3.2/x`) are two versions whose pages often match, and which
 * of them names the document no content can say (a redirect can: rules.ts `explainRedirect`).
 */
export function prefixPairs(u: LearnedUrl, others: readonly string[]): ContentPair[] {
  const out: ContentPair[] = [];
  if (bareParameterPath(u.rec.path) !== u.rec.path) return out;
  for (const w of others) {
    if (w === u.key) continue;
    const wrec = recordOfKey(w);
    if (wrec.query !== u.rec.query || wrec.scheme !== u.rec.scheme || hostOf(wrec) !== hostOf(u.rec) || bareParameterPath(wrec.path) !== wrec.path) continue;
    const [long, short] = u.rec.path.length > wrec.path.length ? [u, { rec: wrec, key: w }] : [{ rec: wrec, key: w }, u];
    // empty segments inserted (`/a//b` beside `/a/b`): one path a server reads with its slashes merged
    const spec: RuleSpec | undefined = slashesMergeTo(long.rec.path, short.rec.path) ? { kind: 'merge-slashes' } : insertedPrefix(long.rec, short.rec.path);
    if (spec !== undefined) out.push({ variant: long.key, base: short.key, spec });
  }
  return out;
}

/** Leading segments dropped, at most, to find a moved prefix's page by its path (`tailsAlike`). */
const TAIL_LEVELS = 3;
/** Documents read per tail. */
const TAIL_SAMPLE = 8;

/**
 * Documents fetched under a tail of `u`'s path (`/a/b` of `/index.php/a/b`, its leading segments
 * dropped, `TAIL_LEVELS` at most) whose stable text is `u`'s and whose bytes are not: a moved
 * prefix on pages that print a token or the time of each response, which no body hash pairs.
 * content-comparison.ts `compare` decides, as for any pair: such text counts as one document only where
 * one URL fetched twice showed that its bytes change and its text does not.
 */
export async function tailsAlike(fetched: PathDocuments, kv: Pick<Kv, 'get'>, txn: Txn, u: LearnedUrl, hash: string, stable: string): Promise<string[]> {
  const path = u.rec.path;
  const out: string[] = [];
  if (bareParameterPath(path) !== path) return out;
  const host = hostOf(u.rec);
  let i = path.indexOf('/', 1);
  for (let n = 0; i !== -1 && n < TAIL_LEVELS; n++, i = path.indexOf('/', i + 1)) {
    for (const w of await fetched.documents(host, path.slice(i), TAIL_SAMPLE)) {
      const e = await getUrl(kv, txn, w);
      if (e?.y === stable && e.c !== hash) out.push(w);
    }
  }
  return out;
}

/**
 * `long` = `from` + rest and `short` = `to` + rest, where `from` is `to` with segments added:
 * the `path-prefix` rule `from` → `to`, when it applies to `long` (not the prefix's own page).
 */
function insertedPrefix(long: UriRecord, short: string): RuleSpec | undefined {
  const heads = prefixesBeforeCommonTail(long.path, short);
  if (heads === undefined) return undefined;
  const { from, to } = heads;
  if (from === to || !from.startsWith(to) || !to.startsWith('/')) return undefined;
  const spec: RuleSpec = { kind: 'path-prefix', from, to };
  return applies(spec, long) ? spec : undefined;
}

/**
 * The pair of two names of one path that differ in the last segment's suffix (a `suffix` rule in
 * its canonical direction) or only in the case of letters (`case-insensitive`, onto the folded
 * name); `undefined` for other names. `folded`: `foldCase(path)`, when the caller has it.
 */
function variantPair(key: string, path: string, otherKey: string, other: string, folded = foldCase(path)): ContentPair | undefined {
  const pair = suffixPair(path, other);
  if (pair !== undefined) {
    const spec: RuleSpec = { kind: 'suffix', ...pair };
    const forward = path.endsWith(pair.from) && other === path.slice(0, path.length - pair.from.length) + pair.to;
    return forward ? { variant: key, base: otherKey, spec } : { variant: otherKey, base: key, spec };
  }
  // one of them is the folded name: the rule maps the other onto it
  if (folded === foldCase(other) && (folded === path || folded === other)) {
    const spec: RuleSpec = { kind: 'case-insensitive' };
    return folded === other ? { variant: key, base: otherKey, spec } : { variant: otherKey, base: key, spec };
  }
  return undefined;
}

/**
 * The pairs a response's `Content-Location` claims (RFC 9110 §8.7: the enclosed representation is
 * the one `at` identifies): a negotiated name and its variant (`/a/b` and `/a/b.en.html`: a suffix
 * rule in its canonical direction), a name and its folded case, a directory and its default
 * document (IIS names `Default.htm` for `/`). Only names of one path, the layouts negotiation and
 * default documents make; never parameters: a route that reports its path without the query
 * (`/list` for `/list?page=2`) is a misconfiguration, not a claim that the query is irrelevant.
 */
export function representationPairs(u: LearnedUrl, at: LearnedUrl, documents: readonly string[]): ContentPair[] {
  if (u.key === at.key || hostOf(u.rec) !== hostOf(at.rec) || u.rec.scheme !== at.rec.scheme || u.rec.query !== at.rec.query) return [];
  const path = u.rec.path;
  const other = at.rec.path;
  if (bareParameterPath(path) !== path || bareParameterPath(other) !== other) return [];
  const variant = variantPair(u.key, path, at.key, other);
  if (variant !== undefined) return [variant];
  const name = (dir: string, file: string): string | undefined => (dir.endsWith('/') && file.startsWith(dir) && documents.includes(file.slice(dir.length)) ? file.slice(dir.length) : undefined);
  const fromDir = name(path, other);
  if (fromDir !== undefined) return [{ variant: at.key, base: u.key, spec: { kind: 'default-document', name: fromDir } }];
  const toDir = name(other, path);
  if (toDir !== undefined) return [{ variant: u.key, base: at.key, spec: { kind: 'default-document', name: toDir } }];
  return [];
}

/**
 * A name a document gave itself elsewhere: the server's `Content-Location` (RFC 9110 §8.7: the
 * representation sent is the one that URL identifies) or the page's `<link rel=canonical>` (RFC
 * 6596: the author's preferred URL for the same content).
 */
export interface RepresentationClaim {
  readonly at: LearnedUrl;
  readonly how: 'content-location' | 'canonical';
}

/** Documents with one body on other hosts read for mirror pairs. */
const MIRROR_SAMPLE = 8;

/**
 * Mirror hosts (`learnMirrors`): the documents with `u`'s body fetched as themselves on other
 * hosts under the same path and query (`evidenceKeys.body`), each a pair for the `mirror` rule of
 * the host with more labels (rules.ts `mirrorPair`). Compared like every pair: a shell or a
 * not-found page shows nothing, an unstable directory is fetched again first. Besides, `u`'s
 * name on each host with a live mirror rule onto `u`'s (`mirrors`): a page fetched there before
 * `u` answered (an edited page of a staging copy) is compared now, whatever its body, and so are
 * its names that redirected to `u`. No pair is made onto a host that is itself a live mirror of
 * another (`isMirror`).
 */
export async function mirrorPairs(kv: Pick<Kv, 'entries'>, u: LearnedUrl, hash: string, mirrors: Iterable<string> = [], isMirror: (host: string) => boolean = () => false): Promise<ContentPair[]> {
  const out: ContentPair[] = [];
  const host = hostOf(u.rec);
  const copies = [...mirrors];
  if (copies.length > 0) {
    // `u` and the names that redirected to it (`/a` answered 302 to `/a;jsessionid=…`): the copy
    // was fetched under the name a link gave, which here redirects
    const names: UriRecord[] = [u.rec];
    const at = u.key + SEP;
    for await (const [k] of kv.entries('aliasrev', { ...prefixRange(at), limit: MIRROR_SAMPLE })) {
      const rec = recordOfKey(k.slice(at.length));
      if (hostOf(rec) === host) names.push(rec);
    }
    for (const m of copies) for (const rec of names) out.push({ variant: keyFromRecord(withHost(rec, m)), base: u.key, spec: { kind: 'mirror', host } });
  }
  const prefix = evidenceKeys.bodyPrefix(hash);
  let n = 0;
  for await (const [k] of kv.entries('evidence', { ...prefixRange(prefix), limit: MIRROR_SAMPLE })) {
    const w = k.slice(prefix.length);
    const wrec = recordOfKey(w);
    const other = hostOf(wrec);
    if (other === host || wrec.path !== u.rec.path || wrec.query !== u.rec.query || wrec.scheme !== u.rec.scheme) continue;
    const pair = mirrorPair(host, other);
    // never onto a copy of a third host (a mirror and a staging copy of one site): the pair with
    // that host, whose document has this body too, is the one made; a check of a rewrite onto the
    // copy would find the copy's page pruned, and compare nothing
    if (pair !== undefined && pair.spec.kind === 'mirror' && isMirror(pair.spec.host)) continue;
    if (pair !== undefined) out.push(pair.from === host ? { variant: u.key, base: w, spec: pair.spec } : { variant: w, base: u.key, spec: pair.spec });
    if (++n >= MIRROR_SAMPLE) break;
  }
  return out;
}
