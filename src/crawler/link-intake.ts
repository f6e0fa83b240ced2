/**
 * Link intake: a fetched page's links through the crawl's scope, trap and depth rules, then the
 * store's gate (`admit`), every link counted in one bucket of the report.
 *
 * Each link arrives parsed (extract.ts keeps its URL record), so scope and traps read the record's
 * host and path segments; the store's answers (key, identity key, reason, via) label the rest.
 * Only a link the store found seen is compared along the ladder (duplicate-rung.ts).
 */
import { recompose, urlFromKey, type UriRecord } from '../normalize/index.js';
import type { AdmitResult, FrontierEntry, PruneEntry, SeenStore } from '../store/index.js';
import { RungLabeler } from './duplicate-rung.js';
import type { ExtractedLink, ExtractResult } from './extract.js';
import type { ReportBuilder } from './report.js';
import type { CrawlScope } from './scope.js';
import { pathTrap, segmentsTrap, type PatternTraps, type TrapOptions, type TrapReason } from './traps.js';

/** Filter verdicts remembered per normal form (a page's links repeat across pages). */
const FILTER_MEMO_SIZE = 8192;

/** Path traps of a link's record: URL Standard §4.1, the path is a list of segments (or opaque). */
function linkTrap(link: ExtractedLink, traps: TrapOptions | undefined): TrapReason | undefined {
  const path = link.record.path;
  return typeof path === 'string' ? pathTrap(path, traps) : segmentsTrap(path, traps);
}

/**
 * The store's scope filter: URLs the store queues by itself (redirect targets) and every admitted
 * URL pass the crawl's scope and path-trap rules on their normal form; a seed passes whatever they
 * say. The verdict is a function of the normal form and the scope, so it is remembered per normal
 * form while the scope stays the same.
 */
export function storeScopeFilter(
  scope: () => CrawlScope,
  seedForms: ReadonlySet<string>,
  traps: TrapOptions | undefined,
): (record: UriRecord) => boolean {
  let memoScope: CrawlScope | undefined;
  let memo = new Map<string, boolean>();
  const admitsRecord = (record: UriRecord): boolean => {
    const url = recompose(record);
    if (seedForms.has(url)) return true;
    const s = scope();
    if (s !== memoScope) {
      memoScope = s;
      memo = new Map();
    }
    let verdict = memo.get(url);
    if (verdict === undefined) {
      verdict = s.checkNormal(record, url) === 'in' && pathTrap(record.path, traps) === undefined;
      if (memo.size >= FILTER_MEMO_SIZE) memo.clear();
      memo.set(url, verdict);
    }
    return verdict;
  };
  return admitsRecord;
}

/** Scope, traps and depth, then the store's gate, for the links of each page. */
export class LinkIntake {
  constructor(
    private readonly report: ReportBuilder,
    private readonly traps: TrapOptions | undefined,
    private readonly maxDepth: number,
    private readonly patterns?: PatternTraps,
  ) {}

  /**
   * Admit the links of the page `final` (fetched for `entry`); resolves to the new frontier
   * entries (whose URLs are pushed to `admittedUrls` when given) and the duplicates this page's
   * links were: counted here, not as a difference of the report's totals, which pages admitted
   * at the same time also move.
   */
  async admit(store: SeenStore, scope: CrawlScope, entry: FrontierEntry, final: string, x: ExtractResult, admittedUrls?: string[]): Promise<{ admitted: number; duplicates: number }> {
    const r = this.report;
    r.found += x.found;
    r.duplicate('same-page', x.repeated);
    let duplicates = x.repeated;
    r.refuse('other-scheme', x.otherScheme);
    r.refuse('invalid', x.invalid);
    r.refuse('dropped', x.dropped);
    if (x.nofollow) {
      r.refuse('nofollow', x.links.length);
      return { admitted: 0, duplicates };
    }
    const offered: ExtractedLink[] = [];
    // refusals by a trap rule or the depth limit, recorded in the store with their reason (one batch per page)
    const pruned: PruneEntry[] = [];
    const depth = entry.depth + 1;
    for (const link of x.links) {
      const v = scope.checkRecord(link.record, link.url);
      if (v !== 'in') {
        r.refuse(v);
        continue;
      }
      const trap = linkTrap(link, this.traps) ?? (this.patterns?.check(link.url) === undefined ? undefined : 'trap:pattern');
      if (trap !== undefined) {
        r.refuse(trap);
        pruned.push({ url: link.url, reason: trap, depth });
        continue;
      }
      offered.push(link);
    }
    if (depth > this.maxDepth) {
      // Counted, not stored: the depth limit is about the path a link was found by, not the URL,
      // so the same URL found from a shallower page must still be admitted. Path traps are
      // properties of the URL itself and are stored as pruned.
      r.refuse('depth', offered.length);
      if (pruned.length > 0) await store.prune(pruned);
      return { admitted: 0, duplicates };
    }
    if (pruned.length > 0) await store.prune(pruned);
    if (offered.length === 0) return { admitted: 0, duplicates };
    r.offered += offered.length;
    const results = await store.admit(
      offered.map((l) => l.url),
      { depth, source: final },
    );
    let labeler: RungLabeler | undefined;
    let admitted = 0;
    for (let i = 0; i < results.length; i++) {
      const a = results[i]!;
      if (a.admitted) {
        admitted++;
        admittedUrls?.push(a.key === undefined ? a.url : urlFromKey(a.key));
        r.admitted++;
        if (a.via !== undefined) r.rewrite(a.via);
      } else if ((a.reason === 'seen' || a.reason === 'duplicate-in-batch') && a.identityKey !== undefined) {
        // both are found by the URL's own key (RFC rungs): the rung is judged against it
        labeler ??= new RungLabeler(x.base);
        r.duplicate(labeler.label(offered[i]!.raw, a.url, urlFromKey(a.identityKey)));
        duplicates++;
      } else if (this.refusal(a)) duplicates++;
    }
    return { admitted, duplicates };
  }

  /** A link the store did not queue and did not find seen under its own key; true for a duplicate. */
  private refusal(a: AdmitResult): boolean {
    const r = this.report;
    switch (a.reason) {
      case 'seen':
      case 'duplicate-in-batch':
        r.duplicate('exact');
        return true;
      case 'out-of-scope':
        r.refuse('out-of-scope');
        return false;
      case 'forwarded':
        r.forwarded++;
        return false;
      default:
        if (a.reason.startsWith('invalid:')) {
          r.refuse(a.reason);
          return false;
        }
        r.duplicate(a.reason); // alias, rule:<id>, preset:<name>
        return true;
    }
  }
}
