// SeenStore suite: queries and exports (canonical, canonicalUrls, aliases, rules, stats) and
// canonicalMany (its answers, and how often it reads the database).
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import type { CanonicalFailure, CanonicalResult } from '../../../src/store/index.js';
import { assertHas, collect, type Backend, type SuiteContext } from './context.js';

export function queryTests(ctx: SuiteContext): void {
  const { supports, make, verified } = ctx;
  describe('queries and exports', () => {
    it('canonical() reports every state', async () => {
      const { store } = await make({ presets: ['tracking'], learnRules: false });
      await store.admit(['http://c.example/q', 'http://c.example/f', 'http://c.example/x', 'http://c.example/r', 'http://c.example/p?utm_source=1']);
      await store.recordFetch('http://c.example/f', { status: 200 });
      await store.recordFetch('http://c.example/x', { status: 503 });
      await store.recordRedirect('http://c.example/r', 'http://c.example/q', 301);
      expect((await store.canonical('http://c.example/q')).state).toBe('queued');
      expect((await store.canonical('http://c.example/f')).state).toBe('fetched');
      expect((await store.canonical('http://c.example/x')).state).toBe('failed');
      expect((await store.canonical('http://c.example/r')).state).toBe('redirected');
      expect((await store.canonical('http://c.example/p?utm_source=1')).state).toBe('pruned');
      expect(await store.canonical('http://c.example/q?utm_campaign=z')).toMatchObject({ state: 'seen', via: 'preset:tracking', canonicalKey: key('http://c.example/q') });
      expect(await store.canonical('http://c.example/nope')).toMatchObject({ state: 'unknown', canonicalKey: key('http://c.example/nope') });
      await expect(store.canonical('http://exa mple/')).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_/) });
    });

    it('exports the canonical URL set, the alias table and the rules', async () => {
      const { store } = await make({ presets: ['tracking'] });
      await store.admit(['http://e.example/a', 'http://e.example/b?utm_source=x', 'http://e.example/c']);
      await store.recordRedirect('http://e.example/c', 'http://e.example/d', 301);
      await store.recordFetch('http://e.example/a', { status: 200 });
      const urls = (await collect(store.canonicalUrls())).map((u) => [u.url, u.state]);
      expect(urls.sort()).toEqual([
        ['http://e.example/a', 'fetched'],
        ['http://e.example/b', 'queued'],
        ['http://e.example/d', 'queued'],
      ]);
      expect(await collect(store.aliases())).toEqual([{ from: key('http://e.example/c'), to: key('http://e.example/d'), fromUrl: 'http://e.example/c', toUrl: 'http://e.example/d', status: 301 }]);
      expect(Array.isArray(await collect(store.rules()))).toBe(true);
    });

    it('stats() counts everything', async () => {
      const { store } = await make({ presets: ['tracking'], learnRules: false });
      await store.admit(['http://s.example/1', 'http://s.example/2?utm_source=a', 'http://t.example/1']);
      await store.recordRedirect('http://s.example/1', 'http://s.example/3', 301);
      await store.recordRedirect('http://s.example/4', 'http://s.example/5', 302);
      const s = await store.stats();
      expect(s).toEqual({
        urls: { admitted: 7, queued: 4, fetched: 0, redirected: 2, pruned: 1, failed: 0 },
        aliases: 1,
        loops: 0,
        temporaryRedirects: 1,
        rules: { candidate: 0, active: 0, withdrawn: 0 },
        pruned: { 'preset:tracking': 1 },
        frontier: { size: 4, inFlight: 0, hostCount: 2, hosts: { 's.example': 3, 't.example': 1 } },
        front: { source: 'database', keys: 7, aliasKeys: 1, bytes: expect.any(Number) },
      });
      expect(s.front.bytes).toBeGreaterThan(0);
      await verified(store);
    });
  });

  describe('canonicalMany', () => {
    /** A store with every state, a preset, an alias onto a pruned URL, and a rule-free host. */
    async function populated(): Promise<Backend> {
      const b = await make({ presets: ['tracking'], learnRules: false });
      const { store } = b;
      await store.admit(['http://c.example/q', 'http://c.example/f', 'http://c.example/x', 'http://c.example/r', 'http://c.example/p?utm_source=1', 'http://c.example/z?utm_source=2']);
      await store.recordFetch('http://c.example/f', { status: 200 });
      await store.recordFetch('http://c.example/x', { status: 503 });
      await store.recordRedirect('http://c.example/r', 'http://c.example/q', 301);
      await store.recordRedirect('http://c.example/old', 'http://c.example/z?utm_source=2', 308);
      return b;
    }
    const inputs = [
      'http://c.example/q',
      'http://c.example/f',
      'http://exa mple/',
      'http://c.example/x',
      'http://c.example/r',
      'http://c.example/p?utm_source=1',
      'http://c.example/q?utm_campaign=z',
      'http://c.example/nope',
      'HTTP://C.EXAMPLE:80/q#frag',
      'http://c.example/old',
      'http://c.example/z?utm_source=2',
      'http://c.example/z',
      'not a url',
      'http://c.example/r',
    ];

    it('answers like canonical() for every URL, in input order; an invalid URL fails alone', async () => {
      const { store } = await populated();
      const many = await store.canonicalMany(inputs);
      expect(many).toHaveLength(inputs.length);
      for (let i = 0; i < inputs.length; i++) {
        const one = await store.canonical(inputs[i]!).then(
          (r) => r,
          (e: { code: string }) => ({ ok: false, code: e.code, input: inputs[i]! }),
        );
        expect(many[i], inputs[i]).toEqual(one);
      }
      expect(many[2]).toEqual({ ok: false, code: expect.stringMatching(/^ERR_/), input: 'http://exa mple/' });
      expect((many[12] as CanonicalFailure).ok).toBe(false);
      expect((many[0] as CanonicalResult).state).toBe('queued');
      expect(many[4]).toMatchObject({ state: 'redirected', via: 'alias', canonicalKey: key('http://c.example/q') });
      expect(many[9]).toMatchObject({ state: 'redirected', canonicalKey: key('http://c.example/z') });
      expect(many[7]).toMatchObject({ state: 'unknown' });
      expect(await store.canonicalMany([])).toEqual([]);
    });

    it.skipIf(!supports.reads)('reads the database at most once for a batch, and not at all for keys the cache holds or the front rules out', async () => {
      const b = await make();
      assertHas(b, 'reads');
      const known = Array.from({ length: 300 }, (_, i) => `http://m${i % 7}.example/k/${i}`);
      await b.store.admit(known);
      const unknown = Array.from({ length: 300 }, (_, i) => `http://m${i % 7}.example/u/${i}`);
      const before = b.reads();
      const r = await b.store.canonicalMany([...known, ...unknown]);
      // the cache holds every key the store wrote (it has room for them): no read at all
      expect(b.reads() - before).toBe(0);
      expect(r.slice(0, 300).every((x) => 'state' in x && x.state === 'queued')).toBe(true);
      expect(r.slice(300).every((x) => 'state' in x && x.state === 'unknown')).toBe(true);
      // only unknown URLs: the Bloom front answers nearly all of them (≈ 1 % false positives)
      const mid = b.reads();
      await b.store.canonicalMany(unknown.map((u) => u + '/x'));
      expect(b.reads() - mid).toBeLessThanOrEqual(1);
    });

    it.skipIf(!supports.reads)('reads what the cache does not hold in one read, and answers as canonical does', async () => {
      // a cache far smaller than the store: most keys are read
      const b = await make({ cacheSize: 1 });
      assertHas(b, 'reads');
      const known = Array.from({ length: 5000 }, (_, i) => `http://m${i % 7}.example/k/${i}`);
      for (let i = 0; i < known.length; i += 1000) await b.store.admit(known.slice(i, i + 1000));
      await b.store.recordFetch(known[0]!, { status: 200 });
      await b.store.recordFetch(known[1]!, { status: 503 });
      await b.store.recordRedirect(known[2]!, known[3]!, 301);
      const unknown = Array.from({ length: 300 }, (_, i) => `http://m${i % 7}.example/u/${i}`);
      const before = b.reads();
      const r = await b.store.canonicalMany([...known, ...unknown]);
      // one read for the batch; the alias target of known[2] may take one more round
      expect(b.reads() - before).toBeGreaterThanOrEqual(1);
      expect(b.reads() - before).toBeLessThanOrEqual(2);
      expect(r.slice(4, 5000).every((x) => 'state' in x && x.state === 'queued')).toBe(true);
      expect(r.slice(5000).every((x) => 'state' in x && x.state === 'unknown')).toBe(true);
      for (const i of [0, 1, 2, 3, 4, 4999, 5000]) expect(r[i], known[i] ?? unknown[0]).toEqual(await b.store.canonical([...known, ...unknown][i]!));
      // again: the same answers, whatever the cache kept of the first read
      expect(await b.store.canonicalMany([...known, ...unknown])).toEqual(r);
    });
  });
}
