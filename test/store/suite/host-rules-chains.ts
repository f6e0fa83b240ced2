// SeenStore suite, host rules (3 of 3): chains of rules (stopped by a document on the way, given
// back when the end fails; a preset's output a rule sends on), explain, and withdrawal (content differs, by hand, an inverse redirect,
// a frontier of many blocks given back).
import { expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { collect, learnHttpsAndSlash, type SuiteContext } from './context.js';

export function hostRuleChainTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
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

  it('a link a preset sends on through a rule is recorded onto the preset’s output, which the rule’s failure gives back', async () => {
    const { store } = await make({ presets: ['tracking'] });
    for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://pt.example:8080/docs/${p}`, `http://pt.example:8080/docs/${p}/`, 301);
    // past the rewrites the rule checks first (queued as themselves too)
    for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://pt.example:8080/docs/${p}`]);
    const [linked] = await store.admit(['http://pt.example:8080/docs/x?utm_source=feed']);
    expect(linked).toMatchObject({ admitted: true, key: key('http://pt.example:8080/docs/x/'), via: 'preset:tracking' });
    // the link names the presets' output, which the rule sends on: one answer for both
    expect(await store.canonical('http://pt.example:8080/docs/x?utm_source=feed')).toMatchObject({ canonicalKey: key('http://pt.example:8080/docs/x/'), state: 'pruned' });
    expect(await store.canonical('http://pt.example:8080/docs/x')).toMatchObject({ canonicalKey: key('http://pt.example:8080/docs/x/'), via: 'rule:pt.example:8080/slash-add' });
    // the rule's rewrite is no document: the presets' output is asked for as itself, and the link leads there
    await store.recordFetch('http://pt.example:8080/docs/x/', { status: 404, contentHash: 'NF' });
    expect((await store.canonical('http://pt.example:8080/docs/x')).state).toBe('queued');
    expect((await store.canonical('http://pt.example:8080/docs/x?utm_source=feed')).canonicalKey).toBe(key('http://pt.example:8080/docs/x'));
    expect((await store.next({ limit: 100, perHost: 100 })).map((e) => e.key)).toContain(key('http://pt.example:8080/docs/x'));
    // a second link there, after the failure, queues nothing and leads to that URL, not to the failed rewrite
    const [again] = await store.admit(['http://pt.example:8080/docs/x?utm_medium=email']);
    expect(again).toMatchObject({ admitted: false });
    expect((await store.canonical('http://pt.example:8080/docs/x?utm_medium=email')).canonicalKey).toBe(key('http://pt.example:8080/docs/x'));
    await verified(store);
  });

  it('a link recorded through a preset and a rule comes back when the rule is withdrawn', async () => {
    const { store } = await make({ presets: ['tracking'] });
    for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://pw.example/docs/${p}`, `http://pw.example/docs/${p}/`, 301);
    for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://pw.example/docs/${p}`]);
    // one batch with two tracking forms of a URL, and a tracking form then the URL itself: one entry queued for each
    const r = await store.admit(['http://pw.example/docs/y?utm_source=a', 'http://pw.example/docs/y?utm_source=b', 'http://pw.example/docs/z?utm_source=a', 'http://pw.example/docs/z']);
    expect(r.map((x) => [x.admitted, x.key, x.reason])).toEqual([
      [true, key('http://pw.example/docs/y/'), 'new'],
      [false, key('http://pw.example/docs/y/'), 'preset:tracking'],
      [true, key('http://pw.example/docs/z/'), 'new'],
      [false, key('http://pw.example/docs/z/'), 'duplicate-in-batch'],
    ]);
    await store.withdrawRule('pw.example/slash-add');
    for (const p of ['y', 'z']) {
      expect((await store.canonical(`http://pw.example/docs/${p}`)).state).toBe('queued');
      expect((await store.canonical(`http://pw.example/docs/${p}?utm_source=a`)).canonicalKey).toBe(key(`http://pw.example/docs/${p}`));
    }
    await verified(store);
  });

  it('a redirect target pruned through a chain back onto its source comes back when a later rule is withdrawn', async () => {
    const { store } = await make();
    // a session rule, and a language rule learned where the parameter changed nothing
    for (const [i, p] of ['a', 'b', 'c/d'].entries()) {
      await store.recordFetch(`http://ow.example/${p}?x=1`, { status: 200, contentHash: p });
      await store.recordFetch(`http://ow.example/${p};jsessionid=${i + 1}?x=1`, { status: 200, contentHash: p });
    }
    for (const p of ['e', 'f', 'g/h']) {
      await store.recordFetch(`http://ow.example/${p}`, { status: 200, contentHash: p });
      await store.recordFetch(`http://ow.example/${p}?lang=de`, { status: 200, contentHash: p });
    }
    const rules = await collect(store.rules());
    expect(rules.find((r) => r.id === 'ow.example/path-parameter:jsessionid')?.state).toBe('active');
    expect(rules.find((r) => r.id === 'ow.example/query-parameter:lang')?.state).toBe('active');
    // `/t?lang=de` → 302 → its own form with a session: the rules send that form onto `/t` (the
    // session rule back to the source, the language rule on), recorded under the session rule
    // (the rules' first rewrites are checks queued as themselves: the first one pruned is taken)
    let own = '';
    for (let i = 1; i <= 40 && own === ''; i++) {
      const target = `http://ow.example/t${i};jsessionid=Z?lang=de`;
      await store.recordRedirect(`http://ow.example/t${i}?lang=de`, target, 302);
      if ((await store.canonical(target)).state === 'pruned') own = target;
    }
    expect(own).not.toBe('');
    expect(await store.explain(own)).toMatchObject({ canonical: { state: 'pruned', via: 'rule:ow.example/path-parameter:jsessionid' } });
    // without the language rule, the session rule sends the target onto its source, which the
    // server redirects to the target: that alias cancels the rule, and the target is queued as itself
    await store.withdrawRule('ow.example/query-parameter:lang');
    expect(await store.canonical(own)).toMatchObject({ state: 'queued', canonicalKey: key(own) });
    await verified(store);
  });

  it('an own form redirected on to another form the rules send to the same start is queued as itself', async () => {
    const { store } = await make();
    // a session rule, learned where the id changed nothing
    for (const [i, p] of ['a', 'b', 'c/d'].entries()) {
      await store.recordFetch(`http://lo.example/${p}`, { status: 200, contentHash: p });
      await store.recordFetch(`http://lo.example/${p};jsessionid=${i + 1}`, { status: 200, contentHash: p });
    }
    expect((await collect(store.rules())).find((r) => r.id === 'lo.example/path-parameter:jsessionid')?.state).toBe('active');
    await store.admit(['http://lo.example/t']);
    // a servlet container adds a session (302), an "enforce lowercase" rewrite folds its id (301):
    // the rule sends both forms onto `/t`, the chain's start, and the document is at the end
    await store.recordRedirect('http://lo.example/t', 'http://lo.example/t;jsessionid=ABC1', 302);
    expect((await store.canonical('http://lo.example/t;jsessionid=ABC1')).state).toBe('queued');
    await store.recordRedirect('http://lo.example/t;jsessionid=ABC1', 'http://lo.example/t;jsessionid=abc1', 301);
    expect(await store.canonical('http://lo.example/t;jsessionid=abc1')).toMatchObject({ state: 'queued', canonicalKey: key('http://lo.example/t;jsessionid=abc1') });
    // every name of the chain leads there, once it answered a document (a name the host answered
    // itself, with a redirect, is not sent by a rule to a URL not answered yet)
    await store.recordFetch('http://lo.example/t;jsessionid=abc1', { status: 200, contentHash: 'T' });
    for (const u of ['http://lo.example/t', 'http://lo.example/t;jsessionid=ABC1', 'http://lo.example/t;jsessionid=zzz9']) expect([u, (await store.canonical(u)).canonicalKey]).toEqual([u, key('http://lo.example/t;jsessionid=abc1')]);
    await verified(store);
  });

  it('a redirect to a URL a preset sends on through a failed rewrite reaches the preset’s output', async () => {
    const { store } = await make({ presets: ['tracking'] });
    for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://pr.example/docs/${p}`, `http://pr.example/docs/${p}/`, 301);
    for (const p of ['g', 'h', 'i', 'j']) await store.admit([`http://pr.example/docs/${p}`]);
    // the rule's rewrite answered no document before anything named it
    await store.recordFetch('http://pr.example/docs/x/', { status: 404, contentHash: 'NF' });
    await store.recordRedirect('http://pr.example/go', 'http://pr.example/docs/x?utm_source=feed', 302);
    expect((await store.canonical('http://pr.example/docs/x')).state).toBe('queued');
    expect((await store.canonical('http://pr.example/docs/x?utm_source=feed')).canonicalKey).toBe(key('http://pr.example/docs/x'));
    await verified(store);
  });

  it('a chain of rules stops at a URL on its way that the host redirected as an alias', async () => {
    const { store } = await make();
    const u = (p: string): string => `http://ca.example/docs/${p}`;
    // a session parameter learned on content, a trailing slash learned from redirects
    for (const d of ['a', 'b', 'c']) {
      await store.recordFetch(u(d), { status: 200, contentHash: d });
      await store.recordFetch(u(`${d}?sid=1${d}`), { status: 200, contentHash: d });
    }
    for (const d of ['d', 'e', 'f']) await store.recordRedirect(u(d), u(`${d}/`), 301);
    expect((await store.canonical(u('z?sid=9'))).canonicalKey).toBe(key(u('z/')));
    // the step on the way answers with its own session form (a servlet container without
    // cookies): the host named its document there, and the chain's end is a guess past it
    const own = u('x;jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9');
    await store.recordRedirect(u('x'), own, 302);
    await store.recordFetch(own, { status: 200, contentHash: 'X' });
    expect((await collect(store.rules())).find((r) => r.id === 'ca.example/slash-add')).toMatchObject({ state: 'active' });
    expect((await store.canonical(u('x?sid=9'))).canonicalKey).toBe(key(own));
    const [linked] = await store.admit([u('x?sid=9')]);
    expect(linked).toMatchObject({ key: key(own), admitted: false });
    // a step sent elsewhere (home, which no rule explains) failed the rewrite: the URL is its own
    await store.recordRedirect(u('y'), 'http://ca.example/', 301);
    expect((await store.canonical(u('y?sid=8'))).canonicalKey).toBe(key(u('y?sid=8')));
    const [y] = await store.admit([u('y?sid=8')]);
    expect(y).toMatchObject({ key: key(u('y?sid=8')), admitted: true });
    await verified(store);
  });

  it('a rule’s rewrite that redirected elsewhere sends no URL on to the redirect’s end', async () => {
    const { store } = await make();
    const u = (p: string): string => `http://sx.example/docs/${p}`;
    // queued before any rule: its rewrite is a path the host sends home (a not-found redirect)
    await store.admit([u('q.html')]);
    await store.recordRedirect(u('q'), 'http://sx.example/', 301);
    await store.recordRedirect(u('m'), 'http://sx.example/', 301);
    // `/x.html` → 301 → `/x`: a suffix rule, which then prunes the frontier
    for (const p of ['a', 'b', 'c', 'd']) await store.recordRedirect(u(`${p}.html`), u(p), 301);
    expect((await collect(store.rules())).find((r) => r.id === 'sx.example/suffix:.html>')).toMatchObject({ state: 'active' });
    // past the rewrites the rule checks, it prunes a link onto its rewrite
    for (const p of ['e', 'f', 'g', 'h', 'i', 'j']) await store.admit([u(`${p}.html`)]);
    expect((await store.canonical(u('k.html'))).canonicalKey).toBe(key(u('k')));
    // but not onto the home page where the rewrite redirected: queued as itself, and so answered
    expect(await store.canonical(u('q.html'))).toMatchObject({ canonicalKey: key(u('q.html')), state: 'queued' });
    const [m] = await store.admit([u('m.html')]);
    expect(m).toMatchObject({ key: key(u('m.html')), admitted: true });
    expect((await store.canonical(u('m.html'))).canonicalKey).toBe(key(u('m.html')));
    // a URL nobody linked is answered the same way
    await store.recordRedirect(u('n'), 'http://sx.example/', 301);
    expect((await store.canonical(u('n.html'))).canonicalKey).toBe(key(u('n.html')));
    // a redirect the rules explain keeps the chain (`/p` → 301 → `/p/`, a directory)
    await store.recordRedirect(u('p'), u('p/'), 301);
    expect((await store.canonical(u('p.html'))).canonicalKey).toBe(key(u('p/')));
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
}
