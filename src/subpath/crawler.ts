/**
 * `urldedup/crawler`: the crawler's parts for callers that run their own loop (docs/crawler.md):
 * the network guard, the link extractor and the fetcher.
 */
export { NetworkGuard, classifyAddress, type GuardOptions, type AllowedEndpoint, type Resolver, type AddressVerdict } from '../crawler/guard.js';
export { LinkExtractor, extractLinks, defaultExtractOptions, type ExtractOptions, type ExtractResult, type ExtractedLink, type LinkKind } from '../crawler/extract.js';
export { Fetcher, defaultFetchOptions, type FetchOptions, type FetchRequest, type FetchResult, type RedirectHop } from '../crawler/fetch.js';
export { USER_AGENT } from '../crawler/user-agent.js';
export type { ScopeMode } from '../crawler/scope.js';
export { defaultTrapOptions, type TrapOptions } from '../crawler/traps.js';
export type { StopReason } from '../crawler/report.js';
