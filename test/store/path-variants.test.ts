// Path variants: suffix pairs and case folding (src/store/learning/path-variants.ts), and the rules on them.
import { describe, expect, it } from 'vitest';
import { parseUri } from '../../src/normalize/index.js';
import { applySuffix, CASE_FOLDED, caseApplies, caseProbePlace, caseShape, foldCase, isCaseProbe, isSuffixPair, stemOf, suffixApplies, suffixPair, suffixStemKind } from '../../src/store/learning/path-variants.js';
import { applies, apply, formatSpec, newCandidate, parseSpec, rewrites, support, type RuleSpec } from '../../src/store/rules.js';
import { explainRedirect } from '../../src/store/learning/redirect-explanation.js';

const rec = (u: string) => parseUri(u);

describe('suffixPair', () => {
  it('cuts at whole extensions and fixes one direction per pair', () => {
    expect(suffixPair('/a/b.htm', '/a/b.html')).toEqual({ from: '.htm', to: '.html' });
    expect(suffixPair('/a/b.html', '/a/b.htm')).toEqual({ from: '.htm', to: '.html' });
    expect(suffixPair('/a/b', '/a/b.html')).toEqual({ from: '', to: '.html' });
    expect(suffixPair('/index.html.en', '/index.html')).toEqual({ from: '.en', to: '' });
    expect(suffixPair('/a/b.php', '/a/b.html')).toEqual({ from: '.html', to: '.php' });
  });

  it('refuses names that differ elsewhere, in another directory, by case, or with parameters', () => {
    expect(suffixPair('/a/b.html', '/a/c.html')).toBeUndefined();
    expect(suffixPair('/a/b.html', '/x/b.htm')).toBeUndefined();
    expect(suffixPair('/a/B.html', '/a/b.htm')).toBeUndefined();
    expect(suffixPair('/a/b.html;jsessionid=1', '/a/b.htm')).toBeUndefined();
    expect(suffixPair('/a/bc.html', '/a/b.html')).toBeUndefined();
    expect(suffixPair('/a/b.x.y.z', '/a/b')).toBeUndefined(); // more than two extensions
    expect(suffixPair('/a/', '/a/.html')).toBeUndefined(); // no stem
    expect(suffixPair('/whatsnew/3.0.html', '/whatsnew/3.1.html')).toBeUndefined(); // versions, not variants
    expect(suffixPair('/whatsnew/3.10.html', '/whatsnew/3.10.htm')).toEqual({ from: '.htm', to: '.html' }); // twins of a versioned name
    expect(suffixPair('/a/b.en.html', '/a/b.de.html')).toBeUndefined(); // two values of one slot
    expect(suffixPair('/lib/curses.html', '/lib/curses.panel.htm')).toBeUndefined(); // another page, a longer name
    expect(suffixPair('/a/b.de.html', '/a/b.htm')).toBeUndefined();
    expect(suffixPair('/a/b.en.html', '/a/b.html')).toEqual({ from: '.en.html', to: '.html' });
    expect(suffixPair('/a/song.mp3', '/a/song.ogg')).toEqual({ from: '.mp3', to: '.ogg' });
  });

  it('names a pair, never a family', () => {
    expect(isSuffixPair('.en', '')).toBe(true);
    expect(isSuffixPair('.html', '')).toBe(true); // a server's own direction, from a redirect
    expect(isSuffixPair('.en', '.de')).toBe(true);
    expect(isSuffixPair('en', '')).toBe(false);
    expect(isSuffixPair('.html', '.html')).toBe(false);
  });

  it('applies to a last segment with a stem of its own', () => {
    expect(suffixApplies({ from: '.htm', to: '.html' }, '/a/b.htm')).toBe(true);
    expect(suffixApplies({ from: '.htm', to: '.html' }, '/a/b.html')).toBe(false);
    expect(suffixApplies({ from: '.htm', to: '.html' }, '/a/.htm')).toBe(false);
    expect(suffixApplies({ from: '', to: '.html' }, '/a/b')).toBe(true);
    expect(suffixApplies({ from: '', to: '.html' }, '/a/b.txt')).toBe(false);
    expect(suffixApplies({ from: '', to: '.html' }, '/a/')).toBe(false);
    expect(applySuffix({ from: '.en', to: '' }, '/index.html.en')).toBe('/index.html');
    expect(stemOf('/a/b.html.en')).toBe('/a/b');
  });
});

describe('case folding', () => {
  it('lower-cases letters and keeps percent-encodings as they are', () => {
    expect(foldCase('/Docs/%C3%A9T.HTML')).toBe('/docs/%C3%A9t.html');
    expect(caseApplies('/docs/a.html')).toBe(false);
    expect(caseApplies('/Docs/a.html')).toBe(true);
    expect(caseApplies('/%C3%A9')).toBe(false);
    expect(caseApplies('/A;jsessionid=1')).toBe(false);
  });
});

describe('suffix and case-insensitive rules', () => {
  it('round-trip through their spec text', () => {
    for (const spec of [{ kind: 'suffix', from: '.htm', to: '.html' }, { kind: 'suffix', from: '.html', to: '' }, { kind: 'case-insensitive' }] as RuleSpec[]) {
      expect(parseSpec(formatSpec(spec))).toEqual(spec);
    }
    expect(parseSpec('suffix:.a.b.c>')).toBeUndefined();
    expect(parseSpec('case-insensitive:x')).toBeUndefined();
  });

  it('rewrite, but never a default document', () => {
    const htm: RuleSpec = { kind: 'suffix', from: '.htm', to: '.html' };
    expect(apply(htm, rec('http://h/a/b.htm')).path).toBe('/a/b.html');
    const strip: RuleSpec = { kind: 'suffix', from: '.html', to: '' };
    expect(applies(strip, rec('http://h/a/b.html'))).toBe(true);
    expect(applies(strip, rec('http://h/a/index.html'))).toBe(false);
    const ci: RuleSpec = { kind: 'case-insensitive' };
    expect(apply(ci, rec('http://h/Docs/A.html?Q=1')).path).toBe('/docs/a.html');
    expect(apply(ci, rec('http://h/Docs/A.html?Q=1')).query).toBe('Q=1');
  });

  it('explain the redirects that make them', () => {
    expect(explainRedirect(rec('http://h/a.htm'), rec('http://h/a.html'))).toEqual([{ kind: 'suffix', from: '.htm', to: '.html' }]);
    expect(explainRedirect(rec('http://h/a'), rec('http://h/a.html'))).toEqual([{ kind: 'suffix', from: '', to: '.html' }]);
    expect(explainRedirect(rec('http://h/Docs/A.html'), rec('http://h/docs/a.html'))).toEqual([{ kind: 'case-insensitive' }]);
    // a capital in the extension is a fold of case, not a pair of suffixes (`.Html>.html`)
    expect(explainRedirect(rec('http://h/search.Html'), rec('http://h/search.html'))).toEqual([{ kind: 'case-insensitive' }]);
    expect(explainRedirect(rec('http://h/a.HTM'), rec('http://h/a.html'))).toEqual([{ kind: 'suffix', from: '.HTM', to: '.html' }]);
  });
});

describe('the case rule holds for the case shapes of its evidence', () => {
  it('tells the names people give files from names with random case', () => {
    expect(caseShape('/FAQ.html')).toBe('word');
    expect(caseShape('/Docs/Intro.HTML')).toBe('word');
    expect(caseShape('/readme-A/x')).toBe('word');
    expect(caseShape('/quicK-STart.html')).toBe('mixed');
    expect(caseShape('/Cl-mAnual.htmL')).toBe('mixed');
    expect(caseShape('/getStarted')).toBe('mixed');
  });

  it('does not fold /FAQ.html on evidence from names with random case only', () => {
    const limits = { threshold: 3, maxSupport: 64 };
    let r = newCandidate('h', { kind: 'case-insensitive' }, 0);
    for (const p of ['/quicK-start.html', '/maNual.html', '/lk-manuAl.html', '/TEch-docs.htmL']) {
      r = support(r, { p, d: p.toLowerCase(), s: 'k' + p, v: caseShape(p) }, { v: 'for', how: 'content', source: 'k' + p, t: 0 }, limits).rule;
    }
    expect(r.state).toBe('active');
    const active = { id: r.id, spec: { kind: 'case-insensitive' } as RuleSpec, scopes: r.scopes! };
    expect(rewrites(active, rec('http://h/cG-Manual.html'))).toBe(true);
    expect(rewrites(active, rec('http://h/FAQ.html'))).toBe(false);
    expect(rewrites(active, rec('http://h/Readme.html'))).toBe(false);
    // three documents of the word shape answered alike under both names cover it too
    for (const p of ['/NEWS.html', '/Authors.html', '/COPYING.html']) {
      r = support(r, { p, d: p.toLowerCase(), s: 'k' + p, v: caseShape(p), t: 'k' + p.toLowerCase() }, { v: 'for', how: 'content', source: 'k' + p, t: 0 }, limits).rule;
    }
    expect(rewrites({ ...active, scopes: r.scopes! }, rec('http://h/FAQ.html'))).toBe(true);
  });

  it('does not fold /FAQ.html on redirects of word-shaped names (a server correcting names it lacks)', () => {
    // Apache mod_speling redirects /Intro.html to /intro.html where no Intro.html exists, and
    // answers /FAQ.html where one does, beside /faq.html
    const limits = { threshold: 3, maxSupport: 64 };
    let r = newCandidate('h', { kind: 'case-insensitive' }, 0);
    for (const p of ['/Intro.html', '/Usage.html', '/INSTALL.html', '/Tutorial.html']) {
      r = support(r, { p, d: 'k' + p.toLowerCase(), s: 'k' + p, v: caseShape(p) }, { v: 'for', how: 'redirect', source: 'k' + p, t: 0 }, limits).rule;
    }
    expect(r.for).toBe(4);
    expect(r.state).toBe('candidate');
    // names with random case redirected do hold it, for that shape alone
    for (const p of ['/quicK-start.html', '/maNual.html', '/lk-manuAl.html']) {
      r = support(r, { p, d: 'k' + p.toLowerCase(), s: 'k' + p, v: caseShape(p) }, { v: 'for', how: 'redirect', source: 'k' + p, t: 0 }, limits).rule;
    }
    expect(r.state).toBe('active');
    const active = { id: r.id, spec: { kind: 'case-insensitive' } as RuleSpec, scopes: r.scopes! };
    expect(rewrites(active, rec('http://h/cG-Manual.html'))).toBe(true);
    expect(rewrites(active, rec('http://h/FAQ.html'))).toBe(false);
  });

  it('folds /FAQ.html on such redirects only at a place whose case probe the host folded', () => {
    expect(caseProbePlace('/Ref/models/Intro.html')).toBe('/ref/');
    expect(caseProbePlace('/Intro.html')).toBe('/');
    expect(isCaseProbe('/ref/Urldedup-Not-Found-0123456789abcdef')).toBe(true);
    expect(isCaseProbe('/ref/urldedup-not-found-0123456789abcdef')).toBe(false);
    const limits = { threshold: 3, maxSupport: 64 };
    let r = newCandidate('h', { kind: 'case-insensitive' }, 0);
    for (const p of ['/docs/Intro.html', '/docs/Usage.html', '/docs/guide/INSTALL.html', '/Tutorial.html', '/News.html', '/Authors.html']) {
      r = support(r, { p, d: 'k' + p.toLowerCase(), s: 'k' + p, v: caseShape(p) }, { v: 'for', how: 'redirect', source: 'k' + p, t: 0 }, limits).rule;
    }
    expect(r.state).toBe('candidate');
    // the probe's own redirect shows no document: one alone activates nothing
    const probe = '/docs/Urldedup-Not-Found-0123456789abcdef';
    r = support(r, { p: probe, d: 'k' + probe.toLowerCase(), s: 'k' + probe, v: CASE_FOLDED }, { v: 'for', how: 'redirect', source: 'k' + probe, t: 0 }, limits).rule;
    expect(r.state).toBe('active');
    expect(r.scopes?.map((x) => x.at)).toEqual(['/docs/']);
    const active = { id: r.id, spec: { kind: 'case-insensitive' } as RuleSpec, scopes: r.scopes! };
    expect(rewrites(active, rec('http://h/docs/FAQ.html'))).toBe(true);
    // the root's own files were not probed
    expect(rewrites(active, rec('http://h/FAQ.html'))).toBe(false);
    let lone = newCandidate('h', { kind: 'case-insensitive' }, 0);
    lone = support(lone, { p: probe, d: 'k' + probe.toLowerCase(), s: 'k' + probe, v: CASE_FOLDED }, { v: 'for', how: 'redirect', source: 'k' + probe, t: 0 }, limits).rule;
    expect(lone.state).toBe('candidate');
  });
});

describe('the suffix rule holds for the stem kind of its evidence', () => {
  it('tells a negotiated variant (/a.en of /a.en.html) from a plain name (/a of /a.html)', () => {
    const strip = { from: '.html', to: '' };
    expect(suffixStemKind(strip, '/d/a.en.html')).toBe('dotted.en');
    expect(suffixStemKind(strip, '/d/a.html')).toBe('plain');
    expect(suffixStemKind({ from: '', to: '.html' }, '/d/a')).toBe('plain');
    // a version or a module name is no negotiated variant
    expect(suffixStemKind(strip, '/whatsnew/3.5.html')).toBe('dotted.5');
    expect(suffixStemKind(strip, '/library/os.path.html')).toBe('dotted.path');
    // between two extensions the stem is not exposed: its own dot is kind enough
    expect(suffixStemKind({ from: '.htm', to: '.html' }, '/whatsnew/3.5.htm')).toBe('dotted');
  });

  it('does not strip .html from /api.html on evidence from /x.en.html → /x.en', () => {
    const limits = { threshold: 3, maxSupport: 64 };
    const spec: RuleSpec = { kind: 'suffix', from: '.html', to: '' };
    let r = newCandidate('h', spec, 0);
    for (const n of ['a', 'b', 'c']) {
      const p = `/${n}.en.html`;
      r = support(r, { p, d: n, s: 'k' + p, v: suffixStemKind(spec, p) }, { v: 'for', how: 'content-location', source: 'k' + p, t: 0 }, limits).rule;
    }
    const active = { id: r.id, spec, scopes: r.scopes! };
    expect(rewrites(active, rec('http://h/d.en.html'))).toBe(true);
    expect(rewrites(active, rec('http://h/api.html'))).toBe(false);
    // nor /whatsnew/3.5.html onto /whatsnew/3.5: a version, not a language
    expect(rewrites(active, rec('http://h/whatsnew/3.5.html'))).toBe(false);
  });
});
