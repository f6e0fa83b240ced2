// urldedup's public surface (re-exports only): the normalization ladder, the store, the crawler.
export * from './normalize/index.js';
export * from './store/index.js';
export {
  crawl,
  runCrawl,
  defaultCrawlOptions,
  formatReport,
  NetworkGuard,
  classifyAddress,
  extractLinks,
  LinkExtractor,
  FetchError,
  isFetchError,
  USER_AGENT,
  type Crawl,
  type CrawlOptions,
  type CrawledPage,
  type CrawlProgress,
  type CrawlReport,
  type StopReason,
  type GuardOptions,
  type ExtractOptions,
  type ExtractResult,
  type ExtractedLink,
  type ScopeMode,
  type ScopeOptions as CrawlScopeOptions,
  type CrawlErrorCode,
} from './crawler/index.js';
// the demo site `urldedup crawl` starts with no URL (a CLI fixture, kept in the public surface)
export { startDemoSite, type DemoSite } from './cli/commands/demo-site.js';
