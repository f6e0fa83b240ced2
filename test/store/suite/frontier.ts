// SeenStore suite: the frontier (workers and hosts, FIFO per host and round-robin over hosts,
// per-host allowances, recorded fetches).
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { collect, type SuiteContext } from './context.js';

export function frontierTests(ctx: SuiteContext): void {
  const { make, verified, supports } = ctx;
  describe('frontier', () => {
    it('a worker of one store holds every host for the crawl and waits for no other', async () => {
      const { store } = await make();
      const crawl = new AbortController();
      const paced: string[] = [];
      store.attachWorker({ pacing: { notBefore: () => 0, holdUntil: (h) => void paced.push(h) }, onTakeover: () => undefined });
      const hold = store.holdHost('a.example', crawl.signal);
      expect(hold).toBeDefined();
      expect(hold!.lost).toBe(false);
      crawl.abort();
      expect(hold!.signal.aborted).toBe(true);
      hold!.stop();
      expect(await store.waitForWork(new AbortController().signal)).toBe(false);
      expect(paced).toEqual([]);
    });

    it('is FIFO per host, round-robin over hosts, and next() does not remove', async () => {
      const { store } = await make();
      await store.admit(['http://a.example/1', 'http://b.example/1', 'http://a.example/2', 'http://a.example/3', 'http://b.example/2']);
      expect((await store.next({ limit: 4 })).map((e) => e.url)).toEqual(['http://a.example/1', 'http://b.example/1']);
      await store.release(['http://a.example/1', 'http://b.example/1']);
      // round-robin (one a host a turn; each call starts one host further), FIFO within a host
      const first = await store.next({ limit: 4, perHost: 2 });
      expect(first.map((e) => e.url).sort()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://b.example/1', 'http://b.example/2']);
      expect(first.map((e) => e.host)).toEqual(first[0]!.host === 'a.example' ? ['a.example', 'b.example', 'a.example', 'b.example'] : ['b.example', 'a.example', 'b.example', 'a.example']);
      expect(first.filter((e) => e.host === 'a.example').map((e) => e.url)).toEqual(['http://a.example/1', 'http://a.example/2']);
      expect((await store.next({ limit: 10 })).map((e) => e.url)).toEqual(['http://a.example/3']);
      expect(await store.next({ limit: 10, perHost: 10 })).toEqual([]);
      const s = await store.stats();
      expect(s.frontier).toEqual({ size: 5, inFlight: 5, hostCount: 2, hosts: { 'a.example': 3, 'b.example': 2 } });
      // a progress line asks without the per-host list
      expect((await store.stats({ hosts: false })).frontier).toEqual({ size: 5, inFlight: 5, hostCount: 2, hosts: {} });
      await store.recordFetch('http://a.example/1', { status: 200 });
      await store.release(['http://b.example/1']);
      expect((await store.next({ limit: 10, perHost: 5 })).map((e) => e.url)).toEqual(['http://b.example/1']);
      expect((await store.stats()).frontier.size).toBe(4);
      expect((await store.next({ host: 'a.example', limit: 5 }))).toEqual([]);
      await verified(store);
    });

    it('takes a per-host allowance from a function: 0 skips a host, others get their own', async () => {
      const { store } = await make();
      await store.admit(['http://a.example/1', 'http://a.example/2', 'http://a.example/3', 'http://b.example/1', 'http://b.example/2', 'http://c.example/1']);
      const asked: string[] = [];
      const room: Record<string, number> = { 'a.example': 2, 'b.example': 0, 'c.example': 5 };
      const got = await store.next({ limit: 10, perHost: (h) => (asked.push(h), room[h] ?? 0) });
      expect(got.map((e) => e.url).sort()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://c.example/1']);
      // asked once per host and call, whatever the turns
      expect(asked.sort()).toEqual(['a.example', 'b.example', 'c.example']);
      expect((await store.next({ limit: 10, perHost: () => 3 })).map((e) => e.url).sort()).toEqual(['http://a.example/3', 'http://b.example/1', 'http://b.example/2']);
      await expect(store.next({ limit: 1, perHost: 0 })).rejects.toThrow(TypeError);
      await verified(store);
    });

    it('serves every host after thousands of hosts drained and new ones queued (the ring compacts)', async () => {
      const { store } = await make({ learnRules: false });
      const hosts = 2600;
      await store.admit(Array.from({ length: hosts }, (_, i) => `http://h${i}.example/p`));
      // two hosts in three drained (their ring places are left for the compaction); the others
      // stay in flight until all were met
      const inFlight: string[] = [];
      for (let batch = await store.next({ limit: 500 }); batch.length > 0; batch = await store.next({ limit: 500 })) {
        for (const e of batch) {
          if (Number(/h(\d+)/.exec(e.host)![1]) % 3 !== 0) await store.recordFetch(e.url, { status: 200 });
          else inFlight.push(e.url);
        }
      }
      await store.release(inFlight);
      const kept = Math.ceil(hosts / 3);
      expect((await store.stats({ hosts: false })).frontier).toMatchObject({ size: kept, hostCount: kept });
      // drained hosts queue again, and new hosts come; all are served, each once
      await store.admit([...Array.from({ length: 40 }, (_, i) => `http://h${3 * i + 1}.example/q`), 'http://new.example/1']);
      const all: string[] = [];
      for (let batch = await store.next({ limit: 300 }); batch.length > 0; batch = await store.next({ limit: 300 })) all.push(...batch.map((e) => e.url));
      expect(all).toHaveLength(kept + 41);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toContain('http://new.example/1');
      expect(all).toContain('http://h79.example/q');
      await verified(store);
    });

    it('hands out entries with depth, host and discovery order', async () => {
      const { store } = await make();
      await store.admit(['http://c.example:8080/a'], { depth: 2, source: 'http://c.example:8080/' });
      const [e] = await store.next();
      expect(e).toMatchObject({ url: 'http://c.example:8080/a', key: key('http://c.example:8080/a'), host: 'c.example:8080', depth: 2 });
      expect(typeof e!.seq).toBe('number');
    });

    it('records fetches: fetched, failed, followed redirects', async () => {
      const { store } = await make({ learnRules: false });
      await store.admit(['http://f.example/ok', 'http://f.example/down', 'http://f.example/moved']);
      await store.recordFetch('http://f.example/ok', { status: 200, contentHash: 'h' });
      await store.recordFetch('http://f.example/down', { status: 0, error: 'ECONNREFUSED' });
      await store.recordFetch('http://f.example/moved', { status: 200, finalUrl: 'http://f.example/here' });
      expect((await store.canonical('http://f.example/ok')).state).toBe('fetched');
      expect((await store.canonical('http://f.example/down')).state).toBe('failed');
      expect((await store.canonical('http://f.example/moved')).state).toBe('redirected');
      expect((await store.canonical('http://f.example/here')).state).toBe('fetched');
      const s = await store.stats();
      expect(s.frontier.size).toBe(0);
      expect(s.urls).toEqual({ admitted: 4, queued: 0, fetched: 2, redirected: 1, pruned: 0, failed: 1 });
      await expect(store.recordFetch('http://f.example/ok', { status: 1.5 })).rejects.toThrow(TypeError);
      await verified(store);
    });

    it('offers the URLs a candidate rule would rewrite after the host\'s others, all of them, and again after a reopen', async () => {
      // (no not-found probe: it would be offered first)
      const { store, reopen } = await make({ probeNotFound: false });
      // one pair makes `sid` a candidate on q.example (three documents would make it active)
      await store.recordFetch('http://q.example/list', { status: 200, contentHash: 'L' });
      await store.recordFetch('http://q.example/list?sid=1', { status: 200, contentHash: 'L' });
      expect((await collect(store.rules())).find((r) => r.id === 'q.example/query-parameter:sid')).toMatchObject({ state: 'candidate' });
      const held = ['http://q.example/a?sid=5', 'http://q.example/c?sid=6'];
      await store.admit(['http://q.example/list?sid=2', held[0]!, 'http://q.example/b', held[1]!, 'http://q.example/d', 'http://r.example/x?sid=7']);
      // another host's order is its own: no rule there
      expect((await store.next({ host: 'r.example', limit: 5 })).map((e) => e.url)).toEqual(['http://r.example/x?sid=7']);
      expect((await store.next({ host: 'q.example', limit: 5 })).map((e) => e.url)).toEqual(['http://q.example/b', 'http://q.example/d']);
      // held while a page of the host is in flight: it may link more of the rest, which comes first
      expect(await store.next({ host: 'q.example', limit: 5 })).toEqual([]);
      await store.admit(['http://q.example/e']);
      expect((await store.next({ host: 'q.example', limit: 5 })).map((e) => e.url)).toEqual(['http://q.example/e']);
      await store.recordFetch('http://q.example/e', { status: 200, contentHash: 'E' });
      await store.recordFetch('http://q.example/b', { status: 200, contentHash: 'B' });
      expect(await store.next({ host: 'q.example', limit: 5 })).toEqual([]);
      await store.recordFetch('http://q.example/d', { status: 200, contentHash: 'D' });
      // then every one, those on a path the candidate's evidence has (no new document for it) last
      const rest = await store.next({ host: 'q.example', limit: 5 });
      expect(rest.map((e) => e.url)).toEqual([...held, 'http://q.example/list?sid=2']);
      if (supports.reopen) {
        // the order is memory only: a reopened store offers what was not recorded, none lost
        const again = await reopen!({ probeNotFound: false });
        expect((await again.next({ host: 'q.example', limit: 5 })).map((e) => e.url).sort()).toEqual([...held, 'http://q.example/list?sid=2'].sort());
        await verified(again);
      } else await verified(store);
    });
  });
}
