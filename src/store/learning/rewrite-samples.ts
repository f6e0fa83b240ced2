/**
 * Which of a rule's rewrites the learner checks after the rule acts (DUSTBuster's validation
 * step, Bar-Yossef, Keidar, Schonfeld, WWW 2007, done online): a checked rewrite is queued to be
 * fetched as itself too and compared with its image (engine/rewrite-checks.ts `rewritten`, learner.ts). Counted
 * per rule since the store was opened; the counts and places are a cache, lost on reopen, where
 * checking starts again from the first rewrites (more checks, never fewer).
 *
 * Two samples, one by count and one by place:
 * - by count: the first `FIRST` rewrites, those where the count reaches a power of two from 8,
 *   and every `EVERY`-th: a rule wrong in a way its places do not show shows it at a sample;
 * - by place: a rewrite in a directory where the rule has neither evidence nor a check yet, when
 *   the directory is the first of its top-level section (where servers mount another
 *   application, `Alias`, a `<Location>` or an `.htaccess` of its own) or one of the first
 *   `SIBLINGS` subdirectories of its parent the rule reaches. Past those, a directory whose
 *   parent and siblings the rule was checked in is sampled by count only: checking every
 *   directory once costs one fetch per rule and directory (on a tree of a hundred directories,
 *   most of what a crawl spends over its floor), where a server's behaviour changes at the
 *   places that configure it, a section or a subtree, not at each leaf directory.
 *
 * A rule that removes a value that recurs (a choice, `?lang=de`, `?order=desc`: rule-scope.ts
 * `Scope.values`) is checked at a pace besides: the rewrites it makes unchecked stay within
 * `e² / PACE`, `e` its evidence (the distinct documents of its support, or those it had first
 * plus the checks since, whichever is more). Its evidence is pages, not the server's code: a
 * choice the server honours on some pages alone (a translation where one exists, the original
 * page where none does) shows on none of the first three pages fetched one time in five when two
 * pages in five have one, and nothing in a URL tells the pages apart (a value the pages offer
 * of themselves, a switcher's, holds at their own paths only: rule-scope.ts; the pace is for one
 * that other pages link). A place says nothing there (any page of a directory may have one or
 * not), so the count is what checks: a rule that rewrote `u` URLs unchecked has been checked
 * about `√(PACE·u)` times. On a rule that holds,
 * from three documents, that costs a share of its rewrites that falls as it grows (6 of the
 * first 15, 34 of 200, 83 of 1,000); on one that does not, a page of the other kind one time in
 * `k` is met within `3k` checks but one time in 20, and its contradiction gives back what the
 * rule pruned.
 */

import { bareParameterPath } from './parameter-difference.js';
import { dirOf } from './rule-scope.js';

/** The first rewrites of each rule that are checked. */
const FIRST = 2;
/** After those, one rewrite in this many (besides powers of two from 8 and new places). */
const EVERY = 128;
/** The subdirectories of a directory where a rule's first rewrite there is checked. */
const SIBLINGS = 2;
/** Directories remembered per rule (past it, only the counts sample). */
const PLACES = 256;
/** A paced rule rewrites at most `e² / PACE` URLs unchecked, `e` its evidence (see above). */
const PACE = 8;

/** What the sampling reads of a rule, when it needs to. */
export interface SampledRule {
  /** The paths of the rule's support. */
  readonly evidence: () => readonly string[];
  /** How the rule spells a place (the case rule folds it); the path itself by default. */
  readonly place?: (path: string) => string;
  /** A rule checked at a pace (its values recur): the distinct documents of its support; undefined for others. */
  readonly paced?: () => number | undefined;
  /** Its first rewrites that are all checked, when more than `FIRST` (a mirror’s: engine/rewrite-checks.ts `sampledRule`). */
  readonly first?: number;
  /** True for a rule checked once in every new directory, not a section's first ones only (rule-scope.ts `checksEveryPlace`). */
  readonly everyPlace?: () => boolean;
}

/** A paced rule's counts (see the module comment). */
interface Pace {
  /** The distinct documents of its support when first read. */
  readonly first: number;
  /** The distinct documents of its support as last read. */
  docs: number;
  /** Its rewrites checked since first read. */
  checks: number;
  /** Its rewrites made unchecked. */
  unchecked: number;
}

/** What one rule's sampling remembers. */
interface RuleSamples {
  /** Rewrites counted. */
  n: number;
  /** True once the rule's evidence is among `places`. */
  seeded: boolean;
  /** Directories with evidence or a checked rewrite, in the rule's spelling of a place. */
  readonly places: Set<string>;
  /** Each directory's subdirectories in `places`. */
  readonly children: Map<string, number>;
  /** First path segments (`/a/`) with a place. */
  readonly sections: Set<string>;
  /** Its pace, when the rule is paced. */
  pace?: Pace;
}

/** A paced rule's evidence: the documents of its support, or those it had first and the checks since. */
function evidenceOf(p: Pace): number {
  return Math.max(p.docs, p.first + p.checks);
}

/** True when a paced rule has made as many rewrites unchecked as its evidence allows (`more` more). */
function behindPace(p: Pace, more = 1): boolean {
  const e = evidenceOf(p);
  return p.unchecked + more > (e * e) / PACE;
}

/** A place spelled as its path. */
const same = (path: string): string => path;
const never = (): boolean => false;

/**
 * The directory a rewritten URL lies in, as the rule spells it: of its path without segment
 * parameters (`/a;jsessionid=1/b` and `/(S(x))/a/b` lie in `/a/`, where their evidence is read:
 * learner.ts `placeOf`). A session id in a segment of its own would make every rewrite a new
 * top-level section, each checked.
 */
function sampledDir(path: string, place: (path: string) => string): string {
  return entryDir(place(bareParameterPath(path)));
}

/** The directory a path lies in: `/a/b.html` and `/a/b/` both in `/a/`. */
export function entryDir(path: string): string {
  return dirOf(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path || '/');
}

/** The directory above `dir` (`/a/b/` → `/a/`; `/` for `/`). */
function parentDir(dir: string): string {
  return dir === '/' ? '/' : entryDir(dir);
}

/** The first segment of `dir` (`/a/b/` → `/a/`; `/` for `/`). */
function sectionOf(dir: string): string {
  const i = dir.indexOf('/', 1);
  return i === -1 ? '/' : dir.slice(0, i + 1);
}

/** The rewrites each rule made, and where: which of them the learner checks. */
export class RewriteSamples {
  private readonly byRule = new Map<string, RuleSamples>();

  /**
   * One more rewrite by rule `via`; true when it is checked. `path` gives the rewritten URL's
   * place (read only when the count does not decide); `rule` what is read of the rule (once per
   * rule, and again after `evidenceChanged`).
   */
  take(via: string, path: () => string, rule: SampledRule): boolean {
    const r = this.of(via, rule);
    const checked = this.sampled(r, path, rule.place ?? same, rule.first ?? FIRST, rule.everyPlace ?? never) || (r.pace !== undefined && behindPace(r.pace));
    if (r.pace !== undefined) {
      if (checked) r.pace.checks++;
      else r.pace.unchecked++;
    }
    return checked;
  }

  /**
   * Of `count` rewrites rule `via` is about to make at once (the queued URLs it prunes when it
   * gains scope), how many its pace wants checked: 0 for a rule not paced.
   */
  checksDue(via: string, count: number, rule: SampledRule): number {
    const r = this.of(via, rule);
    const p = r.pace;
    // the first rewrites a rule wants all checked, less those it made already
    const first = Math.min(count, Math.max(0, (rule.first ?? 0) - r.n));
    if (p === undefined) return first;
    let k = first;
    while (k < count && behindPace({ ...p, checks: p.checks + k }, count - k)) k++;
    return k;
  }

  /** `count` rewrites of rule `via` made unchecked at once (the rest of a pruned batch). */
  uncheckedRewrites(via: string, count: number, rule: SampledRule): void {
    const p = this.of(via, rule).pace;
    if (p !== undefined) p.unchecked += count;
  }

  /** The samples by count and by place of one more rewrite (see the module comment). */
  private sampled(r: RuleSamples, path: () => string, place: (path: string) => string, first: number, every: () => boolean): boolean {
    const n = r.n++;
    if (n < first || (n >= 8 && (n & (n - 1)) === 0) || n % EVERY === 0) {
      // a check by count is a check at its place too: the next rewrite there is not checked again
      if (r.places.size < PLACES) this.remember(r, sampledDir(path(), place));
      return true;
    }
    if (r.places.size >= PLACES) return false;
    return this.newPlace(r, sampledDir(path(), place), every());
  }

  /**
   * A rewrite of rule `via` checked elsewhere (the samples taken when it gains scope), at `path`:
   * it counts as one of the rule's checked rewrites, and its place as a place checked.
   */
  counted(via: string, path: string, rule: SampledRule): void {
    const r = this.of(via, rule);
    r.n++;
    if (r.pace !== undefined) r.pace.checks++;
    if (r.places.size < PLACES) this.remember(r, sampledDir(path, rule.place ?? same));
  }

  /**
   * Rule `via` was written (its evidence may have grown): its evidence is read again at its next
   * rewrite, so a directory where support arrived since is a place with evidence, not a new one.
   */
  evidenceChanged(via: string): void {
    const r = this.byRule.get(via);
    if (r !== undefined) r.seeded = false;
  }

  /** The rules sampled, for a report. */
  get size(): number {
    return this.byRule.size;
  }

  private of(via: string, rule: SampledRule): RuleSamples {
    let r = this.byRule.get(via);
    if (r === undefined) {
      r = { n: 0, seeded: false, places: new Set(), children: new Map(), sections: new Set() };
      this.byRule.set(via, r);
    }
    if (!r.seeded) {
      r.seeded = true;
      const place = rule.place ?? same;
      for (const p of rule.evidence()) this.remember(r, sampledDir(p, place));
      // a rule paced once stays paced: its values recurred, whatever its scopes say now
      const docs = rule.paced?.();
      if (r.pace !== undefined) r.pace.docs = docs ?? r.pace.docs;
      else if (docs !== undefined) r.pace = { first: docs, docs, checks: 0, unchecked: 0 };
    }
    return r;
  }

  /** True when `dir` is a new place the rule is checked at; remembered either way. */
  private newPlace(r: RuleSamples, dir: string, every: boolean): boolean {
    if (r.places.has(dir)) return false;
    const section = sectionOf(dir);
    const firstOfSection = !r.sections.has(section);
    const siblings = dir === '/' ? 0 : (r.children.get(parentDir(dir)) ?? 0);
    this.remember(r, dir);
    return every || firstOfSection || siblings < SIBLINGS;
  }

  private remember(r: RuleSamples, dir: string): void {
    if (r.places.has(dir)) return;
    r.places.add(dir);
    r.sections.add(sectionOf(dir));
    if (dir !== '/') {
      const parent = parentDir(dir);
      r.children.set(parent, (r.children.get(parent) ?? 0) + 1);
    }
  }
}
