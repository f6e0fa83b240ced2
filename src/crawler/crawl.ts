/**
 * The crawl worker: the loop that turns a frontier into fetched pages.
 *
 *     store.next ─► still queued? ─► gates (fetch-gates.ts): scope, host budget, guard (scheme,
 *       literal address), robots.txt (per origin, cached), page cap ─► politeness slot ─► fetch
 *            └ each redirect hop: store.recordRedirect; followed at once only when its target
 *              passes the same gates and is a queued URL of the same origin no other task holds
 *       ─► extract links (HTML only, each parsed once) ─► scope, traps, depth ─► store.admit
 *          (link-intake.ts: dedup by the ladder, aliases, rules, presets; a tally per page)
 *       ─► store.recordFetch (status, content hash)
 *
 * This module is the claim/fetch loop, and it only emits what happens (crawl-events.ts): the report
 * and the timeline subscribe (crawl-observers.ts). Its parts are built in crawl-parts.ts, the run
 * starts in crawl-start.ts (store, requeue, seeds), entries come from frontier-pump.ts, paused
 * hosts and retries wait in held-entries.ts, redirect hops go through follow-redirect.ts, a fetch's
 * answer becomes a record, links and a page in fetch-outcome.ts (a page's links through
 * link-intake.ts), and the options and page types live in crawl-options.ts.
 *
 * The frontier lives in the store, so a stopped or killed crawl resumes where it was: entries are
 * removed in the batch that records their fetch, so nothing recorded as fetched is offered again.
 * A page's links are admitted before its fetch is recorded, so a kill between the two batches
 * costs one re-fetch of the page, never its links.
 * `stop()` (SIGINT, SIGTERM in the CLI) takes no new work, lets in-flight fetches finish and be
 * recorded, then closes the store; `abort()` also aborts in-flight fetches (they stay queued).
 */
import { setMaxListeners } from 'node:events';
import { pino, type Logger } from 'pino';
import { tryNodeUrl } from '../normalize/parse-count.js';
import type { FrontierEntry, SeenStore } from '../store/index.js';
import { CrawlEvents } from './crawl-events.js';
import { CrawlRecord } from './report/crawl-observers.js';
import { crawlParts } from './crawl-parts.js';
import { openStoreOf, prepareRun, seedForms, type CrawlStart } from './crawl-start.js';
import { checkCrawlOptions, defaultCrawlOptions, type CheckedCrawlOptions, type Crawl, type CrawledPage, type CrawlOptions, type CrawlProgress } from './crawl-options.js';
import { finishRun } from './crawl-finish.js';
import type { ExtractResult } from './html/extract.js';
import type { Fetcher, FetchResult } from './http/fetch.js';
import type { RedirectContext } from './follow-redirect.js';
import { FetchOutcome } from './http/fetch-outcome.js';
import { FrontierPump } from './frontier-pump.js';
import { HeldEntries } from './held-entries.js';
import { fetchGates, passGates, redirectGates, type Gate, type GateContext, type GateDeps } from './policy/fetch-gates.js';
import { LinkIntake } from './link-intake.js';
import { crawledPage, PageChannel } from './page-channel.js';
import { fetchPage, type PageFetchDeps } from './page-fetch.js';
import type { Politeness } from './policy/politeness.js';
import type { CrawlReport, StopReason } from './report/report.js';
import type { RobotsCache } from './policy/robots.js';
import type { CrawlScope } from './policy/scope.js';
import type { HostBudget, PatternTraps } from './policy/traps.js';

export { defaultCrawlOptions, type Crawl, type CrawledPage, type CrawlOptions, type CrawlProgress } from './crawl-options.js';
export { rungOf } from './report/duplicate-rung.js';

/**
 * Where the crawl is: `starting` (opening the store, admitting the seeds; a `stop()` now is kept
 * in `stopReason` and taken when the start ends), `running` (the pump takes entries), `stopping`
 * (no new work; in-flight fetches finish and are recorded), `done` (the report is built).
 */
type CrawlPhase = 'starting' | 'running' | 'stopping' | 'done';

class Crawler implements Crawl {
  readonly done: Promise<CrawlReport>;
  private resolveDone!: (r: CrawlReport) => void;
  private rejectDone!: (e: unknown) => void;
  private readonly log: Logger;
  private store!: SeenStore;
  private ownsStore = false;
  private readonly fetcher: Fetcher;
  private readonly politeness: Politeness;
  private readonly robots: RobotsCache | undefined;
  private scope: CrawlScope;
  private readonly budget: HostBudget;
  /** URL patterns that keep producing URLs without new content (traps.ts). */
  private readonly patterns: PatternTraps;
  /** What the loop reports: the report and the timeline subscribe (crawl-observers.ts). */
  private readonly events = new CrawlEvents();
  private readonly record = new CrawlRecord(this.events);
  /** What a fetch's answer becomes (fetch-outcome.ts). */
  private readonly outcome: FetchOutcome;
  /** What one fetch reads of the crawl (page-fetch.ts). */
  private readonly pageFetch: PageFetchDeps;
  private readonly aborter = new AbortController();
  /** Keys a task is fetching (its frontier entry, or a redirect target it follows). */
  private readonly claimed = new Set<string>();
  /** Keys fetched as the target of a followed redirect in this run (their frontier entry may be in hand too). */
  private readonly followed = new Set<string>();
  /** The redirect gate's view of the crawl, once the store is open and the scope known. */
  private redirects!: RedirectContext;
  /** Paused hosts' entries and entries waiting for a retry. */
  private readonly held: HeldEntries;
  /** Entries handed out but not fetched (stopped, max-pages): given back at the end. */
  private readonly unstarted: string[] = [];
  private readonly seeds: readonly string[];
  /** The seeds' normal forms: a seed is crawled whatever the scope's include and exclude say. */
  private readonly seedForms: ReadonlySet<string>;
  /** Pages started in this run, against `maxPages` (the page-cap gate counts them). */
  private readonly pages: { started: number; readonly max: number };
  private readonly maxDepth: number;
  /** The checks before a fetch, in order (fetch-gates.ts). */
  private readonly gates: readonly Gate[];
  /** What the gates read of the crawl (redirect targets pass them too). */
  private readonly gateDeps: GateDeps;
  /** Takes entries from the store's frontier as tasks (frontier-pump.ts). */
  private readonly frontier: FrontierPump;
  private phase: CrawlPhase = 'starting';
  private stopReason: StopReason | undefined;
  private fatal: unknown;
  /** Idle, waiting for the store to hand this worker work (`awaitWork`). */
  private waiting = false;
  // the page channel of the async iterator
  private readonly channel = new PageChannel({
    ended: () => this.phase === 'done' && this.frontier.outstanding === 0,
    done: () => this.done,
    stop: () => this.stop(),
    signal: this.aborter.signal,
  });

  constructor(private readonly o: CheckedCrawlOptions) {
    this.done = new Promise((res, rej) => {
      this.resolveDone = res;
      this.rejectDone = rej;
    });
    this.log = o.logger ?? pino({ level: 'silent' });
    // each task waits on the crawl's signal up to three times at once (politeness, the fetch, a
    // lease): more than Node's 10 listeners is the design, not a leak, past a concurrency of 3
    setMaxListeners(10 + 4 * (o.concurrency ?? defaultCrawlOptions.concurrency), this.aborter.signal);
    this.seeds = o.seeds ?? [];
    this.seedForms = seedForms(this.seeds);
    this.held = new HeldEntries(o, {
      log: this.log,
      holdUntil: (host, t) => this.politeness.holdUntil(host, t),
      stopping: () => this.stopping,
      dispatch: (e) => this.frontier.dispatch(e),
      pump: () => this.frontier.pump(),
      checkIdle: () => this.checkIdle(),
    });
    this.pages = { started: 0, max: o.maxPages ?? Infinity };
    this.maxDepth = o.maxDepth ?? Infinity;
    if (!(this.pages.max >= 0) || !(this.maxDepth >= 0)) throw new TypeError('crawl: maxPages and maxDepth must be >= 0');
    ({ politeness: this.politeness, fetcher: this.fetcher, robots: this.robots, scope: this.scope, budget: this.budget, patterns: this.patterns } = crawlParts(o, this.events, this.aborter.signal));
    this.gateDeps = {
      scope: () => this.scope,
      seedForms: this.seedForms,
      budget: this.budget,
      guard: this.fetcher.guard,
      robots: this.robots,
      politeness: this.politeness,
      robotsAttempts: o.robotsAttempts ?? defaultCrawlOptions.robotsAttempts,
      stopping: () => this.stopping,
      aborted: () => this.aborter.signal.aborted,
      pages: this.pages,
    };
    this.gates = fetchGates(this.gateDeps);
    this.events.on('robots', ({ origin, status, error }) => this.log.debug({ origin, status, error }, 'robots.txt'));
    this.frontier = new FrontierPump(this.politeness.options, {
      store: () => this.store,
      pagesLeft: () => this.pages.max - this.pages.started,
      stopping: () => this.stopping,
      isPaused: (host) => this.held.isPaused(host),
      process: (entry) => this.process(entry),
      fail: (error) => this.fail(error),
      taskEnded: () => this.channel.taskEnded(),
      checkIdle: () => this.checkIdle(),
    });
    this.outcome = new FetchOutcome({
      store: () => this.store,
      scope: () => this.scope,
      events: this.events,
      log: this.log,
      held: this.held,
      intake: new LinkIntake(o.traps, this.maxDepth, this.patterns),
      patterns: this.patterns,
      unstarted: this.unstarted,
      stopping: () => this.stopping,
      emitPage: (entry, res, x, admitted, contentLocation) => this.emitPage(entry, res, x, admitted, contentLocation),
    });
    const { fetcher, outcome, events, log, claimed } = this;
    const extract = o.extract ?? {};
    this.pageFetch = { store: () => this.store, redirects: () => this.redirects, fetcher, outcome, events, log, claimed, signal: this.aborter.signal, extract, keepBodies: o.keepBodies === true };
    if (o.signal !== undefined) {
      if (o.signal.aborted) this.abort();
      else o.signal.addEventListener('abort', () => this.abort(), { once: true });
    }
    void this.run();
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /** No new work is taken: stopping or done, or a stop came during the start. */
  private get stopping(): boolean {
    return this.phase === 'stopping' || this.phase === 'done' || this.stopReason !== undefined;
  }

  /** What crawl-start.ts reads of the crawl. */
  private startView(): CrawlStart {
    const { seeds, maxDepth, politeness, budget, events, log } = this;
    return { seeds, maxDepth, scope: () => this.scope, politeness, budget, retry: this.held.retry, events, log };
  }

  private async run(): Promise<void> {
    try {
      const start = this.startView();
      ({ store: this.store, owned: this.ownsStore } = await openStoreOf(this.o, start));
      const resumed = await prepareRun(this.store, this.o, start);
      if (resumed !== undefined) this.scope = resumed;
      // a store the crawl opened admits by the crawl's scope (a caller's store keeps its own)
      if (resumed !== undefined && this.ownsStore) this.store.setScope(resumed.admission(this.seeds, this.o.traps, this.maxDepth));
      if (this.o.onProgress !== undefined) this.record.startProgress(this.store, () => this.frontier.outstanding, this.o.progressIntervalMs ?? 1000, this.o.onProgress);
      const { store, politeness, events, log, aborter, claimed, followed } = this;
      const traps = this.o.traps;
      const canonical = (url: string) => store.canonical(url);
      const gates = redirectGates(this.gateDeps, { traps, canonical, claimed });
      this.redirects = { store, gates, politeness, events, log, signal: aborter.signal, stopping: () => this.stopping, claimed, followed };
      this.phase = this.stopReason === undefined ? 'running' : 'stopping';
      if (this.phase === 'stopping') this.checkIdle();
      else this.frontier.pump();
    } catch (error) {
      this.fatal = error;
      this.phase = 'stopping';
      this.checkIdle();
    }
  }

  stop(reason: 'stopped' | 'signal' = 'stopped'): void {
    const taking = this.phase === 'running' || this.phase === 'starting';
    if (taking && this.stopReason === undefined) this.log.info({ reason }, 'stopping: in-flight fetches finish');
    this.stopReason ??= reason;
    if (this.phase === 'running') this.phase = 'stopping';
    for (const e of this.held.stop()) this.unstarted.push(e.url);
    this.checkIdle();
  }

  abort(): void {
    this.stop(this.stopReason === 'signal' ? 'signal' : 'stopped');
    this.aborter.abort();
  }

  private fail(error: unknown): void {
    this.log.error({ err: error }, 'crawl failed');
    this.fatal ??= error;
    this.abort();
  }

  private checkIdle(): void {
    if (this.phase === 'starting' || this.phase === 'done' || this.frontier.pumping || this.frontier.outstanding > 0 || this.waiting) return;
    if (this.phase === 'running' && this.held.timing) return;
    if (this.phase === 'running' && this.pages.started < this.pages.max) return void this.awaitWork();
    this.phase = 'done';
    void this.finish();
  }

  /** Idle: the store may still hand this worker work (a fleet's other workers, hosts); finish once it says none comes. */
  private async awaitWork(): Promise<void> {
    this.waiting = true;
    const more = await this.store.waitForWork(this.aborter.signal).catch((error: unknown) => void this.fail(error));
    this.waiting = false;
    if (more === undefined) return this.checkIdle();
    if (more && !this.stopping) return this.frontier.pump();
    this.phase = 'stopping';
    this.checkIdle();
  }

  private async finish(): Promise<void> {
    this.record.stopProgress();
    const { fetcher, store, ownsStore, seeds, unstarted, stopReason, fatal, events, record } = this;
    const paused = this.held.pausedHosts();
    const maxPagesReached = this.pages.started >= this.pages.max;
    const end = await finishRun({ fetcher, store, ownsStore, seeds, paused, unstarted, stopReason, maxPagesReached, fatal, events, record });
    this.fatal = end.error;
    this.channel.end();
    if (end.error !== undefined || end.report === undefined) this.rejectDone(end.error);
    else {
      this.log.info({ pages: end.report.pagesFetched, requests: end.report.requests, reason: end.reason }, 'crawl ended');
      this.resolveDone(end.report);
    }
  }

  // ---- one entry -----------------------------------------------------------------------------------

  private async process(entry: FrontierEntry): Promise<void> {
    // a task following a redirect chain holds it, or recorded it after the store handed it out;
    // a URL the store queued again since (a recheck, a sampled rewrite, a give-back) is fetched
    if (this.claimed.has(entry.key)) return;
    if (this.followed.has(entry.key) && (await this.store.canonical(entry.url)).state !== 'queued') return;
    if (this.stopping) return void this.unstarted.push(entry.url);
    this.claimed.add(entry.key);
    try {
      await this.processClaimed(entry);
    } finally {
      this.claimed.delete(entry.key);
    }
  }

  private async processClaimed(entry: FrontierEntry): Promise<void> {
    if (this.held.joinPaused(entry)) return;
    // the entry's one parse: scope, guard, robots.txt and the fetch's first request read it
    const c: GateContext = { entry, parsed: tryNodeUrl(entry.url), retry: this.held.retried(entry.key) };
    const v = await passGates(this.gates, c);
    switch (v.kind) {
      case 'refuse':
        return this.outcome.refuse(entry.url, v.code, v.message);
      case 'pause':
        return this.held.pause(entry, v.reason, v.retryAt);
      case 'later':
        return void this.unstarted.push(entry.url);
    }
    if (c.retry) this.events.emit('retried', { url: entry.url, host: entry.host });
    await this.politeness.run(entry.host, () => fetchPage(this.pageFetch, entry, entry.host, c.checked!), this.aborter.signal);
  }

  // ---- pages out ------------------------------------------------------------------------------------

  private async emitPage(entry: FrontierEntry, res: FetchResult, x: ExtractResult | undefined, admitted: number, contentLocation?: string): Promise<void> {
    if (this.o.onPage === undefined && !this.channel.iterating) return;
    const page = crawledPage(entry, res, x, admitted, contentLocation);
    await this.o.onPage?.(page);
    await this.channel.push(page);
  }

  [Symbol.asyncIterator](): AsyncIterator<CrawledPage> {
    return this.channel.iterator();
  }

  progress(): CrawlProgress {
    return this.record.progress(this.frontier.outstanding);
  }
}

/**
 * Start a crawl. Iterate the result for the fetched pages (attach at once: pages fetched before an
 * iterator is attached are only given to `onPage`), and await `done` for the report.
 * @example
 * const c = crawl({ store: './db', seeds: ['https://example.com/'] });
 * for await (const page of c) console.log(page.status, page.finalUrl);
 * console.log(formatReport(await c.done));
 */
export function crawl(options: CrawlOptions): Crawl {
  return new Crawler(checkCrawlOptions('crawl', options));
}

/** Crawl to the end and return the report (misuse rejects with a `TypeError`, as every failure). */
export async function runCrawl(options: CrawlOptions): Promise<CrawlReport> {
  return new Crawler(checkCrawlOptions('runCrawl', options)).done;
}
