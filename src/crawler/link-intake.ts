/**
 * Link intake: a fetched page's links through the crawl's scope, trap and depth rules, then the
 * store's gate (`admit`), every link counted in one bucket of the page's tally (`LinkTally`), which
 * the loop hands to its `links` event (the report subscribes: crawl-observers.ts).
 *
 * Each link arrives parsed (extract.ts keeps its URL record), so scope and traps read the record's
 * host and path segments; the store's answers (key, identity key, reason, via) label the rest.
 * Only a link the store found seen is compared along the ladder (duplicate-rung.ts).
 */
import { urlFromKey } from '../normalize/index.js';
import type { AdmitResult, FrontierEntry, PruneEntry, SeenStore } from '../store/index.js';
import { RungLabeler } from './report/duplicate-rung.js';
import type { ExtractedLink, ExtractResult } from './html/extract.js';
import type { CrawlScope } from './policy/scope.js';
import { pathTrap, segmentsTrap, type PatternTraps, type TrapOptions, type TrapReason } from './policy/traps.js';

/** Path traps of a link's record: URL Standard §4.1, the path is a list of segments (or opaque). */
function linkTrap(link: ExtractedLink, traps: TrapOptions | undefined): TrapReason | undefined {
  const path = link.record.path;
  return typeof path === 'string' ? pathTrap(path, traps) : segmentsTrap(path, traps);
}

/**
 * What became of one page's links, each counted in one bucket: refused before the store (scope,
 * traps, depth, nofollow, invalid), found already known (by the rung or the step that knew it),
 * admitted (and rewritten on the way), or sent to another fleet worker.
 */
export interface LinkTally {
  /** References found in the page (every kind). */
  found: number;
  /** Links offered to the store. */
  offered: number;
  admitted: number;
  forwarded: number;
  /** Links not offered, or refused by the store, by reason. */
  readonly refused: Record<string, number>;
  /** Links found already known, by rung (`same-page`, `exact`, …) or step (`alias`, `rule:<id>`). */
  readonly duplicates: Record<string, number>;
  /** Admitted links a step rewrote, by step. */
  readonly rewrites: Record<string, number>;
}

function bump(counts: Record<string, number>, key: string, n = 1): void {
  if (n > 0) counts[key] = (counts[key] ?? 0) + n;
}

/** The links a tally counts as duplicates. */
export function duplicateLinks(t: LinkTally): number {
  let n = 0;
  for (const k in t.duplicates) n += t.duplicates[k]!;
  return n;
}

/** Scope, traps and depth, then the store's gate, for the links of each page. */
export class LinkIntake {
  constructor(
    private readonly traps: TrapOptions | undefined,
    private readonly maxDepth: number,
    private readonly patterns?: PatternTraps,
  ) {}

  /**
   * Admit the links of the page `final` (fetched for `entry`); resolves to what became of each
   * (the URLs of new frontier entries are pushed to `admittedUrls` when given). The duplicates are
   * this page's links, counted here, not as a difference of the report's totals, which pages
   * admitted at the same time also move.
   */
  async admit(store: SeenStore, scope: CrawlScope, entry: FrontierEntry, final: string, x: ExtractResult, admittedUrls?: string[]): Promise<LinkTally> {
    const t: LinkTally = { found: x.found, offered: 0, admitted: 0, forwarded: 0, refused: {}, duplicates: {}, rewrites: {} };
    bump(t.duplicates, 'same-page', x.repeated);
    bump(t.refused, 'other-scheme', x.otherScheme);
    bump(t.refused, 'invalid', x.invalid);
    bump(t.refused, 'dropped', x.dropped);
    if (x.nofollow) {
      bump(t.refused, 'nofollow', x.links.length);
      return t;
    }
    const offered: ExtractedLink[] = [];
    // refusals by a trap rule or the depth limit, recorded in the store with their reason (one batch per page)
    const pruned: PruneEntry[] = [];
    const depth = entry.depth + 1;
    for (const link of x.links) {
      const v = scope.checkRecord(link.record, link.url);
      if (v !== 'in') {
        bump(t.refused, v);
        continue;
      }
      const trap = linkTrap(link, this.traps) ?? (this.patterns?.check(link.url) === undefined ? undefined : 'trap:pattern');
      if (trap !== undefined) {
        bump(t.refused, trap);
        pruned.push({ url: link.url, reason: trap, depth });
        continue;
      }
      offered.push(link);
    }
    if (depth > this.maxDepth) {
      // Counted, not stored: the depth limit is about the path a link was found by, not the URL,
      // so the same URL found from a shallower page must still be admitted. Path traps are
      // properties of the URL itself and are stored as pruned.
      bump(t.refused, 'depth', offered.length);
      if (pruned.length > 0) await store.prune(pruned);
      return t;
    }
    if (pruned.length > 0) await store.prune(pruned);
    if (offered.length === 0) return t;
    t.offered = offered.length;
    const results = await store.admit(
      offered.map((l) => l.url),
      { depth, source: final },
    );
    let labeler: RungLabeler | undefined;
    for (let i = 0; i < results.length; i++) {
      const a = results[i]!;
      if (a.admitted) {
        t.admitted++;
        admittedUrls?.push(a.key === undefined ? a.url : urlFromKey(a.key));
        if (a.via !== undefined) bump(t.rewrites, a.via);
      } else if ((a.reason === 'seen' || a.reason === 'duplicate-in-batch') && a.identityKey !== undefined) {
        // both are found by the URL's own key (RFC rungs): the rung is judged against it
        labeler ??= new RungLabeler(x.base);
        bump(t.duplicates, labeler.label(offered[i]!.raw, a.url, urlFromKey(a.identityKey)));
      } else refusal(t, a);
    }
    return t;
  }
}

/** A link the store did not queue and did not find seen under its own key, counted. */
function refusal(t: LinkTally, a: AdmitResult): void {
  switch (a.reason) {
    case 'seen':
    case 'duplicate-in-batch':
      bump(t.duplicates, 'exact');
      return;
    case 'out-of-scope':
      bump(t.refused, 'out-of-scope');
      return;
    case 'forwarded':
      t.forwarded++;
      return;
    default:
      // invalid:<code> is a refusal; alias, rule:<id> and preset:<name> found the link known
      if (a.reason.startsWith('invalid:')) bump(t.refused, a.reason);
      else bump(t.duplicates, a.reason);
  }
}
