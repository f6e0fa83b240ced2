// The host-rule learner's decisions, on its own (src/store/learning/learner.ts): evidence in through a
// batch, rule changes out. A real memory Kv holds what earlier calls wrote; "commit" writes a batch's
// operations to it and hands its rules to the live-rule table, as the write queue does. A fetch
// writes the URL's entry into the batch first, as recordFetch does.
import { describe, expect, it } from 'vitest';
import { keyFromRecord, normalizeRecord } from '../../src/normalize/index.js';
import { Txn } from '../../src/store/engine/batch.js';
import type { LearnedUrl, RuleChanges } from '../../src/store/learning/contract.js';
import { RuleLearner } from '../../src/store/learning/learner.js';
import { LiveRules } from '../../src/store/learning/rule-book.js';
import { summaryOf } from '../../src/store/engine/url-state.js';
import { aliasRevKey, counterNames, decodeJson, decodeUrlEntry, encodeUrlEntry, evidenceKeys, type UrlEntry } from '../../src/store/keys.js';
import { MemoryKv } from '../../src/store/backends/memory-store.js';
import { wordSketch } from '../../src/crawler/html/page-shape.js';
import { applyRules, contradict, defaultDocuments, ruleId, type RuleRecord, type RuleSpec } from '../../src/store/rules.js';

const url = (u: string): LearnedUrl => {
  const rec = normalizeRecord(u);
  return { rec, key: keyFromRecord(rec) };
};

class Harness {
  readonly kv = new MemoryKv();
  readonly rules = new LiveRules();
  readonly learner: RuleLearner;
  now = 1_000;

  constructor(ruleThreshold = 3, probeNotFound = false, learnMirrors = false) {
    this.learner = new RuleLearner({ kv: this.kv, rules: this.rules }, { ruleThreshold, maxEvidencePerRule: 64, defaultDocuments, probeNotFound, learnMirrors });
  }

  private async commit(txn: Txn): Promise<void> {
    await this.kv.write(txn.ops);
    for (const r of txn.rules.values()) this.rules.remember(r);
  }

  /** One redirect, learned from and committed. */
  async redirect(from: string, to: string, status = 301, merge = status === 301 || status === 308): Promise<{ changes: RuleChanges; txn: Txn }> {
    const txn = new Txn(0);
    const changes = await this.learner.fromRedirect(txn, url(from), url(to), status, merge, this.now++);
    await this.commit(txn);
    return { changes, txn };
  }

  /** One answer for `u` fetched as itself: its entry written (as recordFetch does), then learned from. */
  async fetch(u: string, hash?: string, status = 200, sketch?: string, contentLocation?: string, canonical?: string, stable?: string, shape?: string): Promise<{ changes: RuleChanges; txn: Txn }> {
    const txn = new Txn(0);
    const target = url(u);
    const prevText = await this.kv.get('url', target.key);
    const prev = prevText === undefined ? undefined : decodeUrlEntry(prevText);
    const entry: UrlEntry = { s: 'fetched', d: 0, t: 0, st: status };
    // (the page it was found on stays, as recordFetch carries it)
    if (prev?.src !== undefined) entry.src = prev.src;
    if (hash !== undefined) entry.c = hash;
    if (sketch !== undefined) entry.m = sketch;
    if (stable !== undefined) entry.y = stable;
    txn.urls.set(target.key, entry);
    txn.put('url', target.key, encodeUrlEntry(entry));
    if (shape !== undefined) entry.x = shape;
    const changes = await this.learner.fromFetch(txn, target, hash, status, prev, this.now++, shape, stable, [...(contentLocation === undefined ? [] : [{ at: url(contentLocation), how: 'content-location' as const }]), ...(canonical === undefined ? [] : [{ at: url(canonical), how: 'canonical' as const }])]);
    await this.commit(txn);
    return { changes, txn };
  }

  /** Mark `u` as queued again for a recheck (as queueChecks does), keeping its hash. */
  async requeue(u: string, k: 'r' | 'p' | 'v', extra: Partial<UrlEntry> = {}): Promise<void> {
    const target = url(u);
    const old = await this.kv.get('url', target.key);
    const c = old === undefined ? undefined : decodeUrlEntry(old).c;
    const entry: UrlEntry = { s: 'queued', d: 0, t: 0, k, ...(c === undefined ? {} : { c }), ...extra };
    await this.kv.write([{ space: 'url', key: target.key, value: encodeUrlEntry(entry) }]);
  }

  async rule(host: string, spec: RuleSpec): Promise<RuleRecord | undefined> {
    const v = await this.kv.get('rule', ruleId(host, spec));
    return v === undefined ? undefined : decodeJson<RuleRecord>(v);
  }

  /** What the host's active rules make of `u`. */
  rewrite(u: string): string {
    return keyFromRecord(applyRules(url(u).rec, this.rules.activeOf).record);
  }
}

const HTTPS: RuleSpec = { kind: 'https' };
const SLASH: RuleSpec = { kind: 'slash-add' };
const httpsId = ruleId('a.example', HTTPS);
const slashId = ruleId('a.example', SLASH);

describe('learning from redirects', () => {
  it('makes a candidate of an explained permanent redirect, and activates it where its documents lie', async () => {
    const h = new Harness(3);
    const first = await h.redirect('http://a.example/1', 'https://a.example/1');
    expect(first.changes.activated).toEqual([]);
    expect(first.txn.counters.get(counterNames.rules('candidate'))).toBe(1);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'candidate', for: 1, against: 0 });
    await h.redirect('http://a.example/2', 'https://a.example/2');
    const third = await h.redirect('http://a.example/3', 'https://a.example/3');
    expect(third.changes.activated).toEqual([httpsId]);
    expect(third.txn.counters.get(counterNames.rules('active'))).toBe(1);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'active', for: 3, scopes: [{ at: '/', docs: 3, query: false }] });
    expect(h.rules.activeOf('a.example')?.map((r) => r.id)).toEqual([httpsId]);
  });

  it('counts one source URL once, however often it redirects', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    const again = await h.redirect('http://a.example/1', 'https://a.example/1');
    expect(again.txn.ops).toEqual([]);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'candidate', for: 1 });
  });

  it('a temporary redirect is evidence neither way (login walls answer 302)', async () => {
    const h = new Harness(1);
    expect((await h.redirect('http://a.example/1', 'https://a.example/1', 302)).changes.activated).toEqual([]);
    expect(await h.rule('a.example', HTTPS)).toBeUndefined();
    await h.redirect('http://a.example/d/a', 'http://a.example/d/a/');
    await h.redirect('http://a.example/d/b', 'http://a.example/d/b/');
    expect(h.rules.get(slashId)?.state).toBe('active');
    const login = await h.redirect('http://a.example/d/c', 'http://a.example/login?next=%2Fd%2Fc', 302);
    expect(login.changes.givesBack).toEqual([]);
    expect(h.rules.get(slashId)?.state).toBe('active');
  });

  it('a temporary redirect to another name\'s session form supports what explains the two names', async () => {
    const h = new Harness(3);
    // `/n` → 302 → `https://…/n;jsessionid=…`: the server names https as the resource, the session aside
    for (const n of [1, 2]) expect((await h.redirect(`http://a.example/${n}`, `https://a.example/${n};jsessionid=S${n}`, 302)).changes.activated).toEqual([]);
    expect((await h.redirect('http://a.example/3', 'https://a.example/3?sid=S3', 302)).changes.activated).toEqual([httpsId]);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'active', for: 3, against: 0 });
    // the URL's own session form explains nothing; a login wall's form explains no rule
    const h2 = new Harness(1);
    await h2.redirect('http://a.example/d/a', 'http://a.example/d/a;jsessionid=1', 302);
    await h2.redirect('http://a.example/d/b', 'http://a.example/login;jsessionid=1?next=%2Fd%2Fb', 302);
    expect(h2.rules.activeOf('a.example') ?? []).toEqual([]);
  });

  it('holds slash-add only under the directory its redirects came from, and not for URLs with a query', async () => {
    const h = new Harness(3);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/docs/${d}`, `http://a.example/docs/${d}/`);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ state: 'active', scopes: [{ at: '/docs/', docs: 3, query: false }] });
    expect(h.rewrite('http://a.example/docs/z')).toBe(url('http://a.example/docs/z/').key);
    expect(h.rewrite('http://a.example/api/users')).toBe(url('http://a.example/api/users').key);
    expect(h.rewrite('http://a.example/docs/login?next=x')).toBe(url('http://a.example/docs/login?next=x').key);
  });

  it('a redirect that drops the whole query with the path\'s change shows the path\'s rule for query-less URLs, and no parameter rule', async () => {
    // nginx `return 301 $uri/;`: `/d?page=2` answers `/d/`, page 1, while `/d/?page=2` is page 2
    const h = new Harness(3);
    const PAGE: RuleSpec = { kind: 'query-parameter', name: 'page' };
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/docs/${d}?page=2`, `http://a.example/docs/${d}/`);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ state: 'active', scopes: [{ at: '/docs/', docs: 3, query: false }] });
    expect(h.rewrite('http://a.example/docs/z')).toBe(url('http://a.example/docs/z/').key);
    expect(h.rewrite('http://a.example/docs/z?page=2')).toBe(url('http://a.example/docs/z?page=2').key);
    expect(await h.rule('a.example', PAGE)).toBeUndefined();
    // a server that keeps the query shows the rule for URLs with one
    const kept = new Harness(3);
    for (const d of ['a', 'b', 'c']) await kept.redirect(`http://a.example/docs/${d}?page=2`, `http://a.example/docs/${d}/?page=2`);
    expect(kept.rewrite('http://a.example/docs/z?page=2')).toBe(url('http://a.example/docs/z/?page=2').key);
  });

  it('a redirect that folds the case of an extension supports the case rule (IIS "Enforce lowercase URLs")', async () => {
    const h = new Harness(3);
    const CASE: RuleSpec = { kind: 'case-insensitive' };
    for (const n of ['coMmands', 'aRguments', 'sheLl-completion']) await h.redirect(`http://a.example/${n}.html`, `http://a.example/${n.toLowerCase()}.html`);
    expect(await h.rule('a.example', CASE)).toMatchObject({ state: 'active', for: 3 });
    // `.Html` → `.html` is the same fold, not a suffix pair the rule disagrees with
    const folded = await h.redirect('http://a.example/search.Html', 'http://a.example/search.html');
    expect(folded.changes.withdrawn).toEqual([]);
    expect(await h.rule('a.example', CASE)).toMatchObject({ state: 'active', for: 4, against: 0 });
  });

  it('a permanent redirect the other way narrows or withdraws the rule, and says its URLs come back', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/1', 'http://a.example/1/');
    await h.redirect('http://a.example/2', 'http://a.example/2/');
    expect(h.rules.get(slashId)?.state).toBe('active');
    const back = await h.redirect('http://a.example/3/', 'http://a.example/3');
    expect(back.changes.withdrawn).toContain(slashId);
    expect(back.changes.givesBack).toContain(slashId);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ state: 'withdrawn', against: 1, contradiction: { v: 'against', how: 'inverse-redirect' } });
    expect(h.rules.hasActive('a.example')).toBe(false);
  });
});

describe('only documents are evidence', () => {
  it('a 2xx on a variant is no contradiction', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    await h.redirect('http://a.example/2', 'https://a.example/2');
    const served = await h.fetch('http://a.example/3', 'h3');
    expect(served.changes).toEqual({ activated: [], withdrawn: [], givesBack: [], reconsider: [], checks: [] });
    expect(h.rules.get(httpsId)?.state).toBe('active');
  });

  it('error pages that share one body never make a rule', async () => {
    const h = new Harness(2);
    await h.fetch('http://a.example/x/', 'NOTFOUND', 404);
    for (const n of [2, 3, 4, 5, 6]) await h.fetch(`http://a.example/x/?page=${n}`, 'NOTFOUND', 404);
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'page' })).toBeUndefined();
  });

  it('one body under many URLs counts as one document (soft 404s for unknown ids)', async () => {
    const h = new Harness(3);
    await h.fetch('http://a.example/card', 'SOFT');
    for (const id of [1, 2, 3, 4, 5]) await h.fetch(`http://a.example/card?id=${id}`, 'SOFT');
    const r = await h.rule('a.example', { kind: 'query-parameter', name: 'id' });
    expect(r?.state).not.toBe('active');
  });

  it('a shell body served under other paths is no evidence for a parameter', async () => {
    const h = new Harness(1);
    await h.fetch('http://a.example/app/other', 'SHELL');
    await h.fetch('http://a.example/app/more', 'SHELL');
    await h.fetch('http://a.example/app/v', 'SHELL');
    await h.fetch('http://a.example/app/v?sort=name', 'SHELL');
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'sort' })).toBeUndefined();
  });

  it('a body under one other name the rules cannot say is a twin, not a shell', async () => {
    const h = new Harness(1);
    // a negotiated document: /doc/p and /doc/p.en answer one body
    await h.fetch('http://a.example/doc/p.en', 'P');
    await h.fetch('http://a.example/doc/p', 'P');
    const r = await h.fetch('http://a.example/doc/p?sid=1', 'P');
    expect(r.changes.activated).toEqual([ruleId('a.example', { kind: 'query-parameter', name: 'sid' })]);
  });

  it('support from a body later found under another path is taken back', async () => {
    const h = new Harness(1);
    await h.fetch('http://a.example/app/v', 'SHELL');
    const first = await h.fetch('http://a.example/app/v?sort=name', 'SHELL');
    const sort = ruleId('a.example', { kind: 'query-parameter', name: 'sort' });
    expect(first.changes.activated).toEqual([sort]);
    // one other name is a twin; a second makes it a shell
    expect((await h.fetch('http://a.example/app/settings', 'SHELL')).changes.givesBack).toEqual([]);
    const later = await h.fetch('http://a.example/app/profile', 'SHELL');
    expect(later.changes.givesBack).toEqual([sort]);
    expect(h.rules.hasActive('a.example')).toBe(false);
  });

  it('a probe for the not-found answer is asked once where parameters are; its soft-404 body is no document', async () => {
    const h = new Harness(1, true);
    expect((await h.fetch('http://a.example/p', 'P')).changes.checks).toEqual([]);
    const first = await h.fetch('http://a.example/p?visit=1', 'P');
    expect(first.changes.checks).toHaveLength(1); // the root, which is also the directory
    const probe = first.changes.checks[0]!;
    expect(probe).toMatchObject({ kind: 'probe' });
    expect(probe.rec.path).toMatch(/^\/urldedup-not-found-[0-9a-f]{16}$/);
    await h.fetch('http://a.example/r', 'R');
    expect((await h.fetch('http://a.example/r?visit=2', 'R')).changes.checks).toEqual([]);
    await h.requeue(`http://a.example${probe.rec.path}`, 'p');
    await h.fetch(`http://a.example${probe.rec.path}`, 'SOFT404', 200);
    await h.fetch('http://a.example/item', 'SOFT404');
    await h.fetch('http://a.example/item?id=9', 'SOFT404');
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'id' })).toBeUndefined();
  });

  it('a 2xx with the not-found page is written as no document: its summary is a failed fetch', async () => {
    const h = new Harness(3, true);
    const probe = 'http://a.example/urldedup-not-found-0123456789abcdef';
    await h.requeue(probe, 'p');
    await h.fetch(probe, 'SOFT404', 200);
    await h.fetch('http://a.example/reference.html', 'SOFT404', 200);
    await h.fetch('http://a.example/reference', 'PAGE', 200);
    const entry = async (u: string): Promise<UrlEntry> => decodeUrlEntry((await h.kv.get('url', url(u).key))!);
    expect(await entry('http://a.example/reference.html')).toMatchObject({ s: 'fetched', st: 200, z: true });
    expect(summaryOf(await entry('http://a.example/reference.html'))).toBe('F');
    expect(await entry('http://a.example/reference')).not.toHaveProperty('z');
    expect(summaryOf(await entry('http://a.example/reference'))).toBe('f');
  });

  it('a document whose rewrite answered the soft 404 contradicts the rule there, in either order', async () => {
    for (const docFirst of [false, true]) {
      const h = new Harness(3, true);
      // support that outweighs one contradiction (CONTRADICTION_WEIGHT): the place is excepted, the rule stays
      for (const d of ['tutorial', 'reference', 'library', 'using', 'howto', 'faq', 'install', 'distutils']) await h.redirect(`http://a.example/${d}`, `http://a.example/${d}/`);
      expect(h.rewrite('http://a.example/contents')).toBe(url('http://a.example/contents/').key);
      const probe = 'http://a.example/urldedup-not-found-0123456789abcdef';
      await h.requeue(probe, 'p');
      await h.fetch(probe, 'SOFT404', 200);
      // `/contents` is a page; `/contents/` answers 200 with the not-found page (a CMS's soft 404)
      if (docFirst) await h.fetch('http://a.example/contents', 'CONTENTS');
      await h.fetch('http://a.example/contents/', 'SOFT404', 200);
      if (!docFirst) await h.fetch('http://a.example/contents', 'CONTENTS');
      expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1 });
      expect(h.rewrite('http://a.example/contents')).toBe(url('http://a.example/contents').key);
      expect(h.rewrite('http://a.example/guide')).toBe(url('http://a.example/guide/').key);
    }
  });
});

describe('content pairs', () => {
  it('pairs a default document with its directory: equal content supports it', async () => {
    const h = new Harness(2);
    const doc = ruleId('a.example', { kind: 'default-document', name: 'index.html' });
    await h.fetch('http://a.example/d/', 'same-1');
    expect((await h.fetch('http://a.example/d/index.html', 'same-1')).txn.rules.get(doc)).toMatchObject({ state: 'candidate', for: 1 });
    await h.fetch('http://a.example/e/', 'same-2');
    expect((await h.fetch('http://a.example/e/index.html', 'same-2')).changes.activated).toEqual([doc]);
  });

  it('learns a group of parameters that travel together, in either order of fetching', async () => {
    const h = new Harness(2);
    const group = ruleId('a.example', { kind: 'query-parameter', name: 'utm_campaign&utm_source' });
    await h.fetch('http://a.example/p?utm_source=s&utm_campaign=c', 'p');
    const base = await h.fetch('http://a.example/p', 'p');
    expect(base.txn.rules.get(group)).toMatchObject({ state: 'candidate', for: 1 });
    await h.fetch('http://a.example/q?x=1', 'q');
    const variant = await h.fetch('http://a.example/q?x=1&utm_source=t&utm_campaign=d', 'q');
    expect(variant.changes.activated).toEqual([group]);
    expect(h.rewrite('http://a.example/r?utm_source=a&utm_campaign=b')).toBe(url('http://a.example/r').key);
    expect(h.rewrite('http://a.example/r?utm_source=a')).toBe(url('http://a.example/r?utm_source=a').key);
  });

  it('one body under a path and under the path with leading segments inserted: a moved prefix (a front controller)', async () => {
    const h = new Harness(3);
    const prefix: RuleSpec = { kind: 'path-prefix', from: '/index.php/', to: '/' };
    for (const p of ['guide/a.html', 'guide/b.html', 'news/c.html']) {
      await h.fetch(`http://a.example/index.php/${p}`, p);
      await h.fetch(`http://a.example/${p}`, p);
    }
    expect(await h.rule('a.example', prefix)).toMatchObject({ state: 'active', for: 3 });
    expect(h.rewrite('http://a.example/index.php/news/d.html')).toBe(url('http://a.example/news/d.html').key);
    // two sibling prefixes (versions) with equal pages are no pair: which names the page, no body says
    for (const p of ['x.html', 'y.html', 'z.html']) {
      await h.fetch(`http://a.example/3.1/${p}`, `v-${p}`);
      await h.fetch(`http://a.example/3.2/${p}`, `v-${p}`);
    }
    expect(await h.rule('a.example', { kind: 'path-prefix', from: '/3.1/', to: '/3.2/' })).toBeUndefined();
    expect(await h.rule('a.example', { kind: 'path-prefix', from: '/3.2/', to: '/3.1/' })).toBeUndefined();
  });

  it('a prefix read alike on content alone is a copy of a tree: one translation withdraws it everywhere', async () => {
    const h = new Harness(3);
    const prefix: RuleSpec = { kind: 'path-prefix', from: '/de/', to: '/' };
    // /de/x serves the original page where no translation exists (WPML "Display as translated")
    for (const p of ['guide/a.html', 'guide/b.html', 'guide/c.html', 'news/c.html', 'news/d.html', 'news/e.html']) {
      await h.fetch(`http://l.example/de/${p}`, p);
      await h.fetch(`http://l.example/${p}`, p);
    }
    expect(await h.rule('l.example', prefix)).toMatchObject({ state: 'active' });
    // a translation in one directory (words that differ by far more than a token does: two
    // documents, no recheck needed): the rule goes everywhere, /de/news/ included
    await h.fetch('http://l.example/guide/x.html', 'e', 200, wordSketch(['english', 'words', 'of', 'the', 'page']));
    await h.fetch('http://l.example/de/guide/x.html', 'e-de', 200, wordSketch(['andere', 'worte', 'einer', 'seite', 'hier']));
    const rule = await h.rule('l.example', prefix);
    expect(rule?.state).toBe('withdrawn');
    expect(h.rewrite('http://l.example/de/news/f.html')).toBe(url('http://l.example/de/news/f.html').key);
  });

  it('a doubled slash is one path read twice, not a copy: a page that differs loses its place only', async () => {
    const h = new Harness(3);
    const prefix: RuleSpec = { kind: 'merge-slashes' };
    // nginx merge_slashes: //x answers /x; links joined by a template carry the doubled slash
    for (const p of ['guide/a.html', 'guide/b.html', 'guide/c.html', 'news/c.html', 'news/d.html', 'news/e.html']) {
      await h.fetch(`http://s.example//${p}`, p);
      await h.fetch(`http://s.example/${p}`, p);
    }
    expect(await h.rule('s.example', prefix)).toMatchObject({ state: 'active' });
    await h.fetch('http://s.example/guide/x.html', 'e', 200, wordSketch(['english', 'words', 'of', 'the', 'page']));
    await h.fetch('http://s.example//guide/x.html', 'e-other', 200, wordSketch(['andere', 'worte', 'einer', 'seite', 'hier']));
    expect((await h.rule('s.example', prefix))?.state).toBe('active');
    expect(h.rewrite('http://s.example//news/f.html')).toBe(url('http://s.example/news/f.html').key);
  });

  it('a moved prefix its redirects support loses only the place where a page under it differs', async () => {
    const h = new Harness(3);
    const prefix: RuleSpec = { kind: 'path-prefix', from: '/old/', to: '/' };
    for (const p of ['guide/a.html', 'guide/b.html', 'guide/c.html', 'news/c.html', 'news/d.html', 'news/e.html']) await h.redirect(`http://m.example/old/${p}`, `http://m.example/${p}`, 301);
    expect(await h.rule('m.example', prefix)).toMatchObject({ state: 'active' });
    // words that differ by far more than a token does: two documents, no recheck needed
    await h.fetch('http://m.example/guide/x.html', 'e', 200, wordSketch(['english', 'words', 'of', 'the', 'page']));
    await h.fetch('http://m.example/old/guide/x.html', 'e-old', 200, wordSketch(['andere', 'worte', 'einer', 'seite', 'hier']));
    expect((await h.rule('m.example', prefix))?.state).toBe('active');
    expect(h.rewrite('http://m.example/old/news/f.html')).toBe(url('http://m.example/news/f.html').key);
  });

  it('a moved prefix on pages that print a token: paired by path and stable text, settled by a recheck', async () => {
    const h = new Harness(2);
    const prefix: RuleSpec = { kind: 'path-prefix', from: '/index.php/', to: '/' };
    const page = (u: string, n: number, text: string) => h.fetch(u, `${text}-bytes-${n}`, 200, undefined, undefined, undefined, `${text}-text`);
    // text that differs makes no pair: no candidate (b.example)
    await page('http://b.example/guide/c.html', 1, 'c');
    await page('http://b.example/index.php/guide/c.html', 2, 'other');
    expect(await h.rule('b.example', prefix)).toBeUndefined();
    // no two responses alike in bytes, so the body index pairs nothing: the path and the text do
    await page('http://a.example/guide/a.html', 3, 'a');
    const first = await page('http://a.example/index.php/guide/a.html', 4, 'a');
    expect(first.changes.checks.map((c) => c.kind)).toEqual(['recheck']);
    await h.requeue('http://a.example/index.php/guide/a.html', 'r', { y: 'a-text' });
    await page('http://a.example/index.php/guide/a.html', 5, 'a');
    // its bytes changed, its text did not: compared on text in that directory
    expect(await h.kv.get('evidence', evidenceKeys.stability('a.example', '/index.php/guide/'))).toBe('text');
    expect(await h.rule('a.example', prefix)).toMatchObject({ state: 'candidate', for: 1 });
    await page('http://a.example/guide/b.html', 6, 'b');
    await page('http://a.example/index.php/guide/b.html', 7, 'b');
    expect(await h.rule('a.example', prefix)).toMatchObject({ state: 'active', for: 2 });
  });

  it('a suffix rule whose pairs cut `.html` from dotted stems gets no support from plain stems, nor holds for them', async () => {
    const h = new Harness(3);
    const cut: RuleSpec = { kind: 'suffix', from: '.html', to: '' };
    // negotiated names of module pages (`/lib/os.path`, Content-Location `os.path.html`): each stem kind once
    for (const n of ['os.path', 'logging.config', 'xml.sax']) await h.fetch(`http://m.example/lib/${n}`, `h-${n}`, 200, undefined, `http://m.example/lib/${n}.html`);
    expect(await h.rule('m.example', cut)).toMatchObject({ state: 'candidate' });
    // plain stems answer under both names too: evidence for `/a` → `/a.html`, never for the cut
    for (const n of ['search', 'about', 'intro']) {
      await h.fetch(`http://m.example/lib/${n}.html`, `h-${n}`);
      await h.fetch(`http://m.example/lib/${n}`, `h-${n}`);
    }
    const rule = await h.rule('m.example', cut);
    expect(rule?.support?.every((x) => x.v !== 'plain')).toBe(true);
    expect(rule?.state).toBe('candidate');
    expect(h.rewrite('http://m.example/lib/aifc.html')).toBe(url('http://m.example/lib/aifc.html').key);
  });

  it('two variants of one URL are no pair: the URL without the parameter was never fetched', async () => {
    const h = new Harness(1);
    await h.fetch('http://a.example/p?sid=1', 'p');
    await h.fetch('http://a.example/p?sid=2', 'p');
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'sid' })).toBeUndefined();
  });
});

describe('unstable pages say nothing', () => {
  it('different content asks for a second fetch; changed content marks the directory unstable, no contradiction', async () => {
    const h = new Harness(2);
    await h.fetch('http://a.example/t/', 'token-1');
    const differ = await h.fetch('http://a.example/t/index.html', 'token-2');
    expect(differ.changes.checks).toEqual([{ kind: 'recheck', key: url('http://a.example/t/index.html').key, rec: url('http://a.example/t/index.html').rec }]);
    await h.requeue('http://a.example/t/index.html', 'r');
    await h.fetch('http://a.example/t/index.html', 'token-3');
    expect(await h.kv.get('evidence', evidenceKeys.stability('a.example', '/t/'))).toBe('unstable');
    const r = await h.rule('a.example', { kind: 'default-document', name: 'index.html' });
    expect(r?.against ?? 0).toBe(0);
    // further pairs there give no evidence either way
    await h.fetch('http://a.example/t/index.htm', 'token-4');
    expect((await h.rule('a.example', { kind: 'default-document', name: 'index.htm' }))?.against ?? 0).toBe(0);
  });

  it('where tokens keep pages unstable, a large difference of words still contradicts; a small one says nothing', async () => {
    const h = new Harness(2);
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.stability('a.example', '/'), value: 'unstable' }]);
    const list = wordSketch(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa']);
    const token = wordSketch(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'fbd']);
    const other = wordSketch(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']);
    // the same page with a fresh token: different hashes, nearly the same words: no evidence
    await h.fetch('http://a.example/list', 'L1', 200, list);
    await h.fetch('http://a.example/list?sid=1', 'L2', 200, token);
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'sid' })).toBeUndefined();
    // another page altogether under the parameter: a contradiction, tokens or not
    await h.fetch('http://a.example/list?view=2', 'V2', 200, other);
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'view' })).toMatchObject({ against: 1, for: 0 });
  });

  it('where stability is not known yet, a large difference of words contradicts at once: no second fetch is asked', async () => {
    const h = new Harness(2);
    const en = wordSketch(['install', 'django', 'python', 'database', 'server', 'version', 'package', 'virtual', 'environment', 'release']);
    const de = wordSketch(['diese', 'seite', 'ist', 'die', 'deutsche', 'übersetzung', 'installieren', 'datenbank', 'fassung', 'englische']);
    const near = wordSketch(['install', 'django', 'python', 'database', 'server', 'version', 'package', 'virtual', 'environment', 'release', 'x9']);
    // a translation under a parameter (`?lang=de`): another document, whatever a second fetch shows
    await h.fetch('http://a.example/intro/install', 'EN', 200, en);
    const translated = await h.fetch('http://a.example/intro/install?lang=de', 'DE', 200, de);
    expect(translated.changes.checks).toEqual([]);
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'lang' })).toMatchObject({ for: 0, against: 1 });
    // a small difference (a token) still waits for the variant's second fetch
    await h.fetch('http://a.example/intro/tutorial', 'T1', 200, en);
    const token = await h.fetch('http://a.example/intro/tutorial?sid=7', 'T2', 200, near);
    expect(token.changes.checks.map((c) => c.kind)).toEqual(['recheck']);
  });

  it('a difference over two parameters contradicts the rule of each, and a chain’s check judges every rule of it', async () => {
    const h = new Harness(3);
    const LANG: RuleSpec = { kind: 'query-parameter', name: 'lang' };
    const SID: RuleSpec = { kind: 'query-parameter', name: 'sid' };
    const en = wordSketch(['install', 'django', 'python', 'database', 'server', 'version', 'package', 'virtual', 'environment', 'release']);
    const de = wordSketch(['diese', 'seite', 'ist', 'die', 'deutsche', 'übersetzung', 'installieren', 'datenbank', 'fassung', 'englische']);
    // a language switcher's value read the same as the page on three pages (no translation
    // there), and a session id that never changes a page
    for (const p of ['a', 'b', 'c']) {
      await h.fetch(`http://g.example/${p}`, p, 200, en);
      await h.fetch(`http://g.example/${p}?lang=de`, p, 200, en);
      await h.fetch(`http://g.example/s${p}`, `s${p}`, 200, en);
      await h.fetch(`http://g.example/s${p}?sid=7f3a9c2e4b1d${p}0aa51e`, `s${p}`, 200, en);
    }
    expect(await h.rule('g.example', LANG)).toMatchObject({ state: 'active', against: 0 });
    expect(await h.rule('g.example', SID)).toMatchObject({ state: 'active', against: 0 });
    // a translation reached under both parameters: which of them made the difference, the pair
    // cannot tell, so both rules are contradicted there (the language value holds nowhere else)
    await h.fetch('http://g.example/t', 'T', 200, en);
    await h.fetch('http://g.example/t?lang=de&sid=7f3a9c2e4b1d000aa51e', 'T-de', 200, de);
    expect(await h.rule('g.example', LANG)).toMatchObject({ against: 1 });
    expect(await h.rule('g.example', SID)).toMatchObject({ against: 1 });
    expect(h.rewrite('http://g.example/u?lang=de')).toBe(url('http://g.example/u?lang=de').key);
    // the next translation met so is blamed on the language alone, now known to change pages: the
    // session id, whose removal never changed one, is not narrowed by every translation
    await h.fetch('http://g.example/w', 'W', 200, en);
    await h.fetch('http://g.example/w?lang=de&sid=7f3a9c2e4b1d111aa51e', 'W-de', 200, de);
    expect(await h.rule('g.example', LANG)).toMatchObject({ against: 2 });
    expect(await h.rule('g.example', SID)).toMatchObject({ against: 1 });
    // equal content under a chain of both rules supports each; a pair's group alone is not
    // support for its parts (`/v?sid=…` alone was never compared)
    const h2 = new Harness(3);
    for (const p of ['a', 'b', 'c']) {
      await h2.fetch(`http://g.example/${p}?x=1`, p, 200, en);
      await h2.fetch(`http://g.example/${p}?lang=de&x=1`, p, 200, en);
      await h2.fetch(`http://g.example/s${p}?x=1`, `s${p}`, 200, en);
      await h2.fetch(`http://g.example/s${p}?sid=7f3a9c2e4b1d${p}0aa51e&x=1`, `s${p}`, 200, en);
    }
    const before = (await h2.rule('g.example', LANG))!.for;
    await h2.fetch('http://g.example/v?x=1', 'V', 200, en);
    await h2.fetch('http://g.example/v?lang=de&sid=7f3a9c2e4b1d000aa51e&x=1', 'V', 200, en);
    expect((await h2.rule('g.example', LANG))!.for).toBe(before + 1);
  });

  it('a recurring value its pages offered of themselves is a choice: it holds nowhere else', async () => {
    // `/x?lang=de` first linked from `/x` itself (a language switcher) on three pages, where it
    // changed nothing: learned, but held at no page it was not seen on
    const LANG: RuleSpec = { kind: 'query-parameter', name: 'lang' };
    const run = async (linkedFrom: (p: string) => string): Promise<string> => {
      const h = new Harness(3);
      for (const p of ['a', 'b', 'c']) {
        await h.fetch(`http://o.example/${p}`, p);
        await h.kv.write([{ space: 'url', key: url(`http://o.example/${p}?lang=de`).key, value: encodeUrlEntry({ s: 'queued', d: 1, t: 0, src: url(linkedFrom(p)).key }) }]);
        await h.fetch(`http://o.example/${p}?lang=de`, p);
      }
      expect((await h.rule('o.example', LANG))?.for).toBe(3);
      return h.rewrite('http://o.example/z?lang=de');
    };
    expect(await run((p) => `http://o.example/${p}`)).toBe(url('http://o.example/z?lang=de').key);
    // the same value on links from another page (a tag on a site's links) holds where its evidence lies
    expect(await run(() => 'http://o.example/index')).toBe(url('http://o.example/z').key);
  });

  it('in a stable directory, pages that differ in digits and markup alone ask for their own second fetch', async () => {
    const h = new Harness(2);
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.stability('a.example', '/'), value: 'stable' }]);
    const page = (u: string, bytes: string, text: string) => h.fetch(u, bytes, 200, undefined, undefined, undefined, text);
    // a section's index page that prints a token, among the directory's stable files
    await page('http://a.example/library', 'L1', 'library');
    const asked = await page('http://a.example/library?sid=1', 'L2', 'library');
    expect(asked.changes.checks.map((c) => c.key)).toEqual([url('http://a.example/library?sid=1').key]);
    await h.requeue('http://a.example/library?sid=1', 'r', { y: 'library' });
    await page('http://a.example/library?sid=1', 'L3', 'library');
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'sid' })).toMatchObject({ for: 1, against: 0 });
    // the directory stays stable for its other pages
    expect(await h.kv.get('evidence', evidenceKeys.stability('a.example', '/'))).toBe('stable');
    // a page whose numbers change with a parameter, its bytes the same on a second fetch: a contradiction
    await page('http://a.example/report', 'R2024', 'report');
    await page('http://a.example/report?year=2023', 'R2023', 'report');
    await h.requeue('http://a.example/report?year=2023', 'r', { y: 'report' });
    await page('http://a.example/report?year=2023', 'R2023', 'report');
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'year' })).toMatchObject({ for: 0, against: 1 });
  });

  it('the same content on the second fetch confirms the difference: a contradiction', async () => {
    const h = new Harness(2);
    await h.fetch('http://a.example/s/', 'dir');
    await h.fetch('http://a.example/s/index.html', 'page');
    await h.requeue('http://a.example/s/index.html', 'r');
    await h.fetch('http://a.example/s/index.html', 'page');
    expect(await h.kv.get('evidence', evidenceKeys.stability('a.example', '/s/'))).toBe('stable');
    expect(await h.rule('a.example', { kind: 'default-document', name: 'index.html' })).toMatchObject({ against: 1 });
  });
});

describe('every rewrite is checked', () => {
  it('a rewrite that answers 404 waits for its original: answering a document, it contradicts the rule where it lies', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/api/${d}`, `http://a.example/api/${d}/`);
    expect(h.rules.get(slashId)?.state).toBe('active');
    const original = url('http://a.example/api/users');
    const rewrite = url('http://a.example/api/users/');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(rewrite.key, original.key), value: `rule:${slashId}` }]);
    // the original's answer is not known: it is asked for, and nothing is counted yet
    const failed = await h.fetch('http://a.example/api/users/', 'NOTFOUND', 404);
    expect(failed.changes.givesBack).toEqual([]);
    expect(failed.changes.checks).toEqual([{ kind: 'original', key: original.key, rec: original.rec }]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0, state: 'active' });
    // it answers a page: the two names differ, there
    const answered = await h.fetch('http://a.example/api/users', 'users-page');
    expect(answered.changes.givesBack).toEqual([slashId]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1, contradiction: { how: 'rewrite', status: 404, source: original.key, to: rewrite.key } });
    expect(h.rewrite('http://a.example/api/orders')).toBe(url('http://a.example/api/orders').key);
  });

  it('a rewrite that fails where its original answered before is judged at once', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/api/${d}`, `http://a.example/api/${d}/`);
    // the originals answered first: a page, and a dead link
    await h.fetch('http://a.example/api/page', 'a-page');
    await h.fetch('http://a.example/api/dead', 'NOTFOUND', 404);
    for (const n of ['page', 'dead']) await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url(`http://a.example/api/${n}/`).key, url(`http://a.example/api/${n}`).key), value: `rule:${slashId}` }]);
    // dead under both names: agreement, nothing asked for
    const dead = await h.fetch('http://a.example/api/dead/', 'NOTFOUND', 404);
    expect(dead.changes.checks).toEqual([]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0, state: 'active' });
    // a page under one name, a 404 under the other: a contradiction now
    const page = await h.fetch('http://a.example/api/page/', 'NOTFOUND', 404);
    expect(page.changes.givesBack).toEqual([slashId]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1 });
  });

  it('a rewrite with a server error or no answer asks its original: the same failure agrees, a document contradicts', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/api/${d}`, `http://a.example/api/${d}/`);
    for (const d of ['x', 'y']) await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url(`http://a.example/api/${d}/`).key, url(`http://a.example/api/${d}`).key), value: `rule:${slashId}` }]);
    // a server in trouble, or a URL robots.txt closes (no answer): nothing about the names yet
    const failed = await h.fetch('http://a.example/api/x/', undefined, 503);
    expect(failed.changes.checks.map((c) => c.key)).toEqual([url('http://a.example/api/x').key]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0 });
    await h.fetch('http://a.example/api/x', undefined, 502);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0 });
    const none = await h.fetch('http://a.example/api/y/', undefined, 0);
    expect(none.changes.checks.map((c) => c.key)).toEqual([url('http://a.example/api/y').key]);
    // the original answered a document: the rule sent it where nothing answers
    await h.fetch('http://a.example/api/y', 'y-page');
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1 });
  });

  it('a chain of rules that failed contradicts its last step, not the rule the pruned URL records', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/api/${d}`, `https://a.example/api/${d}`);
    for (const d of ['d', 'e', 'f']) await h.redirect(`https://a.example/api/${d}`, `https://a.example/api/${d}/`);
    expect(h.rewrite('http://a.example/api/users')).toBe(url('https://a.example/api/users/').key);
    // pruned under its first step's reason (https), onto the chain's end
    const original = url('http://a.example/api/users');
    const end = url('https://a.example/api/users/');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(end.key, original.key), value: `rule:${httpsId}` }]);
    const failed = await h.fetch('https://a.example/api/users/', 'NOTFOUND', 404);
    // pruned under https, whose give-back it is not: evaluated again after the commit
    expect(failed.changes.reconsider).toEqual([original.key]);
    expect(failed.changes.checks.map((c) => c.key)).toEqual([original.key]);
    const answered = await h.fetch('http://a.example/api/users', 'users-page');
    expect(answered.changes.givesBack).toEqual([slashId]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1, contradiction: { how: 'rewrite', source: original.key } });
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ against: 0, state: 'active' });
    // the https step stands; the slash rule no longer adds a slash where it was contradicted
    expect(h.rewrite('http://a.example/api/users')).toBe(url('https://a.example/api/users').key);
  });

  it('an original that fails as its rewrite failed agrees: no contradiction is counted', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/${d}`, `http://a.example/${d}/`);
    const original = url('http://a.example/gone');
    const rewrite = url('http://a.example/gone/');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(rewrite.key, original.key), value: `rule:${slashId}` }]);
    await h.fetch('http://a.example/gone/', 'NOTFOUND', 404);
    // the original, asked for and fetched: a dead link under both names
    const alike = await h.fetch('http://a.example/gone', 'NOTFOUND', 404);
    expect(alike.changes.givesBack).toEqual([]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0, state: 'active' });
    // an original that answers a document contradicts
    const other = url('http://a.example/live');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/live/').key, other.key), value: `rule:${slashId}` }]);
    await h.fetch('http://a.example/live/', 'NOTFOUND', 404);
    await h.fetch('http://a.example/live', 'a-live-page');
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1, state: 'withdrawn' });
  });

  it('an original that answers the not-found page as its rewrite did agrees, however each page echoes its request', async () => {
    const h = new Harness(2, true);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/${d}`, `http://a.example/${d}/`);
    const probe = 'http://a.example/urldedup-not-found-0123456789abcdef';
    await h.requeue(probe, 'p');
    // the not-found page prints the path it was asked for: another hash each time, one shape
    await h.fetch(probe, 'NF-probe', 200, undefined, undefined, undefined, undefined, 'NF-SHAPE');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/gone/').key, url('http://a.example/gone').key), value: `rule:${slashId}` }]);
    await h.fetch('http://a.example/gone/', 'NF-gone/', 200, undefined, undefined, undefined, undefined, 'NF-SHAPE');
    const alike = await h.fetch('http://a.example/gone', 'NF-gone', 200, undefined, undefined, undefined, undefined, 'NF-SHAPE');
    expect(alike.changes.givesBack).toEqual([]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0, state: 'active' });
    // a page under the original name is no agreement
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/live/').key, url('http://a.example/live').key), value: `rule:${slashId}` }]);
    await h.fetch('http://a.example/live/', 'NF-live/', 200, undefined, undefined, undefined, undefined, 'NF-SHAPE');
    await h.fetch('http://a.example/live', 'a-live-page', 200, undefined, undefined, undefined, undefined, 'PAGE-SHAPE');
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1 });
  });

  it('a contradiction counted before its original was asked is taken back when the original fails alike', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b', 'c']) await h.redirect(`http://a.example/${d}`, `http://a.example/${d}/`);
    const original = url('http://a.example/gone');
    // a store written before failures waited for their original: counted, and kept as such
    const rule = (await h.rule('a.example', SLASH))!;
    const tr = contradict(rule, { p: '/gone', s: original.key }, { v: 'against', how: 'rewrite', source: original.key, status: 404, t: h.now }, { threshold: 2, maxSupport: 64 });
    await h.kv.write([
      { space: 'rule', key: rule.id, value: JSON.stringify(tr.rule) },
      { space: 'evidence', key: evidenceKeys.rewriteFailure(original.key, slashId), value: JSON.stringify({ st: 404 }) },
    ]);
    h.rules.remember(tr.rule);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 1, state: 'withdrawn' });
    const alike = await h.fetch('http://a.example/gone', 'NOTFOUND', 404);
    expect(alike.changes.activated).toEqual([slashId]);
    expect(await h.rule('a.example', SLASH)).toMatchObject({ against: 0, state: 'active' });
  });

  it('both hops of a redirect loop are evidence: the return hop takes back what the first supported', async () => {
    const h = new Harness(2);
    for (const d of ['a', 'b']) await h.redirect(`http://a.example/${d}`, `http://a.example/${d}/`);
    await h.redirect('http://a.example/x', 'http://a.example/x/');
    expect(h.rules.get(slashId)?.state).toBe('active');
    const txn = new Txn(0);
    await h.learner.fromRedirect(txn, url('http://a.example/x/'), url('http://a.example/x'), 301, false, h.now++, true);
    await h.kv.write(txn.ops);
    for (const r of txn.rules.values()) h.rules.remember(r);
    const r = await h.rule('a.example', SLASH);
    expect(r?.against).toBe(1);
    expect((r?.support ?? []).some((x) => x.s === url('http://a.example/x').key)).toBe(false);
  });

  it('a rewrite onto a hop of a redirect loop failed, though the hop is a slash redirect', async () => {
    const h = new Harness(2);
    for (const n of [1, 2, 3]) await h.redirect(`http://a.example/${n}`, `https://a.example/${n}`);
    const original = url('http://a.example/page.html');
    const rewrite = url('https://a.example/page.html/');
    // the https name had redirected to its slash form: the rewrite's canonical end, an alias
    await h.kv.write([
      { space: 'evidence', key: evidenceKeys.rewrite(rewrite.key, original.key), value: `rule:${httpsId}` },
      { space: 'alias', key: url('https://a.example/page.html').key, value: JSON.stringify({ to: rewrite.key, st: 301, t: 0 }) },
    ]);
    // /page.html/ → /page.html → /page.html/: the return hop, a slash-remove, closes the loop
    const txn = new Txn(0);
    const changes = await h.learner.fromRedirect(txn, rewrite, url('https://a.example/page.html'), 301, false, h.now++, true);
    await h.kv.write(txn.ops);
    for (const r of txn.rules.values()) h.rules.remember(r);
    expect(changes.givesBack).toEqual([httpsId]);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ against: 1, contradiction: { how: 'rewrite', status: 301 } });
  });

  it('an original that redirects as its rewrite redirected agrees; a rewrite sent to itself with a session id is no failure', async () => {
    const h = new Harness(2);
    const utm: RuleSpec = { kind: 'query-parameter', name: 'utm' };
    for (const d of ['a', 'b', 'c']) {
      await h.fetch(`http://a.example/${d}`, d);
      await h.fetch(`http://a.example/${d}?utm=${d}`, d);
    }
    expect((await h.rule('a.example', utm))?.state).toBe('active');
    const original = url('http://a.example/d?utm=x');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/d').key, original.key), value: `rule:${ruleId('a.example', utm)}` }]);
    const failed = await h.redirect('http://a.example/d', 'http://a.example/gate/d', 302, false);
    expect(failed.changes.checks.map((c) => c.key)).toEqual([original.key]);
    expect(await h.rule('a.example', utm)).toMatchObject({ against: 0 });
    // asked for: the server sends it to the same place, with the parameter the rule removes
    await h.redirect('http://a.example/d?utm=x', 'http://a.example/gate/d?utm=x', 302, false);
    expect(await h.rule('a.example', utm)).toMatchObject({ against: 0, state: 'active' });
    // a rewrite the server sends to itself with a session id added: the chain's document is its own
    const session = url('http://a.example/f?utm=z');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/f').key, session.key), value: `rule:${ruleId('a.example', utm)}` }]);
    await h.redirect('http://a.example/f', 'http://a.example/f;jsessionid=2', 302, false);
    expect(await h.rule('a.example', utm)).toMatchObject({ against: 0, state: 'active' });
    // elsewhere is no agreement
    const other = url('http://a.example/e?utm=y');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(url('http://a.example/e').key, other.key), value: `rule:${ruleId('a.example', utm)}` }]);
    await h.redirect('http://a.example/e', 'http://a.example/login', 302, false);
    await h.redirect('http://a.example/e?utm=y', 'http://a.example/e;jsessionid=1?utm=y', 302, false);
    expect(await h.rule('a.example', utm)).toMatchObject({ against: 1 });
  });

  it('a sampled original fetched as itself with the same content supports the rule', async () => {
    const h = new Harness(3);
    for (const n of [1, 2, 3]) await h.redirect(`http://a.example/${n}`, `https://a.example/${n}`);
    await h.fetch('https://a.example/4', 'four');
    await h.requeue('http://a.example/4', 'v', { to: url('https://a.example/4').key, by: `rule:${httpsId}` });
    await h.fetch('http://a.example/4', 'four');
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ for: 4, state: 'active' });
  });
});

describe('evidence seen before a candidate exists', () => {
  it('a www host that served its own pages is contradicted as soon as a www-remove candidate appears', async () => {
    const h = new Harness(2);
    await h.fetch('http://b.example/y', 'bare-y');
    await h.fetch('http://www.b.example/y', 'www-y');
    await h.fetch('http://b.example/y2', 'bare-y2');
    await h.fetch('http://www.b.example/y2', 'www-y2');
    const first = await h.redirect('http://www.b.example/x', 'http://b.example/x');
    // the earlier pair differs: it is fetched again before it counts against
    expect(first.changes.checks.map((c) => c.kind)).toEqual(['recheck']);
    const again = first.changes.checks[0]!;
    await h.requeue(`http://www.b.example${again.rec.path}`, 'r');
    await h.fetch(`http://www.b.example${again.rec.path}`, again.rec.path === '/y' ? 'www-y' : 'www-y2');
    for (const p of ['/a', '/b', '/c']) await h.redirect(`http://www.b.example${p}`, `http://b.example${p}`);
    const r = await h.rule('www.b.example', { kind: 'www-remove' });
    expect(r?.against).toBeGreaterThanOrEqual(1);
    expect(h.rewrite('http://www.b.example/y')).toBe(url('http://www.b.example/y').key);
  });
});

describe('Content-Location and rel=canonical', () => {
  it('a negotiated name and its variant: support for the suffix rule, in its canonical direction', async () => {
    const h = new Harness(3);
    for (const n of ['a', 'b', 'c']) await h.fetch(`http://n.example/docs/${n}`, `h-${n}`, 200, undefined, `http://n.example/docs/${n}.en.html`);
    const rule = await h.rule('n.example', { kind: 'suffix', from: '', to: '.en.html' });
    expect(rule).toMatchObject({ state: 'active', for: 3 });
    expect(rule?.support?.map((x) => x.s)).toEqual(['a', 'b', 'c'].map((n) => url(`http://n.example/docs/${n}`).key));
    // the rule acts on names of its kind only: a stem with a dot of its own is not one
    expect(h.rewrite('http://n.example/docs/d')).toBe(url('http://n.example/docs/d.en.html').key);
    expect(h.rewrite('http://n.example/docs/d.x')).toBe(url('http://n.example/docs/d.x').key);
  });

  it('rel=canonical naming a case or suffix variant supports that rule; naming the home page, nothing', async () => {
    const h = new Harness(3);
    for (const n of ['A', 'B', 'C']) await h.fetch(`http://c.example/d/${n}.htm`, `h-${n}`, 200, undefined, undefined, `http://c.example/d/${n}.html`);
    const rule = await h.rule('c.example', { kind: 'suffix', from: '.htm', to: '.html' });
    expect(rule).toMatchObject({ state: 'active', for: 3 });
    const w = new Harness(1);
    for (const n of ['a', 'b', 'c']) expect((await w.fetch(`http://w.example/d/${n}.html`, `h-${n}`, 200, undefined, undefined, 'http://w.example/')).changes.activated).toEqual([]);
    expect(await w.kv.get('rule', ruleId('w.example', { kind: 'default-document', name: 'index.html' }))).toBeUndefined();
  });

  it('a directory and its default document (IIS names Default.htm for /)', async () => {
    const h = new Harness(3);
    for (const d of ['a', 'b', 'c']) await h.fetch(`http://i.example/${d}/`, `h-${d}`, 200, undefined, `http://i.example/${d}/index.html`);
    expect(await h.rule('i.example', { kind: 'default-document', name: 'index.html' })).toMatchObject({ state: 'active', for: 3 });
  });

  it('never a parameter, another path, or another host: a route that names its path without the query claims nothing', async () => {
    const h = new Harness(1);
    const a = await h.fetch('http://p.example/list?page=2', 'h-2', 200, undefined, 'http://p.example/list');
    const b = await h.fetch('http://p.example/x.html', 'h-x', 200, undefined, 'http://p.example/index.php');
    const c = await h.fetch('http://p.example/y.html', 'h-y', 200, undefined, 'http://q.example/y.html');
    for (const r of [a, b, c]) expect(r.changes.activated).toEqual([]);
    expect(await h.kv.get('rule', ruleId('p.example', { kind: 'query-parameter', name: 'page' }))).toBeUndefined();
  });

  it('one body claimed under names the rule does not explain is a shell, and shows nothing', async () => {
    const h = new Harness(2);
    // the application shell: one body under many paths
    for (const p of ['/app/x', '/app/y', '/app/z']) await h.fetch(`http://s.example${p}`, 'shell');
    await h.fetch('http://s.example/app/q', 'shell', 200, undefined, 'http://s.example/app/q.html');
    await h.fetch('http://s.example/app/r', 'shell', 200, undefined, 'http://s.example/app/r.html');
    expect((await h.rule('s.example', { kind: 'suffix', from: '', to: '.html' }))?.state ?? 'none').not.toBe('active');
  });
});

describe('mirror hosts (opt-in)', () => {
  const MIRROR: RuleSpec = { kind: 'mirror', host: 'example.com' };

  /** A store that learned `docs.example.com` as a mirror of `example.com` from three equal documents. */
  async function mirrored(): Promise<Harness> {
    const h = new Harness(3, false, true);
    for (const p of ['/a/1.html', '/a/2.html', '/b/3.html']) {
      await h.fetch(`http://example.com${p}`, `h${p}`);
      await h.fetch(`http://docs.example.com${p}`, `h${p}`);
    }
    return h;
  }

  it('learns a mirror from equal documents under the same paths, onto the host with fewer labels', async () => {
    const h = await mirrored();
    expect(await h.rule('docs.example.com', MIRROR)).toMatchObject({ state: 'active', for: 3, scopes: [{ at: '/' }] });
    expect(h.rewrite('http://docs.example.com/c/9.html')).toBe(url('http://example.com/c/9.html').key);
  });

  it('learns nothing without the option, from other paths, or from a host whose pages differ', async () => {
    const off = new Harness(1, false, false);
    await off.fetch('http://example.com/a', 'h');
    await off.fetch('http://docs.example.com/a', 'h');
    expect(await off.rule('docs.example.com', MIRROR)).toBeUndefined();
    const h = new Harness(1, false, true);
    await h.fetch('http://example.com/a', 'same');
    await h.fetch('http://docs.example.com/b', 'same');
    expect(await h.rule('docs.example.com', MIRROR)).toBeUndefined();
  });

  it('a page that differs under its own path on the mirror withdraws the rule everywhere', async () => {
    const h = await mirrored();
    await h.fetch('http://example.com/c/own.html', 'theirs');
    const first = await h.fetch('http://docs.example.com/c/own.html', 'ours');
    // content that differs counts once the page proved stable: it is fetched again, unchanged
    expect(first.changes.checks.map((c) => c.kind)).toContain('recheck');
    await h.requeue('http://docs.example.com/c/own.html', 'r');
    await h.fetch('http://docs.example.com/c/own.html', 'ours');
    const rule = await h.rule('docs.example.com', MIRROR);
    expect(rule?.against).toBeGreaterThan(0);
    // a copy that drifted (a staging host): any page may be one edited since, not this place alone
    expect(rule?.state).toBe('withdrawn');
    expect(h.rewrite('http://docs.example.com/c/own.html')).toBe(url('http://docs.example.com/c/own.html').key);
    expect(h.rewrite('http://docs.example.com/a/9.html')).toBe(url('http://docs.example.com/a/9.html').key);
  });

  it('never learns a copy onto another copy: a second mirror maps onto the host', async () => {
    const h = await mirrored();
    expect((await h.rule('docs.example.com', MIRROR))?.state).toBe('active');
    // `stage` sorts after `docs`: between the two copies it would be mapped onto `docs`
    for (const p of ['/a/1.html', '/a/2.html', '/b/3.html']) await h.fetch(`http://stage.example.com${p}`, `h${p}`);
    expect(await h.rule('stage.example.com', { kind: 'mirror', host: 'docs.example.com' })).toBeUndefined();
    expect((await h.rule('stage.example.com', MIRROR))?.state).toBe('active');
  });

  it('the host\'s page reached through a redirect (a session added) is compared with the copy\'s under the linked name', async () => {
    const h = await mirrored();
    await h.fetch('http://docs.example.com/c/own.html', 'ours');
    // the host answers /c/own.html 302 to its session form (the engine's reverse alias index)
    await h.kv.write([{ space: 'aliasrev', key: aliasRevKey(url('http://example.com/c/own.html;jsessionid=1').key, url('http://example.com/c/own.html').key), value: '' }]);
    const later = await h.fetch('http://example.com/c/own.html;jsessionid=1', 'theirs');
    expect(later.changes.checks.map((c) => c.kind)).toContain('recheck');
  });

  it('a loop on the host under a mirror\'s rewrite is asked of the copy, which loops alike: no contradiction', async () => {
    const h = await mirrored();
    const id = ruleId('docs.example.com', MIRROR);
    const original = url('http://docs.example.com/x.html/');
    const rewrite = url('http://example.com/x.html/');
    await h.kv.write([{ space: 'evidence', key: evidenceKeys.rewrite(rewrite.key, original.key), value: `rule:${id}` }]);
    // the host's /x.html/ → /x.html → /x.html/ (a slash loop): the rewrite failed, its copy not asked yet
    const txn = new Txn(0);
    const changes = await h.learner.fromRedirect(txn, rewrite, url('http://example.com/x.html'), 301, false, h.now++, true);
    await h.kv.write(txn.ops);
    for (const r of txn.rules.values()) h.rules.remember(r);
    expect(changes.checks.map((c) => c.key)).toContain(original.key);
    expect((await h.rule('docs.example.com', MIRROR))?.against).toBe(0);
    // the copy answers as the host does, to its own name of the other hop: alike
    await h.redirect('http://docs.example.com/x.html/', 'http://docs.example.com/x.html', 301);
    expect(await h.rule('docs.example.com', MIRROR)).toMatchObject({ state: 'active', against: 0 });
  });

  it('the mirror\'s page fetched before the host\'s is compared when the host\'s answers', async () => {
    const h = await mirrored();
    // the edited page reached on the mirror first (a link within it), the host's own later
    await h.fetch('http://docs.example.com/c/own.html', 'ours');
    const later = await h.fetch('http://example.com/c/own.html', 'theirs');
    expect(later.changes.checks.map((c) => c.kind)).toContain('recheck');
    await h.requeue('http://docs.example.com/c/own.html', 'r');
    await h.fetch('http://docs.example.com/c/own.html', 'ours');
    expect((await h.rule('docs.example.com', MIRROR))?.state).toBe('withdrawn');
  });
});
