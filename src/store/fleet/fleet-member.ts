/**
 * What a fleet worker is to the crawler (fleet-store.ts): the fleet's options, where a crawl finds
 * its fleet, and what the crawler asks of a fleet store besides `SeenStore`.
 */
import type { RedisSeeds, RedisStoreOptions } from '../backends/redis/cluster.js';
import type { SeenStore, StoreOptions, WorkerPacing } from '../seen-store.js';

export interface FleetOptions {
  /** The store's name on the cluster (every key starts with it). @default 'ud' */
  readonly name?: string;
  /** The host lease's time to live; renewed every third of it. A killed worker's hosts return after it. @default 15000 */
  readonly leaseMs?: number;
  /** Most hosts this worker holds at once. @default 4 */
  readonly maxHosts?: number;
  /** How often an idle worker looks for hosts with work. @default 200 */
  readonly pollMs?: number;
  /** Durability check of the masters, as `RedisStoreOptions.sync`. @default 'server' */
  readonly sync?: RedisStoreOptions['sync'];
}

export interface OpenFleetStoreOptions extends StoreOptions {
  readonly fleet?: FleetOptions;
}

/** What the crawler asks of a fleet store besides `SeenStore` (crawl.ts). */
export interface FleetMember {
  readonly fleet: true;
  /** Be told when this worker takes a host (its partition tag) whose previous holder's lease expired. */
  onTakeover(listener: (tag: string) => void): void;
  /** The crawler's pacing: a host given up leaves its next start time for its next holder. */
  pacing: WorkerPacing | undefined;
  /** Take hosts with work (up to `maxHosts`), admit their inboxes, give up hosts with none left. */
  refill(): Promise<void>;
  /** Wait until this worker holds a host with queued URLs (true) or the whole fleet is done (false). */
  waitForWork(signal: AbortSignal): Promise<boolean>;
  /**
   * True while this worker surely holds `host`'s lease (cluster.ts `ClusterLock.held`): the
   * crawler asks before each fetch, so a worker stopped past its lease fetches nothing another
   * worker may now be fetching (its writes are fenced too).
   */
  holds(host: string): boolean;
}

/** Where a crawl finds its fleet store (`CrawlOptions.store`): the cluster's seed nodes and the fleet's options. */
export interface FleetLocation {
  readonly redis: RedisSeeds;
  readonly fleet?: FleetOptions;
}

export function isFleetLocation(where: unknown): where is FleetLocation {
  const r = (where as Partial<FleetLocation> | null)?.redis;
  return typeof r === 'string' || Array.isArray(r);
}

export function isFleetMember(store: unknown): store is SeenStore & FleetMember {
  return (store as Partial<FleetMember> | null)?.fleet === true;
}
