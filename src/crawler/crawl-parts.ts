/**
 * The crawl's components, built from its checked options: politeness, the network guard and the
 * fetcher behind it, the robots.txt cache, the scope and the trap counters. The crawl loop
 * (crawl.ts) only wires them together.
 */
import type { CrawlEvents } from './crawl-events.js';
import { defaultCrawlOptions, type CheckedCrawlOptions } from './crawl-options.js';
import { Fetcher } from './http/fetch.js';
import { NetworkGuard } from './http/guard.js';
import { Politeness } from './policy/politeness.js';
import { RobotsCache } from './policy/robots.js';
import { CrawlScope } from './policy/scope.js';
import { HostBudget, PatternTraps } from './policy/traps.js';

export interface CrawlParts {
  readonly politeness: Politeness;
  readonly fetcher: Fetcher;
  /** Absent with `robots: false`. */
  readonly robots: RobotsCache | undefined;
  /** Around the given seeds (a resumed crawl without seeds scopes itself again: crawl-start.ts). */
  readonly scope: CrawlScope;
  /** Pages per host (traps.ts `maxPagesPerHost`). */
  readonly budget: HostBudget;
  /** URL patterns that keep producing URLs without new content (traps.ts). */
  readonly patterns: PatternTraps;
}

/** Build the parts; robots.txt fetches are `robots` events on `events`, paced and aborted with the crawl. */
export function crawlParts(o: CheckedCrawlOptions, events: CrawlEvents, signal: AbortSignal): CrawlParts {
  const politeness = new Politeness({
    concurrency: o.concurrency ?? defaultCrawlOptions.concurrency,
    perHost: o.perHost ?? defaultCrawlOptions.perHost,
    delayMs: o.delayMs ?? defaultCrawlOptions.delayMs,
    ...(o.maxCrawlDelayMs === undefined ? {} : { maxCrawlDelayMs: o.maxCrawlDelayMs }),
  });
  const guard = new NetworkGuard({
    allowPrivate: o.allowPrivate === true,
    ...(o.allow === undefined ? {} : { allow: o.allow }),
    ...(o.resolver === undefined ? {} : { resolver: o.resolver }),
  });
  const fetcher = new Fetcher({ ...(o.fetch ?? {}), maxRedirects: o.maxRedirects ?? defaultCrawlOptions.maxRedirects, guard });
  const robots =
    o.robots === false
      ? undefined
      : new RobotsCache({
          fetcher,
          unreachableRetryMs: o.robotsRetryMs ?? defaultCrawlOptions.robotsRetryMs,
          schedule: (host, task) => politeness.run(host, task, signal),
          signal,
          onFetch: (origin, result) => events.emit('robots', { origin, requests: result.requests, redirects: result.hops.length, status: result.status, error: result.error?.code }),
        });
  const scope = crawlScope(o, o.seeds ?? []);
  return { politeness, fetcher, robots, scope, budget: new HostBudget(o.traps?.maxPagesPerHost), patterns: new PatternTraps(o.traps) };
}

function toRegex(r: RegExp | string): RegExp {
  return typeof r === 'string' ? new RegExp(r) : r;
}

/** The crawl's scope around `seeds` (the given seeds, or a resumed frontier's hosts). */
export function crawlScope(o: CheckedCrawlOptions, seeds: readonly string[]): CrawlScope {
  return new CrawlScope({
    mode: o.scope ?? defaultCrawlOptions.scope,
    seeds,
    include: (o.include ?? []).map(toRegex),
    exclude: (o.exclude ?? []).map(toRegex),
  });
}
