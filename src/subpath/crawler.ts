/**
 * `urldedup/crawler`: the crawler's parts for callers that run their own loop (docs/crawler.md):
 * the network guard, the link extractor and the fetcher.
 */
export { NetworkGuard, classifyAddress, type GuardOptions, type AllowedEndpoint, type Resolver, type AddressVerdict } from '../crawler/http/guard.js';
export { LinkExtractor, extractLinks, defaultExtractOptions, type ExtractOptions, type ExtractResult, type ExtractedLink, type LinkKind } from '../crawler/html/extract.js';
export { Fetcher, defaultFetchOptions, type FetchOptions, type FetchRequest, type FetchResult, type RedirectHop } from '../crawler/http/fetch.js';
export { USER_AGENT } from '../crawler/http/user-agent.js';
export type { ScopeMode } from '../crawler/policy/scope.js';
export { defaultTrapOptions, type TrapOptions } from '../crawler/policy/traps.js';
export type { StopReason } from '../crawler/report/report.js';
