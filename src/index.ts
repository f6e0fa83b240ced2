/**
 * urldedup's public surface: what a library user calls, and the types of its options and results
 * (re-exports only; docs/api.md lists each name). The pieces advanced users build on are behind
 * the subpaths (`urldedup/whatwg`, `urldedup/rfc3986`, `urldedup/key`, `urldedup/presets`,
 * `urldedup/store`, `urldedup/crawler`, `urldedup/crawlee`, see src/subpath/); everything else
 * is internal.
 * test/api/exports.test.ts holds the exact list: adding a name here is a conscious change.
 */

// The normalization ladder (RFC 3986 §5.2, §6.2) and its coded errors.
export { resolve, defaultResolveOptions, type ResolveOptions, type ResolveMode } from './normalize/resolve.js';
export { normalize, defaultNormalizeOptions, type NormalizeOptions, type NormalizationLevel } from './normalize/normalize.js';
export { key } from './normalize/key.js';
export { fingerprint } from './normalize/fingerprint.js';
export { identify, type UrlIdentity } from './normalize/identify.js';
export type { PresetName } from './normalize/ladder/policy.js';
export type { UriRecord } from './normalize/uri-record.js';
export { UrlError, isUrlError, type UrlErrorCode } from './normalize/errors.js';

// The seen-store.
export { openStore, type OpenStoreOptions } from './store/backends/level-store.js';
export { openMemoryStore } from './store/backends/memory-store.js';
export { StoreError, isStoreError, type StoreErrorCode } from './store/errors.js';
export {
  defaultStoreOptions,
  type SeenStore,
  type StoreOptions,
  type AdmitOptions,
  type AdmitResult,
  type FetchRecord,
  type CanonicalResult,
  type StoreStats,
} from './store/seen-store.js';

// The crawler.
export { crawl, runCrawl, defaultCrawlOptions, type Crawl, type CrawlOptions, type CrawledPage, type CrawlProgress } from './crawler/crawl.js';
export { formatReport, type CrawlReport } from './crawler/report/report.js';
export { FetchError, isFetchError, type CrawlErrorCode } from './crawler/errors.js';
