/**
 * The crawl's options, its pages and progress as the caller sees them, and the `Crawl` handle.
 */
import type { Logger } from 'pino';
import { checkOptionNames, describeValue, urlArgument, type OptionNames } from '../normalize/misuse.js';
import type { PresetName } from '../normalize/index.js';
import { UrlError, type UrlErrorCode } from '../normalize/errors.js';
import { isFleetLocation, type AdmitResult, type FleetLocation, type OpenStoreOptions, type SeenStore } from '../store/index.js';
import { checkStoreOptionNames, openStoreOptionNames } from '../store/option-names.js';
import { FetchError, type CrawlErrorCode } from './errors.js';
import type { ExtractOptions } from './html/extract.js';
import type { FetchOptions, RedirectHop } from './http/fetch.js';
import type { AllowedEndpoint, Resolver } from './http/guard.js';
import type { CrawlReport } from './report/report.js';
import type { RetryOptions } from './http/retry.js';
import type { ScopeMode } from './policy/scope.js';
import type { TrapOptions } from './policy/traps.js';

/** The retry policy's options (`maxRetries`, `retryCooldownMs`, `retryFailed`, …) are in `RetryOptions` (retry.ts). */
export interface CrawlOptions extends RetryOptions {
  /**
   * A store, the folder of a LevelDB store to open (and close at the end), or a fleet store on
   * Redis Cluster to join (`{ redis: 'redis://127.0.0.1:7001,…', fleet: { name } }`, docs/scale-out.md).
   */
  readonly store: SeenStore | string | FleetLocation;
  /** Options for opening the store when `store` is a folder (presets come from `presets`). */
  readonly storeOptions?: Omit<OpenStoreOptions, 'presets' | 'scope'>;
  /**
   * Seed URLs (strings or `URL`s), admitted at depth 0 (none: resume the stored frontier). Seeds
   * the store refuses are listed in the report's `invalidSeeds`; when every seed is refused, the
   * crawl fails (`done` rejects with the first one's `UrlError`).
   */
  readonly seeds?: readonly (string | URL)[];
  /** Opt-in policy presets of the store (when opened here). @default the store's own ([] for a new one) */
  readonly presets?: readonly PresetName[];
  /** @default 8 */
  readonly concurrency?: number;
  /** @default 2 */
  readonly perHost?: number;
  /** Least time between the starts of two requests to one host, ms. @default 0 */
  readonly delayMs?: number;
  /** @default 30_000 */
  readonly maxCrawlDelayMs?: number;
  /** Pages fetched in this run (frontier entries). @default Infinity */
  readonly maxPages?: number;
  /** Deepest link depth from a seed. @default Infinity */
  readonly maxDepth?: number;
  /** @default 'host' */
  readonly scope?: ScopeMode;
  readonly include?: readonly (RegExp | string)[];
  readonly exclude?: readonly (RegExp | string)[];
  /** Allow loopback, private and other special-use addresses. @default false */
  readonly allowPrivate?: boolean;
  /** Endpoints allowed whatever their range (the demo site). */
  readonly allow?: readonly AllowedEndpoint[];
  /** Name resolution (tests inject one). */
  readonly resolver?: Resolver;
  /** Obey robots.txt. @default true */
  readonly robots?: boolean;
  /** An unreachable robots.txt (5xx, no answer) disallows its origin for this long, then is fetched again. @default 60_000 */
  readonly robotsRetryMs?: number;
  /** Fetches of an unreachable robots.txt per run before the origin is left for a later run. @default 3 */
  readonly robotsAttempts?: number;
  /** Redirects followed per fetch. @default 10 */
  readonly maxRedirects?: number;
  readonly fetch?: Omit<FetchOptions, 'guard' | 'maxRedirects'>;
  readonly traps?: TrapOptions;
  readonly extract?: Omit<ExtractOptions, 'charset'>;
  /** Keep each page's decoded body on `CrawledPage.body`. @default false */
  readonly keepBodies?: boolean;
  /** Aborting it is `abort()`. */
  readonly signal?: AbortSignal;
  /** pino logger. @default silent */
  readonly logger?: Logger;
  /** Called for each fetched page (awaited: a slow callback slows the crawl). */
  readonly onPage?: (page: CrawledPage) => void | Promise<void>;
  readonly onProgress?: (progress: CrawlProgress) => void;
  /** @default 1000 */
  readonly progressIntervalMs?: number;
}

export interface CrawledPage {
  /** The frontier entry's URL. */
  readonly url: string;
  /** The URL that answered (after same-origin redirects). */
  readonly finalUrl: string;
  readonly depth: number;
  /** 0 when there was no response. */
  readonly status: number;
  readonly mediaType?: string;
  readonly contentHash?: string;
  readonly hops: readonly RedirectHop[];
  /** The http(s) links of an HTML page, resolved. */
  readonly links: readonly string[];
  /** Links that became new frontier entries. */
  readonly admitted: number;
  readonly canonical?: string;
  readonly contentLocation?: string;
  readonly body?: Buffer;
  readonly error?: { readonly code: CrawlErrorCode; readonly message: string };
  readonly requests: number;
  readonly elapsedMs: number;
}

export interface CrawlProgress {
  readonly pagesFetched: number;
  readonly requests: number;
  /** Distinct documents (2xx bodies by content hash) fetched so far. */
  readonly documents: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly duplicatesAvoided: number;
  readonly pruned: number;
  readonly errors: number;
  readonly pagesPerSecond: number;
  readonly elapsedMs: number;
}

export interface Crawl extends AsyncIterable<CrawledPage> {
  /** The report, when the crawl has ended and the store is closed (rejects on a store failure). */
  readonly done: Promise<CrawlReport>;
  /** Take no new work; finish and record in-flight fetches; then end. */
  stop(reason?: 'stopped' | 'signal'): void;
  /** `stop()`, and abort in-flight fetches (they stay queued for a later run). */
  abort(): void;
  progress(): CrawlProgress;
}

export const defaultCrawlOptions = {
  concurrency: 8,
  perHost: 2,
  delayMs: 0,
  maxRedirects: 10,
  robotsRetryMs: 60_000,
  robotsAttempts: 3,
  scope: 'host',
} as const;

// ---- option intake (programmer misuse is a TypeError before anything starts) ----------------------

/** The options the crawler runs on: `CrawlOptions` checked, with the seeds as strings. */
export interface CheckedCrawlOptions extends Omit<CrawlOptions, 'seeds'> {
  readonly seeds?: readonly string[];
}

const crawlOptionNames = {
  store: true,
  storeOptions: true,
  seeds: true,
  presets: true,
  concurrency: true,
  perHost: true,
  delayMs: true,
  maxCrawlDelayMs: true,
  maxPages: true,
  maxDepth: true,
  scope: true,
  include: true,
  exclude: true,
  allowPrivate: true,
  allow: true,
  resolver: true,
  robots: true,
  robotsRetryMs: true,
  robotsAttempts: true,
  maxRedirects: true,
  fetch: true,
  traps: true,
  extract: true,
  keepBodies: true,
  signal: true,
  logger: true,
  onPage: true,
  onProgress: true,
  progressIntervalMs: true,
  maxRetries: true,
  retryBaseMs: true,
  retryMaxMs: true,
  maxRetryAfterMs: true,
  retryCooldownMs: true,
  retryFailed: true,
} as const satisfies OptionNames<CrawlOptions>;

const { presets: _presets, scope: _scope, ...crawlStoreOptionNames } = openStoreOptionNames;
crawlStoreOptionNames satisfies OptionNames<NonNullable<CrawlOptions['storeOptions']>>;

const fetchOptionNames = {
  userAgent: true,
  accept: true,
  connectTimeoutMs: true,
  headersTimeoutMs: true,
  bodyTimeoutMs: true,
  deadlineMs: true,
  maxWireBytes: true,
  maxDecodedBytes: true,
  maxEncodings: true,
  maxBrotliWindowBits: true,
  minBytesPerSecond: true,
  throughputGraceMs: true,
} as const satisfies OptionNames<NonNullable<CrawlOptions['fetch']>>;

const trapOptionNames = { maxRepeats: true, maxPathDepth: true, maxPagesPerHost: true, patternMinFetches: true, patternMinNewRatio: true, patternEmptyRun: true } as const satisfies OptionNames<TrapOptions>;

const extractOptionNames = { maxOutlinks: true, maxHrefBytes: true } as const satisfies OptionNames<NonNullable<CrawlOptions['extract']>>;

/**
 * The intake of `crawl()` and `runCrawl()` (`fn`): options must be an object with known names
 * (nested ones too), a store, and seeds that are URL strings or `URL` objects (given as their
 * `href`). Whether a seed is a valid URL is the store's to say (`invalidSeeds`).
 */
export function checkCrawlOptions(fn: string, options: CrawlOptions): CheckedCrawlOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${fn}: options must be an object, not ${describeValue(options)}`);
  checkOptionNames(fn, options, crawlOptionNames);
  const store: unknown = options.store;
  if (typeof store !== 'string' && !isFleetLocation(store) && typeof (store as Partial<SeenStore> | null | undefined)?.admit !== 'function') {
    throw new TypeError(`${fn}: options.store must be a store (openStore, openMemoryStore) or a folder path, not ${describeValue(store)}`);
  }
  checkStoreOptionNames(fn, options.storeOptions, crawlStoreOptionNames, 'options.storeOptions');
  checkOptionNames(fn, options.fetch, fetchOptionNames, 'options.fetch');
  checkOptionNames(fn, options.traps, trapOptionNames, 'options.traps');
  checkOptionNames(fn, options.extract, extractOptionNames, 'options.extract');
  const seeds: unknown = options.seeds;
  if (seeds === undefined) return options as CheckedCrawlOptions;
  if (!Array.isArray(seeds)) throw new TypeError(`${fn}: options.seeds must be an array of URL strings or URL objects, not ${describeValue(seeds)}`);
  if (seeds.every((s) => typeof s === 'string')) return options as CheckedCrawlOptions;
  return { ...options, seeds: seeds.map((s: unknown, i) => (typeof s === 'string' ? s : urlArgument(fn, `options.seeds[${i}]`, s))) };
}

/** A seed the crawl drops: the store refused it (the code of its `UrlError`), or its scheme is not fetched. */
export interface InvalidSeed {
  readonly seed: string;
  readonly code: UrlErrorCode | 'ERR_UNSUPPORTED_SCHEME';
}

/**
 * The seeds `admit` refused as invalid URLs (`invalid:CODE`), and those out of scope for a scheme
 * the crawler does not fetch (`ERR_UNSUPPORTED_SCHEME`): a crawl drops them, so it reports them.
 */
export function invalidSeedsOf(results: readonly AdmitResult[]): InvalidSeed[] {
  const out: InvalidSeed[] = [];
  for (const r of results) {
    if (r.reason.startsWith('invalid:')) out.push({ seed: r.url, code: r.reason.slice('invalid:'.length) as UrlErrorCode });
    else if (r.reason === 'out-of-scope' && !/^https?:/i.test(r.url.trimStart())) out.push({ seed: r.url, code: 'ERR_UNSUPPORTED_SCHEME' });
  }
  return out;
}

/**
 * The error of a crawl whose every seed is invalid: the first seed's code, all of them in the
 * detail. A `UrlError` where the first seed does not parse, a `FetchError` where its scheme is not fetched.
 */
export function noValidSeed(invalid: readonly InvalidSeed[]): UrlError | FetchError {
  const first = invalid[0]!;
  const list = invalid.slice(0, 10).map((s) => `${s.code} ${JSON.stringify(s.seed)}`).join(', ');
  const more = invalid.length > 10 ? `, and ${invalid.length - 10} more` : '';
  const detail = `crawl: no valid seed; ${invalid.length === 1 ? 'the seed is' : `all ${invalid.length} seeds are`} invalid: ${list}${more}`;
  return first.code === 'ERR_UNSUPPORTED_SCHEME' ? new FetchError(first.code, first.seed, detail) : new UrlError(first.code, first.seed, { detail });
}
