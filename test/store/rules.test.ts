// The host-rule learner's pure parts: explaining a redirect, judging one, applying rules.
import { describe, expect, it } from 'vitest';
import { parseUri, recompose, type UriRecord } from '../../src/normalize/index.js';
import {
  applies,
  apply,
  applyRules,
  formatSpec,
  contradict,
  mirrorPair,
  discount,
  newCandidate,
  parseRuleId,
  parseSpec,
  support,
  withdrawByHand,
  type ActiveRule,
  type RuleSpec,
} from '../../src/store/rules.js';
import { explainRedirect, judgeRedirect } from '../../src/store/learning/redirect-explanation.js';

/** A scope covering a whole host, queries too. */
const HOST_WIDE = [{ at: '/', docs: 3, query: true }];

const rec = (u: string): UriRecord => parseUri(u);
const explain = (from: string, to: string): string[] | undefined => explainRedirect(rec(from), rec(to))?.map(formatSpec);

describe('explainRedirect', () => {
  it.each([
    ['http://a.example/x', 'https://a.example/x', ['https']],
    ['http://a.example/x', 'http://a.example/x/', ['slash-add']],
    ['http://a.example/x/', 'http://a.example/x', ['slash-remove']],
    ['https://a.example/p', 'https://www.a.example/p', ['www-add']],
    ['https://www.a.example/p', 'https://a.example/p', ['www-remove']],
    ['http://a.example/d/index.html', 'http://a.example/d/', ['default-document:index.html']],
    ['http://a.example/d/index.php', 'http://a.example/d', ['default-document:index.php', 'slash-remove']],
    ['http://a.example/old/x/y', 'http://a.example/x/y', ['path-prefix:/old/>/']],
    ['http://a.example/en/x', 'http://a.example/de/x', ['path-prefix:/en/>/de/']],
    ['http://a.example/x?sid=1&a=2', 'http://a.example/x?a=2', ['query-parameter:sid']],
    ['http://a.example/x?sid=1', 'http://a.example/x', ['query-parameter:sid']],
    ['http://a.example/x', 'https://www.a.example/x/', ['https', 'www-add', 'slash-add']],
    ['http://a.example/docs//x.html', 'http://a.example/docs/x.html', ['merge-slashes']],
    ['http://a.example//a///b/', 'http://a.example/a/b/', ['merge-slashes']],
    ['http://a.example/a//', 'http://a.example/a/', ['merge-slashes']],
  ])('%s → %s', (from, to, expected) => {
    expect(explain(from, to)).toEqual(expected);
  });

  it.each([
    ['http://a.example/x', 'http://b.example/x'], // another site
    ['http://a.example/x', 'http://a.example/login'], // another page
    ['https://a.example/x', 'http://a.example/x'], // a downgrade is not a rule
    ['http://a.example/file.html', 'http://a.example/file.html/'], // slash-add is for directory-like paths
    ['http://a.example/x', 'http://a.example:8080/x'],
    ['http://a.example/x', 'http://a.example/x'], // nothing changes: a loop, not a rule
    ['http://a.example/x', 'http://a.example/y/x'], // a prefix that would grow into itself
    ['http://a.example/x?a=1', 'http://a.example/x?a=2'],
  ])('%s → %s is not explained', (from, to) => {
    expect(explain(from, to)).toBeUndefined();
  });
});

describe('judgeRedirect', () => {
  const judge = (spec: RuleSpec, host: string, from: string, to: string): string | undefined =>
    judgeRedirect(spec, host, rec(from), rec(to), explainRedirect(rec(from), rec(to)));

  it('counts a redirect that includes the rule for it', () => {
    expect(judge({ kind: 'https' }, 'a.example', 'http://a.example/x', 'https://a.example/x/')).toBe('for');
  });
  it('is neutral when the rule’s component is unchanged (a later hop may take the step)', () => {
    expect(judge({ kind: 'slash-add' }, 'a.example', 'http://a.example/x', 'https://a.example/x')).toBeUndefined();
  });
  it('is against when the component changes otherwise', () => {
    expect(judge({ kind: 'slash-add' }, 'a.example', 'http://a.example/x', 'http://a.example/login')).toBe('against');
    expect(judge({ kind: 'www-add' }, 'a.example', 'http://a.example/x', 'http://b.example/x')).toBe('against');
  });
  it('is against when the host maps the other way', () => {
    expect(judge({ kind: 'slash-add' }, 'a.example', 'http://a.example/x/', 'http://a.example/x')).toBe('against');
    expect(judge({ kind: 'www-add' }, 'a.example', 'http://www.a.example/x', 'http://a.example/x')).toBe('against');
  });
  it('says nothing of case where a redirect changes more of the path than the case of its letters', () => {
    const fold: RuleSpec = { kind: 'case-insensitive' };
    // a suffix dropped, the spelling kept (mod_rewrite keeps what it was given)
    expect(judge(fold, 'a.example', 'http://a.example/genindex-Symbols.html', 'http://a.example/genindex-Symbols')).toBeUndefined();
    expect(judge(fold, 'a.example', 'http://a.example/Docs/A', 'http://a.example/Docs/A/')).toBeUndefined();
    // a redirect to another spelling than the folded one: the host does not fold, it chooses
    expect(judge(fold, 'a.example', 'http://a.example/docs/a', 'http://a.example/Docs/A')).toBe('against');
    expect(judge(fold, 'a.example', 'http://a.example/Docs/A', 'http://a.example/docs/a')).toBe('for');
  });
  it('leaves query and path parameters to content evidence', () => {
    expect(judge({ kind: 'query-parameter', name: 'sid' }, 'a.example', 'http://a.example/x?sid=1', 'http://a.example/y?sid=1')).toBeUndefined();
    expect(judge({ kind: 'path-parameter', name: 'jsessionid' }, 'a.example', 'http://a.example/x;jsessionid=1', 'http://a.example/login')).toBeUndefined();
    expect(judge({ kind: 'path-parameter', name: 'jsessionid' }, 'a.example', 'http://a.example/x', 'http://a.example/x;jsessionid=1')).toBeUndefined();
  });
});

describe('applying rules', () => {
  it('applies within each rule’s domain only', () => {
    expect(applies({ kind: 'slash-add' }, rec('http://a.example/dir'))).toBe(true);
    expect(applies({ kind: 'slash-add' }, rec('http://a.example/file.pdf'))).toBe(false);
    expect(applies({ kind: 'slash-remove' }, rec('http://a.example/'))).toBe(false);
    expect(applies({ kind: 'https' }, rec('http://a.example:8080/'))).toBe(false);
    expect(applies({ kind: 'www-add' }, rec('http://192.0.2.1/'))).toBe(false);
    expect(apply({ kind: 'query-parameter', name: 'sid' }, rec('http://a.example/?sid=1')).query).toBeUndefined();
    expect(apply({ kind: 'query-parameter', name: 'sid' }, rec('http://a.example/?a=1&sid=2&b=3')).query).toBe('a=1&b=3');
    const jsid: RuleSpec = { kind: 'path-parameter', name: 'jsessionid' };
    expect(applies(jsid, rec('http://a.example/x;jsessionid=1'))).toBe(true);
    expect(applies(jsid, rec('http://a.example/x%3Bjsessionid=1'))).toBe(false); // an encoded ";" is data
    expect(applies(jsid, rec('http://a.example/x;JSESSIONID=1'))).toBe(false); // names are case-sensitive
    expect(applies(jsid, rec('http://a.example/x?jsessionid=1'))).toBe(false);
    expect(apply(jsid, rec('http://a.example/x;jsessionid=1?q')).path).toBe('/x');
    expect(apply(jsid, rec('http://a.example/a;v=1;jsessionid=2/b;jsessionid=3')).path).toBe('/a;v=1/b');
    expect(apply(jsid, rec('http://a.example/a;jsessionid')).path).toBe('/a');
  });

  it('chains rules across hosts and stops at a cycle', () => {
    const rules = new Map([
      ['a.example', [{ id: 'a.example/https', spec: { kind: 'https' } as RuleSpec, scopes: HOST_WIDE }, { id: 'a.example/www-add', spec: { kind: 'www-add' } as RuleSpec, scopes: HOST_WIDE }]],
      ['www.a.example', [{ id: 'www.a.example/slash-add', spec: { kind: 'slash-add' } as RuleSpec, scopes: HOST_WIDE }]],
    ]);
    const r = applyRules(rec('http://a.example/docs'), (h) => rules.get(h));
    expect(r.first).toBe('a.example/https');
    expect(r.record).toMatchObject({ scheme: 'https', host: 'www.a.example', path: '/docs/' });
    const cyclic = new Map([
      ['a.example', [{ id: 'a.example/www-add', spec: { kind: 'www-add' } as RuleSpec, scopes: HOST_WIDE }]],
      ['www.a.example', [{ id: 'www.a.example/www-remove', spec: { kind: 'www-remove' } as RuleSpec, scopes: HOST_WIDE }]],
    ]);
    const c = applyRules(rec('http://a.example/x'), (h) => cyclic.get(h));
    expect(c.first).toBeUndefined();
    expect(c.record.host).toBe('a.example');
  });

  it('a prefix rule applies under its prefix, never to the prefix\'s own page, with or without segment parameters', () => {
    const spec = parseSpec('path-prefix:/old/>/')!;
    expect(applies(spec, parseUri('http://a.example/old/x'))).toBe(true);
    expect(applies(spec, parseUri('http://a.example/old/'))).toBe(false);
    expect(applies(spec, parseUri('http://a.example/old/;jsessionid=1'))).toBe(false);
    expect(applies(spec, parseUri('http://a.example/old/x;jsessionid=1'))).toBe(true);
    // the prefix's own page under a default document name is its own page too
    expect(applies(spec, parseUri('http://a.example/old/index.html'))).toBe(false);
    expect(applies(spec, parseUri('http://a.example/old/x/index.html'))).toBe(true);
  });

  it('merges runs of slashes anywhere in the path, and applies only where there is one', () => {
    const spec: RuleSpec = { kind: 'merge-slashes' };
    expect(applies(spec, parseUri('http://a.example/a/b.html'))).toBe(false);
    expect(applies(spec, parseUri('http://a.example/a/b.html?u=http://x'))).toBe(false);
    expect(recompose(apply(spec, parseUri('http://a.example//a///b//c.html?q=1')))).toBe('http://a.example/a/b/c.html?q=1');
    expect(recompose(apply(spec, parseUri('http://a.example/a//;jsessionid=1')))).toBe('http://a.example/a/;jsessionid=1');
  });

  it('round-trips specs and rule ids', () => {
    for (const text of ['https', 'www-add', 'slash-remove', 'merge-slashes', 'default-document:index.php', 'path-prefix:/old/>/', 'query-parameter:utm=x', 'path-parameter:jsessionid']) {
      expect(formatSpec(parseSpec(text)!)).toBe(text);
    }
    expect(parseRuleId('a.example:8080/path-prefix:/a/>/b/')).toEqual({ host: 'a.example:8080', spec: { kind: 'path-prefix', from: '/a/', to: '/b/' } });
    expect(parseSpec('bogus')).toBeUndefined();
  });
});

describe('the rule state machine', () => {
  const limits = { threshold: 3, maxSupport: 64 };
  const obs = (v: 'for' | 'against', source: string, t = 0) => ({ v, how: 'redirect' as const, source, t });
  const at = (p: string, d = p) => ({ p, d, s: 'k' + p });

  it('withdraws a case-insensitive rule everywhere at its first contradiction', () => {
    let r = newCandidate('h', { kind: 'case-insensitive' }, 0);
    for (const p of ['/A/x', '/A/y', '/B/x', '/B/y', '/C/x', '/C/y', '/D/x', '/D/y', '/E/x']) r = support(r, at(p), obs('for', p), limits).rule;
    expect(r.state).toBe('active');
    const t = contradict(r, { p: '/FAQ.html', s: 'k/FAQ.html' }, obs('against', '/FAQ.html'), limits);
    expect(t.change).toBe('withdrawn');
    expect(t.rule.scopes).toEqual([]);
    // a path rule with that support only loses the contradicted place
    let s = newCandidate('h', { kind: 'slash-add' }, 0);
    for (const p of ['/A/x', '/A/y', '/B/x', '/B/y', '/C/x', '/C/y', '/D/x', '/D/y', '/E/x']) s = support(s, at(p), obs('for', p), limits).rule;
    expect(contradict(s, { p: '/FAQ', s: 'k/FAQ' }, obs('against', '/FAQ'), limits).rule.state).toBe('active');
  });

  it('activates where three distinct documents spread over a directory, and nowhere else', () => {
    let r = newCandidate('h', { kind: 'slash-add' }, 0);
    r = support(r, at('/docs/a'), obs('for', 'a'), limits).rule;
    r = support(r, at('/docs/b'), obs('for', 'b'), limits).rule;
    expect(r.state).toBe('candidate');
    const t = support(r, at('/docs/c'), obs('for', 'c'), limits);
    expect(t.change).toBe('activated');
    expect(t.rule).toMatchObject({ state: 'active', for: 3, scopes: [{ at: '/docs/', docs: 3, query: false }] });
    const wider = support(t.rule, at('/api/x'), obs('for', 'x'), limits);
    expect(wider.change).toBe('widened');
    expect(wider.rule.scopes?.map((x) => x.at)).toEqual(['/']);
  });

  it('a scope that gains a value (a case shape) widens the rule: what it now covers is pruned', () => {
    let r = newCandidate('h', { kind: 'case-insensitive' }, 0);
    // the word shape shown by names answered alike (a redirect of one says nothing: path-variants.test.ts)
    const shaped = (p: string, v: string) => ({ ...at(p), v, ...(v === 'word' ? { t: p.toLowerCase() } : {}) });
    for (const p of ['/aB.html', '/cD.html', '/eF.html']) r = support(r, shaped(p, 'mixed'), obs('for', p), limits).rule;
    expect(r.scopes).toEqual([{ at: '/', flat: true, docs: 3, query: false, values: ['mixed'] }]);
    r = support(r, shaped('/Faq.html', 'word'), obs('for', '/Faq.html'), limits).rule;
    r = support(r, shaped('/Help.html', 'word'), obs('for', '/Help.html'), limits).rule;
    const t = support(r, shaped('/News.html', 'word'), obs('for', '/News.html'), limits);
    expect(t.change).toBe('widened');
    expect(t.rule.scopes).toEqual([{ at: '/', flat: true, docs: 6, query: false, values: ['mixed', 'word'] }]);
  });

  it('a contradiction narrows the rule to the scopes that do not cover it, or withdraws it', () => {
    let r = newCandidate('h', { kind: 'slash-add' }, 0);
    for (const p of ['/docs/a', '/docs/b', '/docs/c', '/api/x']) r = support(r, at(p), obs('for', p), limits).rule;
    const narrowed = contradict(r, { p: '/api/users', s: 'u' }, obs('against', 'u'), limits);
    expect(narrowed.change).toBe('narrowed');
    expect(narrowed.rule.scopes?.map((x) => x.at)).toEqual(['/docs/']);
    const gone = contradict(narrowed.rule, { p: '/docs/z', s: 'z' }, obs('against', 'z'), limits);
    expect(gone.change).toBe('withdrawn');
    expect(gone.rule).toMatchObject({ state: 'withdrawn', against: 2, scopes: [] });
  });

  it('keeps new documents past its evidence limit, in place of a page kept many times over', () => {
    const small = { threshold: 3, maxSupport: 8 };
    let r = newCandidate('h', { kind: 'path-parameter', name: 'jsessionid' }, 0);
    // the home page and one other page under many session ids fill what is kept
    for (let i = 0; i < 8; i++) r = support(r, { p: i % 2 === 0 ? '/' : '/about.html', d: i % 2 === 0 ? 'home' : 'about', s: `k${i}` }, obs('for', `k${i}`), small).rule;
    for (const p of ['/a/x.html', '/b/y.html', '/c/z.html', '/d/w.html']) r = support(r, at(p), obs('for', p), small).rule;
    expect(r.support).toHaveLength(8);
    expect(new Set(r.support!.map((x) => x.d)).size).toBe(6);
    expect(r.for).toBe(12);
    // a page kept once already is no new document: nothing is replaced for it
    const again = support(r, { p: '/a/x.html', d: '/a/x.html', s: 'k-again' }, obs('for', 'k-again'), small).rule;
    expect(again.support).toEqual(r.support);
  });

  it('support taken back (a shell, a not-found body) can deactivate a rule', () => {
    let r = newCandidate('h', { kind: 'query-parameter', name: 'sort' }, 0);
    for (const p of ['/a', '/b', '/c']) r = support(r, { p, d: 'H' + p, s: p, q: true }, obs('for', p), limits).rule;
    expect(r.state).toBe('active');
    const t = discount(r, (x) => x.d === 'H/a', limits);
    expect(t.change).toBe('withdrawn');
    expect(t.rule.state).toBe('candidate');
  });

  it('an operator withdrawal holds whatever evidence comes later', () => {
    let r = newCandidate('h', { kind: 'https' }, 0);
    for (const p of ['/a', '/b', '/c']) r = support(r, at(p), obs('for', p), limits).rule;
    const w = withdrawByHand(r, 5, limits);
    expect(w.change).toBe('withdrawn');
    expect(support(w.rule, at('/d'), obs('for', 'd'), limits).rule.state).toBe('withdrawn');
  });

  it('rewrites only in its scopes', () => {
    const active: ActiveRule = { id: 'h/slash-add', spec: { kind: 'slash-add' }, scopes: [{ at: '/docs/', docs: 3, query: false }] };
    expect(applyRules(rec('http://h/docs/x'), () => [active]).record.path).toBe('/docs/x/');
    expect(applyRules(rec('http://h/api/users'), () => [active]).first).toBeUndefined();
    expect(applyRules(rec('http://h/docs/login?next=/'), () => [active]).first).toBeUndefined();
  });
});

describe('the mirror rule', () => {
  it('round-trips, maps a host with its port onto another, and keeps the path', () => {
    const spec: RuleSpec = { kind: 'mirror', host: 'example.com:8080' };
    expect(parseSpec(formatSpec(spec))).toEqual(spec);
    expect(parseSpec('mirror:')).toBeUndefined();
    expect(parseSpec('mirror:a/b')).toBeUndefined();
    const r = apply(spec, rec('http://docs.example.com/a/b?c=1'));
    expect(r).toMatchObject({ host: 'example.com', port: '8080', path: '/a/b', query: 'c=1' });
    expect(apply({ kind: 'mirror', host: 'example.com' }, rec('http://m.example.com:81/x')).port).toBeUndefined();
  });

  it('has one direction per pair: onto the host with fewer labels, else the lesser name', () => {
    expect(mirrorPair('docs.example.com', 'example.com')).toEqual({ from: 'docs.example.com', spec: { kind: 'mirror', host: 'example.com' } });
    expect(mirrorPair('example.com', 'docs.example.com')).toEqual({ from: 'docs.example.com', spec: { kind: 'mirror', host: 'example.com' } });
    expect(mirrorPair('b.example', 'a.example')).toEqual({ from: 'b.example', spec: { kind: 'mirror', host: 'a.example' } });
    expect(mirrorPair('a.example', 'a.example')).toBeUndefined();
  });

  it('a redirect from the mirror to the same path on its host supports it; elsewhere contradicts it', () => {
    const spec: RuleSpec = { kind: 'mirror', host: 'example.com' };
    const from = rec('http://m.example.com/a');
    expect(judgeRedirect(spec, 'm.example.com', from, rec('http://example.com/a'), undefined)).toBe('for');
    expect(judgeRedirect(spec, 'm.example.com', from, rec('http://example.com/b'), undefined)).toBeUndefined();
    expect(judgeRedirect(spec, 'm.example.com', from, rec('http://sso.example.net/login'), undefined)).toBe('against');
    expect(judgeRedirect(spec, 'm.example.com', from, rec('http://m.example.com/a/'), undefined)).toBeUndefined();
  });
});
