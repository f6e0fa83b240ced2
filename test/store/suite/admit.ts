// SeenStore suite: admit (new, seen and in-batch duplicates, delivery, invalid and out-of-scope
// input, concurrent admits of one URL).
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import type { SeenStore } from '../../../src/store/index.js';
import type { SuiteContext } from './context.js';

export function admitTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
  describe('admit', () => {
    it('admits new URLs, then reports them seen, in input order, keyed like key()', async () => {
      const { store } = await make();
      const urls = ['http://example.com/a', 'HTTP://EXAMPLE.com:80/b', 'http://example.org/'];
      const first = await store.admit(urls);
      expect(first.map((r) => r.reason)).toEqual(['new', 'new', 'new']);
      expect(first.map((r) => r.admitted)).toEqual([true, true, true]);
      expect(first.map((r) => r.url)).toEqual(urls);
      expect(first.map((r) => r.key)).toEqual(urls.map((u) => key(u)));
      const again = await store.admit(['http://example.com/b', 'http://example.com/c', 'http://example.com/a#frag']);
      expect(again.map((r) => r.reason)).toEqual(['seen', 'new', 'seen']);
      await verified(store);
    });

    it('deliver: an admitted URL stays undelivered until markDelivered, and a new session offers it again', async () => {
      const b = await make();
      const reopen = async (): Promise<SeenStore> => (b.reopen !== undefined ? b.reopen() : b.damage!([]));
      let store = b.store;
      const [a, x, y, z] = ['http://d.example/a', 'http://d.example/b', 'http://d.example/c', 'http://d.example/d'];
      const first = await store.admit([a, x, y], { deliver: true });
      expect(first.map((r) => [r.admitted, r.reason, r.undelivered])).toEqual([[true, 'new', undefined], [true, 'new', undefined], [true, 'new', undefined]]);
      // handed out in this session: seen, not offered twice
      const same = await store.admit([x], { deliver: true });
      expect([same[0]!.reason, same[0]!.undelivered]).toEqual(['seen', undefined]);
      await store.markDelivered([first[0]!.key!]);
      store = await reopen();
      const plain = await store.admit([x]);
      expect([plain[0]!.reason, plain[0]!.undelivered]).toEqual(['seen', undefined]); // without deliver: no mark read
      const second = await store.admit([a, x, y, z, 'HTTP://D.EXAMPLE/b'], { deliver: true });
      expect(second.map((r) => [r.admitted, r.reason, r.undelivered === true])).toEqual([
        [false, 'seen', false],
        [false, 'seen', true],
        [false, 'seen', true],
        [true, 'new', false],
        [false, 'duplicate-in-batch', false],
      ]);
      expect(second[1]!.key).toBe(key(x));
      await store.markDelivered([second[1]!.key!, second[2]!.key!, second[3]!.key!]);
      store = await reopen();
      const third = await store.admit([a, x, y, z], { deliver: true });
      expect(third.map((r) => [r.admitted, r.reason, r.undelivered === true])).toEqual([[false, 'seen', false], [false, 'seen', false], [false, 'seen', false], [false, 'seen', false]]);
      expect((await store.stats()).urls.queued).toBe(4);
      await verified(store);
    });

    it('handles duplicates inside one batch', async () => {
      const { store } = await make();
      const r = await store.admit(['http://a.example/x', 'http://A.EXAMPLE/x', 'http://a.example/./x#y', 'http://a.example/%78', 'http://a.example/y']);
      expect(r.map((x) => x.reason)).toEqual(['new', 'duplicate-in-batch', 'duplicate-in-batch', 'duplicate-in-batch', 'new']);
      expect(r.filter((x) => x.admitted)).toHaveLength(2);
      expect(new Set(r.slice(0, 4).map((x) => x.key)).size).toBe(1);
      expect((await store.stats()).urls.queued).toBe(2);
      await verified(store);
    });

    it('reports invalid URLs per item and never fails the batch', async () => {
      const { store } = await make();
      const r = await store.admit(['http://ok.example/', 'http://exa mple.com/', 'http://[::1/', 'http://a.example:99999/', 'not a url', 'http://ok.example/2']);
      expect(r[0]!.reason).toBe('new');
      expect(r[5]!.reason).toBe('new');
      for (const i of [1, 2, 3, 4]) {
        expect(r[i]!.admitted).toBe(false);
        expect(r[i]!.reason).toMatch(/^invalid:ERR_[A-Z_]+$/);
        expect(r[i]!.key).toBeUndefined();
      }
      expect((await store.stats()).urls.admitted).toBe(2);
    });

    it('refuses out-of-scope URLs: other schemes, other hosts, too deep', async () => {
      const { store } = await make({ scope: { hosts: ['example.com'], maxDepth: 2 } });
      const r = await store.admit(['mailto:a@example.com', 'ftp://example.com/f', 'http://other.org/', 'http://www.example.com/', 'https://example.com/']);
      expect(r.map((x) => x.reason)).toEqual(['out-of-scope', 'out-of-scope', 'out-of-scope', 'new', 'new']);
      const deep = await store.admit(['http://example.com/deep'], { depth: 3 });
      expect(deep[0]!.reason).toBe('out-of-scope');
      expect((await store.admit(['http://example.com/deep'], { depth: 2 }))[0]!.reason).toBe('new');
    });

    it('admits by a scope given as data: www hosts, patterns, path limits and always, replaced by setScope', async () => {
      const { store } = await make({
        scope: { hosts: ['www.example.com'], hostMatch: 'www', exclude: [/\?replytocom=/], maxPathDepth: 3, maxRepeats: 2, always: ['HTTP://other.org/start?replytocom=1'] },
      });
      const urls = [
        'http://example.com/a',
        'https://WWW.Example.com./b',
        'http://docs.example.com/c',
        'http://example.com/post?replytocom=7',
        'http://example.com/1/2/3/4',
        'http://example.com/a/b/a/b/a/b/',
        'http://other.org/start?replytocom=1',
        'http://other.org/next',
      ];
      const r = await store.admit(urls);
      expect(r.map((x) => x.reason)).toEqual(['new', 'new', 'out-of-scope', 'out-of-scope', 'out-of-scope', 'out-of-scope', 'new', 'out-of-scope']);
      // a scope replaced: what was admitted stays, what the new scope takes is admitted
      store.setScope({ hosts: ['example.com'], include: [/\/c$/] });
      const again = await store.admit(['http://docs.example.com/c', 'http://example.com/a', 'http://example.com/z']);
      expect(again.map((x) => x.reason)).toEqual(['new', 'out-of-scope', 'out-of-scope']);
      const kept = await store.canonical('http://example.com/a');
      expect(kept.state).toBe('queued');
      expect(() => store.setScope({ maxRepeats: 0 })).toThrow(TypeError);
      await verified(store);
    });

    it('admits exactly one of 1,000 concurrent admits of one URL’s variants', async () => {
      const { store } = await make();
      const variants = (i: number): string => {
        switch (i % 6) {
          case 0: return 'http://example.com/page';
          case 1: return 'HTTP://Example.COM/page';
          case 2: return 'http://example.com:80/page#' + i;
          case 3: return 'http://example.com/a/../page';
          case 4: return 'http://example.com/%70age';
          default: return 'http://EXAMPLE.com/./page';
        }
      };
      const calls = Array.from({ length: 1000 }, (_, i) => store.admit([variants(i)]));
      const results = (await Promise.all(calls)).flat();
      expect(results.filter((r) => r.admitted)).toHaveLength(1);
      expect(results.filter((r) => r.reason === 'seen')).toHaveLength(999);
      expect((await store.stats()).urls.admitted).toBe(1);
      await verified(store);
    });
  });
}
