// The frontier's block layout: FIFO across blocks, in-flight semantics, garbage collection of
// blocks without live lines, on the memory and LevelDB backends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore, openStore, type SeenStore } from '../../src/store/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function frontierKeys(dir: string): Promise<number> {
  const db = new ClassicLevel<string, string>(dir);
  await db.open();
  let n = 0;
  for await (const _ of db.keys({ gte: '!frontier!', lt: '!frontier"' })) n++;
  await db.close();
  return n;
}

for (const backend of ['memory', 'LevelDB'] as const) {
  describe(`frontier blocks (${backend})`, () => {
    const open = async (): Promise<{ store: SeenStore; dir?: string }> => {
      if (backend === 'memory') return { store: await openMemoryStore() };
      const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
      dirs.push(dir);
      return { store: await openStore(dir), dir };
    };

    it('keeps discovery order across blocks and batches of one host', async () => {
      const { store } = await open();
      const urls = Array.from({ length: 2500 }, (_, i) => `http://big.example/p${i}`);
      await store.admit(urls.slice(0, 2100));
      await store.admit(urls.slice(2100));
      const got = await store.next({ host: 'big.example', limit: 5000 });
      expect(got.map((e) => e.url)).toEqual(urls);
      const seqs = got.map((e) => e.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    });

    it('writes a host\'s shared key head once per block and reads every key back whole, in order', async () => {
      const { store, dir } = await open();
      // one host[:port] under two schemes, interleaved, plus keys that do not come from the single
      // pass (userinfo, an IP literal): head lines switch and reset within a block
      const urls: string[] = [];
      for (let i = 0; i < 300; i++) {
        urls.push(`http://mixed.example/a${i}`, `HTTPS://Mixed.Example:443/b${i}?q=${i}#f`);
        if (i % 50 === 0) urls.push(`http://user@mixed.example/u${i}`);
      }
      urls.push('http://[::1]/v6');
      const results = await store.admit(urls);
      expect(results.every((r) => r.admitted)).toBe(true);
      const got = await store.next({ host: 'mixed.example', limit: 5000 });
      const want = results.filter((r) => !r.url.includes('[')).map((r) => r.key);
      expect(got.map((e) => e.key)).toEqual(want);
      expect((await store.next({ host: '[::1]', limit: 10 })).map((e) => e.url)).toEqual(['http://[::1]/v6']);
      expect((await store.verify()).problems).toEqual([]);
      // a rebuild of what is derived finds every block as it should be
      const rebuilt = await store.rebuildDerived();
      expect(rebuilt.blocks).toBe(0);
      await store.close();
      if (dir !== undefined) {
        // on disk: the head "mixed.example" keys share is written once per switch, not per line
        const db = new ClassicLevel<string, string>(dir);
        await db.open();
        let heads = 0;
        let lines = 0;
        for await (const v of db.values({ gte: '!frontier!', lt: '!frontier"' })) {
          for (const line of v.split('\n')) {
            if (line.startsWith('@')) heads++;
            else lines++;
          }
        }
        await db.close();
        expect(lines).toBe(urls.length);
        // one head line per change of head in admission order (a key made by the full ladder, here
        // with userinfo, is written whole under the empty head)
        let switches = 0;
        let head = '';
        for (const r of results) {
          if (r.url.includes('[')) continue;
          const h = r.url.includes('@') ? '' : r.key!.slice(0, r.key!.indexOf('://') + 3);
          if (h !== head) switches++;
          head = h;
        }
        expect(heads).toBe(switches); // the [::1] block holds its one key whole
        expect(heads).toBeLessThan(lines);
      }
    });

    it('re-offers entries whose fetch was not recorded, never recorded ones', async () => {
      const { store } = await open();
      await store.admit(['http://a.example/1', 'http://a.example/2', 'http://a.example/3', 'http://a.example/4']);
      const first = await store.next({ host: 'a.example', limit: 2 });
      expect(first.map((e) => e.url)).toEqual(['http://a.example/1', 'http://a.example/2']);
      await store.recordFetch('http://a.example/2', { status: 200 });
      // a URL fetched without being handed out leaves the queue as well
      await store.recordFetch('http://a.example/3', { status: 404 });
      await store.release(['http://a.example/1']);
      expect((await store.next({ host: 'a.example', limit: 10 })).map((e) => e.url)).toEqual(['http://a.example/1', 'http://a.example/4']);
      expect((await store.stats()).frontier).toMatchObject({ size: 2, inFlight: 2 });
      await store.close();
    });

    it('deletes blocks once none of their lines is live', async () => {
      const { store, dir } = await open();
      const urls = Array.from({ length: 1500 }, (_, i) => `http://gc.example/p${i}`);
      await store.admit(urls);
      await store.admit(['http://gc.example/later']);
      for (const e of await store.next({ host: 'gc.example', limit: 2000 })) await store.recordFetch(e.url, { status: 200 });
      const s = await store.stats();
      expect(s.frontier.size).toBe(0);
      expect(s.urls.fetched).toBe(1501);
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
      if (dir !== undefined) expect(await frontierKeys(dir)).toBe(0);
    });

    it('records the fetch of a handed-out URL against a redirect recorded since', async () => {
      const { store } = await open();
      await store.admit(['http://f.example/a', 'http://f.example/b']);
      const [a, b] = await store.next({ host: 'f.example', limit: 2 });
      // a redirect of the handed-out URL, then its fetch: the fetch follows the redirect's state
      await store.recordRedirect(a!.url, 'http://f.example/c', 302);
      await store.recordFetch(a!.url, { status: 200 });
      await store.recordFetch(b!.url, { status: 200 });
      const s = await store.stats();
      expect(s.urls).toMatchObject({ fetched: 2, redirected: 0 });
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    });

    it('reads many blocks of one host ahead, and blocks written after the read', async () => {
      const { store } = await open();
      for (let i = 0; i < 30; i++) await store.admit([`http://r.example/${i}a`, `http://r.example/${i}b`]);
      const got: string[] = [];
      for (let i = 0; i < 20; i++) got.push(...(await store.next({ host: 'r.example', limit: 1 })).map((e) => e.url));
      // blocks written while the cursor holds blocks read ahead come after them
      await store.admit(['http://r.example/late']);
      for (;;) {
        const more = await store.next({ host: 'r.example', limit: 3 });
        if (more.length === 0) break;
        got.push(...more.map((e) => e.url));
      }
      const want = Array.from({ length: 30 }, (_, i) => [`http://r.example/${i}a`, `http://r.example/${i}b`]).flat();
      expect(got).toEqual([...want, 'http://r.example/late']);
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    });

    it('drops blocks found dead when read, after URLs left the queue unseen', async () => {
      const { store, dir } = await open();
      await store.admit(['http://d.example/1', 'http://d.example/2']);
      await store.admit(['http://d.example/3']);
      await store.recordFetch('http://d.example/1', { status: 200 });
      await store.recordFetch('http://d.example/2', { status: 200 });
      expect((await store.next({ host: 'd.example', limit: 5 })).map((e) => e.url)).toEqual(['http://d.example/3']);
      await store.close();
      if (dir !== undefined) expect(await frontierKeys(dir)).toBe(1);
    });
  });
}
