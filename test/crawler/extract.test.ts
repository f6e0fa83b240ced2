/**
 * Link extraction: every link kind, the document base URL (HTML §2.4.1), meta refresh (§4.2.5.3),
 * canonical evidence, caps, and streaming (any chunking gives the same links).
 */
import { describe, expect, it } from 'vitest';
import { extractLinks, LinkExtractor, parseMetaRefresh } from '../../src/crawler/html/extract.js';

const DOC = 'http://example.com/dir/page.html';

describe('link relations that create hyperlinks (HTML §4.6.7)', () => {
  it('follows alternate, author, help, license, next, prev, search, privacy-policy, terms-of-service; not external resources', () => {
    const rels = ['author', 'help', 'license', 'search', 'privacy-policy', 'terms-of-service', 'SEARCH next'];
    const page = rels.map((r, i) => `<link rel="${r}" href="/r${i}.html">`).join('') +
      '<link rel="stylesheet" href="/s.css"><link rel="preload" href="/p.html"><link rel="search icon" href="/i.xml"><link rel="bookmark-ish" href="/b.html">';
    expect(extractLinks(page, DOC).links.map((l) => l.url)).toEqual(rels.map((_, i) => `http://example.com/r${i}.html`));
  });
});

describe('link kinds', () => {
  const page = `<!doctype html><html><head>
<link rel="stylesheet" href="/style.css"><link rel="icon" href="/favicon.ico">
<link rel="alternate stylesheet" href="/alt.css">
<link rel="canonical" href="/dir/page.html?canonical">
<link rel="next" href="page2.html"><link rel="prev" href="page0.html">
<link rel="alternate" hreflang="fr" href="/fr/page.html">
<meta http-equiv="Refresh" content="5; url=/refreshed.html">
</head><body>
<a href="a.html">a</a> <a href="a.html">again</a> <a href="a.html#frag">frag</a>
<a href=" /spaced
 path.html ">ws</a>
<a href="/x?a=1&amp;b=2">entity</a>
<a>no href</a>
<map><area href="/area.html"></map>
<iframe src="frame.html"></iframe><frame src="/frame2.html">
<a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a><a href="data:text/html,x">d</a><a href="ftp://f/">f</a>
<a href="http://[::1">bad</a>
<script>document.write('<a href="/from-script.html">')</script>
<img src="/img.png">
</body></html>`;
  const r = extractLinks(page, DOC);

  it('finds a, area, link (alternate, canonical, next, prev), iframe, frame and meta refresh', () => {
    expect(r.links.map((l) => [l.kind, l.url])).toEqual([
      ['link', 'http://example.com/dir/page.html?canonical'],
      ['link', 'http://example.com/dir/page2.html'],
      ['link', 'http://example.com/dir/page0.html'],
      ['link', 'http://example.com/fr/page.html'],
      ['refresh', 'http://example.com/refreshed.html'],
      ['a', 'http://example.com/dir/a.html'],
      ['a', 'http://example.com/dir/a.html#frag'],
      ['a', 'http://example.com/spaced%20path.html'],
      ['a', 'http://example.com/x?a=1&b=2'],
      ['area', 'http://example.com/area.html'],
      ['iframe', 'http://example.com/dir/frame.html'],
      ['frame', 'http://example.com/frame2.html'],
    ]);
  });

  it('counts repeats, other schemes and invalid references; keeps evidence', () => {
    expect(r.repeated).toBe(1);
    expect(r.otherScheme).toBe(4);
    expect(r.invalid).toBe(1);
    expect(r.canonical).toBe('http://example.com/dir/page.html?canonical');
    expect(r.refresh).toBe('http://example.com/refreshed.html');
    expect(r.nofollow).toBe(false);
    expect(r.found).toBe(r.links.length + r.repeated + r.otherScheme + r.invalid);
  });
});

describe('the document base URL', () => {
  it('the first <base href> applies to every link, also those before it', () => {
    const r = extractLinks('<a href="before.html">b</a><base href="/other/"><base href="/ignored/"><a href="x.html">x</a>', DOC);
    expect(r.base).toBe('http://example.com/other/');
    expect(r.links.map((l) => l.url)).toEqual(['http://example.com/other/before.html', 'http://example.com/other/x.html']);
  });

  it('a relative base resolves against the document URL; a base without href is skipped', () => {
    const r = extractLinks('<base target="_blank"><base href="../up/"><a href="y">y</a>', DOC);
    expect(r.base).toBe('http://example.com/up/');
  });

  it('an invalid or javascript: base leaves the document URL', () => {
    expect(extractLinks('<base href="http://[bad"><a href="z">z</a>', DOC).links[0]!.url).toBe('http://example.com/dir/z');
    expect(extractLinks('<base href="javascript:alert(1)"><a href="z">z</a>', DOC).base).toBe(DOC);
  });

  it('a base on another host moves the links there', () => {
    expect(extractLinks('<base href="https://cdn.example.net/a/"><a href="b">b</a>', DOC).links[0]!.url).toBe('https://cdn.example.net/a/b');
  });
});

describe('meta refresh (HTML §4.2.5.3)', () => {
  it.each([
    ['0; url=/a', '/a'],
    ['0;URL=/a', '/a'],
    ['5, /a', '/a'],
    ['0; url = "/a b"', '/a b'],
    ["0; url='/a'x", '/a'],
    ['0; /a', '/a'],
    ['.5; url=/a', '/a'],
    ['0 url=/a', '/a'],
    ['0; urlx', 'urlx'],
  ])('%j → %j', (content, url) => expect(parseMetaRefresh(content)).toBe(url));
  it.each(['0', '5', '', 'x; url=/a', '0x; url=/a', '0;   '])('%j has no URL', (content) => expect(parseMetaRefresh(content)).toBeUndefined());
});

describe('limits and robots meta', () => {
  it('caps distinct links per page', () => {
    const body = Array.from({ length: 100 }, (_, i) => `<a href="/p${i}">x</a>`).join('');
    const r = extractLinks(body, DOC, { maxOutlinks: 10 });
    expect(r.links).toHaveLength(10);
    expect(r.dropped).toBe(90);
  });

  it('caps the raw reference text kept', () => {
    const body = Array.from({ length: 50 }, (_, i) => `<a href="/${'x'.repeat(100)}${i}">x</a>`).join('');
    const r = extractLinks(body, DOC, { maxHrefBytes: 1000 });
    expect(r.links.length).toBeLessThan(10);
    expect(r.links.length + r.dropped).toBe(50);
  });

  it('meta robots nofollow is reported', () => {
    expect(extractLinks('<meta name="ROBOTS" content="noindex, NOFOLLOW"><a href="/a">a</a>', DOC).nofollow).toBe(true);
    expect(extractLinks('<meta name="robots" content="none">', DOC).nofollow).toBe(true);
    expect(extractLinks('<meta name="robots" content="noindex">', DOC).nofollow).toBe(false);
  });
});

describe('streaming', () => {
  it('gives the same links whatever the chunking, multi-byte characters split included', () => {
    const page = Buffer.from('<base href="/b/"><a href="é/ü.html">x</a><a\nhref=\'q?x=€\'>y</a><iframe src="f"></iframe>');
    const whole = extractLinks(page, DOC);
    for (const size of [1, 2, 3, 7]) {
      const x = new LinkExtractor(DOC);
      for (let i = 0; i < page.length; i += size) x.write(page.subarray(i, i + size));
      x.end();
      expect(x.result()).toEqual(whole);
    }
    expect(whole.links.map((l) => l.url)).toEqual(['http://example.com/b/%C3%A9/%C3%BC.html', 'http://example.com/b/q?x=%E2%82%AC', 'http://example.com/b/f']);
  });

  it('decodes a declared charset', () => {
    const latin1 = Buffer.from([...Buffer.from('<a href="/caf'), 0xe9, ...Buffer.from('.html">x</a>')]);
    expect(extractLinks(latin1, DOC, { charset: 'iso-8859-1' }).links[0]!.url).toBe('http://example.com/caf%C3%A9.html');
  });
});
