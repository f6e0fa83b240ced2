/**
 * The Redis Cluster backend: the store's engine over `RedisKv` (redis/redis-kv.ts), so options,
 * reasons, rule learning and give-back are those of the LevelDB store. Every key of one host
 * carries the hash tag `{h<host>}`: one host's state lives on one master and each batch is applied
 * atomically per host. See docs/scale-out.md for the layout and what an acknowledged write survives.
 */
import { resolveStoreOptions, StoreEngine } from '../engine/index.js';
import { ClusterLock, checkDurability, clusterReady, connectCluster, redisError, resolveRedisOptions, type RedisSeeds, type RedisStoreOptions } from './redis/cluster.js';
import { StoreError } from '../errors.js';
import { FleetRegistry } from '../fleet/registry.js';
import { RedisKv } from './redis/redis-kv.js';
import type { SeenStore, StoreOptions } from '../seen-store.js';

export interface OpenRedisStoreOptions extends StoreOptions {
  readonly redis?: RedisStoreOptions;
}

/** A store opened on Redis Cluster, with what its masters promise for an acknowledged write. */
export type RedisSeenStore = SeenStore & {
  /** The masters' AOF settings at open, e.g. `aof everysec` (docs/scale-out.md, "Durability"). */
  readonly durability: string;
};

/**
 * Open (or create) the store `options.redis.name` on the Redis Cluster reached through `seeds`
 * (`redis://127.0.0.1:7001,redis://127.0.0.1:7002,…`, any one master is enough to find the rest).
 * One writer at a time, as with LevelDB: the open takes the store's lock key (read-only opens too)
 * and a second opener gets `ERR_STORE_LOCKED`; an unreachable cluster or a refused durability
 * check is `ERR_STORE_IO`.
 */
export async function openRedisStore(seeds: RedisSeeds, options: OpenRedisStoreOptions = {}): Promise<RedisSeenStore> {
  resolveStoreOptions(options);
  const { redis, ...storeOptions } = options;
  const o = resolveRedisOptions(redis);
  const cluster = connectCluster(seeds);
  const location = `redis:${o.name}@${typeof seeds === 'string' ? seeds : seeds.join(',')}`;
  let lock: ClusterLock | undefined;
  let durability: string;
  let kv: RedisKv;
  try {
    await clusterReady(cluster, location);
    if (await new FleetRegistry(cluster, o.name).isFleet()) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', location, { detail: `${o.name} is a fleet store (crawl --redis, openFleetStore): it is split by host and written by many workers` });
    }
    durability = await checkDurability(cluster, o.sync, location);
    lock = new ClusterLock(cluster, `${o.name}{g}lock`, o.lockTtlMs, location);
    await lock.acquire();
    const held = lock;
    kv = await RedisKv.open(cluster, o.name, location, held, async () => {
      await held.release();
      await cluster.quit().catch(() => cluster.disconnect());
    });
  } catch (e) {
    await lock?.release();
    cluster.disconnect();
    throw redisError(e, location);
  }
  const store = await StoreEngine.open(kv, { durable: true, atomicBatch: false }, storeOptions);
  return Object.assign(store, { durability }) as RedisSeenStore;
}
