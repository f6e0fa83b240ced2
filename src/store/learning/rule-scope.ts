/**
 * Rule scope: the part of a host's URL space where a learned rule holds (RFC 3986 §6.2.4 learned
 * from evidence). A rule is not a fact about a host but about the places its evidence lies: three
 * directory redirects under `/docs/` say nothing about `/api/`.
 *
 * This is the pattern tree of Lei et al. ("A pattern tree-based approach to learning URL
 * normalization rules", WWW 2010), learned online: the tree is the host's path hierarchy, each
 * supporting observation sits at the path of its source URL, and a node holds the rule when
 *
 * 1. it has at least `threshold` supporting observations from distinct documents (two variants of
 *    one page, or one error or shell body served under many URLs, count once);
 * 2. it is an exact path (`=/search`: evidence from several queries of one path), or a directory
 *    whose evidence spreads over at least two of its entries (a directory never inherits a rule
 *    from one child: the scope grows with its support); a directory whose evidence all lies in
 *    its own files holds the rule for its own files only (`/docs/*`), not for its subdirectories:
 *    three pages of `/` say nothing of `/archive/`, where a moved section or another application
 *    may answer;
 * 3. for a parameter rule whose values repeat, it holds for the values with the threshold of
 *    documents each (`VALUE_SHARE`); where one path was seen with two of its values (a choice the
 *    page offers: a sort order, a language), only at the exact paths of its evidence;
 *    A value that recurs and was contradicted anywhere on the host is such a choice too (a
 *    translation served where one exists, the original page where none does): it holds at the
 *    exact paths of its evidence only;
 * 4. its contradictions weigh less than its support: none was observed at or under it, or its
 *    distinct documents number at least `CONTRADICTION_WEIGHT` times the places contradicted
 *    under it, and then those places (each the path of a contradicted URL, and what lies under
 *    it) are excepted from the scope.
 *
 * The scopes of a rule are the maximal nodes that hold it (a node in a place a wider scope
 * excepts is not covered by it, and keeps its own scope). A contradiction excepts the smallest
 * place that holds it (its path; its directory where no support lies there or below, as it is
 * then all the evidence of that directory) from a scope whose support outweighs it, and removes the scopes
 * whose support does not (the rule is narrowed); a rule with no scope left after a contradiction
 * is withdrawn. One wrong rewrite among many right ones costs the rule that path, not the host.
 * A scope also records whether any of its evidence had a query: a rule seen only on query-less
 * URLs (`/dir` → `/dir/`) is not applied to `/login?next=…`; and, for the rules whose evidence has
 * a kind of value (a parameter's values, a path's case shape), the values it was shown for.
 */
import { looksMinted } from '../../normalize/index.js';
import { CASE_FOLDED, caseProbePlace } from './path-variants.js';

/** One supporting observation, as kept in a rule's record. */
export interface Support {
  /** The path of the source URL (normal form). */
  readonly p: string;
  /** The document it shows: a content hash, or the target key of a redirect. */
  readonly d: string;
  /**
   * The source URL had a query; for a parameter rule, its rewrite still has one (other fields
   * than the rule's): evidence from `/list?sid=1` says nothing of `/list?page=2&sid=1`.
   */
  readonly q?: boolean;
  /** The source URL's key. */
  readonly s: string;
  /** Content evidence: the key of the other document compared (the source's image under the rule). */
  readonly t?: string;
  /**
   * A parameter rule's evidence: the value(s) it removed from the source URL; the case rule's: the
   * source path's case shape, or `folded` for a case probe's redirect (path-variants.ts).
   */
  readonly v?: string;
  /**
   * A recurring value's evidence whose source URL was first linked from a page of its own path:
   * a variant that page offers of itself (a language switcher, a sort link).
   */
  readonly o?: true;
}

/**
 * True for a rule that maps one tree of pages onto another on content alone: a mirror host, or a
 * path prefix no redirect supports (a language prefix whose untranslated pages serve the
 * original, WPML's "Display as translated"; a copy under a second prefix). Such trees may differ
 * page by page where nothing in a URL tells (a translated page, a page edited on a staging copy),
 * so one contradiction withdraws the rule everywhere (rules.ts `rederive`) and its checks keep
 * pace with its rewrites (engine/rewrite-checks.ts `sampledRule`). A prefix the server moved says so itself: its
 * redirects are its support. Nor is a prefix that differs from its target by empty segments only
 * (`//` onto `/`, `/a//` onto `/a/`) a second tree: it is one path read by a server that merges
 * slashes (nginx `merge_slashes`, on by default; Apache `MergeSlashes`, on by default since 2.4.39;
 * a file system's path lookup), one parse for every page, which no page can be edited apart from.
 */
export function readsAsCopy(spec: string, support: readonly Support[]): boolean {
  if (spec.startsWith('mirror:')) return true;
  return spec.startsWith('path-prefix:') && learnedOnContent(support) && !mergesSlashes(spec.slice('path-prefix:'.length));
}

/** True for support that is content alone: pages read alike under two names, no redirect among them. */
export function learnedOnContent(support: readonly Support[]): boolean {
  return support.length > 0 && support.every((s) => s.t !== undefined);
}

/**
 * True for a rule whose every new directory is checked once, not a sample of them: a default
 * document learned on content alone. A server that answers a directory with the first of several
 * index files (Apache `DirectoryIndex index.php index.html`) may keep a stale `index.html` in any
 * directory an application was added to since, linked from older pages; nothing in a URL tells
 * which, and the rule has one rewrite per directory, so a sample of directories prunes the others
 * unseen (simulator seed 91097: two stale indexes lost with `stale-index` alone). A redirect onto
 * the directory (nginx: a permanent rewrite of each `index.html` onto its directory) is the
 * server's own word.
 */
export function checksEveryPlace(spec: string, support: readonly Support[]): boolean {
  return spec.startsWith('default-document:') && learnedOnContent(support);
}

/** True for a prefix pair `FROM>TO` whose `FROM` is `TO` with slashes doubled (`/a//>/a/`). */
function mergesSlashes(pair: string): boolean {
  const gt = pair.indexOf('>');
  const from = pair.slice(0, gt);
  const to = pair.slice(gt + 1);
  return gt > 0 && from !== to && from.replace(/\/{2,}/g, '/') === to;
}

/**
 * The support a rule's scopes are read from. The case rule leaves out a redirect of a `word`-shaped
 * name (`/FAQ.html` → `/faq.html`, path-variants.ts `caseShape`): a server that corrects the names
 * it lacks (Apache mod_speling: case ignored, one misspelling allowed) redirects those and answers
 * the names it holds, a capitalized twin beside its lower-case namesake among them. Only two names
 * answered alike (a file system that folds case, where no twin can be) show it for such names, or
 * a place where the host redirected a name it cannot have to its lower-case form (a case probe,
 * case-probe.ts: an "enforce lowercase" rewrite, which redirects every capitalized name before a
 * file is looked up); a `mixed` name (`/quicK-Start.html`) is nobody's twin, and a redirect of one
 * counts. A case probe's own redirect shows no document and is not counted.
 */
export function scopeEvidence(spec: string, support: readonly Support[]): readonly Support[] {
  if (spec !== 'case-insensitive') return support;
  let folded: Set<string> | undefined;
  for (const s of support) if (s.v === CASE_FOLDED) (folded ??= new Set()).add(caseProbePlace(s.p));
  return support.filter((s) => s.t !== undefined || (s.v !== 'word' && s.v !== CASE_FOLDED) || (s.v === 'word' && folded?.has(caseProbePlace(s.p)) === true));
}

/** Where a contradiction was observed: the path of the URL it was about. */
export interface ContradictionSite {
  readonly p: string;
  /** The URL's key. */
  readonly s: string;
  /** A parameter rule's contradiction: the value(s) the URL carried (as `Support.v`). */
  readonly v?: string;
}

/** A node of the path tree that holds a rule. */
export interface Scope {
  /** A directory (`/topics/`, covering every path under it) or an exact path (`=/search`). */
  readonly at: string;
  /** A directory whose evidence lies in its own files only: it covers those, not its subdirectories. */
  readonly flat?: true;
  /** Distinct documents supporting it. */
  readonly docs: number;
  /** Some of its evidence had a query: the rule applies to URLs with a query too. */
  readonly query: boolean;
  /** Paths contradicted under it (each with what lies under it), where the rule does not hold. */
  readonly except?: readonly string[];
  /**
   * A parameter rule whose values repeat (a choice, not an id): the values it holds for, each
   * shown by its own documents. The case rule: the case shapes it holds for (`word`, `mixed`:
   * path-variants.ts `caseShape`), each shown by its own documents. Absent: any value.
   */
  readonly values?: readonly string[];
}

/**
 * A parameter rule holds for any value where the values it removed vary with its documents (at
 * least the threshold, and this share of the documents): a session id, a click id, a campaign
 * tag has a value of its own on nearly every URL. Where a few values repeat (`sort=asc|desc`,
 * `lang=en|de`, one fixed `ref=toc`), each value is a choice the server may honour on pages not
 * seen yet, though the pages seen could not show it (a listing of one item reads the same in
 * either order): the rule holds for the values that have the threshold of documents of their own.
 */
export const VALUE_SHARE = 0.75;

/**
 * How many distinct documents of support one contradicted place under a node weighs as much as.
 * Support far outweighing it: the rule keeps the node, less that place; otherwise the node goes.
 */
export const CONTRADICTION_WEIGHT = 8;

/**
 * The value of a parameter rule's evidence as its scope counts it: a minted one (a session or
 * click id) is its path's own. A server may hand two paths one id (an id derived from the path, a
 * session shared by two redirects), which would make it look like a value that recurs, a choice.
 */
function valueKey(s: Support): string {
  return looksMinted(s.v!) ? `${s.v}\u0000${s.p}` : s.v!;
}

/**
 * What the values of a parameter rule's evidence are counted against, to tell an id from a choice
 * (`VALUE_SHARE`): its document, or for a minted value its path, of which it is the value. A
 * server's id for a path (a servlet's `;jsessionid=` made from it) is one value for every
 * document there: the twenty pages of one listing under one id are one path's id, not a value
 * that recurs over twenty documents.
 */
function valueContext(s: Support): string {
  return s.v !== undefined && looksMinted(s.v) ? `p${s.p}` : `d${s.d}`;
}

/** True when an exception of a scope (a contradicted path) covers `path`. */
function excepted(except: readonly string[] | undefined, path: string): boolean {
  if (except === undefined) return false;
  for (const e of except) if (path === e || path.startsWith(e.endsWith('/') ? e : e + '/')) return true;
  return false;
}

/** The directory a path lies in (`/a/b` → `/a/`; `/` for a path without one). */
export function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1) || '/';
}

/** True when the scope node `at` covers `path`. */
export function covers(at: string, path: string): boolean {
  return at.charCodeAt(0) === 0x3d /* = */ ? path === at.slice(1) : path.startsWith(at);
}

/** True when `path` lies in the directory `at` itself: no `/` after it but a trailing one (`/a/b` or `/a/b/` in `/a/`). */
function ownEntry(at: string, path: string): boolean {
  const slash = path.indexOf('/', at.length);
  return slash === -1 || slash === path.length - 1;
}

/** True when the scope covers `path`: its node does, and a flat directory only its own entries. */
export function scopeCovers(s: Pick<Scope, 'at' | 'flat'>, path: string): boolean {
  return covers(s.at, path) && (s.flat !== true || ownEntry(s.at, path));
}

/** True when a rule with these scopes applies to a URL with this path (and a query or not). */
export function inScope(scopes: readonly Scope[], path: string, hasQuery: boolean, value?: () => string | undefined): boolean {
  for (const s of scopes) {
    if ((!hasQuery || s.query) && scopeCovers(s, path) && !excepted(s.except, path) && (s.values === undefined || (value !== undefined && s.values.includes(value() ?? '')))) return true;
  }
  return false;
}

interface Node {
  readonly docs: Set<string>;
  /** What its values are counted against (`valueContext`). */
  readonly contexts: Set<string>;
  readonly entries: Set<string>;
  /** Some of its evidence lies in a subdirectory. */
  deep: boolean;
  /** A parameter rule's values, each with its documents. */
  readonly values: Map<string, Set<string>>;
  query: boolean;
}

/**
 * The scopes that hold a rule with this evidence (see the module comment), widest first. With
 * `kinds`, the values are kinds of path (a suffix rule's stem kind, a case rule's shape): a kind
 * is a class of names, never an id, so kinds that vary with the documents do not make the rule
 * hold for every kind, as varying parameter values do; it holds for the kinds with the threshold
 * of documents each. (`/os.path.html` and `/os.path` one document, `/logging.config.html` and
 * `/logging.config` another: each stem kind once, `dotted.path`, `dotted.config`, and nothing
 * said of `/aifc.html`, whose `/aifc` a negotiating server need not answer.)
 */
export function activeScopes(support: readonly Support[], against: readonly ContradictionSite[], threshold: number, kinds = false): Scope[] {
  const nodes = new Map<string, Node>();
  const add = (at: string, s: Support, entry: string, deep = false): void => {
    let n = nodes.get(at);
    if (n === undefined) nodes.set(at, (n = { docs: new Set(), contexts: new Set(), entries: new Set(), values: new Map(), query: false, deep: false }));
    n.docs.add(s.d);
    n.contexts.add(valueContext(s));
    n.entries.add(entry);
    if (deep) n.deep = true;
    if (s.v !== undefined) {
      const v = valueKey(s);
      let docs = n.values.get(v);
      if (docs === undefined) n.values.set(v, (docs = new Set()));
      docs.add(s.d);
    }
    if (s.q === true) n.query = true;
  };
  for (const s of support) {
    const path = s.p === '' ? '/' : s.p;
    add('=' + path, s, '');
    // every ancestor directory, with the entry of the path directly under it
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
      const rest = path.slice(i + 1);
      const slash = rest.indexOf('/');
      add(path.slice(0, i + 1), s, slash === -1 ? rest : rest.slice(0, slash), slash !== -1 && slash < rest.length - 1);
    }
  }
  // a parameter one page was seen with under two values is a choice that page offers (a sort
  // order, a language): where it changes nothing (a listing of one item) it shows nothing about
  // other pages, so such a rule holds only at the exact paths of its evidence
  // (a session id seen twice on one page is no choice: its values do not repeat; nor is one
  // whose id repeats on other pages, a server's id for a path, beside a link's own: a choice
  // is two values of one page that each recur on other pages, as `asc` and `desc` do)
  const valuesAt = new Map<string, Set<string>>();
  const pathsOf = new Map<string, Set<string>>();
  const allValues = new Set<string>();
  const allContexts = new Set<string>();
  for (const s of support) {
    if (s.v === undefined) continue;
    const v = valueKey(s);
    let vs = valuesAt.get(s.p);
    if (vs === undefined) valuesAt.set(s.p, (vs = new Set()));
    vs.add(v);
    let ps = pathsOf.get(v);
    if (ps === undefined) pathsOf.set(v, (ps = new Set()));
    ps.add(s.p);
    allValues.add(v);
    allContexts.add(valueContext(s));
  }
  let twoAtOnePath = false;
  for (const vs of valuesAt.values()) {
    if (vs.size < 2) continue;
    let recurring = 0;
    for (const v of vs) if (pathsOf.get(v)!.size > 1) recurring++;
    if (recurring >= 2) {
      twoAtOnePath = true;
      break;
    }
  }
  const choice = twoAtOnePath && allValues.size < Math.max(threshold, Math.ceil(VALUE_SHARE * allContexts.size));
  // a value that recurs (not minted) and was contradicted anywhere on the host is a choice the
  // server honours on some pages and not on others (a translation where one exists, the
  // original page where none does; a sort order on long listings alone): the pages where it
  // changed nothing say nothing of the pages not fetched yet, beside them in any directory, so
  // the value holds at the exact paths of its evidence only
  const pageChoices = new Set<string>();
  if (!kinds) for (const c of against) if (c.v !== undefined && !looksMinted(c.v)) pageChoices.add(c.v);
  // so is a recurring value that the pages of its evidence offered of themselves (links to
  // `/a?lang=de` first met on `/a`, to `/list?order=desc` on `/list`: a language switcher, a sort
  // link): a choice each page offers, which each answers its own way, a translation where one
  // exists. Most of them, not all: a page served under a second name (a negotiated `/a.en.html`)
  // offers it too. A value other pages link first (a tag a site puts on its links) is not one
  if (!kinds) {
    const offered = new Map<string, [number, number]>();
    for (const s of support) {
      if (s.v === undefined || looksMinted(s.v)) continue;
      const n = offered.get(s.v) ?? [0, 0];
      offered.set(s.v, [n[0] + (s.o === true ? 1 : 0), n[1] + 1]);
    }
    for (const [v, [own, all]] of offered) if (2 * own > all) pageChoices.add(v);
  }
  // a contradiction's place: its path; or where no support lies in its directory or below, that
  // directory, where it is the only evidence there is (a folder of old names, each a page of its
  // own, beside a host whose other folders hold the rule: each old name contradicted one by one
  // would leave the next one pruned)
  const supported = new Set<string>();
  for (const s of support) for (let d = dirOf(s.p === '' ? '/' : s.p); d !== '/'; d = dirOf(d.slice(0, -1))) supported.add(d);
  const placeOf = (c: ContradictionSite): string => {
    const path = c.p === '' ? '/' : c.p;
    const dir = dirOf(path);
    return dir === '/' || supported.has(dir) ? path : dir;
  };
  const holding: Scope[] = [];
  for (const [at, n] of nodes) {
    if (choice && at.charCodeAt(0) !== 0x3d) continue;
    if (n.docs.size < threshold) continue;
    if (at.charCodeAt(0) !== 0x3d && n.entries.size < 2) continue;
    const places = [...new Set(against.map(placeOf).filter((p) => covers(at, p)))].sort();
    if (places.length > 0 && (n.docs.size < CONTRADICTION_WEIGHT * places.length || places.includes(at) || at.charCodeAt(0) === 0x3d)) continue;
    let values: string[] | undefined;
    if (n.values.size > 0 && (kinds || n.values.size < Math.max(threshold, Math.ceil(VALUE_SHARE * n.contexts.size)))) {
      values = [...n.values].filter(([v, docs]) => docs.size >= threshold && (at.charCodeAt(0) === 0x3d || !pageChoices.has(v))).map(([v]) => v).sort();
      if (values.length === 0) continue;
    }
    const flat = at.charCodeAt(0) !== 0x3d && !n.deep;
    holding.push({ at, ...(flat ? { flat: true as const } : {}), docs: n.docs.size, query: n.query, ...(places.length === 0 ? {} : { except: places }), ...(values === undefined ? {} : { values }) });
  }
  // the maximal nodes: drop those a holding directory covers (shortest, i.e. widest, first); a
  // directory's query flag is the union of its subtree's, so the wider never covers fewer URLs
  holding.sort((a, b) => a.at.length - b.at.length || (a.at < b.at ? -1 : 1));
  const out: Scope[] = [];
  for (const s of holding) {
    const path = s.at.charCodeAt(0) === 0x3d ? s.at.slice(1) : s.at;
    // (a place a wider scope excepts is not covered by it: a node there that holds on its own
    // evidence stays, `/library/` beside `/` less `/library`, a name that redirected to it)
    if (out.some((o) => o.at.charCodeAt(0) !== 0x3d && scopeCovers(o, path) && (o.flat !== true || s.at.charCodeAt(0) === 0x3d) && !excepted(o.except, path))) continue;
    out.push(s);
  }
  return out;
}

/**
 * The supporting observations a rule keeps, `s` offered: all of them up to `max`; past it, one of
 * a new document takes the place of the oldest of the document kept most often. A scope weighs
 * distinct documents (`activeScopes`), and the first observations of a session rule are many
 * names of the few pages linked from every page (the home page under 30 session ids): kept
 * first come, first served, they would hold its support at those few documents, and two
 * contradictions would outweigh 952 observations for it.
 */
export function keptSupport(kept: readonly Support[], s: Support, max: number): readonly Support[] {
  if (kept.length < max) return [...kept, s];
  const perDoc = new Map<string, number>();
  for (const k of kept) perDoc.set(k.d, (perDoc.get(k.d) ?? 0) + 1);
  if (perDoc.has(s.d)) return kept;
  let most: string | undefined;
  let count = 1;
  for (const [d, n] of perDoc) if (n > count) [most, count] = [d, n];
  if (most === undefined) return kept;
  const at = kept.findIndex((k) => k.d === most);
  return [...kept.slice(0, at), ...kept.slice(at + 1), s];
}

/** Scopes as text for people: `/topics/`, `/topics/*` (its own files) or `=/search`, with ` +query` when queries are covered. */
export function formatScopes(scopes: readonly Scope[]): string {
  return scopes.length === 0 ? '(none)' : scopes.map((s) => `${s.at}${s.flat === true ? '*' : ''}${s.query ? ' +query' : ''}${s.values === undefined ? '' : ` =${s.values.join('|')}`}${s.except === undefined ? '' : s.except.map((e) => ` -${e}`).join('')}`).join(', ');
}
