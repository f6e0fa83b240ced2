// SeenStore suite, host rules (2 of 3): documents fetched first under another name (images), a
// duplicate while the rule holds, back or forgotten when it goes, through a chain of two rules and a
// growing scope; the checks the learner asks for; pages compared on their stable or echo-free text.
import { expect, it } from 'vitest';
import { key } from '../../../src/normalize/index.js';
import { wordSketch } from '../../../src/crawler/html/page-shape.js';
import type { SeenStore } from '../../../src/store/index.js';
import { collect, type SuiteContext } from './context.js';

/**
 * Fetches of pages beside random posts in an aside: bytes and text change on every fetch, the
 * main content (`main`) does not.
 */
function besideRandomPosts(store: SeenStore): (u: string, main: string) => Promise<void> {
  let draw = 0;
  return (u, main) => {
    draw++;
    return store.recordFetch(u, { status: 200, contentHash: `${main}#${draw}`, stableHash: `${main}+posts${draw}`, mainHash: main });
  };
}

/** Short pages beside random posts: the block's words, drawn anew for each response, are most of each page's. */
function shortBesideRandomPosts(store: SeenStore): (u: string, main: string) => Promise<void> {
  let draw = 0;
  return (u, main) => {
    draw++;
    const words = [main, 'short', 'page', ...Array.from({ length: 12 }, (_, i) => `post${draw}w${i}`)];
    return store.recordFetch(u, { status: 200, contentHash: `${main}#${draw}`, stableHash: `${main}+posts${draw}`, mainHash: main, wordSketch: wordSketch(words) });
  };
}

export function hostRuleImageTests(ctx: SuiteContext): void {
  const { make, verified } = ctx;
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

  for (const target of ['fetched before', 'fetched after']) {
    it(`an image check that redirects to another document (${target}) contradicts the rule where its document lies`, async () => {
      const { store } = await make();
      // a host that sends every unknown path to its home page ("404 to home page")
      if (target === 'fetched before') await store.recordFetch('http://ir.example/', { status: 200, contentHash: 'home' });
      for (const n of [1, 2, 3, 4]) await store.recordFetch(`http://ir.example/p${n}?sid=${n}`, { status: 200, contentHash: `P${n}` });
      for (const d of ['a', 'b', 'c']) {
        await store.recordFetch(`http://ir.example/${d}`, { status: 200, contentHash: d });
        await store.recordFetch(`http://ir.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
      }
      const sid = async () => (await collect(store.rules())).find((r) => r.id === 'ir.example/query-parameter:sid')!;
      expect(await sid()).toMatchObject({ state: 'active', against: 0 });
      let n = 0;
      for (const m of [4, 3, 2, 1]) if ((await store.canonical(`http://ir.example/p${m}`)).state === 'queued') n = m;
      expect(n).toBeGreaterThan(0);
      // the image redirects to the home page: another document than its own
      await store.recordRedirect(`http://ir.example/p${n}`, 'http://ir.example/', 301);
      if (target === 'fetched after') {
        expect((await sid()).against).toBe(0);
        await store.recordFetch('http://ir.example/', { status: 200, contentHash: 'home' });
      }
      // different bytes count once the document's own page proves stable: fetched again, the same
      await store.recordFetch(`http://ir.example/p${n}?sid=${n}`, { status: 200, contentHash: `P${n}` });
      expect((await sid()).against).toBe(1);
      expect((await store.canonical(`http://ir.example/p${n}?sid=${n}`)).canonicalKey).toBe(key(`http://ir.example/p${n}?sid=${n}`));
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

  it('a URL the rule left queued, its name unknown, is pruned when handed out once a link names it; fetched, its name is a duplicate', async () => {
    const { store } = await make();
    // queued under their session form before any rule, their plain names unseen
    const forms = [1, 2, 3, 4, 5, 6].map((n) => `http://ih.example/x${n}?sid=${n}`);
    await store.admit(forms);
    for (const d of ['a', 'b', 'c']) {
      await store.recordFetch(`http://ih.example/${d}`, { status: 200, contentHash: d });
      await store.recordFetch(`http://ih.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
    }
    expect((await collect(store.rules())).find((r) => r.id === 'ih.example/query-parameter:sid')).toMatchObject({ state: 'active' });
    // each would be sent to a name nobody linked: left queued as itself (a few as the rule's checks)
    const kept: number[] = [];
    for (const n of [1, 2, 3, 4, 5, 6]) {
      expect((await store.canonical(forms[n - 1]!)).state).toBe('queued');
      if ((await store.canonical(`http://ih.example/x${n}`)).state === 'unknown') kept.push(n);
    }
    expect(kept.length).toBeGreaterThanOrEqual(2);
    const [named, unnamed] = kept as [number, number];
    // a link names the first one's name: that form is no longer fetched; the other's is
    await store.admit([`http://ih.example/x${named}`]);
    const offered: string[] = [];
    for (let round = 0; round < 20; round++) {
      const taken = await store.next({ limit: 100, perHost: 100 });
      if (taken.length === 0) break;
      for (const e of taken) {
        offered.push(e.url);
        // one document under both names (a probe: the host's not-found page)
        await store.recordFetch(e.url, e.check === 'probe' ? { status: 404, contentHash: 'nf' } : { status: 200, contentHash: `P${/x(\d)/.exec(e.url)?.[1]}` });
      }
    }
    expect(offered).toContain(`http://ih.example/x${named}`);
    expect(offered).not.toContain(forms[named - 1]);
    expect(await store.canonical(forms[named - 1]!)).toMatchObject({ state: 'pruned', canonicalKey: key(`http://ih.example/x${named}`) });
    expect(offered).toContain(forms[unnamed - 1]);
    // the form fetched as itself answered a document: a link to its name is a duplicate of it
    expect((await store.admit([`http://ih.example/x${unnamed}`]))[0]).toMatchObject({ admitted: false });
    expect((await store.canonical(`http://ih.example/x${unnamed}`)).canonicalKey).toBe(key(forms[unnamed - 1]!));
    // withdrawn: the pruned form comes back to be fetched, the name no link named is forgotten
    await store.withdrawRule('ih.example/query-parameter:sid');
    expect((await store.canonical(forms[named - 1]!)).state).toBe('queued');
    expect((await store.canonical(`http://ih.example/x${unnamed}`)).state).toBe('queued');
    await verified(store);
  });

  it('hands out a URL queued behind more URLs pruned at hand-out than one take holds, and never answers empty before it', async () => {
    const { store } = await make();
    // 24 forms queued before any rule, their plain names unseen; the last of them is a document
    // whose name no link will give
    const forms = Array.from({ length: 24 }, (_, i) => `http://hw.example/y${i + 1}?sid=${i + 1}`);
    await store.admit(forms);
    for (const d of ['a', 'b', 'c']) {
      await store.recordFetch(`http://hw.example/${d}`, { status: 200, contentHash: d });
      await store.recordFetch(`http://hw.example/${d}?sid=7${d}`, { status: 200, contentHash: d });
    }
    expect((await collect(store.rules())).find((r) => r.id === 'hw.example/query-parameter:sid')).toMatchObject({ state: 'active' });
    // the forms left queued as themselves (their names unknown), checks aside
    const left = forms.filter((_, i) => i < forms.length - 1);
    const named: string[] = [];
    for (const f of left) {
      const plain = f.replace(/\?.*/, '');
      if ((await store.canonical(f)).state === 'queued' && (await store.canonical(plain)).state === 'unknown') named.push(plain);
    }
    expect(named.length).toBeGreaterThan(8);
    const last = forms[forms.length - 1]!;
    // every other form's name is linked, and fetched: each of those forms is pruned when handed out
    await store.admit(named);
    const offered: string[] = [];
    const fetchAll = async (limit: number): Promise<void> => {
      for (let round = 0; round < 200; round++) {
        const taken = await store.next({ limit, perHost: limit });
        if (taken.length === 0) return;
        for (const e of taken) {
          offered.push(e.url);
          await store.recordFetch(e.url, e.check === 'probe' ? { status: 404, contentHash: 'nf' } : { status: 200, contentHash: `P${/y(\d+)/.exec(e.url)?.[1] ?? e.url}` });
        }
      }
    };
    await fetchAll(1);
    // the store answered empty only once nothing was queued: the last form was fetched
    expect(offered).toContain(last);
    expect((await store.stats()).urls.queued).toBe(0);
    for (const n of named) expect(offered).toContain(n);
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

  it('where a block drawn per response changes the text on every fetch, compares pages on their main content', async () => {
    const { store } = await make();
    const fetch = besideRandomPosts(store);
    await fetch('http://mb.example/a', 'A');
    await fetch('http://mb.example/a?sid=1', 'A');
    // the variant is fetched again: its text changes, its main content does not
    expect((await store.canonical('http://mb.example/a?sid=1')).state).toBe('queued');
    await fetch('http://mb.example/a?sid=1', 'A');
    for (const d of ['b', 'c']) {
      await fetch(`http://mb.example/${d}`, d);
      await fetch(`http://mb.example/${d}?sid=2${d}`, d);
    }
    const sid = async () => (await collect(store.rules())).find((r) => r.id === 'mb.example/query-parameter:sid');
    expect(await sid()).toMatchObject({ state: 'active', against: 0 });
    // a page whose main content differs under the parameter contradicts it
    await fetch('http://mb.example/d', 'D');
    await fetch('http://mb.example/d?sid=3', 'D-other');
    expect((await sid())!.against).toBe(1);
    // and so does one served without the asides (another template: a staging copy's edited page)
    await fetch('http://mb.example/e', 'E');
    await store.recordFetch('http://mb.example/e?sid=4', { status: 200, contentHash: 'E-plain', stableHash: 'E-plain' });
    expect((await sid())!.against).toBe(2);
    await verified(store);
  });

  it('a short page whose block drawn per response outweighs its words waits for a recheck, and what it shows holds under every session segment', async () => {
    const { store } = await make();
    // an ASP.NET cookieless id leads the path; random posts in an aside are most of each page's words
    const fetch = shortBesideRandomPosts(store);
    const id = (c: string): string => `(S(${c.repeat(24)}))`;
    await fetch('http://ms.example/a', 'A');
    await fetch(`http://ms.example/${id('a')}/a`, 'A');
    // the words differ by far more than a token does, the main content not: no verdict yet, a recheck
    const rule = async () => (await collect(store.rules())).find((r) => r.id === 'ms.example/path-parameter:(S)');
    expect((await rule())?.against ?? 0).toBe(0);
    expect((await store.canonical(`http://ms.example/${id('a')}/a`)).state).toBe('queued');
    await fetch(`http://ms.example/${id('a')}/a`, 'A');
    expect(await rule()).toMatchObject({ for: 1, against: 0 });
    // what the recheck showed holds in the server's directory, whatever the id: no recheck more
    for (const [d, c] of [['b', 'b'], ['c', 'c']] as const) {
      await fetch(`http://ms.example/${d}`, d.toUpperCase());
      await fetch(`http://ms.example/${id(c)}/${d}`, d.toUpperCase());
      expect((await store.canonical(`http://ms.example/${id(c)}/${d}`)).state).toBe('fetched');
    }
    expect(await rule()).toMatchObject({ state: 'active', for: 3, against: 0 });
    await verified(store);
  });

  it('a pair compared while its directory\'s recheck is in flight waits for that recheck', async () => {
    const { store } = await make();
    const fetch = shortBesideRandomPosts(store);
    const rule = async () => (await collect(store.rules())).find((r) => r.id === 'pw.example/query-parameter:sid');
    await fetch('http://pw.example/a', 'A');
    await fetch('http://pw.example/a?sid=1', 'A');
    // the first pair asks for a recheck of its variant; a second pair comes before it is fetched
    expect((await store.canonical('http://pw.example/a?sid=1')).state).toBe('queued');
    await fetch('http://pw.example/b', 'B');
    await fetch('http://pw.example/b?sid=2', 'B');
    expect((await rule())?.against ?? 0).toBe(0);
    // the recheck: the text changed, the main content did not; both pairs are one document each
    await fetch('http://pw.example/a?sid=1', 'A');
    expect(await rule()).toMatchObject({ for: 2, against: 0 });
    await verified(store);
  });

  it('pairs names under an inserted segment by their main content where a block drawn per response changes the bytes', async () => {
    const { store } = await make();
    const fetch = besideRandomPosts(store);
    const rule = async () => (await collect(store.rules())).find((r) => r.id === 'mp.example/merge-slashes');
    // a server that merges slashes (nginx `merge_slashes`): `/docs//a` answers what `/docs/a` does,
    // beside random posts: no two fetches share their bytes or their text, only their main content
    await fetch('http://mp.example/docs/a', 'A');
    await fetch('http://mp.example/docs//a', 'A');
    // a pair: the variant is fetched again before anything is said (the directory's stability is unknown)
    expect((await store.canonical('http://mp.example/docs//a')).state).toBe('queued');
    await fetch('http://mp.example/docs//a', 'A');
    expect(await rule()).toMatchObject({ for: 1, against: 0 });
    // either order pairs: the longer name fetched first, then the shorter
    for (const d of ['b', 'c']) {
      await fetch(`http://mp.example/docs//${d}`, d);
      await fetch(`http://mp.example/docs/${d}`, d);
    }
    expect(await rule()).toMatchObject({ state: 'active', for: 3, against: 0 });
    // and a page whose main content differs under the inserted segment contradicts it
    await fetch('http://mp.example/docs/e', 'E');
    await fetch('http://mp.example/docs//e', 'E-other');
    expect((await rule())!.against).toBe(1);
    await verified(store);
  });

  it('where the main content changes between fetches too, pages there support nothing', async () => {
    const { store } = await make();
    let draw = 0;
    const fetch = (u: string, main: string): Promise<void> => {
      draw++;
      return store.recordFetch(u, { status: 200, contentHash: `${main}#${draw}`, stableHash: `${main}+${draw}`, mainHash: `${main}~${draw}` });
    };
    await fetch('http://mu.example/a', 'A');
    await fetch('http://mu.example/a?sid=1', 'A');
    await fetch('http://mu.example/a?sid=1', 'A');
    for (const d of ['b', 'c', 'd']) {
      await fetch(`http://mu.example/${d}`, d);
      await fetch(`http://mu.example/${d}?sid=2${d}`, d);
    }
    expect((await collect(store.rules())).find((r) => r.id === 'mu.example/query-parameter:sid')?.state ?? 'none').not.toBe('active');
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
}
