// SeenStore suite: what a store holds, read and repaired (read-only open, rebuildDerived) and
// what it never writes down (userinfo passwords).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { openStore, type StoreOptions } from '../../../src/store/index.js';
import { counterNames, frontierKey, prunedKey } from '../../../src/store/keys.js';
import { assertHas, filesOf, type SuiteContext } from './context.js';

export function storedDataTests(ctx: SuiteContext): void {
  const { supports, make, verified } = ctx;
  describe('read-only open', () => {
    const refusal = { code: 'ERR_STORE_IO', message: expect.stringContaining('read-only') };
    const b0ReadOnly: StoreOptions = { readOnly: true };

    it('refuses every write method with ERR_STORE_IO (read-only) and still answers queries', async () => {
      // a durable backend reads an existing store; the memory backend opens an empty one
      const b = await make();
      const store = b.reopen === undefined ? (await make(b0ReadOnly)).store : await b.reopen(b0ReadOnly);
      await expect(store.admit(['http://ro.example/'])).rejects.toMatchObject(refusal);
      await expect(store.admit('nope' as unknown as string[])).rejects.toMatchObject(refusal);
      await expect(store.recordRedirect('http://ro.example/a', 'http://ro.example/b', 301)).rejects.toMatchObject(refusal);
      await expect(store.recordFetch('http://ro.example/a', { status: 200 })).rejects.toMatchObject(refusal);
      await expect(store.next()).rejects.toMatchObject(refusal);
      await expect(store.release(['http://ro.example/a'])).rejects.toMatchObject(refusal);
      await expect(store.restore('tracking')).rejects.toMatchObject(refusal);
      await expect(store.rebuildDerived()).rejects.toMatchObject(refusal);
      expect((await store.canonical('http://ro.example/')).state).toBe('unknown');
      expect((await store.stats()).urls.admitted).toBe(0);
      expect((await store.verify()).ok).toBe(true);
    });

    it.skipIf(!supports.reopen)('uses the recorded presets instead of giving pruned URLs back, and changes nothing', async () => {
      const b = await make({ presets: ['tracking'] });
      assertHas(b, 'reopen');
      await b.store.admit(['http://ro.example/a?utm_source=x', 'http://ro.example/b']);
      const before = await b.store.stats();
      expect(before.pruned).toEqual({ 'preset:tracking': 1 });
      // a store this small writes no snapshot of its fronts at close: built from the keys again
      const closed = before;
      for (let round = 0; round < 2; round++) {
        const ro = await b.reopen({ readOnly: true, presets: [] });
        expect(await ro.stats()).toEqual(closed);
        await verified(ro);
        expect(await ro.canonical('http://ro.example/a?utm_source=x')).toMatchObject({ state: 'pruned', via: 'preset:tracking' });
        expect(await ro.canonicalMany(['http://ro.example/b?utm_medium=y'])).toEqual([expect.objectContaining({ state: 'seen', via: 'preset:tracking' })]);
        await expect(ro.admit(['http://ro.example/c'])).rejects.toMatchObject(refusal);
      }
      const rw = await b.reopen({ presets: ['tracking'] });
      expect(await rw.stats()).toEqual(closed);
      await verified(rw);
      if (b.dir !== undefined) {
        const missing = join(b.dir, 'no-such-store');
        await expect(openStore(missing, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
        expect(readdirSync(b.dir)).not.toContain('no-such-store');
      }
    });
  });

  describe('rebuildDerived', () => {
    it.skipIf(!supports.damage)('recounts the counters and rebuilds the frontier, after which verify is clean', async () => {
      const b = await make({ presets: ['tracking'], learnRules: false });
      assertHas(b, 'damage');
      // block seqs: a.example 0, b.example 1 (first batch), then c.example 2
      await b.store.admit(['http://a.example/1', 'http://b.example/1', 'http://a.example/2', 'http://b.example/2?utm_source=z']);
      await b.store.admit(['http://c.example/1', 'http://c.example/2']);
      await b.store.recordFetch('http://a.example/1', { status: 200 });
      await b.store.recordRedirect('http://c.example/1', 'http://c.example/3', 301);
      const want = await b.store.stats();
      const damaged = await b.damage([
        { space: 'counter', key: counterNames.admitted, value: '999' },
        { space: 'counter', key: counterNames.state('queued'), value: undefined },
        { space: 'counter', key: counterNames.frontier('ghost.example'), value: '5' },
        { space: 'counter', key: counterNames.aliases, value: '7' },
        { space: 'frontier', key: frontierKey('b.example', 1), value: undefined }, // b.example/1, b.example/2 lose their block
        { space: 'frontier', key: frontierKey('a.example', 40), value: `0 ${key('http://a.example/1')}` }, // fetched, not queued
        { space: 'pruned', key: prunedKey('preset:tracking', key('http://b.example/2?utm_source=z')), value: undefined },
        { space: 'aliasrev', key: `${key('http://nowhere.example/')}\u0000${key('http://c.example/1')}`, value: '' },
      ]);
      const bad = await damaged.verify();
      expect(bad.ok).toBe(false);
      const report = await damaged.rebuildDerived();
      expect(report.counters).toBeGreaterThanOrEqual(4);
      expect(report.blocks).toBeGreaterThanOrEqual(2);
      expect(report.indexEntries).toBe(2);
      await verified(damaged);
      expect(await damaged.stats()).toEqual(want);
      // again: nothing left to do
      expect(await damaged.rebuildDerived()).toEqual({ counters: 0, blocks: 0, placed: 0, indexEntries: 0 });
      const handed = await damaged.next({ limit: 100, perHost: 100 });
      expect(handed.map((e) => e.url).sort()).toEqual(['http://a.example/2', 'http://b.example/1', 'http://b.example/2', 'http://c.example/2', 'http://c.example/3']);
      // new admits after a rebuild take fresh block numbers
      await damaged.admit(['http://b.example/new']);
      await verified(damaged);
      if (b.reopen !== undefined) await verified(await b.reopen());
    });
  });

  describe('userinfo passwords', () => {
    it('stores a salted hash instead of the password, distinct per password', async () => {
      const b = await make();
      const { store } = b;
      const r = await store.admit(['http://alice:hunter2secret@pw.example/', 'http://alice:hunter2secret@pw.example/', 'http://alice:other-pass-9@pw.example/', 'http://alice@pw.example/']);
      expect(r.map((x) => x.reason)).toEqual(['new', 'duplicate-in-batch', 'new', 'new']);
      expect(r[0]!.key).toMatch(/alice:~hmac-[0-9a-f]{16}@/);
      expect(r[0]!.key).not.toContain('hunter2secret');
      expect(r[0]!.key).not.toBe(r[2]!.key);
      expect((await store.admit(['http://alice:hunter2secret@pw.example/']))[0]!.reason).toBe('seen');
      // a redacted URL handed out by the store keys to itself
      const [e] = await store.next();
      expect(e!.url).toMatch(/^http:\/\/alice:~hmac-[0-9a-f]{16}@pw\.example\/$/);
      expect((await store.admit([e!.url]))[0]!.reason).toBe('seen');
      await store.recordRedirect('http://bob:redirect-pw-77@pw.example/a', 'http://bob:redirect-pw-77@pw.example/b', 301);
      await store.recordFetch('http://carol:fetch-pw-55@pw.example/c', { status: 200, finalUrl: 'http://carol:fetch-pw-55@pw.example/d' });
      await store.admit(['http://pw.example/src-test'], { source: 'http://dave:source-pw-33@pw.example/' });
      if (b.dir !== undefined) {
        const reopened = await b.reopen!();
        await reopened.close();
        for (const secret of ['hunter2secret', 'other-pass-9', 'redirect-pw-77', 'fetch-pw-55', 'source-pw-33']) {
          const hits = filesOf(b.dir).filter((buf) => buf.includes(secret)).length;
          expect(hits, secret).toBe(0);
        }
      }
    });
  });
}
