// SeenStore suite, host rules (1 of 3): learning them, from redirects (https, slash, www, default
// document, path prefix), from content (query and path parameters, case) and from session forms;
// a rule withdrawn when its rewrite answers no document.
import { expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { collect, type SuiteContext } from './context.js';

export function hostRuleLearningTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
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

  it('case variants a host sends to another name\'s session form teach the case rule for their shape, and are pruned onto its document', async () => {
    // a servlet container on a case-folding file system that sets its session in the URL: every
    // name redirects to its folded file's session form, the folded name's own included
    const { store } = await make();
    const session = (n: string): string => `http://ss.example/docs/${n}.html;jsessionid=S${n.length}`;
    for (const n of ['one', 'two', 'three', 'five']) {
      await store.recordRedirect(`http://ss.example/docs/${n}.html`, session(n), 302);
      await store.recordFetch(session(n), { status: 200, contentHash: `h-${n}` });
    }
    // capitalized names redirected show nothing for such names: a server correcting the names it
    // lacks (Apache mod_speling) redirects those alike, and answers the capitalized twins it holds
    for (const n of ['One', 'Two', 'Three']) await store.recordRedirect(`http://ss.example/docs/${n}.html`, session(n.toLowerCase()), 302);
    expect((await collect(store.rules())).find((r) => r.id === 'ss.example/case-insensitive')).toMatchObject({ state: 'candidate', for: 3 });
    for (const n of ['oNe', 'tWo', 'thRee']) await store.recordRedirect(`http://ss.example/docs/${n}.html`, session(n.toLowerCase()), 302);
    expect((await collect(store.rules())).find((r) => r.id === 'ss.example/case-insensitive')).toMatchObject({ state: 'active', for: 6 });
    // a variant of a fetched page goes through the rule and the folded name's alias to its document
    expect(await store.canonical('http://ss.example/docs/fIve.html')).toMatchObject({ canonicalKey: key(session('five')), state: 'seen' });
    expect((await store.canonical('http://ss.example/docs/Five.html')).canonicalKey).toBe(key('http://ss.example/docs/Five.html'));
    await verified(store);
  });

  it('a host that redirects a capitalized name it cannot have teaches the case rule for capitalized names there', async () => {
    const { store } = await make();
    const probesOf = async (): Promise<string[]> => (await store.next({ limit: 100, perHost: 100 })).filter((e) => e.check === 'probe' && e.url.includes('/Urldedup-Not-Found-')).map((e) => e.url);
    // an "enforce lowercase" rewrite under /docs/ (IIS URL Rewrite's template), mod_speling under /wiki/:
    // both redirect capitalized names to existing lower-case ones
    for (const dir of ['docs', 'wiki']) {
      for (const n of ['One', 'Two', 'Three', 'Four']) await store.recordRedirect(`http://lc.example/${dir}/${n}.html`, `http://lc.example/${dir}/${n.toLowerCase()}.html`, 301);
    }
    expect((await collect(store.rules())).find((r) => r.id === 'lc.example/case-insensitive')).toMatchObject({ state: 'candidate' });
    // one case probe per place: a name in capitalized words no server has
    const probes = await probesOf();
    expect(probes.map((u) => new URL(u).pathname.replace(/[0-9a-f]{16}$/, 'H')).sort()).toEqual(['/docs/Urldedup-Not-Found-H', '/wiki/Urldedup-Not-Found-H']);
    const docsProbe = probes.find((u) => u.includes('/docs/'))!;
    const wikiProbe = probes.find((u) => u.includes('/wiki/'))!;
    // mod_speling finds no near miss and answers 404; the rewrite folds the name whatever it is
    await store.recordFetch(wikiProbe, { status: 404, contentHash: 'nf' });
    await store.recordRedirect(docsProbe, docsProbe.replace('/Urldedup-Not-Found-', '/urldedup-not-found-'), 301);
    const rule = (await collect(store.rules())).find((r) => r.id === 'lc.example/case-insensitive');
    expect(rule).toMatchObject({ state: 'active' });
    expect(rule?.scopes?.map((x) => x.at)).toEqual(['/docs/']);
    expect((await store.canonical('http://lc.example/docs/Five.html')).canonicalKey).toBe(key('http://lc.example/docs/five.html'));
    // where only mod_speling answered, a capitalized name may be a twin of its own
    expect((await store.canonical('http://lc.example/wiki/Five.html')).canonicalKey).toBe(key('http://lc.example/wiki/Five.html'));
    // asked once per place
    await store.recordRedirect('http://lc.example/docs/Six.html', 'http://lc.example/docs/six.html', 301);
    expect(await probesOf()).toEqual([]);
    // a probe answered with a redirect elsewhere (a not-found page at home) shows no folding
    for (const n of ['One', 'Two', 'Three']) await store.recordRedirect(`http://lc.example/api/${n}.html`, `http://lc.example/api/${n.toLowerCase()}.html`, 301);
    const [apiProbe] = await probesOf();
    await store.recordRedirect(apiProbe!, 'http://lc.example/', 301);
    expect((await store.canonical('http://lc.example/api/Five.html')).canonicalKey).toBe(key('http://lc.example/api/Five.html'));
    await verified(store);
  });

  it('a server that merges slashes is learned as one rule over the sections its evidence spans', async () => {
    // nginx merge_slashes: a template joins a base ending in "/" with a path starting with one
    const { store } = await make();
    for (const [dir, page] of [['guide', 'a'], ['guide', 'b'], ['news', 'c']]) {
      await store.recordFetch(`http://ms.example/${dir}/${page}.html`, { status: 200, contentHash: page! });
      await store.recordFetch(`http://ms.example/${dir}//${page}.html`, { status: 200, contentHash: page! });
    }
    const rule = (await collect(store.rules())).find((r) => r.id === 'ms.example/merge-slashes');
    expect(rule).toMatchObject({ state: 'active', for: 3 });
    expect(rule?.scopes?.map((x) => x.at)).toEqual(['/']);
    // a section nobody showed it in, and a run of three slashes
    expect((await store.canonical('http://ms.example/ref//y.html')).canonicalKey).toBe(key('http://ms.example/ref/y.html'));
    expect((await store.canonical('http://ms.example/ref///z.html')).canonicalKey).toBe(key('http://ms.example/ref/z.html'));
    // a path without an empty segment is not the rule's
    expect((await store.canonical('http://ms.example/ref/y.html')).canonicalKey).toBe(key('http://ms.example/ref/y.html'));
    // a server that redirects the doubled name supports the same rule
    await store.recordRedirect('http://ms.example/api//d.html', 'http://ms.example/api/d.html', 301);
    expect((await collect(store.rules())).find((r) => r.id === 'ms.example/merge-slashes')).toMatchObject({ for: 4 });
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
}
