// The SeenStore suite (seen-store.suite.ts, unchanged) on a real Redis Cluster: the one `npm test`
// started (URLDEDUP_REDIS_CLUSTER), or one started here when redis-server is on PATH. Each backend
// the suite makes is a store of its own name on that cluster, deleted at cleanup. Then the
// Redis-specific promises: single writer, the key layout (one slot per host), durability settings.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import type { SeenStore, StoreOptions } from '../../src/store/index.js';
import { clusterReady, connectCluster, destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { hostTag, RedisKv, tagPrefix } from '../../src/store/backends/redis/redis-kv.js';
import { openRedisStore, type OpenRedisStoreOptions } from '../../src/store/backends/redis-store.js';
import { SPACES, type Space } from '../../src/store/keys.js';
import { seenStoreSuite, type Backend, type RawOp } from './seen-store.suite.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'redis-conformance', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  const newName = (): string => `t-${randomBytes(6).toString('hex')}`;

  seenStoreSuite('Redis Cluster', async (options?: StoreOptions): Promise<Backend> => {
    const name = newName();
    const open = (o?: StoreOptions): Promise<SeenStore> => openRedisStore(cluster.seeds, { ...o, redis: { name } });
    let current: SeenStore = await open(options);
    return {
      get store() {
        return current;
      },
      reopen: async (next?: StoreOptions) => {
        await current.close();
        current = await open(next ?? options);
        return current;
      },
      // written through a second connection, behind the store's back (the engine's), in the
      // store's own layout: by a RedisKv of its own, without the lock
      damage: async (ops: readonly RawOp[]) => {
        await current.close();
        const raw = connectCluster(cluster.seeds);
        try {
          await clusterReady(raw, name);
          const kv = await RedisKv.open(raw, name, 'damage', undefined, async () => undefined);
          await kv.write(
            ops.map((o) => ({ space: o.space as Space, key: o.key, value: o.value })),
            { sync: false },
          );
        } finally {
          raw.disconnect();
        }
        current = await open(options);
        return current;
      },
      cleanup: async () => {
        await current.close();
        await destroyRedisStore(cluster.seeds, name);
      },
    };
  }, { reopen: true, dir: false, damage: true, reads: false });

  describe('Redis store', () => {
    it('has one writer: a second opener gets ERR_STORE_LOCKED until the first closes', async () => {
      const name = newName();
      const options: OpenRedisStoreOptions = { redis: { name } };
      const first = await openRedisStore(cluster.seeds, options);
      expect(first.supports).toEqual({ durable: true, atomicBatch: false });
      expect(first.durability).toMatch(/^aof /);
      await first.admit(['http://lock.example/1']);
      await expect(openRedisStore(cluster.seeds, options)).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
      await expect(openRedisStore(cluster.seeds, { ...options, readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
      expect((await first.admit(['http://lock.example/2']))[0]!.reason).toBe('new');
      await first.close();
      const second = await openRedisStore(cluster.seeds, options);
      expect((await second.stats()).urls.admitted).toBe(2);
      await second.close();
      await destroyRedisStore(cluster.seeds, name);
    });

    it('reopens after its writer vanished without closing, once the lock expired', async () => {
      const name = newName();
      const options: OpenRedisStoreOptions = { redis: { name, lockTtlMs: 1000 } };
      const raw = new Cluster([cluster.seeds.split(',')[0]!]);
      // a lock left by a writer that was killed: nobody renews it
      await raw.set(`${name}{g}lock`, 'dead-writer', 'PX', 1000);
      raw.disconnect();
      await expect(openRedisStore(cluster.seeds, options)).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
      await new Promise((r) => setTimeout(r, 1100));
      const store = await openRedisStore(cluster.seeds, options);
      await store.close();
      await destroyRedisStore(cluster.seeds, name);
    });

    it('reports an unreachable cluster as ERR_STORE_IO, and misuse as a TypeError', async () => {
      await expect(openRedisStore('redis://127.0.0.1:1', { redis: { name: newName() } })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
      await expect(openRedisStore(cluster.seeds, { redis: { name: 'a b' } })).rejects.toBeInstanceOf(TypeError);
      await expect(openRedisStore('http://127.0.0.1:7001')).rejects.toBeInstanceOf(TypeError);
    });

    it('refuses sync always on masters that do not fsync every write', async () => {
      const fsync = await (async () => {
        const raw = new Cluster([cluster.seeds.split(',')[0]!]);
        await new Promise((r) => raw.once('ready', r));
        const v = (await raw.nodes('master')[0]!.config('GET', 'appendfsync')) as string[];
        raw.disconnect();
        return v[1];
      })();
      const attempt = openRedisStore(cluster.seeds, { redis: { name: newName(), sync: 'always' } });
      if (fsync === 'always') await (await attempt).close();
      else await expect(attempt).rejects.toMatchObject({ code: 'ERR_STORE_IO', message: expect.stringContaining('appendfsync always') });
    });

    it('puts every key of a host in one hash slot, whatever the space', async () => {
      const name = newName();
      const store = await openRedisStore(cluster.seeds, { presets: ['tracking'], redis: { name } });
      await store.admit(['http://www.slot.example:8080/a?utm_source=1', 'http://www.slot.example:8080/b']);
      // the same host without the port: the same tag
      for (const p of ['x', 'y', 'z']) await store.recordRedirect(`http://www.slot.example/${p}`, `https://www.slot.example/${p}`, 301);
      await store.recordFetch('http://www.slot.example/q', { status: 200, contentHash: 'Q' });
      await store.recordFetch('http://www.slot.example/q?sid=1', { status: 200, contentHash: 'Q' });
      await store.close();
      const raw = new Cluster([cluster.seeds.split(',')[0]!]);
      await new Promise((r) => raw.once('ready', r));
      const keys: string[] = [];
      for (const m of raw.nodes('master')) keys.push(...(await m.keys(`${name}{*`)));
      raw.disconnect();
      const tag = hostTag('www.slot.example:8080');
      expect(tag).toBe('hexample,slot,www');
      const hostKeys = keys.filter((k) => k.includes(`{${tag}}`));
      // url, alias, aliasrev, frontier, rule, evidence, pruned (and their sorted sets): one tag, so one slot and one master
      const codes = hostKeys.map((k) => k.slice(name.length + tag.length + 2));
      expect(new Set(codes.map((c) => c.replace(/:[os]$/, '').replace(/^u:.*$/, 'u')))).toEqual(new Set(['u', 'a', 'v', 'f', 'r', 'e', 'p']));
      // the spaces that grow with the crawl are one sorted set of whole entries, no hash beside it
      for (const c of ['a', 'v', 'e', 'p']) expect(codes.filter((k) => k.startsWith(c + ':') || k === c)).toEqual([c + ':s']);
      expect(keys.filter((k) => !k.includes(`{${tag}}`)).every((k) => k.includes('{g}'))).toBe(true);
      // the prefix that names the host, for every space
      for (const space of SPACES) expect(tagPrefix(space, '')).toEqual(space === 'meta' || space === 'counter' ? { end: 0, tag: 'g' } : undefined);
      await destroyRedisStore(cluster.seeds, name);
    });
  });
});
