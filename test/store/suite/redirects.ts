// SeenStore suite: redirects and aliases (a permanent redirect makes an alias, chains compress,
// loops stay loops, temporary redirects are evidence).
import { describe, expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { collect, type SuiteContext } from './context.js';

export function redirectTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
  describe('redirects and aliases', () => {
    it('makes a 301 source an alias of its target and queues the target', async () => {
      const { store } = await make({ learnRules: false });
      await store.admit(['http://a.example/old']);
      await store.recordRedirect('http://a.example/old', 'http://a.example/new', 301);
      const c = await store.canonical('http://a.example/old');
      expect(c).toMatchObject({ key: key('http://a.example/old'), canonicalKey: key('http://a.example/new'), state: 'redirected', via: 'alias' });
      expect((await store.canonical('http://a.example/new')).state).toBe('queued');
      const r = await store.admit(['http://a.example/old', 'http://a.example/new']);
      expect(r.map((x) => [x.reason, x.key])).toEqual([
        ['alias', key('http://a.example/new')],
        ['seen', key('http://a.example/new')],
      ]);
      const s = await store.stats();
      expect(s.aliases).toBe(1);
      expect(s.urls.redirected).toBe(1);
      await verified(store);
    });

    it('compresses alias chains', async () => {
      const { store } = await make({ learnRules: false });
      await store.recordRedirect('http://a.example/1', 'http://a.example/2', 301);
      await store.recordRedirect('http://a.example/2', 'http://a.example/3', 308);
      await store.recordRedirect('http://a.example/0', 'http://a.example/1', 301);
      const aliases = await collect(store.aliases());
      expect(Object.fromEntries(aliases.map((a) => [a.fromUrl, a.toUrl]))).toEqual({
        'http://a.example/0': 'http://a.example/3',
        'http://a.example/1': 'http://a.example/3',
        'http://a.example/2': 'http://a.example/3',
      });
      expect((await store.canonical('http://a.example/0')).canonicalKey).toBe(key('http://a.example/3'));
      expect((await store.admit(['http://a.example/1']))[0]).toMatchObject({ reason: 'alias', key: key('http://a.example/3') });
      await verified(store);
    });

    it('records loops as loops, never as an alias cycle', async () => {
      const { store } = await make({ learnRules: false });
      await store.recordRedirect('http://a.example/x', 'http://a.example/y', 301);
      await store.recordRedirect('http://a.example/y', 'http://a.example/x', 301);
      await store.recordRedirect('http://a.example/self', 'http://A.example/self#top', 301);
      await store.recordRedirect('http://a.example/p', 'http://a.example/q', 301);
      await store.recordRedirect('http://a.example/q', 'http://a.example/r', 301);
      await store.recordRedirect('http://a.example/r', 'http://a.example/p', 301);
      const s = await store.stats();
      expect(s.loops).toBe(3);
      const aliases = await collect(store.aliases());
      const sources = new Set(aliases.map((a) => a.from));
      for (const a of aliases) {
        expect(a.to).not.toBe(a.from);
        expect(sources.has(a.to)).toBe(false);
      }
      // resolving terminates
      expect((await store.canonical('http://a.example/x')).canonicalKey).toBe(key('http://a.example/y'));
      expect((await store.canonical('http://a.example/p')).canonicalKey).toBe(key('http://a.example/r'));
      await verified(store);
    });

    it('keeps temporary redirects as evidence without merging', async () => {
      const { store } = await make({ learnRules: false });
      for (const status of [302, 303, 307]) {
        await store.recordRedirect(`http://a.example/t${status}`, 'http://a.example/login', status);
        const c = await store.canonical(`http://a.example/t${status}`);
        expect(c.canonicalKey).toBe(c.key);
        expect(c.state).toBe('redirected');
        expect((await store.admit([`http://a.example/t${status}`]))[0]!.reason).toBe('seen');
      }
      const s = await store.stats();
      expect(s.aliases).toBe(0);
      expect(s.temporaryRedirects).toBe(3);
      expect((await store.canonical('http://a.example/login')).state).toBe('queued');
      await verified(store);
    });

    it('a redirect to the URL itself with parameters added makes it an alias of that form, whatever the status', async () => {
      // a servlet container without cookies (`;jsessionid=`), a cookie check (`?cookie=1`): the
      // document at the end is the source's own
      const { store } = await make({ learnRules: false });
      await store.recordRedirect('http://a.example/s', 'http://a.example/s;jsessionid=A1', 302);
      await store.recordRedirect('http://a.example/q?x=1', 'http://a.example/q?x=1&cookie=1', 307);
      expect((await store.canonical('http://a.example/s')).canonicalKey).toBe(key('http://a.example/s;jsessionid=A1'));
      expect((await store.canonical('http://a.example/q?x=1')).canonicalKey).toBe(key('http://a.example/q?x=1&cookie=1'));
      // elsewhere, or with a parameter changed rather than added, stays a temporary redirect
      await store.recordRedirect('http://a.example/e', 'http://a.example/E;jsessionid=A1', 302);
      await store.recordRedirect('http://a.example/v?lang=de', 'http://a.example/v?lang=en', 302);
      expect((await store.canonical('http://a.example/e')).canonicalKey).toBe(key('http://a.example/e'));
      expect((await store.canonical('http://a.example/v?lang=de')).canonicalKey).toBe(key('http://a.example/v?lang=de'));
      expect((await store.stats()).aliases).toBe(2);
      await verified(store);
    });

    it('merges temporary redirects with temporaryRedirectsMerge', async () => {
      const { store } = await make({ learnRules: false, temporaryRedirectsMerge: true });
      await store.recordRedirect('http://a.example/t', 'http://a.example/u', 302);
      expect((await store.canonical('http://a.example/t')).canonicalKey).toBe(key('http://a.example/u'));
      expect((await store.stats()).aliases).toBe(1);
    });

    it('rejects a non-redirect status and invalid URLs', async () => {
      const { store } = await make();
      await expect(store.recordRedirect('http://a.example/', 'http://a.example/b', 200)).rejects.toThrow(TypeError);
      await expect(store.recordRedirect('http://exa mple/', 'http://a.example/b', 301)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_/) });
    });
  });
}
