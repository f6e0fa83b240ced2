/**
 * The crawl's options, its pages and progress as the caller sees them, and the `Crawl` handle.
 */
import type { Logger } from 'pino';
import type { PresetName } from '../normalize/index.js';
import type { OpenStoreOptions, SeenStore } from '../store/index.js';
import type { CrawlErrorCode } from './errors.js';
import type { ExtractOptions } from './extract.js';
import type { FetchOptions, RedirectHop } from './fetch.js';
import type { AllowedEndpoint, Resolver } from './guard.js';
import type { CrawlReport } from './report.js';
import type { RetryOptions } from './retry.js';
import type { ScopeMode } from './scope.js';
import type { TrapOptions } from './traps.js';

/** The retry policy's options (`maxRetries`, `retryCooldownMs`, `retryFailed`, …) are in `RetryOptions` (retry.ts). */
export interface CrawlOptions extends RetryOptions {
  /** A store, or the folder of a LevelDB store to open (and close at the end). */
  readonly store: SeenStore | string;
  /** Options for opening the store when `store` is a folder (presets come from `presets`). */
  readonly storeOptions?: Omit<OpenStoreOptions, 'presets' | 'scope'>;
  /** Seed URLs, admitted at depth 0 (none: resume the stored frontier). */
  readonly seeds?: readonly string[];
  /** Opt-in policy presets of the store (when opened here). @default [] */
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
