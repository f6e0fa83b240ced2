// The entry spaces' sorted sets of whole entries (src/store/backends/redis/ordered-entries.ts):
// member order is key order and the range bounds are exact, whatever NUL and \x01 the keys and
// values hold (checked bytewise, as Redis compares, then on a real Redis Cluster against a model),
// and a store whose entry spaces are in the hash-and-key-set layout of before is converted by its
// writer's open and refused to a reader.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { ClusterLock, clusterReady, connectCluster, destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { RedisKv } from '../../src/store/backends/redis/redis-kv.js';
import { entryBounds, entryMember, escapeKey, splitMember, unescapeKey } from '../../src/store/backends/redis/ordered-entries.js';
import { SEP } from '../../src/store/keys.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

/** A deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// the code units that matter to the escape (NUL, \x01, \x02), ASCII around them, and a non-ASCII one
const ALPHABET = ['\u0000', '\u0001', '\u0002', 'a', 'b', '~', '\u00e9'];
function randomKey(r: () => number, max = 6): string {
  let k = '';
  const n = Math.floor(r() * (max + 1));
  for (let i = 0; i < n; i++) k += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return k;
}

const byteCmp = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const keyCmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Whether member `m` lies within ZRANGEBYLEX bounds `min`/`max`, compared bytewise. */
function withinLex(m: string, min: string, max: string): boolean {
  if (min !== '-') {
    const c = byteCmp(m, min.slice(1));
    if (min[0] === '[' ? c < 0 : c <= 0) return false;
  }
  if (max !== '+') {
    const c = byteCmp(m, max.slice(1));
    if (max[0] === '[' ? c > 0 : c >= 0) return false;
  }
  return true;
}

describe('ordered entries: members sort as their keys', () => {
  it('escape round-trips and keeps key order bytewise, whatever the values', () => {
    const r = rng(7);
    for (let round = 0; round < 200; round++) {
      const keys = [...new Set(Array.from({ length: 20 }, () => randomKey(r)))];
      for (const k of keys) {
        expect(unescapeKey(escapeKey(k))).toBe(k);
        expect(escapeKey(k).includes('\u0000')).toBe(false);
      }
      const entries = keys.map((k) => [k, randomKey(r, 4)] as const);
      const byKey = [...entries].sort((a, b) => keyCmp(a[0], b[0]));
      const byMember = [...entries].sort((a, b) => byteCmp(entryMember(a[0], a[1]), entryMember(b[0], b[1])));
      expect(byMember.map((e) => e[0])).toEqual(byKey.map((e) => e[0]));
      for (const [k, v] of entries) expect(splitMember(entryMember(k, v))).toEqual([k, v]);
    }
  });

  it('gives bounds that hold exactly the keys of a range', () => {
    const r = rng(11);
    for (let round = 0; round < 500; round++) {
      const keys = [...new Set(Array.from({ length: 15 }, () => randomKey(r)))];
      const lower = randomKey(r);
      const upper = randomKey(r);
      const inclusive = r() < 0.5;
      const { min, max } = entryBounds(inclusive ? { gte: lower, lt: upper } : { gt: lower, lt: upper });
      for (const k of keys) {
        const inKeys = (inclusive ? k >= lower : k > lower) && k < upper;
        expect(withinLex(entryMember(k, randomKey(r, 3)), min, max)).toBe(inKeys);
      }
    }
  });
});

describeWith([REDIS], 'redis-ordered-entries', () => {
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
  const openKv = (name: string, lock?: ClusterLock): Promise<RedisKv> => RedisKv.open(raw, name, name, lock, async () => undefined);

  async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  }

  it('reads back by key and by range what a model of the writes holds', async () => {
    const name = newName();
    const lock = new ClusterLock(raw, `${name}{g}lock`, 5000, name);
    await lock.acquire();
    try {
      const kv = await openKv(name, lock);
      const r = rng(23);
      const model = new Map<string, string>();
      // keys of one host's documents index (`h` SEP host SEP …), so one tag: the tail is random
      const prefix = 'h' + SEP + 'a.example' + SEP;
      for (let step = 0; step < 40; step++) {
        const ops = Array.from({ length: 25 }, () => {
          const key = prefix + randomKey(r, 8);
          const value = r() < 0.25 ? undefined : randomKey(r, 12);
          return { space: 'evidence' as const, key, value };
        });
        // one op per key in a write (a batch's last op on a key wins in the engine's queue)
        const last = new Map(ops.map((o) => [o.key, o]));
        await kv.write([...last.values()], { sync: false });
        for (const o of last.values()) if (o.value === undefined) model.delete(o.key);
        else model.set(o.key, o.value);
      }
      const sorted = [...model].sort((a, b) => keyCmp(a[0], b[0]));
      expect(model.size).toBeGreaterThan(300); // more than one page (256)
      for (const [k, v] of sorted.slice(0, 50)) expect(await kv.get('evidence', k)).toBe(v);
      expect(await kv.get('evidence', prefix + 'absent\u0000')).toBeUndefined();
      const all = { gte: prefix, lt: 'h' + SEP + 'a.example\u0001' };
      expect(await collect(kv.entries('evidence', all))).toEqual(sorted);
      expect(await collect(kv.entries('evidence', { ...all, reverse: true }))).toEqual([...sorted].reverse());
      for (let i = 0; i < 30; i++) {
        const a = prefix + randomKey(r, 3);
        const b = prefix + randomKey(r, 3);
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const limit = 1 + Math.floor(r() * 300);
        const want = sorted.filter(([k]) => k > lo && k < hi);
        expect(await collect(kv.entries('evidence', { gt: lo, lt: hi, limit }))).toEqual(want.slice(0, limit));
        expect(await collect(kv.entries('evidence', { gt: lo, lt: hi, limit, reverse: true }))).toEqual([...want].reverse().slice(0, limit));
      }
    } finally {
      await lock.release();
    }
  });

  it('converts a store of the hash-and-key-set layout at its writer’s open, and refuses it to a reader', async () => {
    const name = newName();
    const tag = 'hexample,old';
    const entries: [string, string][] = [];
    for (let i = 0; i < 300; i++) entries.push([`example,old)https:///${String(i).padStart(3, '0')}`, i % 3 === 0 ? '' : `rule:x${i}`]);
    const keys = entries.map(([k]) => 'rule:x' + SEP + k);
    await raw.hset(`${name}{${tag}}p`, Object.fromEntries(keys.map((k, i) => [k, entries[i]![1]])));
    await raw.zadd(`${name}{${tag}}p:o`, ...keys.flatMap((k) => ['0', k]));
    await expect(openKv(name)).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
    const lock = new ClusterLock(raw, `${name}{g}lock`, 5000, name);
    await lock.acquire();
    try {
      const kv = await openKv(name, lock);
      expect(await raw.exists(`${name}{${tag}}p`, `${name}{${tag}}p:o`)).toBe(0);
      expect(await raw.zcard(`${name}{${tag}}p:s`)).toBe(300);
      expect(await kv.get('pruned', keys[7]!)).toBe(entries[7]![1]);
      expect(await collect(kv.entries('pruned'))).toEqual(keys.map((k, i) => [k, entries[i]![1]]));
    } finally {
      await lock.release();
    }
  });
});
