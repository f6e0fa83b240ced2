// The crawler's public surface (re-exports only).
export { crawl, runCrawl, rungOf, defaultCrawlOptions, type Crawl, type CrawlOptions, type CrawledPage, type CrawlProgress } from './crawl.js';
export { formatReport, ReportBuilder, type CrawlReport, type StopReason } from './report/report.js';
export {
  Fetcher,
  defaultFetchOptions,
  parseContentType,
  type FetchOptions,
  type FetchRequest,
  type FetchResult,
  type RedirectHop,
  type ResponseHead,
  type BodySink,
  type HeaderValues,
} from './http/fetch.js';
export { parseContentEncoding, createDecoder, looksLikeZlib, brotliWindowBits, brotliWindowGuard, type ContentCoding } from './http/content-coding.js';
export { NetworkGuard, classifyAddress, isLoopbackName, type GuardOptions, type AllowedEndpoint, type Resolver, type AddressVerdict, type LookupFunction } from './http/guard.js';
export {
  RobotsCache,
  RobotsPolicy,
  parseRobots,
  policyFor,
  patternMatches,
  normalizePattern,
  ALLOW_ALL,
  DISALLOW_ALL,
  ROBOTS_MAX_BYTES,
  type RobotsFile,
  type RobotsGroup,
  type RobotsRule,
  type RobotsEntry,
  type RobotsState,
  type RobotsVerdict,
  type RobotsCacheOptions,
} from './policy/robots.js';
export { LinkExtractor, extractLinks, parseMetaRefresh, defaultExtractOptions, type ExtractOptions, type ExtractResult, type ExtractedLink, type LinkKind } from './html/extract.js';
export { Politeness, defaultPolitenessOptions, type PolitenessOptions } from './policy/politeness.js';
export { pathTrap, segmentsTrap, hasRepeatedSegments, HostBudget, defaultTrapOptions, type TrapOptions, type TrapReason } from './policy/traps.js';
export { CrawlScope, type ScopeMode, type ScopeOptions, type ScopeVerdict } from './policy/scope.js';
export { FetchError, isFetchError, type CrawlErrorCode } from './errors.js';
export { USER_AGENT, PRODUCT_TOKEN, VERSION } from './http/user-agent.js';
