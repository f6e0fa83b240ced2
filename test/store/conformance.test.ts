// Runs the SeenStore suite on each backend: memory, LevelDB in a temp folder, and LevelDB inside
// a sublevel of a database the caller owns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { StoreEngine } from '../../src/store/engine/index.js';
import { openStore, type SeenStore, type StoreOptions } from '../../src/store/index.js';
import type { Space } from '../../src/store/keys.js';
import type { Kv, KvOp, KvRange } from '../../src/store/backends/kv.js';
import { seal } from '../../src/store/backends/leveldb/record-checksum.js';
import { MemoryKv } from '../../src/store/backends/memory-store.js';
import { seenStoreSuite, type Backend, type RawOp } from './seen-store.suite.js';

/** The memory Kv, counting reads (to check that batch lookups read once). */
class CountingKv implements Kv {
  readonly location = '(memory)';
  readonly durable = false;
  reads = 0;
  readonly inner = new MemoryKv();
  get(space: Space, key: string): Promise<string | undefined> {
    this.reads++;
    return this.inner.get(space, key);
  }
  getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    this.reads++;
    return this.inner.getMany(space, keys);
  }
  getAcross(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    this.reads++;
    return this.inner.getAcross(keys);
  }
  entries(space: Space, range?: KvRange): AsyncIterable<[string, string]> {
    return this.inner.entries(space, range);
  }
  keys(space: Space, range?: KvRange): AsyncIterable<string> {
    return this.inner.keys(space, range);
  }
  write(ops: readonly KvOp[]): Promise<void> {
    return this.inner.write(ops);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

seenStoreSuite('memory', async (options?: StoreOptions): Promise<Backend> => {
  const kv = new CountingKv();
  let current: SeenStore = await StoreEngine.open(kv, { durable: false, atomicBatch: true }, options);
  return {
    get store() {
      return current;
    },
    reads: () => kv.reads,
    // the data stays in `kv`: write behind the store's back, then open a new engine on it
    damage: async (ops: readonly RawOp[]) => {
      await kv.write(ops.map((o) => ({ space: o.space as Space, key: o.key, value: o.value })));
      current = await StoreEngine.open(kv, { durable: false, atomicBatch: true }, options);
      return current;
    },
    cleanup: () => current.close(),
  };
}, { reopen: false, dir: false, damage: true, reads: true });

seenStoreSuite('LevelDB', async (options?: StoreOptions): Promise<Backend> => {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
  let current: SeenStore = await openStore(dir, options);
  return {
    get store() {
      return current;
    },
    dir,
    reopen: async (next?: StoreOptions) => {
      await current.close();
      current = await openStore(dir, next ?? options);
      return current;
    },
    damage: async (ops: readonly RawOp[]) => {
      await current.close();
      const db = new Level<string, string>(dir);
      await db.open();
      for (const o of ops) {
        const sub = db.sublevel<string, string>(o.space, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
        // a well-formed record with a wrong value: sealed with its checksum as the store writes it
        if (o.value === undefined) await sub.del(o.key);
        else await sub.put(o.key, seal(sub.prefixKey(o.key, 'utf8'), o.value));
      }
      await db.close();
      current = await openStore(dir, options);
      return current;
    },
    cleanup: async () => {
      await current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}, { reopen: true, dir: true, damage: true, reads: false });

seenStoreSuite('LevelDB sublevel', async (options?: StoreOptions): Promise<Backend> => {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
  const db = new Level<string, string>(dir);
  await db.open();
  const sub = db.sublevel<string, string>('crawl-a', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let current: SeenStore = await openStore(sub, options);
  return {
    get store() {
      return current;
    },
    reopen: async (next?: StoreOptions) => {
      await current.close();
      current = await openStore(sub, next ?? options);
      return current;
    },
    damage: async (ops: readonly RawOp[]) => {
      await current.close();
      for (const o of ops) {
        const space = sub.sublevel<string, string>(o.space, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
        if (o.value === undefined) await space.del(o.key);
        else await space.put(o.key, o.value);
      }
      current = await openStore(sub, options);
      return current;
    },
    cleanup: async () => {
      await current.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}, { reopen: true, dir: false, damage: true, reads: false });
