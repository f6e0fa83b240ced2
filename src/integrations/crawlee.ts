/**
 * urldedup for Crawlee (`urldedup/crawlee`): a seen-store decides what Crawlee's request queue
 * takes, and learns from what Crawlee's crawlers fetch.
 *
 * Crawlee deduplicates by `Request.uniqueKey`, by default its `normalizeUrl` of the URL, which
 * sorts the query (a false merge where order matters), drops a trailing slash (`/a/` and `/a` are
 * two documents on many servers) and `utm_*`, and knows nothing a server said. Its documentation
 * names `uniqueKey` as the place for custom deduplication; this adapter sets it to urldedup's
 * canonical key, which the store decides (RFC 3986 §6.2.2–§6.2.3, the store's presets, aliases
 * from permanent redirects, host rules learned and checked by the store), and drops a request
 * whose document the store already holds.
 *
 * The store's frontier stays the truth, as for urldedup's own crawler: Crawlee's queue is fed
 * from it, a window at a time, with new documents and with what the store queues by itself (a
 * redirect's target, a rule's rewrites it fetches to check the rule, what a withdrawn rule gives
 * back, everything still queued when a run stopped). So a rule learned meanwhile prunes the rest
 * before Crawlee holds them, a rule is checked and withdrawn here as there, and a run whose
 * Crawlee queue was purged resumes from the store. Each redirect hop is recorded with its status
 * (a got hook, `preNavigationHook`); without it, as the fetch's final URL (evidence of unknown
 * status, never an alias by itself).
 *
 * Crawlee is not imported: the adapter works on the few methods of its queue, request and
 * crawling context named below (Crawlee 3).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { extractLinks } from '../crawler/html/extract.js';
import { pathTrap, PatternTraps, type TrapOptions } from '../crawler/policy/traps.js';
import { key, urlFromKey } from '../normalize/key.js';
import { tryNodeUrl } from '../normalize/parse-count.js';
import type { FetchRecord, FrontierEntry, SeenStore } from '../store/seen-store.js';

/** A request as Crawlee's queue takes it: a URL string, request options or a `Request`. */
export interface CrawleeRequestLike {
  url: string;
  headers?: Record<string, string>;
  uniqueKey?: string;
  method?: string;
  payload?: unknown;
  label?: string;
  userData?: Record<string, unknown>;
  loadedUrl?: string;
  readonly crawlDepth?: number;
}

/** What Crawlee's queue answers for one request it took (`ProcessedRequest`). */
export interface CrawleeProcessedRequest {
  readonly uniqueKey: string;
  readonly requestId: string;
  readonly wasAlreadyPresent: boolean;
  readonly wasAlreadyHandled: boolean;
}

/** The part of Crawlee's `RequestQueue` (any `RequestProvider`) the adapter uses. */
export interface CrawleeQueueLike {
  addRequests(
    requests: Iterable<unknown> | AsyncIterable<unknown>,
    options?: { forefront?: boolean; cache?: boolean },
  ): Promise<{ processedRequests: CrawleeProcessedRequest[]; unprocessedRequests: unknown[] }>;
  addRequest(request: unknown, options?: { forefront?: boolean }): Promise<CrawleeProcessedRequest>;
}

/** The part of a crawling context (`CheerioCrawlingContext`, `HttpCrawlingContext`, …) the adapter reads. */
export interface CrawleeContextLike {
  readonly request: CrawleeRequestLike;
  /**
   * The response: an HTTP crawler's (`statusCode`, a `headers` object) or a browser crawler's
   * (Playwright's and Puppeteer's `status()` and `headers()` methods).
   */
  readonly response?: {
    readonly statusCode?: number;
    readonly headers?: Readonly<Record<string, string | string[] | undefined>> | (() => Readonly<Record<string, string>>);
    readonly status?: number | (() => number);
  };
  /** The body (HTTP and Cheerio crawlers); absent in browser crawlers, which record status and final URL only. */
  readonly body?: string | Buffer;
  /** The crawler: its `maxRequestsPerCrawl` tells a link cut by that budget. */
  readonly crawler?: object;
}

export interface CrawleeDedupOptions {
  /**
   * Most store frontier entries handed to Crawlee's queue and not yet recorded: Crawlee takes
   * every admitted URL from the store's frontier, this many at a time, so a rule the store learns
   * meanwhile prunes the rest there. It bounds the crawler's concurrency too: a larger window
   * fetches more at once, and lets Crawlee hold more URLs such a rule would have pruned.
   * @default 16
   */
  readonly window?: number;
  /** Labels and user data remembered per key for entries the store gives back. @default 100000 */
  readonly rememberRequests?: number;
  /**
   * urldedup's crawler traps (docs/crawler.md, "Traps"): a link whose path repeats its segments or
   * runs too deep, or that belongs to a URL pattern whose pages bring no new text and no link
   * outside it (a calendar), is recorded as pruned in the store and never reaches Crawlee. `false`
   * turns them off. @default the crawler's defaults
   */
  readonly traps?: TrapOptions | false;
}

/** What the adapter did, for a run's log. */
export interface CrawleeDedupStats {
  /** Requests the store admitted (new documents). */
  readonly admitted: number;
  /** Requests dropped: the store holds their document (by ladder, preset, alias or rule). */
  readonly dropped: number;
  /** Entries of the store's own frontier handed to Crawlee (resumed, redirect targets, checks, give-backs). */
  readonly fromStore: number;
  /** Fetches recorded as evidence. */
  readonly recorded: number;
  /** Links refused as traps (recorded as pruned in the store). */
  readonly trapped: number;
  /** The URL patterns refused as traps so far. */
  readonly trapPatterns: readonly string[];
}

/** What the adapter keeps in a request's `userData`. */
interface EntryMark {
  readonly key: string;
  readonly url: string;
}

const MARK = 'urldedup';

interface Hop {
  readonly from: string;
  readonly to: string;
  readonly status: number;
}

/** The part of got's options a `preNavigationHooks` entry receives that the adapter touches. */
interface GotOptionsLike {
  followRedirect?: boolean | ((response: GotResponseLike) => boolean);
  hooks?: {
    beforeRedirect?: ((options: { url?: URL | string }, response: GotResponseLike) => void)[];
  };
}

/** The part of got's response (a redirect's) the adapter reads. */
interface GotResponseLike {
  readonly url?: string;
  readonly requestUrl?: URL;
  readonly statusCode?: number;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

type Remembered = { readonly label?: string; readonly userData?: Record<string, unknown>; readonly headers?: Record<string, string> };

/**
 * The adapter: `attach` a queue, wrap the request handler (`handler`), and tell failures
 * (`failed`, `skipped`). integrations/crawlee/README.md shows a whole crawler.
 */
export class CrawleeDedup {
  readonly #store: SeenStore;
  readonly #window: number;
  readonly #rememberMost: number;
  /** Frontier entries handed to Crawlee and not yet recorded, by key. */
  readonly #taken = new Map<string, FrontierEntry>();
  readonly #remembered = new Map<string, Remembered>();
  /** Store keys of the entries recorded in this run, newest last. */
  readonly #recorded = new Map<string, true>();
  /** Keys (RFC rungs) of the pages recorded in this run, newest last: a redirect to one is not followed. */
  readonly #fetched = new Map<string, true>();
  /** Each request's redirect hops of its last navigation, as got reported them. */
  readonly #hops = new WeakMap<object, Hop[]>();
  /** The context whose handler is running (for `skipped`, called from inside its enqueueLinks). */
  readonly #handling = new AsyncLocalStorage<CrawleeContextLike>();
  #queue: CrawleeQueueLike | undefined;
  #addRequests: CrawleeQueueLike['addRequests'] | undefined;
  #pumping: Promise<void> = Promise.resolve();
  #stats = { admitted: 0, dropped: 0, fromStore: 0, recorded: 0, trapped: 0 };
  readonly #trapOptions: TrapOptions | undefined;
  readonly #patterns: PatternTraps | undefined;
  /** The store entries each running handler's page admitted (the pattern-trap rule reads them). */
  readonly #admittedBy = new WeakMap<object, string[]>();

  constructor(store: SeenStore, options: CrawleeDedupOptions = {}) {
    this.#store = store;
    this.#window = positive(options.window ?? 16, 'window');
    this.#rememberMost = positive(options.rememberRequests ?? 100_000, 'rememberRequests');
    this.#trapOptions = options.traps === false ? undefined : (options.traps ?? {});
    this.#patterns = this.#trapOptions === undefined ? undefined : new PatternTraps(this.#trapOptions);
  }

  /**
   * Route every request added to `queue` (enqueueLinks, `crawler.run(seeds)`, `addRequests`)
   * through the store, and hand it what the store holds queued (a resumed run's frontier).
   * Returns `queue` itself. One queue per adapter.
   */
  async attach<Q extends CrawleeQueueLike>(queue: Q): Promise<Q> {
    if (this.#queue !== undefined) throw new Error('CrawleeDedup.attach: this adapter already has a queue');
    const addRequests = queue.addRequests.bind(queue);
    const addRequest = queue.addRequest.bind(queue);
    this.#queue = queue;
    this.#addRequests = addRequests;
    queue.addRequests = async (requests, options) => this.#admit(requests, options ?? {}, addRequests);
    queue.addRequest = async (request, options) => {
      const { processedRequests } = await this.#admit([request], options ?? {}, addRequests);
      return processedRequests[0] ?? (await addRequest(request, options));
    };
    await this.#pump();
    return queue;
  }

  /**
   * Wrap a request handler (or a router): it runs first, so a page's links are admitted before
   * its fetch is recorded (a kill between the two costs one fetch again, never the links), then
   * the fetch is recorded and the queue topped up from the store.
   */
  handler<C extends CrawleeContextLike>(handle: (context: C) => unknown): (context: C) => Promise<void> {
    return async (context) => {
      if ((await this.#unfollowed(context)) === undefined) await this.#handling.run(context, () => handle(context));
      await this.record(context);
    };
  }

  /** A redirect `preNavigationHook` chose not to follow (its target was fetched, or a loop): its hop, else undefined. */
  async #unfollowed(context: CrawleeContextLike): Promise<Hop | undefined> {
    const status = statusOf(context) ?? 0;
    if (status < 300 || status > 399) return undefined;
    const hops = this.#hops.get(context.request) ?? [];
    const from = hops.length > 0 ? hops[hops.length - 1]!.to : context.request.url;
    const target = redirectTarget(from, header(context, 'location'));
    if (target === undefined) return undefined;
    const hop = { from, to: target.url, status };
    hops.push(hop);
    this.#hops.set(context.request, hops);
    return hop;
  }

  /** Wrap a `failedRequestHandler`: the failure is recorded (the store counts it, never learns a document from it). */
  failed<C extends CrawleeContextLike>(handle?: (context: C, error: Error) => unknown): (context: C, error: Error) => Promise<void> {
    return async (context, error) => {
      if ((await this.#unfollowed(context)) !== undefined) return this.record(context);
      await handle?.(context, error);
      await this.recordFailure(context, error);
    };
  }

  /**
   * An `onSkippedRequest` callback. A queued request Crawlee will not fetch (robots.txt, a redirect
   * out of its enqueue strategy, its depth limit) is recorded as failed, so it is not handed out
   * again. A link cut because the crawler reached `maxRequestsPerCrawl` (`limit`, and
   * `enqueueLimit` under that budget) is admitted to the store, queued for the next run: the page
   * it was found on is recorded as fetched, and its links would otherwise be lost to every later
   * run. Without the budget, a link over `enqueueLinks`' own `limit` is left out, as asked.
   */
  readonly skipped = async ({ url, reason }: { url: string; reason?: string }): Promise<void> => {
    const budget = (this.#handling.getStore()?.crawler as { maxRequestsPerCrawl?: unknown } | undefined)?.maxRequestsPerCrawl;
    if (reason === 'limit' || (reason === 'enqueueLimit' && typeof budget === 'number' && budget !== Infinity)) {
      await this.#store.admit([url]);
      return;
    }
    if (reason !== 'robotsTxt' && reason !== 'redirect' && reason !== 'depth') return;
    let entry: { key: string; url: string } | undefined = [...this.#taken.values()].find((e) => e.url === url);
    if (entry === undefined) {
      const known = await this.#store.canonical(url).catch(() => undefined);
      if (known?.state !== 'queued') return;
      entry = { key: known.key, url };
    }
    await this.#store.recordFetch(entry.url, { status: 0, error: `ERR_SKIPPED_${reason.toUpperCase()}` });
    await this.#done({ key: entry.key, url: entry.url });
  };

  /**
   * A `preNavigationHooks` entry (HTTP and Cheerio crawlers): notes each redirect hop with its
   * status, so a permanent redirect is recorded as one (an alias, evidence for a host rule), as
   * urldedup's own crawler records it. Without it a redirect is only the fetch's final URL.
   */
  readonly preNavigationHook = (context: CrawleeContextLike, options?: object): void => {
    if (options === undefined) return;
    const gotOptions = options as GotOptionsLike;
    const hops: Hop[] = [];
    this.#hops.set(context.request, hops);
    const hooks = (gotOptions.hooks ??= {});
    (hooks.beforeRedirect ??= []).push((options, response) => {
      const to = options.url === undefined ? undefined : String(options.url);
      const from = response.url ?? response.requestUrl?.toString();
      if (to !== undefined && from !== undefined && typeof response.statusCode === 'number') hops.push({ from, to, status: response.statusCode });
    });
    // a redirect to a page this run fetched is not followed (urldedup's crawler does not follow
    // one either): the handler wrapper records it and the user's handler never sees it
    const follow = gotOptions.followRedirect ?? true;
    gotOptions.followRedirect = (response) => {
      if (follow === false || (typeof follow === 'function' && !follow(response))) return false;
      const target = redirectTarget(response.url ?? response.requestUrl?.toString(), header({ request: context.request, response }, 'location'));
      if (target === undefined) return true;
      // a loop (`/x` → `/x/` → `/x`) ends at its first return: both its hops are evidence
      const chain = [context.request.url, ...hops.map((h) => h.to)];
      return !this.#fetched.has(target.key) && !chain.some((u) => safeKey(u) === target.key);
    };
  };

  /** Record what a handled request answered: status, final URL, content and page evidence. */
  async record(context: CrawleeContextLike): Promise<void> {
    const { request } = context;
    const mark = markOf(request);
    const requested = request.url;
    const hops = this.#hops.get(request) ?? [];
    const loaded = request.loadedUrl !== undefined && request.loadedUrl !== requested ? request.loadedUrl : undefined;
    const status = statusOf(context) ?? 200;
    const record: { -readonly [K in keyof FetchRecord]: FetchRecord[K] } = { status };
    const answered = hops.length > 0 ? hops[hops.length - 1]!.to : (loaded ?? requested);
    // without the hops (a browser crawler), the final URL is evidence of a redirect of unknown status
    if (hops.length === 0 && loaded !== undefined) record.finalUrl = loaded;
    const location = header(context, 'content-location');
    if (location !== undefined) {
      try {
        record.contentLocation = new URL(location, answered).href;
      } catch {
        // an unparsable Content-Location is no evidence
      }
    }
    if (context.body !== undefined && status >= 200 && status < 300) {
      const body = typeof context.body === 'string' ? Buffer.from(context.body) : context.body;
      record.contentHash = createHash('sha256').update(body).digest('hex').slice(0, 32);
      if (/^\s*(text\/html|application\/xhtml\+xml)/i.test(header(context, 'content-type') ?? 'text/html')) {
        const x = extractLinks(body, answered);
        this.#patterns?.observe({
          url: answered,
          requested: mark?.url ?? requested,
          host: tryNodeUrl(answered)?.host ?? '',
          textHash: x.textHash,
          admitted: this.#admittedBy.get(context) ?? [],
          words: x.words,
          links: x.links.map((l) => l.url),
        });
        record.shapeHash = x.shapeHash;
        record.stableHash = x.stableHash;
        record.echoFreeHash = x.echoFreeHash;
        if (x.mainHash !== undefined) record.mainHash = x.mainHash;
        if (x.titleHash !== undefined) record.titleHash = x.titleHash;
        if (x.wordSketch !== '') record.wordSketch = x.wordSketch;
        if (x.canonical !== undefined && x.canonical !== answered) record.canonical = x.canonical;
      }
    }
    // each hop as urldedup's crawler records it: the redirect, then the fetch of where it ended
    await this.#serially(async () => {
      for (const hop of hops) await this.#store.recordRedirect(hop.from, hop.to, hop.status);
      // a redirect not followed ends at a page fetched before: nothing more to record
      if (status < 300 || status > 399 || hops.length === 0) await this.#store.recordFetch(hops.length > 0 ? answered : (mark?.url ?? requested), record);
    });
    if (status >= 200 && status < 300) this.#keep(this.#fetched, safeKey(answered), this.#rememberMost);
    await this.#done(mark);
  }

  /** Record a request Crawlee gave up on. */
  async recordFailure(context: CrawleeContextLike, error?: Error): Promise<void> {
    const mark = markOf(context.request);
    const status = statusOf(context) ?? 0;
    const code = (error as { code?: unknown } | undefined)?.code;
    await this.#store.recordFetch(mark?.url ?? context.request.url, { status, error: typeof code === 'string' ? code : 'ERR_CRAWLEE_FAILED' });
    await this.#done(mark);
  }

  stats(): CrawleeDedupStats {
    return { ...this.#stats, trapPatterns: this.#patterns?.trapped ?? [] };
  }

  async #done(mark: EntryMark | undefined): Promise<void> {
    this.#stats.recorded++;
    if (mark !== undefined) {
      this.#taken.delete(mark.key);
      this.#keep(this.#recorded, mark.key, this.#rememberMost);
    }
    // topped up before the handler returns, so Crawlee never sees an empty queue while the store holds more
    await this.#pump();
  }

  /** Admit a batch through the store; pass on what is new or not a document's name. */
  async #admit(
    requests: Iterable<unknown> | AsyncIterable<unknown>,
    options: { forefront?: boolean; cache?: boolean },
    addRequests: CrawleeQueueLike['addRequests'],
  ): Promise<{ processedRequests: CrawleeProcessedRequest[]; unprocessedRequests: unknown[] }> {
    const passed: unknown[] = [];
    const judged: CrawleeRequestLike[] = [];
    for await (const r of requests) {
      const request = typeof r === 'string' ? { url: r } : (r as CrawleeRequestLike);
      // a URL list, a POST or a request with a body names no document of its own: Crawlee's own key
      if (typeof request !== 'object' || request === null || typeof request.url !== 'string' || 'requestsFromUrl' in request) passed.push(r);
      else if ((request.method ?? 'GET').toUpperCase() !== 'GET' || request.payload !== undefined) passed.push(r);
      // the store keeps a URL's password as a keyed hash: a fetch needs the URL as given
      else if (hasPassword(request.url)) passed.push(r);
      else judged.push(request);
    }
    const dropped: CrawleeProcessedRequest[] = [];
    const queued: CrawleeProcessedRequest[] = [];
    const byDepth = new Map<number, CrawleeRequestLike[]>();
    const trapped = this.#trapsOf(judged);
    if (trapped.length > 0) {
      await this.#store.prune(trapped.map(({ request, reason }) => ({ url: request.url, reason, depth: request.crawlDepth ?? 0 })));
      this.#stats.trapped += trapped.length;
    }
    const caught = new Set(trapped.map((t) => t.request));
    // answered as present (Crawlee takes nothing more for them): never handed to Crawlee
    for (const { request } of trapped) {
      const k = request.uniqueKey ?? request.url;
      dropped.push({ uniqueKey: k, requestId: requestIdOf(k), wasAlreadyPresent: true, wasAlreadyHandled: false });
    }
    const page = this.#handling.getStore();
    for (const r of judged) {
      if (caught.has(r)) continue;
      const depth = r.crawlDepth ?? 0;
      const list = byDepth.get(depth) ?? [];
      list.push(r);
      byDepth.set(depth, list);
    }
    for (const [depth, group] of byDepth) {
      const results = await this.#store.admit(
        group.map((r) => r.url),
        { depth },
      );
      for (let i = 0; i < group.length; i++) {
        const request = group[i]!;
        const result = results[i]!;
        if (result.key === undefined) {
          // not a URL the store keys (invalid, or a scheme out of its scope): Crawlee decides
          passed.push(request);
          continue;
        }
        this.#rememberRequest(result.identityKey ?? result.key, request);
        if (result.admitted) {
          if (page !== undefined) {
            const list = this.#admittedBy.get(page) ?? [];
            list.push(urlFromKey(result.key));
            this.#admittedBy.set(page, list);
          }
          // queued in the store: Crawlee gets it from the store's frontier, in the store's order,
          // so a rule that activates meanwhile prunes it there before Crawlee holds it
          this.#rememberRequest(result.key, request);
          queued.push({ uniqueKey: result.key, requestId: requestIdOf(result.key), wasAlreadyPresent: false, wasAlreadyHandled: false });
          this.#stats.admitted++;
        } else {
          dropped.push({ uniqueKey: result.key, requestId: requestIdOf(result.key), wasAlreadyPresent: true, wasAlreadyHandled: false });
          this.#stats.dropped++;
        }
      }
    }
    const added = passed.length === 0 ? { processedRequests: [], unprocessedRequests: [] } : await addRequests(passed, options);
    if (queued.length > 0) await this.#pump();
    return { processedRequests: [...added.processedRequests, ...queued, ...dropped], unprocessedRequests: added.unprocessedRequests };
  }

  /**
   * Run `task` after every task before it: a redirect's hops and the fetch of its target are
   * recorded with no pump between them (which would hand Crawlee the target the store queued
   * for a moment, to be fetched twice).
   */
  #serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#pumping.then(task);
    this.#pumping = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The requests a trap rule refuses: a path that repeats or runs too deep, a pattern refused. */
  #trapsOf(requests: readonly CrawleeRequestLike[]): { request: CrawleeRequestLike; reason: string }[] {
    if (this.#trapOptions === undefined) return [];
    const out: { request: CrawleeRequestLike; reason: string }[] = [];
    for (const request of requests) {
      const u = tryNodeUrl(request.url);
      if (u === undefined) continue;
      const reason = pathTrap(u.pathname, this.#trapOptions) ?? (this.#patterns?.check(u.href) === undefined ? undefined : 'trap:pattern');
      if (reason !== undefined) out.push({ request, reason });
    }
    return out;
  }

  /** Hand Crawlee what the store holds queued, up to the window (a store's failure reaches the caller). */
  #pump(): Promise<void> {
    return this.#serially(() => this.#pumpOnce());
  }

  async #pumpOnce(): Promise<void> {
    const addRequests = this.#addRequests;
    if (addRequests === undefined) return;
    while (this.#taken.size < this.#window) {
      const room = this.#window - this.#taken.size;
      const entries = (await this.#store.next({ limit: room, perHost: room })).filter((e) => !this.#taken.has(e.key));
      if (entries.length === 0) return;
      for (const e of entries) this.#taken.set(e.key, e);
      const requests = entries.map((e) => this.#entryRequest(e, e.key));
      const { processedRequests } = await addRequests(requests);
      // a key Crawlee handled (or is handling, and recorded) that the store queued again since (a
      // recheck, a give-back): fetched again under a key of its own
      const again = entries.filter((e) => processedRequests.some((p) => p.uniqueKey === e.key && p.wasAlreadyPresent && (p.wasAlreadyHandled || this.#recorded.has(e.key))));
      if (again.length > 0) await addRequests(again.map((e) => this.#entryRequest(e, `${e.key}#${e.seq}`)));
      this.#stats.fromStore += entries.length - processedRequests.filter((p) => p.wasAlreadyPresent && !p.wasAlreadyHandled).length;
    }
  }

  #entryRequest(entry: FrontierEntry, uniqueKey: string): CrawleeRequestLike {
    const known = this.#remembered.get(entry.key);
    return {
      url: entry.url,
      uniqueKey,
      ...(known?.label === undefined ? {} : { label: known.label }),
      ...(known?.headers === undefined ? {} : { headers: known.headers }),
      userData: { ...(known?.userData ?? {}), [MARK]: { key: entry.key, url: entry.url } satisfies EntryMark },
    };
  }

  #keep<V>(map: Map<string, V>, k: string | undefined, most: number, value: V = true as V): void {
    if (k === undefined) return;
    map.delete(k);
    map.set(k, value);
    if (map.size > most) map.delete(map.keys().next().value!);
  }

  #rememberRequest(key: string, request: CrawleeRequestLike): void {
    const label = request.label ?? (request.userData?.label as string | undefined);
    const { userData, headers } = request;
    const some = (o: object | undefined): boolean => o !== undefined && Object.keys(o).length > 0;
    if (label === undefined && !some(userData) && !some(headers)) return;
    this.#keep(this.#remembered, key, this.#rememberMost, {
      ...(label === undefined ? {} : { label }),
      ...(some(userData) ? { userData: { ...userData } } : {}),
      ...(some(headers) ? { headers: { ...headers } } : {}),
    });
  }
}

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}

function markOf(request: CrawleeRequestLike): EntryMark | undefined {
  const m = request.userData?.[MARK] as Partial<EntryMark> | undefined;
  return typeof m?.key === 'string' && typeof m.url === 'string' ? { key: m.key, url: m.url } : undefined;
}

/** A redirect's target, resolved against the URL that answered, and its key; undefined when either does not parse. */
function redirectTarget(from: string | undefined, location: string | undefined): { url: string; key: string } | undefined {
  if (from === undefined || location === undefined) return undefined;
  try {
    const url = new URL(location, from).href;
    const k = safeKey(url);
    return k === undefined ? undefined : { url, key: k };
  } catch {
    return undefined;
  }
}

function safeKey(url: string): string | undefined {
  try {
    return key(url);
  } catch {
    return undefined;
  }
}

function header(context: CrawleeContextLike, name: string): string | undefined {
  const h = context.response?.headers;
  const v = typeof h === 'function' ? h.call(context.response)[name] : h?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The response's status, from an HTTP crawler's `statusCode` or a browser crawler's `status()`. */
function statusOf(context: CrawleeContextLike): number | undefined {
  const r = context.response;
  if (r === undefined) return undefined;
  if (typeof r.statusCode === 'number') return r.statusCode;
  const s = typeof r.status === 'function' ? r.status.call(r) : r.status;
  return typeof s === 'number' ? s : undefined;
}

/** Crawlee's id of a uniqueKey (its `getRequestId`): the id the queue gives the canonical request. */
function requestIdOf(uniqueKey: string): string {
  return createHash('sha256').update(uniqueKey).digest('base64').replace(/[+/=]/g, '').slice(0, 15);
}

function positive(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`CrawleeDedup: ${name} must be a positive integer, got ${n}`);
  return n;
}
