/**
 * What a run does before its loop takes the first entry: open the store (a fleet member paced by
 * the crawl's politeness), queue failed URLs again (retry.ts), count the pages each host already
 * has (its budget), and admit the seeds, or, resuming without seeds, scope the crawl to the
 * frontier's hosts.
 */
import type { Logger } from 'pino';
import { normalize } from '../normalize/index.js';
import type { SeenStore } from '../store/index.js';
import type { CrawlEvents } from './crawl-events.js';
import { invalidSeedsOf, noValidSeed, type CheckedCrawlOptions } from './crawl-options.js';
import { crawlScope } from './crawl-parts.js';
import { openCrawlStore, preloadBudget } from './crawl-store.js';
import type { Politeness } from './policy/politeness.js';
import { TRANSIENT_CODES, type RetryOptions } from './http/retry.js';
import type { CrawlScope } from './policy/scope.js';
import type { HostBudget } from './policy/traps.js';

/** What the start reads of the crawl. */
export interface CrawlStart {
  readonly seeds: readonly string[];
  readonly maxDepth: number;
  /** The crawl's scope as it is now (handed to the store as its admission scope). */
  scope(): CrawlScope;
  readonly politeness: Politeness;
  readonly budget: HostBudget;
  readonly retry: Required<RetryOptions>;
  readonly events: CrawlEvents;
  readonly log: Logger;
}

/** The seeds' normal forms: a seed is crawled whatever the scope's include and exclude say. */
export function seedForms(seeds: readonly string[]): ReadonlySet<string> {
  const forms = new Set<string>();
  for (const s of seeds) {
    try {
      forms.add(normalize(s));
    } catch {
      // an invalid seed: admit() reports it
    }
  }
  return forms;
}

/** The store `o.store` names, opened (or the caller's: `owned` false). */
export async function openStoreOf(o: CheckedCrawlOptions, c: CrawlStart): Promise<{ store: SeenStore; owned: boolean }> {
  const opened = await openCrawlStore(o.store, {
    ...(o.presets === undefined ? {} : { presets: o.presets }),
    storeOptions: o.storeOptions,
    // redirect targets the store queues by itself pass the crawl's scope and trap rules too
    scope: c.scope().admission(c.seeds, o.traps, c.maxDepth),
  });
  const store = opened.store;
  const politeness = c.politeness;
  store.attachWorker({
    pacing: { notBefore: (h) => politeness.nextStartOf(h), holdUntil: (h, t) => politeness.holdUntil(h, t) },
    onTakeover: (host) => c.log.warn({ host }, 'fleet: took over a host whose worker stopped renewing its lease (its queued and in-flight URLs are fetched here)'),
  });
  return opened;
}

/**
 * Requeue, budgets and seeds (events `requeued`, `seeded`); resolves to the scope of a resumed
 * crawl without seeds, else undefined. Rejects when no seed is valid.
 */
export async function prepareRun(store: SeenStore, o: CheckedCrawlOptions, c: CrawlStart): Promise<CrawlScope | undefined> {
  // failed URLs worth another try (retry.ts): transient codes whose cool-down has passed
  const before = c.retry.retryFailed ? Infinity : Date.now() - c.retry.retryCooldownMs;
  let requeued = await store.requeueFailed({ codes: TRANSIENT_CODES, before });
  // a failure a policy caused is the policy's: a run whose address policy lets more through
  // (--allow-private, an allow-list) tries the URLs an earlier one refused
  const widened = o.allowPrivate === true || (o.allow?.length ?? 0) > 0;
  if (widened) requeued += await store.requeueFailed({ codes: ['ERR_BLOCKED_ADDRESS'] });
  c.events.emit('requeued', { urls: requeued });
  if (requeued > 0) c.log.info({ urls: requeued }, 'failed URLs queued again');
  await preloadBudget(store, c.budget);
  if (c.seeds.length === 0) {
    if ((o.scope ?? 'host') === 'any') return undefined;
    // a resumed crawl without seeds: the hosts of its frontier were admitted in scope, so they
    // define it (give the seeds again for exactly the first run's scope)
    const hosts = Object.keys((await store.stats()).frontier.hosts);
    return crawlScope(o, hosts.map((h) => `http://${h}/`));
  }
  const results = await store.admit(c.seeds, { depth: 0 });
  for (const r of results) c.log.info({ seed: r.url, reason: r.reason }, 'seed');
  const invalid = invalidSeedsOf(results);
  c.events.emit('seeded', { admitted: results.filter((r) => r.admitted).length, invalid });
  if (invalid.length === c.seeds.length) throw noValidSeed(invalid);
  return undefined;
}
