/**
 * The crawl's store: opened from what `CrawlOptions.store` names (a store given, a LevelDB folder,
 * or a fleet on Redis Cluster), and the pages it already holds per host for the host budget.
 */
import type { PresetName } from '../normalize/index.js';
import { isFleetLocation, openFleetStore, openStore, type AdmissionScope, type FleetLocation, type OpenStoreOptions, type SeenStore } from '../store/index.js';
import type { HostBudget } from './policy/traps.js';
import { nodeUrl } from '../normalize/parse-count.js';

/** `host[:port]`, as the frontier names hosts. */
export function hostOfUrl(url: string): string {
  try {
    return nodeUrl(url).host;
  } catch {
    return url;
  }
}

export interface CrawlStoreOptions {
  /** `undefined`: the store's own. */
  readonly presets?: readonly PresetName[];
  readonly storeOptions: Omit<OpenStoreOptions, 'presets' | 'scope'> | undefined;
  /** What the store admits: the crawl's scope, seeds, path-trap limits and depth (`CrawlScope.admission`). */
  readonly scope: AdmissionScope;
}

/** The store to crawl with, and whether the crawl opened it (and so closes it at the end). */
export async function openCrawlStore(where: SeenStore | string | FleetLocation, o: CrawlStoreOptions): Promise<{ store: SeenStore; owned: boolean }> {
  if (typeof where !== 'string' && !isFleetLocation(where)) return { store: where, owned: false };
  const options = {
    ...(o.storeOptions ?? {}),
    ...(o.presets === undefined ? {} : { presets: o.presets }),
    scope: o.scope,
  };
  const store = typeof where === 'string' ? await openStore(where, options) : await openFleetStore(where.redis, { ...options, fleet: where.fleet ?? {} });
  return { store, owned: true };
}

/** Each seed's state in the store (the first 100 seeds): what became of the crawl's starting points. */
export async function seedStates(store: SeenStore, seeds: readonly string[]): Promise<Record<string, string>> {
  const list = seeds.slice(0, 100);
  const out: Record<string, string> = {};
  const found = list.length === 0 ? [] : await store.canonicalMany(list);
  list.forEach((seed, i) => {
    const r = found[i]!;
    out[seed] = 'ok' in r ? r.code : r.state;
  });
  return out;
}

/**
 * The host budget holds over runs: the pages each host already has in the store (fetched or
 * failed) count against it. One pass over the canonical URLs, when the store holds any.
 */
export async function preloadBudget(store: SeenStore, budget: HostBudget): Promise<void> {
  if (!Number.isFinite(budget.maxPagesPerHost)) return;
  const u = (await store.stats({ hosts: false })).urls;
  if (u.fetched + u.failed === 0) return;
  const perHost = new Map<string, number>();
  for await (const r of store.canonicalUrls()) {
    if (r.state === 'queued') continue;
    const h = hostOfUrl(r.url);
    perHost.set(h, (perHost.get(h) ?? 0) + 1);
  }
  for (const [h, n] of perHost) budget.preload(h, n);
}
