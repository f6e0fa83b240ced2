/**
 * Which of a rule's rewrites the learner checks after the rule acts (DUSTBuster's validation
 * step, Bar-Yossef, Keidar, Schonfeld, WWW 2007, done online): a checked rewrite is queued to be
 * fetched as itself too and compared with its image (admit.ts `rewritten`, learner.ts). Counted
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
 */

import { dirOf } from './rule-scope.js';

/** The first rewrites of each rule that are checked. */
const FIRST = 2;
/** After those, one rewrite in this many (besides powers of two from 8 and new places). */
const EVERY = 128;
/** The subdirectories of a directory where a rule's first rewrite there is checked. */
const SIBLINGS = 2;
/** Directories remembered per rule (past it, only the counts sample). */
const PLACES = 256;

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
   * place (read only when the count does not decide), `evidence` the paths of the rule's support
   * (read once per rule), `place` how the rule spells a place (the case rule folds it).
   */
  take(via: string, path: () => string, evidence: () => readonly string[], place: (path: string) => string = (p) => p): boolean {
    const r = this.of(via, evidence, place);
    const n = r.n++;
    if (n < FIRST || (n >= 8 && (n & (n - 1)) === 0) || n % EVERY === 0) {
      // a check by count is a check at its place too: the next rewrite there is not checked again
      if (r.places.size < PLACES) this.remember(r, entryDir(place(path())));
      return true;
    }
    if (r.places.size >= PLACES) return false;
    return this.newPlace(r, entryDir(place(path())));
  }

  /**
   * A rewrite of rule `via` checked elsewhere (the samples taken when it gains scope), at `path`:
   * it counts as one of the rule's checked rewrites, and its place as a place checked.
   */
  counted(via: string, path: string, evidence: () => readonly string[], place: (path: string) => string = (p) => p): void {
    const r = this.of(via, evidence, place);
    r.n++;
    if (r.places.size < PLACES) this.remember(r, entryDir(place(path)));
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

  private of(via: string, evidence: () => readonly string[], place: (path: string) => string): RuleSamples {
    let r = this.byRule.get(via);
    if (r === undefined) {
      r = { n: 0, seeded: false, places: new Set(), children: new Map(), sections: new Set() };
      this.byRule.set(via, r);
    }
    if (!r.seeded) {
      r.seeded = true;
      for (const p of evidence()) this.remember(r, entryDir(place(p)));
    }
    return r;
  }

  /** True when `dir` is a new place the rule is checked at; remembered either way. */
  private newPlace(r: RuleSamples, dir: string): boolean {
    if (r.places.has(dir)) return false;
    const section = sectionOf(dir);
    const firstOfSection = !r.sections.has(section);
    const siblings = dir === '/' ? 0 : (r.children.get(parentDir(dir)) ?? 0);
    this.remember(r, dir);
    return firstOfSection || siblings < SIBLINGS;
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
