// The Redis url space's buckets (src/store/backends/redis/url-buckets.ts) and value encodings
// (src/store/backends/redis/values.ts) on a real Redis Cluster: every bucket stays a listpack as a host
// grows, reads by key and by range agree with what was written, and a store in the layout of
// before the buckets is converted by its writer and refused to a reader.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { ClusterLock, clusterReady, connectCluster, destroyRedisStore, scanStoreKeys } from '../../src/store/backends/redis/cluster.js';
import { RedisKv } from '../../src/store/backends/redis/redis-kv.js';
import { urlField, urlKey } from '../../src/store/backends/redis/url-buckets.js';
import { decodeValue, encodeValue, keyHost } from '../../src/store/backends/redis/values.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'redis-url-buckets', () => {
  let cluster: TestCluster;
  let raw: Cluster;
  const names: string[] = [];
  beforeAll(async () => {
    cluster = await sharedCluster();
    raw = connectCluster(cluster.seeds);
    await clusterReady(raw, 'test');
  }, 60_000);
  afterAll(async () => {
    for (const n of names) await destroyRedisStore(cluster.seeds, n);
    raw?.disconnect();
    cluster?.stop();
  });

  const newName = (): string => {
    const n = `t-${randomBytes(6).toString('hex')}`;
    names.push(n);
    return n;
  };
  const openKv = (name: string, lock?: ClusterLock, partition?: { tag: string }): Promise<RedisKv> => RedisKv.open(raw, name, name, lock, async () => undefined, partition);

  async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  }

  describe('url fields and values', () => {
    it('round-trip keys through fields, with and without the tag’s head', () => {
      for (const [tag, key] of [
        ['hexample,www', 'example,www)https://:8443/a?b'],
        ['hexample,www', 'example,www)http:///x'],
        ['hexample,www', 'example,www)ftp:///x'],
        ['hexample,www', 'example,www)'],
        ['hexample,www', 'example,other)https:///a'],
        ['g', 'no-head'],
        ['hexample', 'example)\x02odd'],
      ] as const) {
        const f = urlField(tag, key);
        expect(urlKey(tag, f)).toBe(key);
        expect(f).not.toBe('');
      }
      expect(urlField('hexample,www', 'example,www)https:///a')).toBe('\x02/a');
    });

    it('round-trip values, shorter where the host is the key’s', () => {
      const key = 'org,example,www)https://user@:8080/a';
      expect(keyHost(key)).toBe('www.example.org:8080');
      expect(keyHost('org,example)http:///a')).toBe('example.org');
      const cases: [string, string, string][] = [
        ['url', key, 'q d0 tlx3 n1 hwww.example.org:8080'],
        ['url', key, 'q d0 hwww.example.org:8080 sabc'],
        ['url', key, 'q d0 hwww.example.org:80801'],
        ['url', key, 'q d0 hother.example'],
        ['url', key, 'q \x01 hwww.example.org:8080'],
        ['url', key, '\x02q'],
        ['frontier', 'h\x000001', '~short'],
        ['frontier', 'h\x000001', 'x'.repeat(300)],
        ['frontier', 'h\x000001', '@org,example)https://\n' + Array.from({ length: 50 }, (_, i) => `0 /p/${i}`).join('\n')],
        ['alias', 'a', 'b'],
      ];
      for (const [space, k, v] of cases) expect(decodeValue(space as 'url', k, encodeValue(space as 'url', k, v))).toBe(v);
      expect(encodeValue('url', key, 'q d0 hwww.example.org:8080').length).toBeLessThan(12);
    });
  });

  describe('url buckets', () => {
    it('keep every bucket a listpack as a host grows, and read back what was written', async () => {
      const name = newName();
      const kv = await openKv(name);
      const want = new Map<string, string>();
      const key = (i: number): string => `example,grow)https:///p/${i.toString(36)}${i % 7 === 0 ? '?q=' + 'z'.repeat(300) : ''}`;
      for (let b = 0; b < 6; b++) {
        const ops = [];
        for (let i = b * 500; i < (b + 1) * 500; i++) {
          const v = i % 11 === 0 ? 'f d1 t2 T' + 'k'.repeat(300) : `q d1 t${i} hgrow.example`;
          ops.push({ space: 'url' as const, key: key(i), value: v });
          want.set(key(i), v);
        }
        await kv.write(ops, { sync: false });
      }
      // a del and an update that moves an entry out of the long-entry hash
      await kv.write([{ space: 'url', key: key(1), value: undefined }, { space: 'url', key: key(7), value: 'q d0 t1' }], { sync: false });
      want.delete(key(1));
      want.set(key(7), 'q d0 t1');
      const again = await openKv(name);
      const keys = [...want.keys()];
      expect(await again.getMany('url', [...keys, key(1), 'example,grow)https:///none'])).toEqual([...want.values(), undefined, undefined]);
      const sorted = [...want].sort((a, b) => (a[0] < b[0] ? -1 : 1));
      expect(await collect(again.entries('url'))).toEqual(sorted);
      expect(await collect(again.entries('url', { reverse: true, limit: 3 }))).toEqual(sorted.slice(-3).reverse());
      const mid = sorted[1000]![0];
      expect(await collect(again.keys('url', { gt: mid, lt: 'example,grow)https:///p/5', limit: 50 }))).toEqual(
        sorted.map((e) => e[0]).filter((k) => k > mid && k < 'example,grow)https:///p/5').slice(0, 50),
      );
      let buckets = 0;
      for await (const k of scanStoreKeys(raw, name)) {
        if (!/\}u:\d+$/.test(k)) continue;
        buckets++;
        expect(await raw.call('OBJECT', 'ENCODING', k)).toBe('listpack');
        expect(await raw.hlen(k)).toBeLessThanOrEqual(128);
      }
      expect(buckets).toBeGreaterThan(30);
    });

    it('hold keys of other heads in a partition’s one tag', async () => {
      const name = newName();
      const kv = await openKv(name, undefined, { tag: 'hexample,part' });
      const keys = ['example,part)https:///a', 'example,other)https:///b', 'example,part)http:///c'];
      await kv.write(keys.map((k, i) => ({ space: 'url', key: k, value: `q d0 t${i}` })), { sync: false });
      expect(await kv.getMany('url', keys)).toEqual(['q d0 t0', 'q d0 t1', 'q d0 t2']);
      expect(await collect(kv.keys('url'))).toEqual([...keys].sort());
    });
  });

  describe('a store in the layout of before the buckets', () => {
    it('is converted by its writer’s open, and refused to a reader', async () => {
      const name = newName();
      const old = `${name}{hexample,old}u`;
      const entries: Record<string, string> = {};
      for (let i = 0; i < 300; i++) entries[`example,old)https:///${i}`] = `q d0 t${i} hold.example`;
      await raw.hset(old, entries);
      await expect(openKv(name)).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
      const lock = new ClusterLock(raw, `${name}{g}lock`, 5000, name);
      await lock.acquire();
      try {
        const kv = await openKv(name, lock);
        expect(await raw.exists(old)).toBe(0);
        expect(await kv.get('url', 'example,old)https:///7')).toBe('q d0 t7 hold.example');
        expect((await collect(kv.keys('url'))).length).toBe(300);
      } finally {
        await lock.release();
      }
    });
  });
});
