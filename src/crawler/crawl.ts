/**
 * The crawl worker: the loop that turns a frontier into fetched pages.
 *
 *     store.next ─► still queued? ─► scope, host budget ─► guard (scheme, literal address)
 *       ─► robots.txt (per origin, cached) ─► politeness slot ─► fetch
 *            └ each redirect hop: store.recordRedirect; followed at once only to the same origin
 *              and only when the target is a queued URL no other task holds
 *       ─► extract links (HTML only, each parsed once) ─► scope, traps, depth ─► store.admit
 *          (link-intake.ts: dedup by the ladder, aliases, rules, presets; report buckets)
 *       ─► store.recordFetch (status, content hash)
 *
 * This module is the claim/fetch loop; redirect hops go through follow-redirect.ts, a page's links
 * through link-intake.ts, and the options and page types live in crawl-options.ts.
 *
 * The frontier lives in the store, so a stopped or killed crawl resumes where it was: entries are
 * removed in the batch that records their fetch, so nothing recorded as fetched is offered again.
 * A page's links are admitted before its fetch is recorded, so a kill between the two batches
 * costs one re-fetch of the page, never its links.
 * `stop()` (SIGINT, SIGTERM in the CLI) takes no new work, lets in-flight fetches finish and be
 * recorded, then closes the store; `abort()` also aborts in-flight fetches (they stay queued).
 */
import { pino, type Logger } from 'pino';
import { normalize, UrlError } from '../normalize/index.js';
import { tryNodeUrl } from '../normalize/parse-count.js';
import { isFleetMember, type FleetMember, type FrontierEntry, type RuleRecord, type SeenStore } from '../store/index.js';
import { hostOfUrl, openCrawlStore, preloadBudget, seedStates } from './crawl-store.js';
import { checkCrawlOptions, defaultCrawlOptions, invalidSeedsOf, noValidSeed, type CheckedCrawlOptions, type Crawl, type CrawledPage, type CrawlOptions, type CrawlProgress } from './crawl-options.js';
import type { CrawlErrorCode } from './errors.js';
import { LinkExtractor, type ExtractResult } from './extract.js';
import { watchLease } from './lease-watch.js';
import { Fetcher, type FetchResult, type ResponseHead } from './fetch.js';
import { mayFollowRedirect, type RedirectContext } from './follow-redirect.js';
import { NetworkGuard } from './guard.js';
import { LinkIntake, storeScopeFilter } from './link-intake.js';
import { HTML_TYPES, SniffingSink } from './mime-sniff.js';
import { PageChannel } from './page-channel.js';
import { Politeness } from './politeness.js';
import { ReportBuilder, type CrawlReport, type StopReason } from './report.js';
import { backoffMs, defaultRetryOptions, parseRetryAfter, transientCode, TRANSIENT_CODES, type RetryOptions } from './retry.js';
import { RobotsCache } from './robots.js';
import { CrawlScope } from './scope.js';
import { TimelineRecorder } from './timeline.js';
import { HostBudget, PatternTraps } from './traps.js';
import { crawledPage, fetchRecordOf } from './page-channel.js';

export { defaultCrawlOptions, type Crawl, type CrawledPage, type CrawlOptions, type CrawlProgress } from './crawl-options.js';
export { rungOf } from './duplicate-rung.js';

function toRegex(r: RegExp | string): RegExp {
  return typeof r === 'string' ? new RegExp(r) : r;
}

/** A host whose frontier entries wait: an unreachable robots.txt (until a retry) or a spent budget. */
interface PausedHost {
  readonly reason: string;
  readonly entries: FrontierEntry[];
  timer?: NodeJS.Timeout;
}

class Crawler implements Crawl, RedirectContext {
  readonly done: Promise<CrawlReport>;
  private resolveDone!: (r: CrawlReport) => void;
  private rejectDone!: (e: unknown) => void;
  readonly log: Logger;
  store!: SeenStore;
  private ownsStore = false;
  private readonly fetcher: Fetcher;
  readonly politeness: Politeness;
  readonly robots: RobotsCache | undefined;
  scope: CrawlScope;
  readonly budget: HostBudget;
  /** URL patterns that keep producing URLs without new content (traps.ts). */
  readonly patterns: PatternTraps;
  readonly report = new ReportBuilder();
  /** What the HTML report draws over time (timeline.ts), from the report's start. */
  private readonly timeline = new TimelineRecorder({ start: this.report.started });
  readonly traps: CrawlOptions['traps'];
  private readonly intake: LinkIntake;
  private readonly aborter = new AbortController();
  /** Keys a task is fetching (its frontier entry, or a redirect target it follows). */
  readonly claimed = new Set<string>();
  /** Keys fetched as the target of a followed redirect in this run (their frontier entry may be in hand too). */
  readonly followed = new Set<string>();
  private readonly paused = new Map<string, PausedHost>();
  /** Entries handed out but not fetched (stopped, max-pages): given back at the end. */
  private readonly unstarted: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Fetches of a key retried in this run (retry.ts). */
  private readonly attempts = new Map<string, number>();
  /** Entries waiting for their retry, by timer: they hold no slot; `stop` gives them back. */
  private readonly retryWaiting = new Map<NodeJS.Timeout, FrontierEntry>();
  private readonly retry: Required<RetryOptions>;
  private readonly seeds: readonly string[];
  /** The seeds' normal forms: a seed is crawled whatever the scope's include and exclude say. */
  private readonly seedForms: ReadonlySet<string>;
  private readonly maxPages: number;
  private readonly maxDepth: number;
  private readonly bufferCap: number;
  private outstanding = 0;
  /** Entries handed out and not finished, per host. */
  private readonly inHand = new Map<string, number>();
  private hostCursor = 0;
  private pagesStarted = 0;
  private pumping = false;
  /** Idle in a fleet, waiting for hosts with work (`awaitFleet`). */
  private waiting = false;
  private pumpAgain = false;
  private started = false;
  stopping = false;
  private stopReason: StopReason | undefined;
  private finished = false;
  private fatal: unknown;
  private lastStats = { queued: 0, pruned: 0 };
  private progressTimer: NodeJS.Timeout | undefined;
  // the page channel of the async iterator
  private readonly channel = new PageChannel({
    ended: () => this.finished && this.outstanding === 0,
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
    this.seeds = o.seeds ?? [];
    const forms = new Set<string>();
    for (const s of this.seeds) {
      try {
        forms.add(normalize(s));
      } catch {
        // an invalid seed: admit() reports it
      }
    }
    this.seedForms = forms;
    this.retry = { ...defaultRetryOptions, ...Object.fromEntries(Object.entries(o).filter(([k, v]) => k in defaultRetryOptions && v !== undefined)) };
    if (!Number.isInteger(this.retry.maxRetries) || this.retry.maxRetries < 0) throw new TypeError('crawl: maxRetries must be an integer >= 0');
    if (!(this.retry.retryCooldownMs >= 0)) throw new TypeError('crawl: retryCooldownMs must be >= 0');
    this.maxPages = o.maxPages ?? Infinity;
    this.maxDepth = o.maxDepth ?? Infinity;
    if (!(this.maxPages >= 0) || !(this.maxDepth >= 0)) throw new TypeError('crawl: maxPages and maxDepth must be >= 0');
    this.politeness = new Politeness({
      concurrency: o.concurrency ?? defaultCrawlOptions.concurrency,
      perHost: o.perHost ?? defaultCrawlOptions.perHost,
      delayMs: o.delayMs ?? defaultCrawlOptions.delayMs,
      ...(o.maxCrawlDelayMs === undefined ? {} : { maxCrawlDelayMs: o.maxCrawlDelayMs }),
    });
    this.bufferCap = this.politeness.options.concurrency * 2;
    const guard = new NetworkGuard({
      allowPrivate: o.allowPrivate === true,
      ...(o.allow === undefined ? {} : { allow: o.allow }),
      ...(o.resolver === undefined ? {} : { resolver: o.resolver }),
    });
    this.fetcher = new Fetcher({ ...(o.fetch ?? {}), maxRedirects: o.maxRedirects ?? defaultCrawlOptions.maxRedirects, guard });
    this.robots =
      o.robots === false
        ? undefined
        : new RobotsCache({
            fetcher: this.fetcher,
            unreachableRetryMs: o.robotsRetryMs ?? defaultCrawlOptions.robotsRetryMs,
            schedule: (host, task) => this.politeness.run(host, task, this.aborter.signal),
            signal: this.aborter.signal,
            onFetch: (origin, result) => {
              this.report.requests += result.requests;
              this.report.robotsRequests += result.requests;
              this.report.redirects += result.hops.length;
              this.log.debug({ origin, status: result.status, error: result.error?.code }, 'robots.txt');
            },
          });
    this.scope = this.makeScope(this.seeds);
    this.traps = o.traps;
    this.budget = new HostBudget(o.traps?.maxPagesPerHost);
    this.patterns = new PatternTraps(o.traps);
    this.intake = new LinkIntake(this.report, o.traps, this.maxDepth, this.patterns);
    if (o.signal !== undefined) {
      if (o.signal.aborted) this.abort();
      else o.signal.addEventListener('abort', () => this.abort(), { once: true });
    }
    void this.run();
  }

  private makeScope(seeds: readonly string[]): CrawlScope {
    return new CrawlScope({
      mode: this.o.scope ?? defaultCrawlOptions.scope,
      seeds,
      include: (this.o.include ?? []).map(toRegex),
      exclude: (this.o.exclude ?? []).map(toRegex),
    });
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  private async openStore(): Promise<void> {
    const opened = await openCrawlStore(this.o.store, {
      ...(this.o.presets === undefined ? {} : { presets: this.o.presets }),
      maxDepth: this.maxDepth,
      storeOptions: this.o.storeOptions,
      // redirect targets the store queues by itself pass the crawl's scope and trap rules too
      filter: storeScopeFilter(() => this.scope, this.seedForms, this.o.traps ?? {}),
    });
    this.store = opened.store;
    this.ownsStore = opened.owned;
    if (isFleetMember(this.store)) {
      this.store.onTakeover((host) => this.log.warn({ host }, 'fleet: took over a host whose worker stopped renewing its lease (its queued and in-flight URLs are fetched here)'));
      const politeness = this.politeness;
      this.store.pacing = { notBefore: (h) => politeness.nextStartOf(h), holdUntil: (h, t) => politeness.holdUntil(h, t) };
    }
  }

  private async run(): Promise<void> {
    try {
      await this.openStore();
      // failed URLs worth another try (retry.ts): transient codes whose cool-down has passed
      const before = this.retry.retryFailed ? Infinity : Date.now() - this.retry.retryCooldownMs;
      this.report.retries.requeued = await this.store.requeueFailed({ codes: TRANSIENT_CODES, before });
      // a failure a policy caused is the policy's: a run whose address policy lets more through
      // (--allow-private, an allow-list) tries the URLs an earlier one refused
      const widened = this.o.allowPrivate === true || (this.o.allow?.length ?? 0) > 0;
      if (widened) this.report.retries.requeued += await this.store.requeueFailed({ codes: ['ERR_BLOCKED_ADDRESS'] });
      if (this.report.retries.requeued > 0) this.log.info({ urls: this.report.retries.requeued }, 'failed URLs queued again');
      await preloadBudget(this.store, this.budget);
      if (this.seeds.length === 0 && (this.o.scope ?? 'host') !== 'any') {
        // a resumed crawl without seeds: the hosts of its frontier were admitted in scope, so they
        // define it (give the seeds again for exactly the first run's scope)
        const hosts = Object.keys((await this.store.stats()).frontier.hosts);
        this.scope = this.makeScope(hosts.map((h) => `http://${h}/`));
      }
      if (this.seeds.length > 0) {
        const results = await this.store.admit(this.seeds, { depth: 0 });
        for (const r of results) {
          if (r.admitted) this.report.admitted++;
          this.log.info({ seed: r.url, reason: r.reason }, 'seed');
        }
        this.report.invalidSeeds = invalidSeedsOf(results);
        if (this.report.invalidSeeds.length === this.seeds.length) throw noValidSeed(this.report.invalidSeeds);
      }
      const interval = this.o.progressIntervalMs ?? 1000;
      if (this.o.onProgress !== undefined) {
        this.progressTimer = setInterval(() => void this.tick(), interval);
        this.progressTimer.unref();
      }
      this.started = true;
      if (this.stopping) this.checkIdle();
      else this.pump();
    } catch (error) {
      this.fatal = error;
      this.stopping = true;
      this.started = true;
      this.checkIdle();
    }
  }

  stop(reason: 'stopped' | 'signal' = 'stopped'): void {
    if (!this.stopping) this.log.info({ reason }, 'stopping: in-flight fetches finish');
    this.stopping = true;
    this.stopReason ??= reason;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const e of this.retryWaiting.values()) this.unstarted.push(e.url);
    this.retryWaiting.clear();
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
    if (this.finished || !this.started || this.pumping || this.outstanding > 0 || this.waiting) return;
    if (!this.stopping && this.timers.size > 0) return;
    if (!this.stopping && isFleetMember(this.store) && this.pagesStarted < this.maxPages) return this.awaitFleet(this.store);
    this.finished = true;
    void this.finish();
  }

  /** Idle in a fleet: other workers may still hand this one hosts; finish once the fleet is done. */
  private awaitFleet(fleet: FleetMember): void {
    this.waiting = true;
    fleet
      .waitForWork(this.aborter.signal)
      .then(
        (more) => {
          this.waiting = false;
          if (more && !this.stopping) this.pump();
          else {
            this.stopping = true;
            this.checkIdle();
          }
        },
        (error: unknown) => {
          this.waiting = false;
          this.fail(error);
        },
      );
  }

  private async finish(): Promise<void> {
    if (this.progressTimer !== undefined) clearInterval(this.progressTimer);
    const held = [...this.paused.values()].flatMap((p) => p.entries);
    const reason: StopReason = this.stopReason ?? (this.pagesStarted >= this.maxPages ? 'max-pages' : held.length > 0 ? 'deferred' : 'done');
    for (const p of this.paused.values()) this.report.defer(p.reason, p.entries.length);
    let report: CrawlReport | undefined;
    try {
      await this.fetcher.close().catch(() => undefined);
      if (this.store !== undefined) {
        const back = [...held.map((e) => e.url), ...this.unstarted];
        if (back.length > 0) await this.store.release(back).catch(() => undefined);
        if (this.fatal === undefined) {
          const stats = await this.store.stats();
          const rules: RuleRecord[] = [];
          for await (const r of this.store.rules()) {
            this.timeline.ruleRecord(r);
            if (r.state === 'active' && rules.length < 1000) rules.push(r);
          }
          this.sample();
          const seeds = await seedStates(this.store, this.seeds);
          report = { ...this.report.build(this.seeds, reason, stats, rules, seeds), timeline: this.timeline.toJSON() };
        }
        if (this.ownsStore) await this.store.close();
      }
    } catch (error) {
      this.fatal ??= error;
    }
    this.channel.end();
    if (this.fatal !== undefined || report === undefined) this.rejectDone(this.fatal);
    else {
      this.log.info({ pages: report.pagesFetched, requests: report.requests, reason }, 'crawl ended');
      this.resolveDone(report);
    }
  }

  // ---- the frontier pump ---------------------------------------------------------------------------

  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          while (!this.stopping) {
            const room = Math.min(this.bufferCap - this.outstanding, this.maxPages - this.pagesStarted - this.outstanding);
            if (room <= 0) break;
            const entries = await this.nextEntries(room);
            if (entries.length === 0) break;
            for (const e of entries) this.dispatch(e);
          }
        } while (this.pumpAgain && !this.stopping);
      } catch (error) {
        this.fail(error);
      } finally {
        this.pumping = false;
        this.checkIdle();
      }
    })();
  }

  private dispatch(entry: FrontierEntry): void {
    this.outstanding++;
    this.inHand.set(entry.host, (this.inHand.get(entry.host) ?? 0) + 1);
    this.process(entry)
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.outstanding--;
        const n = (this.inHand.get(entry.host) ?? 1) - 1;
        if (n <= 0) this.inHand.delete(entry.host);
        else this.inHand.set(entry.host, n);
        this.channel.taskEnded();
        if (!this.stopping) this.pump();
        this.checkIdle();
      });
  }

  /**
   * Up to `room` entries, host by host from a rotating start, each host topped up to `perHost + 1`
   * entries in hand (those running and one waiting). Taking entries late, a few at a time, keeps
   * them queued in the store as long as possible: a rule that becomes active prunes queued
   * entries, not those already handed out. Paused hosts are skipped, so their frontier is not
   * drained into memory.
   */
  private async nextEntries(room: number): Promise<FrontierEntry[]> {
    const window = this.politeness.options.perHost + 1;
    const out: FrontierEntry[] = [];
    if (isFleetMember(this.store)) await this.store.refill();
    const hosts = Object.keys((await this.store.stats()).frontier.hosts);
    if (hosts.length === 0) return out;
    const start = this.hostCursor++ % hosts.length;
    for (let i = 0; i < hosts.length && out.length < room; i++) {
      const host = hosts[(start + i) % hosts.length]!;
      if (this.paused.has(host)) continue;
      const want = Math.min(window - (this.inHand.get(host) ?? 0), room - out.length);
      if (want <= 0) continue;
      out.push(...(await this.store.next({ host, limit: want })));
    }
    return out;
  }

  /** Park `entry` with its host's paused entries; `retryAt` brings them all back then. */
  private pause(entry: FrontierEntry, reason: string, retryAt?: number): void {
    let p = this.paused.get(entry.host);
    if (p === undefined) {
      p = { reason, entries: [] };
      this.paused.set(entry.host, p);
      if (retryAt !== undefined && !this.stopping) {
        const timer = setTimeout(() => this.resume(entry.host), Math.max(0, retryAt - Date.now()));
        p.timer = timer;
        this.timers.add(timer);
      }
      this.log.info({ host: entry.host, reason, retryAt }, 'host paused');
    }
    p.entries.push(entry);
  }

  private resume(host: string): void {
    const p = this.paused.get(host);
    if (p === undefined) return;
    if (p.timer !== undefined) this.timers.delete(p.timer);
    this.paused.delete(host);
    if (this.stopping) {
      this.paused.set(host, { reason: p.reason, entries: p.entries });
      return this.checkIdle();
    }
    for (const e of p.entries) this.dispatch(e);
    this.pump();
  }

  // ---- one entry -----------------------------------------------------------------------------------

  private async recordFailure(url: string, status: number, code: CrawlErrorCode, message: string): Promise<void> {
    this.report.error(code);
    this.timeline.host(hostOfUrl(url), { errors: 1 });
    this.log.info({ url, status, code }, message);
    await this.store.recordFetch(url, { status, error: code });
  }

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
    const url = entry.url;
    const host = entry.host;
    const paused = this.paused.get(host);
    if (paused !== undefined) return void paused.entries.push(entry);
    // the entry's one parse: scope, guard, robots.txt and the fetch's first request read it
    const parsed = tryNodeUrl(url);
    const verdict = this.scope.checkParsed(parsed, url);
    if (verdict !== 'in' && !this.seedForms.has(url)) {
      return this.recordFailure(url, 0, 'ERR_OUT_OF_SCOPE', `not fetched: ${verdict}`);
    }
    if (this.budget.spent(host)) return this.pause(entry, 'trap:host-budget');
    let u: URL;
    try {
      u = parsed === undefined ? this.fetcher.guard.checkUrl(url) : this.fetcher.guard.checkParsed(parsed, url);
    } catch (error) {
      if (!(error instanceof UrlError)) throw error;
      return this.recordFailure(url, 0, error.code, error.message);
    }
    if (this.robots !== undefined) {
      const origin = u.origin;
      const r = await this.robots.entry(origin, host);
      if (this.stopping && this.aborter.signal.aborted) return void this.unstarted.push(url);
      this.politeness.setCrawlDelay(host, r.policy.crawlDelay);
      if (r.state === 'unreachable' && (r.error === 'ERR_BLOCKED_ADDRESS' || r.error === 'ERR_DNS')) {
        // the page would fail the same way: no point waiting for a retry
        return this.recordFailure(url, 0, r.error, `robots.txt of ${origin} could not be fetched`);
      }
      if (r.state === 'unreachable') {
        const attempts = this.o.robotsAttempts ?? defaultCrawlOptions.robotsAttempts;
        return this.pause(entry, 'robots-unreachable', r.failures < attempts ? r.expires : undefined);
      }
      if (!r.policy.isAllowed(u.pathname + u.search)) {
        return this.recordFailure(url, 0, 'ERR_ROBOTS_DISALLOWED', 'robots.txt disallows it');
      }
    }
    const retry = this.attempts.has(entry.key);
    if (this.stopping || (!retry && this.pagesStarted >= this.maxPages)) return void this.unstarted.push(url);
    if (!retry) {
      if (!this.budget.take(host)) return this.pause(entry, 'trap:host-budget');
      this.pagesStarted++;
    } else this.report.retries.made++;
    await this.politeness.run(host, () => this.fetchEntry(entry, host, u), this.aborter.signal);
  }

  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  private async fetchEntry(entry: FrontierEntry, host: string, checked: URL): Promise<void> {
    // a fleet worker fetches only while it surely holds the host's lease (its next holder
    // queues this in-flight entry again)
    if (isFleetMember(this.store) && !this.store.holds(host)) return void this.log.info({ host, url: entry.url }, 'lease lost: not fetched');
    const lease = isFleetMember(this.store) ? watchLease(this.store, host, this.aborter.signal) : undefined;
    const followed: string[] = [];
    let extractor: LinkExtractor | undefined;
    const extractOptions = this.o.extract ?? {};
    const makeExtractor = (head: ResponseHead): LinkExtractor =>
      (extractor = new LinkExtractor(head.url, { ...extractOptions, ...(head.charset === undefined ? {} : { charset: head.charset }) }));
    let res: FetchResult;
    try {
      res = await this.fetcher.fetch(entry.url, {
        checked,
        signal: lease?.signal ?? this.aborter.signal,
        ...(this.o.keepBodies === true ? { keepBody: true } : {}),
        onRedirect: (hop) => mayFollowRedirect(this, hop, host, followed),
        onHead: (head) => {
          if (head.status < 200 || head.status >= 300 || !head.decodable) return undefined;
          if (head.mediaType === undefined) return new SniffingSink(() => makeExtractor(head));
          return HTML_TYPES.has(head.mediaType) ? makeExtractor(head) : undefined;
        },
      });
      // aborted because the lease lapsed: nothing is recorded (the host's next holder fetches it)
      if (lease?.lost === true) return void this.log.info({ host, url: entry.url }, 'lease lost: fetch aborted');
      await this.afterFetch(entry, res, extractor);
      this.sample();
    } finally {
      lease?.stop();
      for (const k of followed) this.claimed.delete(k);
    }
  }

  private async afterFetch(entry: FrontierEntry, res: FetchResult, extractor: LinkExtractor | undefined): Promise<void> {
    const r = this.report;
    this.timeline.host(entry.host, { requests: res.requests });
    r.requests += res.requests;
    r.wire += res.wireBytes;
    r.decoded += res.decodedBytes;
    const final = res.finalUrl;
    const err = res.error;
    if (err?.code === 'ERR_ABORTED' && this.stopping) return void this.unstarted.push(entry.url); // stays queued for a later run
    const transient = err?.code === 'ERR_ABORTED' ? undefined : transientCode(res.status, err?.code);
    if (transient !== undefined && this.retryLater(entry, res)) return;
    if (res.unfollowed !== undefined && err === undefined) {
      // a redirect recorded and left to the frontier (another origin, or a target already known)
      this.log.debug({ url: final, to: res.unfollowed.location, status: res.status }, 'redirect');
      return this.emit(entry, res, undefined, 0);
    }
    r.pagesFetched++;
    if (transient !== undefined) {
      // retries of this run used up: failed, and queued again by a run after the cool-down
      r.retries.pending++;
      r.status(res.status);
      await this.recordFailure(res.unfollowed?.url ?? final, res.status, transient, err?.message ?? `status ${res.status}`);
      return this.emit(entry, res, undefined, 0);
    }
    if (err !== undefined) {
      const hop = res.unfollowed;
      if (hop !== undefined) r.redirects++; // the hop that stopped the chain was not offered to onRedirect
      if (hop !== undefined && err.code === 'ERR_REDIRECT_LOOP') {
        // the loop is evidence like any redirect: the store records it as a loop
        r.error(err.code);
        this.timeline.host(entry.host, { errors: 1 });
        await this.store.recordRedirect(hop.url, hop.location, hop.status);
      } else {
        r.status(res.status);
        await this.recordFailure(hop?.url ?? final, res.status, err.code, err.message);
      }
      return this.emit(entry, res, undefined, 0);
    }
    r.status(res.status);
    if (this.attempts.has(entry.key)) r.retries.succeeded++;
    if (res.status >= 200 && res.status < 300) {
      r.pagesOk++;
      const before = r.documents;
      if (res.contentHash !== undefined) r.document(res.contentHash.slice(0, 16));
      if (r.documents > before) this.timeline.host(entry.host, { documents: r.documents - before });
    }
    const x = extractor?.result();
    const contentLocation = r.contentLocation(res.headers['content-location'], res.finalUrl);
    let admitted = 0;
    // a not-found probe's page is the host's answer to a made-up URL: no link of it is followed
    if (x !== undefined && entry.check !== 'probe') {
      if (x.canonical !== undefined) r.canonical(x.canonical, final);
      const admittedUrls: string[] = [];
      const taken = await this.intake.admit(this.store, this.scope, entry, final, x, admittedUrls);
      admitted = taken.admitted;
      if (taken.duplicates > 0) this.timeline.host(entry.host, { duplicates: taken.duplicates });
      if (res.status >= 200 && res.status < 300) {
        for (const p of this.patterns.observe({ url: final, requested: entry.url, host: entry.host, textHash: x.textHash, admitted: admittedUrls, words: x.words, links: x.links.map((l) => l.url) })) {
          r.trapPattern(p);
          this.log.info({ host: entry.host, pattern: p }, 'trap: a URL pattern without new content, refused from now on');
        }
      }
    }
    // Promise 4 (nothing admitted is lost): the page's links are admitted before its fetch is
    // recorded. These are two batches; a crash between them now leaves the page queued (fetched
    // again on resume, its links then found seen) instead of recorded as fetched with its links
    // never admitted, which no later run would repair.
    await this.store.recordFetch(final, fetchRecordOf(res, x, final, contentLocation));
    this.log.debug({ url: final, status: res.status, requests: res.requests }, 'fetched');
    return this.emit(entry, res, x, admitted, contentLocation);
  }

  /**
   * A transient failure (retry.ts): schedule another fetch of `entry` after Retry-After or a
   * backoff, unless its retries are used up or the Retry-After is too long for this run. The entry
   * stays in flight in the store and waits on a timer, holding no slot; a Retry-After also holds
   * back its host. Returns false when the failure is to be recorded.
   */
  private retryLater(entry: FrontierEntry, res: FetchResult): boolean {
    const n = this.attempts.get(entry.key) ?? 0;
    if (n >= this.retry.maxRetries || this.stopping) return false;
    const now = Date.now();
    const after = res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers['retry-after'], now) : undefined;
    if (after !== undefined && after > this.retry.maxRetryAfterMs) return false;
    const wait = after ?? backoffMs(n + 1, this.retry.retryBaseMs, this.retry.retryMaxMs);
    if (after !== undefined) this.politeness.holdUntil(entry.host, now + after);
    this.attempts.set(entry.key, n + 1);
    this.log.info({ url: entry.url, status: res.status, error: res.error?.code, attempt: n + 1, waitMs: wait }, 'retry later');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.retryWaiting.delete(timer);
      this.dispatch(entry);
    }, wait);
    this.timers.add(timer);
    this.retryWaiting.set(timer, entry);
    return true;
  }

  /** The running totals into the timeline (it keeps a bounded number of points). */
  private sample(): void {
    const r = this.report;
    this.timeline.sample(Date.now(), { requests: r.requests, documents: r.documents, fetched: r.pagesFetched, duplicates: r.duplicatesAvoided });
  }

  // ---- pages out ------------------------------------------------------------------------------------

  private async emit(entry: FrontierEntry, res: FetchResult, x: ExtractResult | undefined, admitted: number, contentLocation?: string): Promise<void> {
    if (this.o.onPage === undefined && !this.channel.iterating) return;
    const page = crawledPage(entry, res, x, admitted, contentLocation);
    await this.o.onPage?.(page);
    await this.channel.push(page);
  }

  [Symbol.asyncIterator](): AsyncIterator<CrawledPage> {
    return this.channel.iterator();
  }

  // ---- progress -------------------------------------------------------------------------------------

  private async tick(): Promise<void> {
    if (this.finished || this.store === undefined) return;
    try {
      const s = await this.store.stats();
      this.lastStats = { queued: s.frontier.size, pruned: Object.values(s.pruned).reduce((a, b) => a + b, 0) };
    } catch {
      // the store is closing
    }
    this.o.onProgress?.(this.progress());
  }

  progress(): CrawlProgress {
    const elapsedMs = Date.now() - this.report.started;
    return {
      pagesFetched: this.report.pagesFetched,
      requests: this.report.requests,
      documents: this.report.documents,
      queued: this.lastStats.queued,
      inFlight: this.outstanding,
      duplicatesAvoided: this.report.duplicatesAvoided,
      pruned: this.lastStats.pruned,
      errors: Object.values(this.report.errors).reduce((a, b) => a + b, 0),
      pagesPerSecond: elapsedMs > 0 ? Math.round((this.report.pagesFetched * 10_000) / elapsedMs) / 10 : 0,
      elapsedMs,
    };
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
