// SeenStore suite: durability (reopening keeps the Bloom fronts, entries, frontier order, rules,
// counters and presets; close waits for pending writes).
import { endianness } from 'node:os';
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import type { SeenStore, StoreOptions } from '../../../src/store/index.js';
import { assertHas, type SuiteContext } from './context.js';

export function durabilityTests(ctx: SuiteContext): void {
  const { supports, make, verified } = ctx;
  describe('durability (durable backends)', () => {
    it.skipIf(!supports.reopen || !supports.damage)('reopens with the Bloom fronts written down at close, and builds them from the keys when that copy does not fit', async () => {
      const options: StoreOptions = { frontSnapshotMinKeys: 0, learnRules: false };
      const b = await make(options);
      assertHas(b, 'reopen', 'damage');
      const urls = Array.from({ length: 3000 }, (_, i) => `http://snap.example/${i}`);
      await b.store.admit(urls);
      for (let i = 0; i < 40; i++) await b.store.recordRedirect(`http://snap.example/old/${i}`, `http://snap.example/${i}`, 301);
      const before = await b.store.stats();
      expect(before.front).toMatchObject({ source: 'database', keys: 3040, aliasKeys: 40 });
      /** Every URL and alias admitted so far is seen through the fronts, and a new URL is new. */
      const seesEverything = async (store: SeenStore, fresh: string): Promise<void> => {
        expect((await store.admit(urls)).filter((r) => r.admitted)).toEqual([]);
        expect((await store.admit(['http://snap.example/old/7']))[0]).toMatchObject({ admitted: false, reason: 'alias' });
        expect((await store.admit([fresh]))[0]).toMatchObject({ admitted: true });
        await verified(store);
      };
      let store = await b.reopen(options);
      expect((await store.stats()).front).toEqual({ ...before.front, source: 'snapshot' });
      await seesEverything(store, 'http://snap.example/new-1');
      // written to since it was opened: the copy taken at this close holds the new key too
      store = await b.reopen(options);
      expect((await store.stats()).front).toMatchObject({ source: 'snapshot', keys: 3041 });
      await seesEverything(store, 'http://snap.example/new-2');
      // a copy whose bits were damaged (checksum), or that counts other than the store: not used
      const chunk = Buffer.alloc(1 << 16).toString('base64'); // a whole chunk of zero bits: only the checksum tells
      store = await b.damage([{ space: 'meta', key: 'front:000000', value: chunk }]);
      expect((await store.stats()).front).toMatchObject({ source: 'database', keys: 3042 });
      await seesEverything(store, 'http://snap.example/new-3');
      // a header that is not an object, or describes layers no chunk holds: rebuilt, nothing allocated for it
      store = await b.damage([{ space: 'meta', key: 'front', value: 'null' }]);
      expect((await store.stats()).front.source).toBe('database');
      const huge = { v: 1, endianness: endianness(), admitted: 3043, aliases: 40, chunks: 1, check: '0', url: [{ capacity: 1, hashes: 7, count: 0, words: 2 ** 40 }], alias: [{ capacity: 1, hashes: 7, count: 0, words: 16 }] };
      store = await b.damage([{ space: 'meta', key: 'front', value: JSON.stringify(huge) }]);
      expect((await store.stats()).front.source).toBe('database');
      await seesEverything(store, 'http://snap.example/new-5');
      store = await b.damage([{ space: 'counter', key: 'aliases', value: '39' }]);
      expect((await store.stats()).front.source).toBe('database');
      // (the damaged counter is the store's own problem, which verify reports and repair recounts)
      expect((await store.verify()).ok).toBe(false);
      await store.rebuildDerived();
      await seesEverything(store, 'http://snap.example/new-4');
      // below the threshold no copy is written; the fronts are built from the keys
      store = await b.reopen({ ...options, frontSnapshotMinKeys: 1e9 });
      store = await b.reopen(options);
      expect((await store.stats()).front.source).toBe('database');
    });

    it.skipIf(!supports.reopen || !supports.damage)('reopens with the per-host queue counts written down at close, and reads the counters when that copy does not fit', async () => {
      const options: StoreOptions = { learnRules: false };
      const b = await make(options);
      assertHas(b, 'reopen', 'damage');
      // 1,100 hosts with one queued URL each (a close writes the copy from 1,024 hosts on), and one with five
      await b.store.admit(Array.from({ length: 1100 }, (_, i) => `http://q${i}.example/a`));
      await b.store.admit(Array.from({ length: 5 }, (_, i) => `http://many.example/${i}`));
      const handed = await b.store.next({ host: 'many.example', limit: 2 });
      await b.store.recordFetch(handed[0]!.url, { status: 200 });
      const before = await b.store.stats();
      expect(before.frontier).toMatchObject({ size: 1104, hostCount: 1101 });
      expect(before.frontier.hosts['many.example']).toBe(4);
      const same = async (store: SeenStore): Promise<void> => {
        const s = await store.stats();
        expect(s.frontier).toEqual({ ...before.frontier, inFlight: 0 });
        expect(s.urls).toEqual(before.urls);
      };
      let store = await b.reopen(options);
      await same(store);
      // the one in flight at close is offered again, then the rest of the host's queue
      expect((await store.next({ host: 'many.example', limit: 5 })).map((e) => e.url)).toEqual(['http://many.example/1', 'http://many.example/2', 'http://many.example/3', 'http://many.example/4']);
      store = await b.reopen(options);
      await same(store);
      // the copy is what the open reads, not the per-host counters (one changed behind the store's
      // back shows it; then put back)
      store = await b.damage([{ space: 'counter', key: 'frontier:q7.example', value: '9' }]);
      await same(store);
      store = await b.damage([{ space: 'counter', key: 'frontier:q7.example', value: '1' }]);
      await same(store);
      await verified(store);
      // a copy that does not fit is not used: the counters are read one host at a time
      for (const damage of [
        [{ space: 'meta', key: 'front:q:000000', value: '1 q0.example' }], // a chunk: checksum, host count
        [{ space: 'meta', key: 'front:q', value: 'null' }], // the header
        [{ space: 'counter', key: 'frontier:q7.example', value: '2' }, { space: 'counter', key: 'state:queued', value: '1105' }], // a store-wide counter moved since
      ]) {
        store = await b.damage(damage);
        const s = await store.stats();
        if (damage.length === 2) {
          expect(s.frontier.hosts['q7.example']).toBe(2);
          await store.rebuildDerived();
        } else await same(store);
        await verified(store);
      }
      // an open for writing deletes the copy before it writes; the next clean close writes it again
      await store.admit(['http://new.example/a']);
      store = await b.reopen(options);
      expect((await store.stats()).frontier).toMatchObject({ size: 1105, hostCount: 1102 });
      await verified(store);
    });

    it.skipIf(!supports.reopen)('survives reopening: entries, frontier order, rules, counters; in-flight entries are offered again', async () => {
      const b = await make();
      assertHas(b, 'reopen');
      await b.store.admit(['http://r.example/1', 'http://r.example/2', 'http://r.example/3']);
      for (const p of ['a', 'b', 'c']) await b.store.recordRedirect(`http://r2.example/${p}`, `https://r2.example/${p}`, 301);
      const handed = await b.store.next({ limit: 2, perHost: 2, host: 'r.example' });
      expect(handed.map((e) => e.url)).toEqual(['http://r.example/1', 'http://r.example/2']);
      await b.store.recordFetch('http://r.example/1', { status: 200 });
      const before = await b.store.stats();
      const store = await b.reopen();
      expect(await store.stats()).toEqual({ ...before, frontier: { ...before.frontier, inFlight: 0 } });
      // r.example/2 was in flight, not recorded: offered again, before r.example/3
      expect((await store.next({ host: 'r.example', limit: 5 })).map((e) => e.url)).toEqual(['http://r.example/2', 'http://r.example/3']);
      expect((await store.admit(['http://r2.example/z']))[0]!.via).toBe('rule:r2.example/https');
      await verified(store);
    });

    it.skipIf(!supports.reopen)("keeps its own presets: an open naming none uses them, one naming others is refused", async () => {
      const b = await make({ presets: ['tracking'] });
      assertHas(b, 'reopen');
      await b.store.admit(['http://o.example/a?utm_source=1', 'http://o.example/b']);
      let store = await b.reopen({});
      expect((await store.stats()).pruned).toEqual({ 'preset:tracking': 1 });
      expect((await store.admit(['http://o.example/c?utm_medium=2']))[0]).toMatchObject({ via: 'preset:tracking', key: key('http://o.example/c') });
      await expect(b.reopen({ presets: [] })).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
      await expect(b.reopen({ presets: ['www'] })).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
      store = await b.reopen({ presets: ['tracking'] });
      expect((await store.stats()).pruned).toEqual({ 'preset:tracking': 2 });
      await verified(store);
    });

    it.skipIf(!supports.reopen)('changePresets: a preset named again prunes the queued URLs it maps elsewhere', async () => {
      const b = await make({ presets: ['tracking'] });
      assertHas(b, 'reopen');
      await b.store.admit(['http://p.example/a?utm_source=1', 'http://p.example/a']);
      let store = await b.reopen({ presets: [], changePresets: true });
      expect((await store.stats()).pruned).toEqual({});
      expect((await store.canonical('http://p.example/a?utm_source=1')).state).toBe('queued');
      store = await b.reopen({ presets: ['tracking'], changePresets: true });
      expect((await store.stats()).pruned).toEqual({ 'preset:tracking': 1 });
      expect(await store.canonical('http://p.example/a?utm_source=1')).toMatchObject({ state: 'pruned', via: 'preset:tracking' });
      await verified(store);
    });

    it.skipIf(!supports.reopen)('gives back URLs of a preset the store is changed to be without', async () => {
      const b = await make({ presets: ['tracking', 'www'] });
      assertHas(b, 'reopen');
      await b.store.admit(['http://g.example/a?utm_source=1', 'http://www.g.example/b', 'http://www.g.example/c?gclid=2']);
      expect((await b.store.stats()).pruned).toEqual({ 'preset:tracking': 1, 'preset:www': 2 });
      const store = await b.reopen({ presets: ['tracking'], changePresets: true });
      const s = await store.stats();
      // www/b is queued again; www/c?gclid is still pruned, now by tracking (onto www/c)
      expect(s.pruned).toEqual({ 'preset:tracking': 2 });
      expect((await store.canonical('http://www.g.example/b')).state).toBe('queued');
      expect(await store.canonical('http://www.g.example/c?gclid=2')).toMatchObject({ state: 'pruned', canonicalKey: key('http://www.g.example/c') });
      await verified(store);
    });

    it.skipIf(!supports.reopen)('close() waits for pending writes', async () => {
      const b = await make();
      assertHas(b, 'reopen');
      const pending = b.store.admit(['http://cl.example/1', 'http://cl.example/2']);
      const store = await b.reopen();
      await pending;
      expect((await store.stats()).urls.admitted).toBe(2);
    });
  });
}
