/**
 * Crawler traps: URL spaces a server generates without end (relative links that deepen the path
 * on every page, calendars, session ids in every link). Three rules, each with a name that ends up
 * in the report:
 *
 * - `trap:repeated-segments`: a path segment, or a run of segments, repeated back to back more
 *   than `maxRepeats` times (`/a/b/a/b/a/b/`) — what a relative link like `a/b/` on a page that
 *   is served for any path produces (in the manner of Heritrix's PathologicalPath rule);
 * - `trap:path-depth`: more than `maxPathDepth` segments;
 * - `trap:pattern`: a URL pattern that keeps producing new URLs without new content (below);
 * - `trap:host-budget`: more than `maxPagesPerHost` pages fetched from one host, counted over
 *   every run of the store (the pages it already holds count at the start of a run), so a resume
 *   gets no fresh budget; the rest of that host's frontier is left queued.
 *
 * Pattern traps. Each fetched URL belongs to a few patterns, read off its structure alone (never
 * off names): the path with one segment replaced by `*` (`/cal/*`), the path and query with one
 * parameter's value replaced (`/cal?m=*`), and, for a path of more than one segment, its first
 * segment and everything below (`/a/**`, where relative links that deepen the path stay). An
 * endless space feeds itself: its pages are found on its own pages. So a page counts for a
 * pattern only when the page it was found on is of that pattern too (an item page found on a
 * listing says nothing about `/item/*`). Per pattern the crawl counts those HTML pages fetched
 * and how many of them brought something new: new text (at least `NEW_WORDS` words the host had
 * not shown, digits left out: a page that prints its own date or a token brings none) or a new
 * URL outside the pattern. New words are asked of the patterns of one parameter's value
 * (`/cal?m=*`), where calendars and filters live; under a path pattern (`/p*`, `/a/**`) a text
 * not seen before is new, since a site's numbered pages may differ in their numbers alone. A page whose text is that of a page already fetched (a duplicate under
 * another URL) counts only once that text has been served under `SERVED_MANY` URLs (one page for
 * every path): a duplicate of a known document is evidence for the learner (an alias, a rule),
 * not for a trap, and a subtree full of such duplicates is no endless space. Once `patternMinFetches` counted pages of one pattern
 * brought less than `patternMinNewRatio` of that, further URLs of the pattern are refused as
 * `trap:pattern`: pruned in the store with that reason, so `restore('trap:pattern')` gives them
 * back. A calendar whose pages only link the next and previous month stops there, whatever month
 * each prints; a listing whose pages show other items (other text, new URLs) goes on.
 *
 * Empty runs. The share needs 64 pages to judge; a calendar shows what it is sooner: along a chain
 * of pages of one pattern, each found on the one before, page after page only walks on and adds
 * nothing. A page walks on when, of its links the page it was found on lacked (that page itself
 * aside), at most one is of the pattern and at most one is new to the frontier (previous and next:
 * a site's graph of thin numbered pages, each linking several others, is no chain). It adds
 * nothing when it has no link outside the pattern that the page it was found on did not have (a
 * site's navigation is on every page; an event, a listing's items, are not) and fewer than
 * `NEW_WORDS` new words (digits left out). `patternEmptyRun` such pages in a row on one chain
 * refuse the pattern. A chain that adds something starts its count again, so a listing whose pages
 * link other items (known elsewhere or not) goes on, and a calendar stops a few months either side
 * of the last month that added something. A page's links are remembered for a bounded number of
 * pages (`MAX_TRACED`, as 32-bit hashes); a page whose finding page was forgotten starts a run of
 * its own at zero.
 */

import { hasRepeatedSegments, pathSegments, pathShape } from '../../store/admission-scope.js';

export interface TrapOptions {
  /** Consecutive repeats of a segment or run of segments allowed. @default 2 */
  readonly maxRepeats?: number;
  /** Path segments allowed. @default 20 */
  readonly maxPathDepth?: number;
  /** Pages fetched per host, over all runs of a store. @default 50_000 */
  readonly maxPagesPerHost?: number;
  /** HTML pages of one pattern fetched before it is judged. @default 64 */
  readonly patternMinFetches?: number;
  /** Least share of them that must bring a new text or a new URL outside the pattern. @default 0.1 */
  readonly patternMinNewRatio?: number;
  /** Pages in a row on one chain of a pattern that only walk on and add no link outside it and little text. @default 6 */
  readonly patternEmptyRun?: number;
}

export const defaultTrapOptions = {
  maxRepeats: 2,
  maxPathDepth: 20,
  maxPagesPerHost: 50_000,
  patternMinFetches: 64,
  patternMinNewRatio: 0.1,
  patternEmptyRun: 6,
} as const satisfies Required<TrapOptions>;

export type TrapReason = 'trap:repeated-segments' | 'trap:path-depth' | 'trap:host-budget' | 'trap:pattern';

export { hasRepeatedSegments };

/** Path-shape rules on one URL's path: the trap it falls into, if any. */
export function pathTrap(path: string, options: TrapOptions = {}): TrapReason | undefined {
  return segmentsTrap(pathSegments(path), options);
}

/**
 * `pathTrap` on a path already split into its segments (a URL record's path list, URL Standard
 * §4.1: `/a/b/` is `['a', 'b', '']`).
 */
export function segmentsTrap(segments: readonly string[], options: TrapOptions = {}): TrapReason | undefined {
  const shape = pathShape(segments, options.maxPathDepth ?? defaultTrapOptions.maxPathDepth, options.maxRepeats ?? defaultTrapOptions.maxRepeats);
  return shape === undefined ? undefined : `trap:${shape}`;
}

/** Pages fetched per host, against the budget: those of earlier runs are `preload`ed at the start. */
export class HostBudget {
  private readonly used = new Map<string, number>();
  constructor(readonly maxPagesPerHost: number = defaultTrapOptions.maxPagesPerHost) {}

  /** Count `n` pages fetched from `host` by earlier runs. */
  preload(host: string, n: number): void {
    this.used.set(host, (this.used.get(host) ?? 0) + n);
  }

  /** Take one page from `host`'s budget; false when it is spent. */
  take(host: string): boolean {
    const n = this.used.get(host) ?? 0;
    if (n >= this.maxPagesPerHost) return false;
    this.used.set(host, n + 1);
    return true;
  }

  spent(host: string): boolean {
    return (this.used.get(host) ?? 0) >= this.maxPagesPerHost;
  }
}

/** Segments and parameters read per URL for its patterns (the rest stay literal). */
const MAX_PATTERN_PARTS = 24;

/**
 * The patterns of an absolute URL (fragment ignored), each prefixed by its authority: one per path
 * segment replaced by `*`, one per query parameter with its value replaced by `*`, and `/first/**`
 * for a path of more than one segment.
 */
export function urlPatterns(url: string): string[] {
  const hash = url.indexOf('#');
  const u = hash === -1 ? url : url.slice(0, hash);
  const start = u.indexOf('//');
  const slash = u.indexOf('/', start + 2);
  if (start === -1 || slash === -1) return [];
  const q = u.indexOf('?', slash);
  const authority = u.slice(start + 2, slash);
  const path = q === -1 ? u.slice(slash) : u.slice(slash, q);
  const query = q === -1 ? undefined : u.slice(q + 1);
  const segments = path.split('/').slice(1);
  const tail = query === undefined ? '' : `?${query}`;
  const out: string[] = [];
  for (let i = 0; i < segments.length && i < MAX_PATTERN_PARTS; i++) {
    if (segments[i] === '') continue;
    const s = segments.slice();
    s[i] = '*';
    out.push(`${authority}/${s.join('/')}${tail}`);
  }
  if (query !== undefined) {
    const pairs = query.split('&');
    for (let i = 0; i < pairs.length && i < MAX_PATTERN_PARTS; i++) {
      const eq = pairs[i]!.indexOf('=');
      const p = pairs.slice();
      p[i] = `${eq === -1 ? pairs[i] : pairs[i]!.slice(0, eq)}=*`;
      out.push(`${authority}${path}?${p.join('&')}`);
    }
  }
  if (segments.length > 1) out.push(`${authority}/${segments[0]}/**`);
  return out;
}

interface PatternCount {
  fetched: number;
  fresh: number;
}

/** A fetched page, as its children see it: its links (32-bit hashes) and its empty runs by pattern. */
interface PageTrace {
  readonly links: Set<number>;
  readonly runs: Map<string, number>;
}

/** One fetched HTML page, as the pattern-trap rule reads it. */
export interface ObservedPage {
  /** The URL that answered. */
  readonly url: string;
  /** The frontier entry's URL, when redirects led elsewhere (what its finding page was remembered under). */
  readonly requested?: string;
  readonly host: string;
  /** The hash of its text. */
  readonly textHash: string;
  /** The URLs it added to the frontier. */
  readonly admitted: readonly string[];
  /** Its words (digits left out); without them, any text not seen before counts as new. */
  readonly words?: readonly string[];
  /** Every link it has (absolute URLs); without them, only `admitted` are read. */
  readonly links?: readonly string[];
}

/** Pages whose links are remembered for the pages found on them. */
const MAX_TRACED = 16_384;

/** FNV-1a over UTF-16 code units: a link's identity in a page trace. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Words a page must add to its host's to bring new text. */
export const NEW_WORDS = 6;
/** Words remembered at most, over all hosts (past it, every word counts as new: fewer traps). */
const MAX_WORDS = 2_000_000;

/** URLs one text is served under before a duplicate of it counts as a page without new content. */
const SERVED_MANY = 3;
/** Admitted URLs whose finding page is remembered at most. */
const MAX_SOURCES = 1_000_000;

/** Patterns followed at most (past it, new patterns are not counted: a bound on memory). */
const MAX_PATTERNS = 100_000;
/** Texts remembered at most, over all hosts. */
const MAX_TEXTS = 1_000_000;

/** The patterns of the page (`url` and `requested`, each once) that the page it was found on has too. */
function sharedPatterns(url: string, requested: string, source: readonly [string, string]): string[] {
  const from = urlPatterns(source[0]);
  if (source[1] !== source[0]) from.push(...urlPatterns(source[1]));
  const mine = urlPatterns(url);
  if (requested !== url) mine.push(...urlPatterns(requested));
  const out: string[] = [];
  for (const p of mine) if (from.includes(p) && !out.includes(p)) out.push(p);
  return out;
}

/**
 * For each of `patterns`, whether one of `urls` lies outside it; and, in `inside` when given, how
 * many lie in it. Each URL's patterns are built once and read against the few the page has.
 */
function outsideOf(patterns: readonly string[], urls: readonly string[], inside?: number[]): boolean[] {
  const outside = new Array<boolean>(patterns.length).fill(false);
  for (const u of urls) {
    const ps = urlPatterns(u);
    for (let k = 0; k < patterns.length; k++) {
      if (ps.includes(patterns[k]!)) {
        if (inside !== undefined) inside[k]!++;
      } else outside[k] = true;
    }
  }
  return outside;
}

/** The pattern-trap rule: fetches and fresh fetches per pattern, and the patterns refused. */
export class PatternTraps {
  private readonly counts = new Map<string, PatternCount>();
  /** Host and text hash → URLs served with it. */
  private readonly texts = new Map<string, number>();
  /** The words each host's pages have shown (`MAX_WORDS` in all at most). */
  private readonly words = new Map<string, Set<string>>();
  private wordCount = 0;
  /** An admitted URL → the page it was found on: the URL that answered, and the one requested. */
  private readonly sources = new Map<string, readonly [string, string]>();
  private readonly trappedSet = new Set<string>();
  /** Fetched pages by URL (answered and requested), oldest first. */
  private readonly traces = new Map<string, PageTrace>();
  private readonly minFetches: number;
  private readonly minRatio: number;
  private readonly emptyRun: number;

  constructor(options: TrapOptions = {}) {
    this.minFetches = options.patternMinFetches ?? defaultTrapOptions.patternMinFetches;
    this.minRatio = options.patternMinNewRatio ?? defaultTrapOptions.patternMinNewRatio;
    this.emptyRun = options.patternEmptyRun ?? defaultTrapOptions.patternEmptyRun;
    if (!(this.minFetches >= 1) || !(this.minRatio >= 0 && this.minRatio <= 1) || !(Number.isInteger(this.emptyRun) && this.emptyRun >= 1)) {
      throw new TypeError('traps: patternMinFetches and patternEmptyRun must be integers >= 1 and patternMinNewRatio in [0, 1]');
    }
  }

  /** The patterns refused so far. */
  get trapped(): readonly string[] {
    return [...this.trappedSet];
  }

  /** The first refused pattern `url` belongs to, if any. */
  check(url: string): string | undefined {
    if (this.trappedSet.size === 0) return undefined;
    for (const p of urlPatterns(url)) if (this.trappedSet.has(p)) return p;
    return undefined;
  }

  /** An HTML page fetched (`ObservedPage`). Returns the patterns this fetch made refused. */
  observe(page: ObservedPage): string[] {
    const { url, host, textHash, admitted, words } = page;
    const requested = page.requested ?? url;
    const links = page.links ?? admitted;
    const hashes = links.map(hash32);
    const trace: PageTrace = { links: new Set(hashes), runs: new Map() };
    const source = this.sources.get(requested) ?? this.sources.get(url);
    const parent = this.remember(url, requested, trace, source);
    this.sources.delete(requested);
    this.sources.delete(url);
    const here = [url, requested] as const;
    for (const a of admitted) if (this.sources.size < MAX_SOURCES) this.sources.set(a, here);
    const textKey = `${host} ${textHash}`;
    const served = this.texts.get(textKey) ?? 0;
    if (served > 0 || this.texts.size < MAX_TEXTS) this.texts.set(textKey, served + 1);
    // a duplicate of a page already fetched: the learner's evidence, until one text is everywhere
    if (served > 0 && served < SERVED_MANY) return [];
    let newText = served === 0;
    if (newText && words !== undefined) {
      let fresh = 0;
      let known = this.words.get(host);
      if (known === undefined) this.words.set(host, (known = new Set()));
      for (const w of words) {
        if (known.has(w)) continue;
        fresh++;
        if (this.wordCount < MAX_WORDS) {
          known.add(w);
          this.wordCount++;
        }
      }
      newText = fresh >= NEW_WORDS || this.wordCount >= MAX_WORDS;
    }
    // a page counts for the patterns of the page it was found on (seeds and resumed entries: none),
    // by the URLs requested and by those that answered (a server may redirect every link)
    if (source === undefined) return [];
    const patterns = sharedPatterns(url, requested, source);
    if (patterns.length === 0) return [];
    // for each pattern: an admitted URL outside it; links this page has that the page it was found
    // on had not (that page itself aside), inside it and outside it
    const admittedOutside = outsideOf(patterns, admitted);
    let addedIn: number[] | undefined;
    let addedOutside: boolean[] | undefined;
    if (parent !== undefined) {
      const back0 = hash32(source[0]);
      const back1 = hash32(source[1]);
      const added: string[] = [];
      for (let i = 0; i < links.length; i++) {
        const h = hashes[i]!;
        if (!parent.links.has(h) && h !== back0 && h !== back1) added.push(links[i]!);
      }
      addedIn = new Array<number>(patterns.length).fill(0);
      addedOutside = outsideOf(patterns, added, addedIn);
    }
    const out: string[] = [];
    for (let k = 0; k < patterns.length; k++) {
      const p = patterns[k]!;
      // the empty run along this chain: a step that walks on by one link of the pattern at most
      // (previous and next, as a calendar's months: pages that each link several others of the
      // pattern are a site's graph, not a walk), no link outside the pattern its parent lacked,
      // little text
      const adds = addedIn === undefined || newText || admitted.length > 1 || addedIn[k]! > 1 || addedOutside![k]!;
      const run = adds ? 0 : (parent!.runs.get(p) ?? 0) + 1;
      if (run > 0) trace.runs.set(p, run);
      let c = this.counts.get(p);
      if (c === undefined) {
        if (this.counts.size >= MAX_PATTERNS) continue;
        c = { fetched: 0, fresh: 0 };
        this.counts.set(p, c);
      }
      c.fetched++;
      // new: a new URL outside the pattern, or new text: for a pattern of one parameter's value
      // (`/cal?m=*`, where calendars and filters live) new words, for a path pattern a text not
      // seen before (numbered pages of a site may differ in their numbers alone)
      const isValuePattern = p.indexOf('?') !== -1 && (p.endsWith('=*') || p.includes('=*&'));
      if ((isValuePattern ? newText : served === 0) || admittedOutside[k]!) c.fresh++;
      if (!this.trappedSet.has(p) && ((c.fetched >= this.minFetches && c.fresh < this.minRatio * c.fetched) || run >= this.emptyRun)) {
        this.trappedSet.add(p);
        out.push(p);
      }
    }
    return out;
  }

  /** Keep `trace` under both URLs of the page; the trace of the page it was found on (`source`), if kept. */
  private remember(url: string, requested: string, trace: PageTrace, source: readonly [string, string] | undefined): PageTrace | undefined {
    const parent = source === undefined ? undefined : (this.traces.get(source[0]) ?? this.traces.get(source[1]));
    for (const u of requested === url ? [url] : [url, requested]) {
      this.traces.delete(u);
      this.traces.set(u, trace);
    }
    while (this.traces.size > MAX_TRACED) this.traces.delete(this.traces.keys().next().value!);
    return parent;
  }
}
