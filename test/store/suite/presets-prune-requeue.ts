// SeenStore suite: pruning and giving back (presets, the crawler's trap refusals, failed URLs
// queued again).
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import type { SeenStore } from '../../../src/store/index.js';
import type { SuiteContext } from './context.js';

export function presetPruneRequeueTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
  describe('presets', () => {
    it('prunes with a configured preset, reversibly', async () => {
      const { store } = await make({ presets: ['tracking'] });
      const r = await store.admit(['http://t.example/x?utm_source=mail', 'http://t.example/x', 'http://t.example/y?id=1&fbclid=abc']);
      expect(r[0]).toMatchObject({ admitted: true, reason: 'new', via: 'preset:tracking', key: key('http://t.example/x'), identityKey: key('http://t.example/x?utm_source=mail') });
      expect(r[1]).toMatchObject({ admitted: false, reason: 'duplicate-in-batch' });
      expect(r[2]).toMatchObject({ admitted: true, via: 'preset:tracking', key: key('http://t.example/y?id=1') });
      expect((await store.admit(['http://t.example/x?utm_medium=a']))[0]).toMatchObject({ admitted: false, reason: 'preset:tracking' });
      const s = await store.stats();
      expect(s.pruned).toEqual({ 'preset:tracking': 3 });
      expect(await store.canonical('http://t.example/x?utm_source=mail')).toMatchObject({ state: 'pruned', via: 'preset:tracking', canonicalKey: key('http://t.example/x') });
      await verified(store);
      expect(await store.restore('tracking')).toBe(3);
      expect((await store.canonical('http://t.example/x?utm_source=mail')).state).toBe('queued');
      const after = await store.stats();
      expect(after.urls.pruned).toBe(0);
      expect(after.urls.queued).toBe(5);
    });

    it('a redirect to the form a preset removes suspends it in that directory of that host, for good; elsewhere it holds', async () => {
      const b = await make({ presets: ['session-ids'] });
      let store = b.store;
      const u = (p: string): string => `http://s.example${p}`;
      await store.admit([u('/app/a'), u('/app/b;jsessionid=1'), u('/app/sub/c;jsessionid=2'), u('/static/d;jsessionid=3'), u('/e;jsessionid=4')]);
      expect(await store.canonical(u('/app/b;jsessionid=1'))).toMatchObject({ state: 'pruned', via: 'preset:session-ids' });
      // /app/a is answered only in its session form: the preset, applied, would send it back onto /app/a
      await store.recordRedirect(u('/app/a'), u('/app/a;jsessionid=X'), 302);
      // the target is followed, and what the preset pruned in /app/ and below comes back
      expect(await store.canonical(u('/app/a;jsessionid=X'))).toMatchObject({ state: 'queued', canonicalKey: key(u('/app/a;jsessionid=X')) });
      expect((await store.canonical(u('/app/b;jsessionid=1'))).state).toBe('queued');
      expect((await store.canonical(u('/app/sub/c;jsessionid=2'))).state).toBe('queued');
      // beside it, and on other hosts, the preset still holds
      expect(await store.canonical(u('/static/d;jsessionid=3'))).toMatchObject({ state: 'pruned', via: 'preset:session-ids' });
      expect(await store.canonical(u('/e;jsessionid=4'))).toMatchObject({ state: 'pruned', via: 'preset:session-ids' });
      const check = async (s: SeenStore): Promise<void> => {
        const r = await s.admit([u('/app/f;jsessionid=5'), u('/static/g;jsessionid=6'), 'http://other.example/app/h;jsessionid=7']);
        expect(r.map((x) => [x.admitted, x.key])).toEqual([
          [true, key(u('/app/f;jsessionid=5'))],
          [true, key(u('/static/g'))],
          [true, key('http://other.example/app/h')],
        ]);
        expect(r[1]!.via).toBe('preset:session-ids');
        await verified(s);
      };
      await check(store);
      if (b.reopen === undefined) return;
      store = await b.reopen({ presets: ['session-ids'] });
      // kept in the store: a later open knows where the preset is off
      expect((await store.admit([u('/app/i;jsessionid=8')]))[0]).toMatchObject({ admitted: true, key: key(u('/app/i;jsessionid=8')) });
      expect((await store.admit([u('/static/j;jsessionid=9')]))[0]).toMatchObject({ admitted: true, key: key(u('/static/j')), via: 'preset:session-ids' });
      await verified(store);
    });

    it('a session segment that leads the path suspends the preset in the directory of the page it names', async () => {
      // ASP.NET cookieless state: `/docs/a.html` → 302 → `/(S(id))/docs/a.html`. The two paths have
      // `/` alone in common; the evidence lies in `/docs/`, where the preset sends the target
      const b = await make({ presets: ['session-ids'] });
      let store = b.store;
      const u = (p: string): string => `http://asp.example${p}`;
      const id = (c: string): string => `(S(${c.repeat(24)}))`;
      await store.admit([u('/docs/a.html'), u(`/${id('b')}/docs/b.html`), u(`/${id('c')}/blog/c.html`)]);
      await store.recordRedirect(u('/docs/a.html'), u(`/${id('x')}/docs/a.html`), 302);
      expect(await store.canonical(u(`/${id('x')}/docs/a.html`))).toMatchObject({ state: 'queued', canonicalKey: key(u(`/${id('x')}/docs/a.html`)) });
      // what the preset pruned under /docs/ comes back; beside it, the preset holds
      expect((await store.canonical(u(`/${id('b')}/docs/b.html`))).state).toBe('queued');
      expect(await store.canonical(u(`/${id('c')}/blog/c.html`))).toMatchObject({ state: 'pruned', via: 'preset:session-ids' });
      expect((await store.admit([u(`/${id('d')}/blog/d.html`)]))[0]).toMatchObject({ admitted: true, key: key(u('/blog/d.html')), via: 'preset:session-ids' });
      await verified(store);
      if (b.reopen === undefined) return;
      store = await b.reopen({ presets: ['session-ids'] });
      expect((await store.admit([u(`/${id('e')}/docs/e.html`)]))[0]).toMatchObject({ admitted: true, key: key(u(`/${id('e')}/docs/e.html`)) });
      expect((await store.admit([u(`/${id('f')}/blog/f.html`)]))[0]).toMatchObject({ admitted: true, key: key(u('/blog/f.html')) });
      await verified(store);
    });
  });

  describe('prune (the crawler\'s trap refusals)', () => {
    it('records trap:<name> reasons in one call, keeps conservation, survives a reopen, and restore gives them back', async () => {
      const b = await make();
      let store = b.store;
      await store.admit(['http://p.example/queued', 'http://p.example/fetched', 'http://p.example/shallow'], { depth: 1 });
      await store.recordFetch('http://p.example/fetched', { status: 200 });
      await expect(store.prune([{ url: 'http://p.example/x', reason: 'rule:p.example/x' }])).rejects.toBeInstanceOf(TypeError);
      await expect(store.prune([{ url: 'http://p.example/x', reason: 'depth' }])).rejects.toBeInstanceOf(TypeError);
      await store.prune([
        { url: 'http://p.example/a/a/a/', reason: 'trap:repeated-segments' }, // unknown: admitted and pruned
        { url: 'http://p.example/queued', reason: 'trap:path-depth' }, // queued: leaves the frontier
        { url: 'http://p.example/fetched', reason: 'trap:path-depth' }, // fetched: left alone
        { url: 'http://p.example/shallow', reason: 'trap:max-depth', depth: 3 }, // queued at a smaller depth: left alone
        { url: 'http://p.example/deep', reason: 'trap:max-depth', depth: 3 },
        { url: 'http://[bad', reason: 'trap:max-depth' }, // invalid: skipped
      ]);
      const s = await store.stats();
      expect(s.pruned).toEqual({ 'trap:max-depth': 1, 'trap:path-depth': 1, 'trap:repeated-segments': 1 });
      expect(s.urls).toMatchObject({ admitted: 5, queued: 1, fetched: 1, pruned: 3 });
      expect(s.frontier.size).toBe(1);
      expect(await store.canonical('http://p.example/queued')).toMatchObject({ state: 'pruned', canonicalKey: key('http://p.example/queued') });
      expect((await store.admit(['http://p.example/deep']))[0]).toMatchObject({ admitted: false });
      await verified(store);
      if (b.reopen !== undefined) {
        store = await b.reopen();
        expect((await store.stats()).pruned).toEqual(s.pruned);
        await verified(store);
      }
      expect(await store.restore('trap:path-depth')).toBe(1);
      expect((await store.canonical('http://p.example/queued')).state).toBe('queued');
      const after = await store.stats();
      expect(after.pruned).toEqual({ 'trap:max-depth': 1, 'trap:repeated-segments': 1 });
      expect(after.urls).toMatchObject({ admitted: 5, queued: 2, pruned: 2 });
      await verified(store);
    });
  });

  describe('requeueFailed (transient failures given another chance)', () => {
    it('queues again the failed URLs with a listed code and an attempt before `before`; the rest stay', async () => {
      const { store } = await make();
      const urls = ['http://r.example/503', 'http://r.example/dns', 'http://r.example/404', 'http://r.example/loop', 'http://r.example/ok'];
      await store.admit(urls);
      expect(await store.requeueFailed({ codes: ['ERR_SERVER_ERROR'] })).toBe(0); // nothing failed yet
      await store.next({ limit: 10, host: 'r.example' });
      await store.recordFetch(urls[0]!, { status: 503, error: 'ERR_SERVER_ERROR' });
      await store.recordFetch(urls[1]!, { status: 0, error: 'ERR_DNS' });
      await store.recordFetch(urls[2]!, { status: 404 });
      await store.recordFetch(urls[3]!, { status: 0, error: 'ERR_TOO_MANY_REDIRECTS' });
      await store.recordFetch(urls[4]!, { status: 200 });
      const codes = ['ERR_SERVER_ERROR', 'ERR_DNS'];
      // the cool-down has not passed: nothing
      expect(await store.requeueFailed({ codes, before: Date.now() - 60_000 })).toBe(0);
      expect((await store.stats()).urls.failed).toBe(3);
      expect(await store.requeueFailed({ codes, before: Date.now() + 1 })).toBe(2);
      const s = await store.stats();
      expect(s.urls.failed).toBe(1);
      expect(s.urls.queued).toBe(2);
      const again = await store.next({ limit: 10, host: 'r.example' });
      expect(again.map((e) => e.url).sort()).toEqual([urls[1], urls[0]].sort());
      expect((await store.canonical(urls[3]!)).state).toBe('failed');
      await verified(store);
      await expect(store.requeueFailed({ codes: 'ERR_DNS' } as never)).rejects.toThrow(TypeError);
    });
  });
}
