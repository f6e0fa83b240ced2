/**
 * The crawl's report and timeline as subscribers of its events (crawl-events.ts): the loop emits
 * what happened, these turn it into the report's counters (report.ts) and the timeline's rows and
 * samples (timeline.ts).
 */
import type { RuleRecord, SeenStore, StoreStats } from '../../store/index.js';
import type { CrawlEvents, CrawlObserver } from '../crawl-events.js';
import type { CrawlProgress } from '../crawl-options.js';
import { duplicateLinks } from '../link-intake.js';
import { ReportBuilder, type CrawlReport, type StopReason } from './report.js';
import { TimelineRecorder, type TimelineFigures } from './timeline.js';

/** The report's counters, from the crawl's events. */
export function reportObserver(r: ReportBuilder): CrawlObserver {
  return {
    robots: (e) => {
      r.requests += e.requests;
      r.robotsRequests += e.requests;
      r.redirects += e.redirects;
    },
    requeued: (e) => void (r.retries.requeued += e.urls),
    seeded: (e) => {
      r.admitted += e.admitted;
      r.invalidSeeds = e.invalid;
    },
    transferred: (e) => {
      r.requests += e.requests;
      r.wire += e.wireBytes;
      r.decoded += e.decodedBytes;
    },
    redirected: () => void r.redirects++,
    retried: () => void r.retries.made++,
    refused: (e) => r.error(e.code),
    failed: (e) => {
      r.pagesFetched++;
      if (e.pending) r.retries.pending++;
      if (e.status !== undefined) r.status(e.status);
      r.error(e.code);
    },
    fetched: (e) => {
      r.pagesFetched++;
      r.status(e.status);
      if (e.retried) r.retries.succeeded++;
      if (e.status >= 200 && e.status < 300) {
        r.pagesOk++;
        if (e.contentHash !== undefined) r.document(e.contentHash.slice(0, 16));
      }
      if (e.contentLocation !== undefined) r.resolvedContentLocation(e.contentLocation, e.url);
      if (e.canonical !== undefined) r.canonical(e.canonical, e.url);
    },
    links: ({ tally: t }) => {
      r.found += t.found;
      r.offered += t.offered;
      r.admitted += t.admitted;
      r.forwarded += t.forwarded;
      for (const k in t.refused) r.refuse(k, t.refused[k]);
      for (const k in t.duplicates) r.duplicate(k, t.duplicates[k]);
      for (const k in t.rewrites) r.rewrite(k, t.rewrites[k]);
    },
    trap: (e) => r.trapPattern(e.pattern),
    deferred: (e) => r.defer(e.reason, e.urls),
  };
}

/**
 * The timeline's host rows, rule events and samples, from the crawl's events. `figures` gives the
 * running totals, read after the report's subscriber has counted the same event.
 */
export function timelineObserver(t: TimelineRecorder, figures: () => TimelineFigures): CrawlObserver {
  // documents only grow on `fetched`: the difference since the last one is the page's new documents
  let documents = 0;
  return {
    transferred: (e) => t.host(e.host, { requests: e.requests }),
    refused: (e) => t.host(e.host, { errors: 1 }),
    failed: (e) => t.host(e.host, { errors: 1 }),
    fetched: (e) => {
      const now = figures().documents;
      if (now > documents) t.host(e.host, { documents: now - documents });
      documents = now;
    },
    links: (e) => {
      const duplicates = duplicateLinks(e.tally);
      if (duplicates > 0) t.host(e.host, { duplicates });
    },
    rule: (e) => t.ruleRecord(e.rule),
    sample: (e) => t.sample(e.now, figures()),
  };
}

/** The report and the timeline of one crawl, subscribed to its events. */
export class CrawlRecord {
  readonly report = new ReportBuilder();
  /** What the HTML report draws over time (timeline.ts), from the report's start. */
  readonly timeline = new TimelineRecorder({ start: this.report.started });

  constructor(events: CrawlEvents) {
    // the report first: the timeline reads the totals the report has just counted
    events.subscribe(reportObserver(this.report));
    const r = this.report;
    events.subscribe(timelineObserver(this.timeline, () => ({ requests: r.requests, documents: r.documents, fetched: r.pagesFetched, duplicates: r.duplicatesAvoided })));
  }

  /** The report of the run, its timeline included. */
  build(seeds: readonly string[], reason: StopReason, stats: StoreStats, rules: readonly RuleRecord[], seedStates?: Readonly<Record<string, string>>): CrawlReport {
    return { ...this.report.build(seeds, reason, stats, rules, seedStates), timeline: this.timeline.toJSON() };
  }

  /** The store's frontier and pruned counts as last read for progress. */
  private lastStore = { queued: 0, pruned: 0 };
  private progressTimer: NodeJS.Timeout | undefined;

  /**
   * Give `onProgress` the figures every `intervalMs`, the store's counts read each time (without
   * its per-host lists: a broad crawl has millions of hosts), until `stopProgress`.
   */
  startProgress(store: SeenStore, inFlight: () => number, intervalMs: number, onProgress: (p: CrawlProgress) => void): void {
    const tick = async (): Promise<void> => {
      try {
        const s = await store.stats({ hosts: false });
        this.lastStore = { queued: s.frontier.size, pruned: Object.values(s.pruned).reduce((a, b) => a + b, 0) };
      } catch {
        // the store is closing
      }
      if (this.progressTimer !== undefined) onProgress(this.progress(inFlight()));
    };
    this.progressTimer = setInterval(() => void tick(), intervalMs);
    this.progressTimer.unref();
  }

  stopProgress(): void {
    if (this.progressTimer !== undefined) clearInterval(this.progressTimer);
    this.progressTimer = undefined;
  }

  /** The figures `onProgress` gets: the report's, with the store's last frontier and pruned counts. */
  progress(inFlight: number): CrawlProgress {
    const r = this.report;
    const store = this.lastStore;
    const elapsedMs = Date.now() - r.started;
    return {
      pagesFetched: r.pagesFetched,
      requests: r.requests,
      documents: r.documents,
      queued: store.queued,
      inFlight,
      duplicatesAvoided: r.duplicatesAvoided,
      pruned: store.pruned,
      errors: Object.values(r.errors).reduce((a, b) => a + b, 0),
      pagesPerSecond: elapsedMs > 0 ? Math.round((r.pagesFetched * 10_000) / elapsedMs) / 10 : 0,
      elapsedMs,
    };
  }
}
