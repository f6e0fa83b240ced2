// The SeenStore suite (seen-store.suite.ts, unchanged) on one fleet partition's layout: every key,
// meta and counters included, under one hash tag (one slot, so each batch is atomic), and every
// write fenced by a lease (src/store/fleet/partition.ts, redis-kv.ts FENCED_WRITE). The fleet runs
// one such store per host; here one holds all the suite's hosts, so the whole suite applies.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { StoreEngine } from '../../src/store/engine/index.js';
import type { SeenStore, StoreOptions } from '../../src/store/index.js';
import { ClusterLock, clusterReady, connectCluster, destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { RedisKv } from '../../src/store/backends/redis/redis-kv.js';
import type { Space } from '../../src/store/keys.js';
import { seenStoreSuite, type Backend, type RawOp } from './seen-store.suite.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'partition-conformance', () => {
  let cluster: TestCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await sharedCluster();
    client = connectCluster(cluster.seeds);
    await clusterReady(client, 'partition-conformance');
  }, 60_000);
  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    cluster?.stop();
  });

  const TAG = 'hexample,partition';

  async function openPartition(name: string, options?: StoreOptions): Promise<SeenStore> {
    const lease = new ClusterLock(client, `${name}{${TAG}}lease`, 15_000, name);
    await lease.acquire();
    const kv = await RedisKv.open(client, name, name, lease, () => lease.release(), { tag: TAG, fence: { key: lease.name, token: lease.token } });
    return StoreEngine.open(kv, { durable: true, atomicBatch: true }, options);
  }

  seenStoreSuite('Redis Cluster, one fenced partition', async (options?: StoreOptions): Promise<Backend> => {
    const name = `p-${randomBytes(6).toString('hex')}`;
    let current: SeenStore = await openPartition(name, options);
    return {
      get store() {
        return current;
      },
      reopen: async (next?: StoreOptions) => {
        await current.close();
        current = await openPartition(name, next ?? options);
        return current;
      },
      // written behind the engine's back, in the partition's layout: a RedisKv of its own, unfenced
      damage: async (ops: readonly RawOp[]) => {
        await current.close();
        const kv = await RedisKv.open(client, name, 'damage', undefined, async () => undefined, { tag: TAG });
        await kv.write(
          ops.map((o) => ({ space: o.space as Space, key: o.key, value: o.value })),
          { sync: false },
        );
        current = await openPartition(name, options);
        return current;
      },
      cleanup: async () => {
        await current.close();
        await destroyRedisStore(cluster.seeds, name);
      },
    };
  }, { reopen: true, dir: false, damage: true, reads: false });

  it('a partition whose lease another writer took refuses every write (ERR_STORE_LOCKED)', async () => {
    const name = `p-${randomBytes(6).toString('hex')}`;
    const store = await openPartition(name);
    try {
      await store.admit(['http://fence.example/1']);
      const count = async (): Promise<number> => {
        const kv = await RedisKv.open(client, name, 'count', undefined, async () => undefined, { tag: TAG });
        let n = 0;
        for await (const _ of kv.keys('url')) n++;
        return n;
      };
      expect(await count()).toBe(1);
      await client.set(`${name}{${TAG}}lease`, 'another-worker');
      await expect(store.admit(['http://fence.example/2'])).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
      expect(await count()).toBe(1);
    } finally {
      await store.close().catch(() => undefined);
      await destroyRedisStore(cluster.seeds, name);
    }
  });
});
