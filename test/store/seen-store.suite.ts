// The SeenStore conformance suite: one set of tests, run on every backend by conformance.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { key } from '../../src/normalize/index.js';
import { openStore, type CanonicalFailure, type CanonicalResult, type SeenStore, type StoreOptions } from '../../src/store/index.js';
import { counterNames, frontierKey, prunedKey } from '../../src/store/keys.js';

export interface Backend {
  readonly store: SeenStore;
  /** Close and open the same data again (durable backends only). */
  readonly reopen?: (options?: StoreOptions) => Promise<SeenStore>;
  /** The database folder, to look at the files (LevelDB only). */
  readonly dir?: string;
  readonly cleanup: () => Promise<void>;
  /** Write these records behind the store's back (damage), then open it again. */
  readonly damage?: (ops: readonly RawOp[]) => Promise<SeenStore>;
  /** Database reads so far (memory backend: each `get`, `getMany` or `getAcross` call counts one). */
  readonly reads?: () => number;
}

/** A raw put (`value` a string) or del in one sublevel. */
export interface RawOp {
  readonly space: string;
  readonly key: string;
  readonly value: string | undefined;
}

export type Factory = (options?: StoreOptions) => Promise<Backend>;

/** `https` and `slash-add` learned on `host` from three 301s each under `/docs/`: a chain of two rules. */
async function learnHttpsAndSlash(store: SeenStore, host: string): Promise<void> {
  for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://${host}/docs/${p}`, `https://${host}/docs/${p}`, 301);
  for (const p of ['d', 'e', 'f']) await store.recordRedirect(`https://${host}/docs/${p}`, `https://${host}/docs/${p}/`, 301);
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Every file under `dir`, as bytes. */
function filesOf(dir: string): Buffer[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesOf(join(dir, d.name)) : [readFileSync(join(dir, d.name))]));
}

export function seenStoreSuite(name: string, factory: Factory): void {
  describe(`SeenStore conformance: ${name}`, () => {
    const open: Backend[] = [];
    const make = async (options?: StoreOptions): Promise<Backend> => {
      const b = await factory(options);
      open.push(b);
      return b;
    };
    afterEach(async () => {
      for (const b of open.splice(0)) await b.cleanup();
    });

    async function verified(store: SeenStore): Promise<void> {
      const report = await store.verify();
      expect(report.problems).toEqual([]);
      const s = await store.stats();
      // O4 conservation: admitted = queued + fetched + redirected + pruned + failed
      expect(s.urls.admitted).toBe(s.urls.queued + s.urls.fetched + s.urls.redirected + s.urls.pruned + s.urls.failed);
    }

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

    describe('host rules', () => {
      it('learns http→https after 3 redirects from distinct URLs, and prunes with it', async () => {
        const { store } = await make();
        await store.recordRedirect('http://h.example/a', 'https://h.example/a', 301);
        await store.recordRedirect('http://h.example/b', 'https://h.example/b', 301);
        expect((await store.stats()).rules).toEqual({ candidate: 1, active: 0, withdrawn: 0 });
        // the same source again is not a new observation
        await store.recordRedirect('http://h.example/b', 'https://h.example/b', 301);
        expect((await collect(store.rules()))[0]).toMatchObject({ id: 'h.example/https', state: 'candidate', for: 2 });
        // before activation: no rule applies
        expect((await store.admit(['http://h.example/early']))[0]).toMatchObject({ reason: 'new', key: key('http://h.example/early') });
        await store.recordRedirect('http://h.example/c', 'https://h.example/c', 301);
        const rules = await collect(store.rules());
        expect(rules).toHaveLength(1);
        expect(rules[0]).toMatchObject({ id: 'h.example/https', host: 'h.example', spec: 'https', state: 'active', for: 3, against: 0 });
        const r = await store.admit(['http://h.example/new', 'http://h.example/new2', 'https://h.example/new', 'http://h.example/new3']);
        expect(r[0]).toMatchObject({ admitted: true, reason: 'new', via: 'rule:h.example/https', key: key('https://h.example/new') });
        expect(r[2]).toMatchObject({ admitted: false, reason: 'duplicate-in-batch' });
        // the first rewrites of a rule are also fetched as themselves, to check it (DUSTBuster's
        // validation step); the others are pruned
        expect(await store.canonical('http://h.example/new')).toMatchObject({ state: 'queued', canonicalKey: key('https://h.example/new') });
        // (the queued URL activation checked counts as the first: new2 is pruned)
        expect(await store.canonical('http://h.example/new2')).toMatchObject({ state: 'pruned' });
        expect((await store.admit(['http://h.example/new3']))[0]).toMatchObject({ admitted: false, reason: 'rule:h.example/https' });
        expect(await store.canonical('http://h.example/new3')).toMatchObject({ state: 'pruned', via: 'rule:h.example/https', canonicalKey: key('https://h.example/new3') });
        // activation checks the queued http URLs of the host before pruning them: the few it
        // samples stay queued as themselves (checks), beside their rewrite
        expect(await store.canonical('http://h.example/early')).toMatchObject({ state: 'queued', canonicalKey: key('https://h.example/early') });
        expect((await store.canonical('https://h.example/early')).state).toBe('queued');
        const s = await store.stats();
        expect(s.rules.active).toBe(1);
        expect(s.pruned['rule:h.example/https']).toBe(2);
        await verified(store);
      });

      it('two spellings answered only in their session forms are a case pair, scoped by the bare path', async () => {
        // a servlet container on a case-folding file system: /docs/One.html → 302 → /docs/One.html;jsessionid=…
        const { store } = await make();
        for (const n of ['one', 'two', 'three']) {
          await store.recordFetch(`http://sf.example/docs/${n}.html;jsessionid=${n}1`, { status: 200, contentHash: `h-${n}` });
          await store.recordFetch(`http://sf.example/docs/${n[0]!.toUpperCase()}${n.slice(1)}.html;jsessionid=${n}2`, { status: 200, contentHash: `h-${n}` });
        }
        const rule = (await collect(store.rules())).find((r) => r.id === 'sf.example/case-insensitive');
        expect(rule).toMatchObject({ state: 'active', for: 3 });
        // the kind of each piece of evidence is its path's, the session id aside
        expect(new Set(rule?.support?.map((x) => x.v))).toEqual(new Set(['word']));
        expect(rule?.support?.every((x) => !x.p.includes(';'))).toBe(true);
        // a link without a session id is folded
        expect((await store.canonical('http://sf.example/docs/Four.html')).canonicalKey).toBe(key('http://sf.example/docs/four.html'));
        await verified(store);
      });

      it('case variants a host sends to another name\'s session form teach the case rule, and are pruned onto its document', async () => {
        // a servlet container on a case-folding file system that sets its session in the URL: every
        // name redirects to its folded file's session form, the folded name's own included
        const { store } = await make();
        const session = (n: string): string => `http://ss.example/docs/${n}.html;jsessionid=S${n.length}`;
        for (const n of ['one', 'two', 'three', 'five']) {
          await store.recordRedirect(`http://ss.example/docs/${n}.html`, session(n), 302);
          await store.recordFetch(session(n), { status: 200, contentHash: `h-${n}` });
        }
        for (const n of ['One', 'Two', 'Three']) await store.recordRedirect(`http://ss.example/docs/${n}.html`, session(n.toLowerCase()), 302);
        expect((await collect(store.rules())).find((r) => r.id === 'ss.example/case-insensitive')).toMatchObject({ state: 'active', for: 3 });
        // a variant of a fetched page goes through the rule and the folded name's alias to its document
        expect(await store.canonical('http://ss.example/docs/Five.html')).toMatchObject({ canonicalKey: key(session('five')), state: 'seen' });
        await verified(store);
      });

      it('samples the case rule by folded directory: links in random case do not each open a new place', async () => {
        const { store } = await make();
        // a host that folds case: pages answer under a second spelling, capitalized or mixed, in /lib/ and /
        const pairs = [['/lib/One.html', '/lib/one.html'], ['/lib/Two.html', '/lib/two.html'], ['/Three.html', '/three.html'], ['/lib/fIve.html', '/lib/five.html'], ['/lib/sIx.html', '/lib/six.html'], ['/seVen.html', '/seven.html']];
        for (const [a, b] of pairs as [string, string][]) {
          await store.recordFetch(`http://cf.example${b}`, { status: 200, contentHash: b });
          await store.recordFetch(`http://cf.example${a}`, { status: 200, contentHash: b });
        }
        expect((await collect(store.rules())).find((r) => r.id === 'cf.example/case-insensitive')).toMatchObject({ state: 'active' });
        // twenty links to /lib/ pages, the directory spelled differently in each
        const spell = (i: number): string => [...'lib'].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join('');
        const links = Array.from({ length: 20 }, (_, i) => `http://cf.example/${spell(i % 7 + 1)}/Page-${i}.html`);
        for (const l of links) await store.admit([l]);
        const states = await Promise.all(links.map(async (l) => (await store.canonical(l)).state));
        // the first rewrites and the powers of two are checked (queued as themselves); the rest pruned
        expect(states.filter((x) => x === 'queued').length).toBeLessThanOrEqual(5);
        expect(states.filter((x) => x === 'pruned').length).toBeGreaterThanOrEqual(15);
        await verified(store);
      });

      it('withdraws a rule whose rewrite answers no document, and gives its pruned URLs back', async () => {
        const { store } = await make();
        for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://w.example/${p}/`, `http://w.example/${p}`, 301);
        expect((await collect(store.rules()))[0]).toMatchObject({ id: 'w.example/slash-remove', state: 'active' });
        const r = await store.admit(['http://w.example/docs/', 'http://w.example/blog/', 'http://w.example/shop/', 'http://w.example/help/']);
        expect(r.map((x) => x.via)).toEqual(['rule:w.example/slash-remove', 'rule:w.example/slash-remove', 'rule:w.example/slash-remove', 'rule:w.example/slash-remove']);
        // two fetched as themselves to check the rule, two pruned
        expect((await store.stats()).urls.pruned).toBe(2);
        // a 200 on a URL the rule maps elsewhere is not against it (the two may be one document)
        await store.recordFetch('http://w.example/other/', { status: 200 });
        expect((await collect(store.rules()))[0]).toMatchObject({ state: 'active', against: 0 });
        // the rewrite of a pruned URL answers 404: what does the URL itself answer? It is asked
        // for first, before anything is counted
        await store.recordFetch('http://w.example/shop', { status: 404 });
        expect((await collect(store.rules()))[0]).toMatchObject({ state: 'active', against: 0 });
        expect((await store.canonical('http://w.example/shop/')).state).toBe('queued');
        // a check: offered before the host's other URLs, beside the rule's other checks
        const first = (await store.next({ host: 'w.example', limit: 8 })).map((e) => e.url);
        expect(first).toContain('http://w.example/shop/');
        // a page: the rule was wrong there
        await store.recordFetch('http://w.example/shop/', { status: 200, contentHash: 'shop' });
        const rule = (await collect(store.rules()))[0]!;
        expect(rule).toMatchObject({ state: 'withdrawn', for: 3, against: 1 });
        expect(rule.contradiction).toMatchObject({ v: 'against', how: 'rewrite', status: 404, source: key('http://w.example/shop/') });
        expect((await store.canonical('http://w.example/help/')).state).toBe('queued');
        const s = await store.stats();
        expect(s.urls.pruned).toBe(0);
        expect(s.pruned).toEqual({});
        expect(s.rules).toEqual({ candidate: 0, active: 0, withdrawn: 1 });
        // the contradiction covers the whole host: new evidence there does not revive it
        for (const p of ['d', 'e', 'f']) await store.recordRedirect(`http://w.example/${p}/`, `http://w.example/${p}`, 301);
        expect((await store.admit(['http://w.example/new/']))[0]!.reason).toBe('new');
        await verified(store);
      });

      it('learns trailing slash, www, default document and path prefix rules', async () => {
        const { store } = await make();
        const learn = async (pairs: [string, string][]): Promise<void> => {
          for (const [from, to] of pairs) await store.recordRedirect(from, to, 301);
        };
        await learn([['http://s.example/a', 'http://s.example/a/'], ['http://s.example/b', 'http://s.example/b/'], ['http://s.example/c', 'http://s.example/c/']]);
        await learn([['https://x.example/1', 'https://www.x.example/1'], ['https://x.example/2', 'https://www.x.example/2'], ['https://x.example/3', 'https://www.x.example/3']]);
        await learn([['https://www.y.example/1', 'https://y.example/1'], ['https://www.y.example/2', 'https://y.example/2'], ['https://www.y.example/3', 'https://y.example/3']]);
        await learn([['http://d.example/index.html', 'http://d.example/'], ['http://d.example/a/index.html', 'http://d.example/a/'], ['http://d.example/b/index.html', 'http://d.example/b/']]);
        await learn([['http://p.example/old/x', 'http://p.example/x'], ['http://p.example/old/y/z', 'http://p.example/y/z'], ['http://p.example/old/w', 'http://p.example/w']]);
        const active = (await collect(store.rules())).filter((r) => r.state === 'active').map((r) => r.id).sort();
        expect(active).toEqual([
          'd.example/default-document:index.html',
          'p.example/path-prefix:/old/>/',
          's.example/slash-add',
          'www.y.example/www-remove',
          'x.example/www-add',
        ]);
        const r = await store.admit(['http://s.example/dir', 'http://s.example/file.html', 'https://x.example/p', 'https://www.y.example/p', 'http://d.example/c/index.html', 'http://p.example/old/deep/er']);
        expect(r.map((x) => x.key)).toEqual([
          key('http://s.example/dir/'),
          key('http://s.example/file.html'),
          key('https://www.x.example/p'),
          key('https://y.example/p'),
          key('http://d.example/c/'),
          key('http://p.example/deep/er'),
        ]);
        expect(r[1]!.via).toBeUndefined();
        await verified(store);
      });

      it('learns a query parameter that never changes the response from content hashes', async () => {
        const { store } = await make();
        await store.recordFetch('http://q.example/list', { status: 200, contentHash: 'L' });
        await store.recordFetch('http://q.example/list?sid=1', { status: 200, contentHash: 'L' });
        await store.recordFetch('http://q.example/item?id=7', { status: 200, contentHash: 'I7' });
        await store.recordFetch('http://q.example/item?id=7&sid=2', { status: 200, contentHash: 'I7' });
        await store.recordFetch('http://q.example/item?sid=3&id=7', { status: 200, contentHash: 'I7' });
        // support counts distinct documents: a third one
        await store.recordFetch('http://q.example/page?p=1&sid=4', { status: 200, contentHash: 'P1' });
        await store.recordFetch('http://q.example/page?p=1', { status: 200, contentHash: 'P1' });
        const rules = await collect(store.rules());
        const sid = rules.find((r) => r.id === 'q.example/query-parameter:sid');
        expect(sid).toMatchObject({ state: 'active', against: 0 });
        expect(sid!.for).toBeGreaterThanOrEqual(3);
        const r = await store.admit(['http://q.example/item?id=8&sid=99']);
        expect(r[0]).toMatchObject({ via: 'rule:q.example/query-parameter:sid', key: key('http://q.example/item?id=8') });
        // a parameter that changes the response is withdrawn (or never activated)
        await store.recordFetch('http://q.example/item?id=8', { status: 200, contentHash: 'I8' });
        expect(rules.find((x) => x.id === 'q.example/query-parameter:id')?.state ?? 'none').not.toBe('active');
        await verified(store);
      });

      it('a host that redirects to the session form a learned rule removes: the form is fetched as itself, and the rule holds', async () => {
        // one section of a site behind a servlet container without cookies (`/lib/x` → 302 →
        // `/lib/x;jsessionid=…`), the rest serving links' session ids as the same page
        const { store } = await make();
        for (const [p, n] of [['a', 1], ['b', 2], ['c/d', 3], ['e', 4]] as const) {
          await store.recordFetch(`http://js.example/${p}`, { status: 200, contentHash: p });
          await store.recordFetch(`http://js.example/${p};jsessionid=${n}`, { status: 200, contentHash: p });
        }
        const id = 'js.example/path-parameter:jsessionid';
        expect((await collect(store.rules())).find((r) => r.id === id)).toMatchObject({ state: 'active', against: 0 });
        await store.recordRedirect('http://js.example/lib/x', 'http://js.example/lib/x;jsessionid=Z1', 302);
        // the target is queued as itself (the rule would send it back onto its source: a loop)
        expect(await store.canonical('http://js.example/lib/x;jsessionid=Z1')).toMatchObject({ state: 'queued', canonicalKey: key('http://js.example/lib/x;jsessionid=Z1') });
        await store.recordFetch('http://js.example/lib/x;jsessionid=Z1', { status: 200, contentHash: 'x' });
        // a link with another session id is that document, through the rule and the source's alias
        expect((await store.canonical('http://js.example/lib/x;jsessionid=Y7')).canonicalKey).toBe(key('http://js.example/lib/x;jsessionid=Z1'));
        expect((await store.admit(['http://js.example/lib/x;jsessionid=Y8']))[0]).toMatchObject({ admitted: false });
        expect((await collect(store.rules())).find((r) => r.id === id)).toMatchObject({ state: 'active', against: 0 });
        // the own form pruned by the rule before its source redirected there (another name led to
        // it first: `/index.php/lib/y` → 302 → `/lib/y;jsessionid=Z2`) comes back when it does
        // (the rule's first rewrites, and some after, are checks queued as themselves: the first
        // one it prunes is taken)
        let y = 0;
        for (let i = 1; i <= 12 && y === 0; i++) {
          await store.recordRedirect(`http://js.example/index.php/lib/y${i}`, `http://js.example/lib/y${i};jsessionid=Z2`, 302);
          if ((await store.canonical(`http://js.example/lib/y${i};jsessionid=Z2`)).state === 'pruned') y = i;
        }
        const own = `http://js.example/lib/y${y};jsessionid=Z2`;
        expect(await store.canonical(own)).toMatchObject({ state: 'pruned', canonicalKey: key(`http://js.example/lib/y${y}`) });
        await store.recordRedirect(`http://js.example/lib/y${y}`, own, 302);
        expect(await store.canonical(own)).toMatchObject({ state: 'queued', canonicalKey: key(own) });
        await verified(store);
      });

      it('learns a session parameter from links beside a name the host answers only in its own session form', async () => {
        // `/a` → 302 → `/a;jsessionid=Z` (the document), and links that carry other session ids
        const { store } = await make();
        for (const p of ['a', 'b', 'c/d']) {
          await store.recordRedirect(`http://os.example/${p}`, `http://os.example/${p};jsessionid=Z`, 302);
          await store.recordFetch(`http://os.example/${p};jsessionid=Z`, { status: 200, contentHash: p });
          await store.recordFetch(`http://os.example/${p};jsessionid=R${p.length}`, { status: 200, contentHash: p });
        }
        expect((await collect(store.rules())).find((r) => r.id === 'os.example/path-parameter:jsessionid')).toMatchObject({ state: 'active', against: 0 });
        expect((await store.canonical('http://os.example/b;jsessionid=Q9')).canonicalKey).toBe(key('http://os.example/b;jsessionid=Z'));
        // a name sent elsewhere (a login page with a session) is no base of its session links
        const { store: other } = await make();
        for (const p of ['a', 'b', 'c/d']) {
          await other.recordRedirect(`http://lw.example/${p}`, 'http://lw.example/login;jsessionid=Z', 302);
          await other.recordFetch('http://lw.example/login;jsessionid=Z', { status: 200, contentHash: 'login' });
          await other.recordFetch(`http://lw.example/${p};jsessionid=R`, { status: 200, contentHash: 'login' });
        }
        expect((await collect(other.rules())).find((r) => r.id === 'lw.example/path-parameter:jsessionid')?.state).not.toBe('active');
        await verified(store);
      });

      it('learns a path parameter (;jsessionid=) that never changes the response from content hashes, and gives back on a contradiction', async () => {
        const { store } = await make();
        await store.recordFetch('http://j.example/a', { status: 200, contentHash: 'A' });
        await store.recordFetch('http://j.example/a;jsessionid=1', { status: 200, contentHash: 'A' });
        await store.recordFetch('http://j.example/b;jsessionid=2', { status: 200, contentHash: 'B' });
        await store.recordFetch('http://j.example/b', { status: 200, contentHash: 'B' });
        await store.recordFetch('http://j.example/c/d;jsessionid=3', { status: 200, contentHash: 'D' });
        await store.recordFetch('http://j.example/c/d;jsessionid=4', { status: 200, contentHash: 'D' });
        // two variants are no pair; the URL without the parameter is
        expect((await collect(store.rules())).find((r) => r.id === 'j.example/path-parameter:jsessionid')?.state).toBe('candidate');
        await store.recordFetch('http://j.example/c/d', { status: 200, contentHash: 'D' });
        const rule = (await collect(store.rules())).find((r) => r.id === 'j.example/path-parameter:jsessionid');
        expect(rule).toMatchObject({ state: 'active', against: 0 });
        // a URL with the parameter is admitted as the URL without it; other parameters stay
        const r = await store.admit(['http://j.example/e;jsessionid=9', 'http://j.example/e', 'http://j.example/f;v=2']);
        expect(r[0]).toMatchObject({ admitted: true, via: 'rule:j.example/path-parameter:jsessionid', key: key('http://j.example/e') });
        expect(r[1]).toMatchObject({ admitted: false, reason: 'duplicate-in-batch' });
        expect(r[2]).toMatchObject({ admitted: true, key: key('http://j.example/f;v=2') });
        expect(r[2]!.via).toBeUndefined();
        // a response that differs, and differs again when fetched again (the store queued it to be),
        // withdraws it, and what it pruned comes back
        await store.recordFetch('http://j.example/g', { status: 200, contentHash: 'G' });
        await store.recordFetch('http://j.example/g;jsessionid=5', { status: 200, contentHash: 'G-other' });
        expect((await store.canonical('http://j.example/g;jsessionid=5')).state).toBe('queued');
        await store.recordFetch('http://j.example/g;jsessionid=5', { status: 200, contentHash: 'G-other' });
        const after = (await collect(store.rules())).find((x) => x.id === 'j.example/path-parameter:jsessionid');
        expect(after).toMatchObject({ state: 'withdrawn' });
        expect((await store.canonical('http://j.example/e;jsessionid=9')).canonicalKey).toBe(key('http://j.example/e;jsessionid=9'));
        await verified(store);
      });

      it('a name a rule sends a document to, the document fetched first under another name, is a duplicate until the rule goes', async () => {
        const { store } = await make();
        // fetched under their session form before any rule; their plain names queued
        for (const n of [1, 2, 3, 4]) await store.recordFetch(`http://im.example/p${n}?sid=${n}`, { status: 200, contentHash: `P${n}` });
        await store.admit(['http://im.example/p1', 'http://im.example/p2', 'http://im.example/p3', 'http://im.example/p4']);
        for (const d of ['a', 'b', 'c']) {
          await store.recordFetch(`http://im.example/${d}`, { status: 200, contentHash: d });
          await store.recordFetch(`http://im.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
        }
        expect((await collect(store.rules())).find((r) => r.id === 'im.example/query-parameter:sid')).toMatchObject({ state: 'active' });
        // the rule's first rewrites stay queued, checks; the others are pruned onto the document
        const pruned: number[] = [];
        for (const n of [1, 2, 3, 4]) {
          const c = await store.canonical(`http://im.example/p${n}`);
          if (c.state === 'queued') continue;
          expect(c).toMatchObject({ state: 'pruned', canonicalKey: key(`http://im.example/p${n}?sid=${n}`) });
          pruned.push(n);
        }
        expect(pruned.length).toBeGreaterThanOrEqual(2);
        // a link to a pruned name, or to another session form of it, is no new URL
        const again = await store.admit([`http://im.example/p${pruned[0]}`, `http://im.example/p${pruned[0]}?sid=99`]);
        expect(again.map((r) => r.admitted)).toEqual([false, false]);
        // withdrawn: every name comes back
        await store.withdrawRule('im.example/query-parameter:sid');
        for (const n of pruned) expect((await store.canonical(`http://im.example/p${n}`)).state).toBe('queued');
        await verified(store);
      });

      it('an image no link named is forgotten when the rule goes, not queued; one a link named comes back', async () => {
        const { store } = await make();
        // documents fetched under their session form first, their plain names never linked
        for (const n of [1, 2, 3, 4, 5, 6]) await store.recordFetch(`http://iu.example/p${n}?sid=${n}`, { status: 200, contentHash: `P${n}` });
        for (const d of ['a', 'b', 'c']) {
          await store.recordFetch(`http://iu.example/${d}`, { status: 200, contentHash: d });
          await store.recordFetch(`http://iu.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
        }
        const images: number[] = [];
        const checks: number[] = [];
        for (const n of [1, 2, 3, 4, 5, 6]) {
          const c = await store.canonical(`http://iu.example/p${n}`);
          if (c.state === 'pruned') images.push(n);
          else if (c.state === 'queued') checks.push(n);
        }
        expect(images.length).toBeGreaterThanOrEqual(3);
        // the rule's first images are queued as checks: fetched, the document again is support
        expect(checks.length).toBeGreaterThanOrEqual(1);
        const sid = async () => (await collect(store.rules())).find((r) => r.id === 'iu.example/query-parameter:sid')!;
        const support = (await sid()).for;
        await store.recordFetch(`http://iu.example/p${checks[0]}`, { status: 200, contentHash: `P${checks[0]}` });
        expect((await sid()).for).toBe(support + 1);
        const [linked, ...unlinked] = images;
        // a link names one of them: a duplicate of its document while the rule holds
        expect((await store.admit([`http://iu.example/p${linked}`]))[0]).toMatchObject({ admitted: false });
        const before = (await store.stats()).urls.admitted;
        await store.withdrawRule('iu.example/query-parameter:sid');
        expect((await store.canonical(`http://iu.example/p${linked}`)).state).toBe('queued');
        for (const n of unlinked) expect((await store.canonical(`http://iu.example/p${n}`)).state).toBe('unknown');
        expect((await store.stats()).urls.admitted).toBe(before - unlinked.length);
        const offered = (await store.next({ limit: 100, perHost: 100 })).map((e) => e.key);
        expect(offered).toContain(key(`http://iu.example/p${linked}`));
        for (const n of unlinked) expect(offered).not.toContain(key(`http://iu.example/p${n}`));
        // forgotten, not refused: a link to one now is a new URL
        expect((await store.admit([`http://iu.example/p${unlinked[0]}`]))[0]).toMatchObject({ admitted: true, reason: 'new' });
        await verified(store);
      });

      for (const order of [['jsessionid', 'ref'], ['ref', 'jsessionid']] as const) {
        it(`a name a chain of two rules sends a document to is a duplicate, and comes back when either goes (${order.join(' then ')})`, async () => {
          const { store } = await make();
          // documents fetched first under a session segment and a tracking parameter together
          const docs = [1, 2, 3, 4, 5, 6, 7, 8];
          for (const n of docs) await store.recordFetch(`http://ch.example/p${n};jsessionid=${n}?ref=x${n}`, { status: 200, contentHash: `P${n}` });
          const teach = {
            jsessionid: (d: string) => [`http://ch.example/${d}`, `http://ch.example/${d};jsessionid=7${d}`],
            ref: (d: string) => [`http://ch.example/r${d}`, `http://ch.example/r${d}?ref=feed${d}`],
          };
          for (const which of order) {
            for (const d of ['a', 'b', 'c']) for (const u of teach[which](d)) await store.recordFetch(u, { status: 200, contentHash: `${which}-${d}` });
          }
          const rules = await collect(store.rules());
          expect(rules.find((r) => r.id === 'ch.example/path-parameter:jsessionid')).toMatchObject({ state: 'active' });
          expect(rules.find((r) => r.id === 'ch.example/query-parameter:ref')).toMatchObject({ state: 'active' });
          // the plain name is where both rules together send each document
          const images: number[] = [];
          for (const n of docs) {
            const c = await store.canonical(`http://ch.example/p${n}`);
            if (c.state !== 'pruned') continue;
            expect(c.canonicalKey).toBe(key(`http://ch.example/p${n};jsessionid=${n}?ref=x${n}`));
            images.push(n);
          }
          expect(images.length).toBeGreaterThanOrEqual(4);
          // links name two of them: duplicates while both rules hold
          const linked = images.slice(0, 2);
          expect((await store.admit(linked.map((n) => `http://ch.example/p${n}`))).map((r) => r.admitted)).toEqual([false, false]);
          // links that carry both, admitted now, are sent by the chain to their plain name
          const both = docs.map((n) => `http://ch.example/q${n};jsessionid=${n}?ref=y${n}`);
          await store.admit(both);
          const chained: string[] = [];
          for (const u of both) {
            const c = await store.canonical(u);
            if (c.state === 'pruned') chained.push(u);
          }
          expect(chained.length).toBeGreaterThanOrEqual(2);
          // the rule the chain applies last goes (then, in the other test, the first): what both
          // claimed no longer holds, and the linked names come back to be fetched
          await store.withdrawRule(`ch.example/${order[1] === 'ref' ? 'query-parameter:ref' : 'path-parameter:jsessionid'}`);
          for (const n of linked) expect((await store.canonical(`http://ch.example/p${n}`)).state).toBe('queued');
          // a chained URL is queued as itself, or pruned by the rule left onto a queued name
          for (const u of chained) {
            const c = await store.canonical(u);
            if (c.state === 'pruned') expect((await store.canonical(c.canonicalUrl)).state).toBe('queued');
            else expect(c.state).toBe('queued');
          }
          const offered = (await store.next({ limit: 100, perHost: 100 })).map((e) => e.key);
          for (const n of linked) expect(offered).toContain(key(`http://ch.example/p${n}`));
          await verified(store);
        });
      }

      it('a rule whose scope grows to subdirectories prunes the images that lie there', async () => {
        const { store } = await make();
        // documents under /s/ fetched under their session form first, their plain names unseen
        for (const n of [1, 2, 3, 4, 5, 6]) await store.recordFetch(`http://iw.example/s/p${n}?sid=${n}`, { status: 200, contentHash: `P${n}` });
        for (const d of ['a', 'b', 'c']) {
          await store.recordFetch(`http://iw.example/${d}`, { status: 200, contentHash: d });
          await store.recordFetch(`http://iw.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
        }
        // evidence in / alone holds the rule for the files of / (`/*`), not for /s/
        const rule = async () => (await collect(store.rules())).find((r) => r.id === 'iw.example/query-parameter:sid');
        expect(await rule()).toMatchObject({ state: 'active', scopes: [{ at: '/', flat: true }] });
        for (const n of [1, 2, 3, 4, 5, 6]) expect((await store.canonical(`http://iw.example/s/p${n}`)).state).toBe('unknown');
        // one pair under /s/ grows the scope to the whole host: the images there are pruned now
        await store.recordFetch('http://iw.example/s/z', { status: 200, contentHash: 'z' });
        await store.recordFetch('http://iw.example/s/z?sid=9', { status: 200, contentHash: 'z' });
        expect((await rule())?.scopes).toEqual([expect.not.objectContaining({ flat: true })]);
        const pruned = [];
        for (const n of [1, 2, 3, 4, 5, 6]) {
          const c = await store.canonical(`http://iw.example/s/p${n}`);
          if (c.state === 'pruned') pruned.push(c.canonicalKey === key(`http://iw.example/s/p${n}?sid=${n}`));
        }
        // all but the few the learner keeps as checks
        expect(pruned.length).toBeGreaterThanOrEqual(4);
        expect(pruned.every(Boolean)).toBe(true);
        await verified(store);
      });

      it('offers a check the learner asks for before the rest of its host\'s queue', async () => {
        const { store } = await make();
        await store.admit(Array.from({ length: 40 }, (_, i) => `http://ck.example/q/${i}`));
        await store.recordFetch('http://ck.example/z/a', { status: 200, contentHash: 'A' });
        // different content under a parameter: the variant is fetched again first (is it stable?)
        await store.recordFetch('http://ck.example/z/a?sid=1', { status: 200, contentHash: 'A-other' });
        expect((await store.canonical('http://ck.example/z/a?sid=1')).state).toBe('queued');
        const [first] = await store.next({ host: 'ck.example', limit: 1 });
        expect(first?.url).toBe('http://ck.example/z/a?sid=1');
      });

      it('where a token changes the bytes on every fetch, compares pages on their stable text', async () => {
        const { store } = await make();
        let token = 0;
        const fetch = (u: string, text: string): Promise<void> => store.recordFetch(u, { status: 200, contentHash: `${text}#${++token}`, stableHash: text });
        await fetch('http://tk.example/a', 'A');
        await fetch('http://tk.example/a?sid=1', 'A');
        // the bytes differ: the variant is fetched again, its bytes change, its text does not
        expect((await store.canonical('http://tk.example/a?sid=1')).state).toBe('queued');
        await fetch('http://tk.example/a?sid=1', 'A');
        for (const d of ['b', 'c']) {
          await fetch(`http://tk.example/${d}`, d);
          await fetch(`http://tk.example/${d}?sid=2${d}`, d);
        }
        expect((await collect(store.rules())).find((r) => r.id === 'tk.example/query-parameter:sid')).toMatchObject({ state: 'active', against: 0 });
        // and a page whose text differs under the parameter contradicts it
        await fetch('http://tk.example/d', 'D');
        await fetch('http://tk.example/d?sid=3', 'D-other');
        expect((await collect(store.rules())).find((r) => r.id === 'tk.example/query-parameter:sid')!.against).toBe(1);
        await verified(store);
      });

      it('pages that differ only in the address each prints of itself are one document', async () => {
        const { store } = await make();
        // a share widget prints the requested URL: the bytes differ under every name, the echo-free text does not
        const fetch = (u: string, text: string): Promise<void> => store.recordFetch(u, { status: 200, contentHash: `${text}@${u}`, echoFreeHash: text });
        for (const d of ['a', 'b', 'c']) {
          await fetch(`http://ec.example/${d}`, d);
          await fetch(`http://ec.example/${d}?utm_source=x${d}`, d);
        }
        expect((await collect(store.rules())).find((r) => r.id === 'ec.example/query-parameter:utm_source')).toMatchObject({ state: 'active', against: 0 });
        // no second fetch was needed
        for (const d of ['a', 'b', 'c']) expect((await store.canonical(`http://ec.example/${d}?utm_source=x${d}`)).state).toBe('fetched');
        await verified(store);
      });

      it('a chain of rules stops at a URL on its way that the host answered with a document', async () => {
        const { store } = await make();
        await learnHttpsAndSlash(store, 'ch.example');
        expect((await store.canonical('http://ch.example/docs/y')).canonicalKey).toBe(key('https://ch.example/docs/y/'));
        // the https page answered as itself: a document, whatever the slash rule says of others
        await store.recordFetch('https://ch.example/docs/x', { status: 200, contentHash: 'X' });
        expect((await store.canonical('https://ch.example/docs/x')).canonicalKey).toBe(key('https://ch.example/docs/x'));
        expect((await store.canonical('http://ch.example/docs/x')).canonicalKey).toBe(key('https://ch.example/docs/x'));
        await verified(store);
      });

      it('a link pruned through a chain stops there too, once that URL answers with a document', async () => {
        const { store } = await make();
        await learnHttpsAndSlash(store, 'cp.example');
        // past the rewrites each rule has checked (queued as themselves), a link is pruned onto the chain's end
        for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://cp.example/docs/${p}`]);
        const [linked] = await store.admit(['http://cp.example/docs/x']);
        expect(linked).toMatchObject({ admitted: true, key: key('https://cp.example/docs/x/') });
        expect((await store.canonical('http://cp.example/docs/x')).state).toBe('pruned');
        // the step on the way answers as itself: the pruned link's recorded end gives way to it
        await store.recordFetch('https://cp.example/docs/x', { status: 200, contentHash: 'X' });
        expect((await store.canonical('http://cp.example/docs/x')).canonicalKey).toBe(key('https://cp.example/docs/x'));
        await verified(store);
      });

      it('a link admitted through a chain stops at a document on its way: the chain’s end, which nobody linked, is not queued', async () => {
        const { store } = await make();
        await learnHttpsAndSlash(store, 'cq.example');
        for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://cq.example/docs/${p}`]);
        // the step on the way answered as itself (a seed, or fetched before the rules)
        await store.recordFetch('https://cq.example/docs/x', { status: 200, contentHash: 'X' });
        const [linked] = await store.admit(['http://cq.example/docs/x']);
        expect(linked).toMatchObject({ admitted: false, key: key('https://cq.example/docs/x') });
        expect((await store.canonical('https://cq.example/docs/x/')).state).toBe('unknown');
        const queued = (await store.next({ limit: 100, perHost: 100 })).map((e) => e.key);
        expect(queued).not.toContain(key('https://cq.example/docs/x/'));
        await verified(store);
      });

      it('a link pruned through a chain whose end fails comes back under the steps that hold', async () => {
        const { store } = await make();
        await learnHttpsAndSlash(store, 'cf.example');
        for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://cf.example/docs/${p}`]);
        await store.admit(['http://cf.example/docs/x']);
        expect((await store.canonical('http://cf.example/docs/x')).state).toBe('pruned');
        // the chain's end is no document: the link is asked for as itself first
        await store.recordFetch('https://cf.example/docs/x/', { status: 404, contentHash: 'NF' });
        expect((await store.canonical('http://cf.example/docs/x')).state).toBe('queued');
        // it redirects to its https form, no 404: the slash step is to blame, the https step stands
        await store.recordRedirect('http://cf.example/docs/x', 'https://cf.example/docs/x', 301);
        const rules = await collect(store.rules());
        expect(rules.find((r) => r.id === 'cf.example/https')).toMatchObject({ state: 'active', against: 0 });
        expect(rules.find((r) => r.id === 'cf.example/slash-add')).toMatchObject({ against: 1 });
        // and the redirect's target, where the rules of now send the link, is queued
        expect((await store.canonical('http://cf.example/docs/x')).state).toBe('redirected');
        expect((await store.canonical('https://cf.example/docs/x')).state).toBe('queued');
        await verified(store);
      });

      it('withdraws a content-learned rule when content differs', async () => {
        const { store } = await make();
        await store.recordFetch('http://v.example/a', { status: 200, contentHash: 'A' });
        await store.recordFetch('http://v.example/a?lang=en', { status: 200, contentHash: 'A' });
        await store.recordFetch('http://v.example/b', { status: 200, contentHash: 'B' });
        await store.recordFetch('http://v.example/b?lang=en', { status: 200, contentHash: 'B' });
        await store.recordFetch('http://v.example/b?lang=de', { status: 200, contentHash: 'B-de' });
        // fetched again: stable content, so the difference counts
        await store.recordFetch('http://v.example/b?lang=de', { status: 200, contentHash: 'B-de' });
        const rule = (await collect(store.rules())).find((r) => r.id === 'v.example/query-parameter:lang');
        expect(rule).toMatchObject({ state: 'withdrawn' });
        expect(rule!.against).toBeGreaterThanOrEqual(1);
      });

      it('explains the chain to a canonical key, with each rule’s scope and evidence', async () => {
        const { store } = await make({ presets: ['tracking'] });
        for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://e.example/docs/${p}`, `https://e.example/docs/${p}`, 301);
        const x = await store.explain('HTTP://E.example/docs/z?utm_source=m');
        expect(x).toMatchObject({ normal: 'http://e.example/docs/z?utm_source=m', key: key('http://e.example/docs/z?utm_source=m') });
        expect(x.steps.map((st) => [st.via, st.url])).toEqual([
          ['preset:tracking', 'http://e.example/docs/z'],
          ['rule:e.example/https', 'https://e.example/docs/z'],
        ]);
        expect(x.steps[1]!.rule).toMatchObject({ state: 'active', scopes: [{ at: '/docs/', docs: 3, query: false }] });
        expect(x.steps[1]!.observations!.map((o) => o.status)).toEqual([301, 301, 301]);
        expect(x.canonical).toMatchObject({ canonicalKey: key('https://e.example/docs/z'), state: 'unknown' });
        // outside the rule's scope the chain stops at the preset
        expect((await store.explain('http://e.example/other?utm_source=m')).steps.map((st) => st.via)).toEqual(['preset:tracking']);
      });

      it('withdraws a rule by hand (its URLs come back) and blocks a rule before it is learned', async () => {
        const { store } = await make();
        for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://o.example/${p}`, `https://o.example/${p}`, 301);
        await store.admit(['http://o.example/1', 'http://o.example/2', 'http://o.example/3']);
        expect((await store.stats()).pruned['rule:o.example/https']).toBe(1);
        const w = await store.withdrawRule('o.example/https');
        expect(w).toMatchObject({ state: 'withdrawn', manual: true, scopes: [] });
        expect((await store.canonical('http://o.example/3')).state).toBe('queued');
        for (const p of ['d', 'e', 'f']) await store.recordRedirect(`http://o.example/${p}`, `https://o.example/${p}`, 301);
        expect((await collect(store.rules())).find((r) => r.id === 'o.example/https')).toMatchObject({ state: 'withdrawn' });
        const b = await store.blockRule('k.example', 'slash-add');
        expect(b).toMatchObject({ id: 'k.example/slash-add', state: 'withdrawn', manual: true });
        for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://k.example/${p}`, `http://k.example/${p}/`, 301);
        expect((await store.admit(['http://k.example/z']))[0]).toMatchObject({ key: key('http://k.example/z') });
        await expect(store.withdrawRule('nonsense')).rejects.toBeInstanceOf(TypeError);
        await expect(store.blockRule('k.example', 'bogus')).rejects.toBeInstanceOf(TypeError);
        await verified(store);
      });

      it('prunes a frontier of many blocks when a rule becomes active, and gives it all back', async () => {
        const { store } = await make();
        // 2,600 queued http URLs in 26 admit batches (a block each), 5 of them handed out
        const urls = Array.from({ length: 2600 }, (_, i) => `http://big.example/p${i}`);
        for (let i = 0; i < urls.length; i += 100) await store.admit(urls.slice(i, i + 100));
        const flying = await store.next({ host: 'big.example', limit: 5 });
        for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://big.example/${p}`, `https://big.example/${p}`, 301);
        expect((await collect(store.rules())).find((r) => r.id === 'big.example/https')).toMatchObject({ state: 'active' });
        const s = await store.stats();
        // 2 of the 2,595 it maps elsewhere are checked first: they stay queued as themselves
        expect(s.pruned['rule:big.example/https']).toBe(2593);
        // queued: the 5 in flight, the https forms of the 2,595, the 2 checks, the 3 redirect
        // targets and the probe for the host's not-found answer (asked with its first candidate)
        expect(s.frontier.hosts['big.example']).toBe(5 + 2595 + 2 + 3 + 1);
        for (const e of flying) expect((await store.canonical(e.url)).state).toBe('queued');
        expect((await store.canonical('http://big.example/p2599')).state).toBe('pruned');
        await verified(store);
        await store.withdrawRule('big.example/https');
        expect((await store.stats()).pruned['rule:big.example/https']).toBeUndefined();
        expect((await store.stats()).frontier.hosts['big.example']).toBe(5 + 2595 + 2 + 3 + 1 + 2593);
        expect((await store.canonical('http://big.example/p2599')).state).toBe('queued');
        await verified(store);
      });

      it('judges an inverse redirect as a contradiction', async () => {
        const { store } = await make();
        await store.recordRedirect('http://i.example/a', 'http://i.example/a/', 301);
        await store.recordRedirect('http://i.example/b/', 'http://i.example/b', 301);
        const rule = (await collect(store.rules())).find((r) => r.id === 'i.example/slash-add');
        expect(rule).toMatchObject({ state: 'withdrawn', against: 1 });
        expect(rule!.contradiction?.how).toBe('inverse-redirect');
      });
    });

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
    });

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

      it('reads the database at most once for a batch, and not at all for keys the cache holds or the front rules out', async () => {
        const b = await make();
        if (b.reads === undefined) return;
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

      it('reads what the cache does not hold in one read, and answers as canonical does', async () => {
        // a cache far smaller than the store: most keys are read
        const b = await make({ cacheSize: 1 });
        if (b.reads === undefined) return;
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

      it('uses the recorded presets instead of giving pruned URLs back, and changes nothing', async () => {
        const b = await make({ presets: ['tracking'] });
        if (b.reopen === undefined) return;
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
      it('recounts the counters and rebuilds the frontier, after which verify is clean', async () => {
        const b = await make({ presets: ['tracking'], learnRules: false });
        if (b.damage === undefined) return;
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

    describe('durability (durable backends)', () => {
      it('reopens with the Bloom fronts written down at close, and builds them from the keys when that copy does not fit', async () => {
        const options: StoreOptions = { frontSnapshotMinKeys: 0, learnRules: false };
        const b = await make(options);
        if (b.reopen === undefined || b.damage === undefined) return;
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

      it('survives reopening: entries, frontier order, rules, counters; in-flight entries are offered again', async () => {
        const b = await make();
        if (b.reopen === undefined) return;
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

      it("keeps its own presets: an open naming none uses them, one naming others is refused", async () => {
        const b = await make({ presets: ['tracking'] });
        if (b.reopen === undefined) return;
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

      it('changePresets: a preset named again prunes the queued URLs it maps elsewhere', async () => {
        const b = await make({ presets: ['tracking'] });
        if (b.reopen === undefined) return;
        await b.store.admit(['http://p.example/a?utm_source=1', 'http://p.example/a']);
        let store = await b.reopen({ presets: [], changePresets: true });
        expect((await store.stats()).pruned).toEqual({});
        expect((await store.canonical('http://p.example/a?utm_source=1')).state).toBe('queued');
        store = await b.reopen({ presets: ['tracking'], changePresets: true });
        expect((await store.stats()).pruned).toEqual({ 'preset:tracking': 1 });
        expect(await store.canonical('http://p.example/a?utm_source=1')).toMatchObject({ state: 'pruned', via: 'preset:tracking' });
        await verified(store);
      });

      it('gives back URLs of a preset the store is changed to be without', async () => {
        const b = await make({ presets: ['tracking', 'www'] });
        if (b.reopen === undefined) return;
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

      it('close() waits for pending writes', async () => {
        const b = await make();
        if (b.reopen === undefined) return;
        const pending = b.store.admit(['http://cl.example/1', 'http://cl.example/2']);
        const store = await b.reopen();
        await pending;
        expect((await store.stats()).urls.admitted).toBe(2);
      });
    });
  });
}
