/**
 * A page's shape, words and word sketch (src/crawler/html/page-shape.ts): what the learner uses to tell
 * a not-found page that echoes the request, what new text a page brings to the trap rule, and a
 * large difference between pages that carry a per-response token.
 */
import { describe, expect, it } from 'vitest';
import { echoFreeTextHash, pageShape, stableTextHash, textHashes, textWords, withoutOwnAddress, wordSketch } from '../../src/crawler/html/page-shape.js';
import { sketchSimilarity } from '../../src/store/learning/stability.js';
import { extractLinks, MAIN_MIN_WORDS } from '../../src/crawler/html/extract.js';

describe('page shape', () => {
  it('a not-found page that echoes the path and a request id has one shape for every URL', () => {
    const page = (path: string, id: string): string => `Nothing found for ${path}. Sorry! Request ${id} at 12:04:33.`;
    const probe = pageShape(page('/docs/urldedup-not-found-3c4916b1d0959cfd', '8812'), 'http://h.example/docs/urldedup-not-found-3c4916b1d0959cfd');
    expect(pageShape(page('/docs/a-post', '9917'), 'http://h.example/docs/a-post')).toBe(probe);
    expect(pageShape(page('/docs/a post', '1'), 'http://h.example/docs/a-post')).toBe(probe); // a slug printed with spaces
    // a request id in hex: digits alone would leave its letters, another shape per response
    expect(pageShape(page('/docs/a-post', '7f3a09c2e14b58d0a9c3b6e1f2d40c77'), 'http://h.example/docs/a-post')).toBe(pageShape(page('/docs/other', 'c0ffee4a1b2c3d4e5f60718293a4b5c6'), 'http://h.example/docs/other'));
    // words are kept, however long: a page about another thing is another shape
    expect(pageShape(page('/docs/a-post', 'internationalization'), 'http://h.example/docs/a-post')).not.toBe(pageShape(page('/docs/a-post', 'counterrevolutionary'), 'http://h.example/docs/a-post'));
  });

  it('a server that folds the case of paths echoes the path it folded: one shape still', () => {
    const page = (path: string): string => `Nothing found for ${path}. It looks like nothing was found at this location.`;
    const probe = pageShape(page('/urldedup-not-found-3c4916b1d0959cfd'), 'http://h.example/urldedup-not-found-3c4916b1d0959cfd');
    // asked as `/librarY/cAlendAr.de`, printed as the server folded its directory
    expect(pageShape(page('/library/cAlendAr.de'), 'http://h.example/librarY/cAlendAr.de')).toBe(probe);
    expect(pageShape(page('/library/calendar.de'), 'http://h.example/Library/Calendar.de')).toBe(probe);
    // the shape still tells another page from the not-found one
    expect(pageShape('Calendar: the module documentation', 'http://h.example/library/calendar.html')).not.toBe(probe);
  });

  it('an echoed segment inside a request id is no echo: the id is still one token', () => {
    // a short segment (`da`) that a random id happens to contain would cut it into runs too short
    // to read as a token, and the shape would vary with the id (simulator seed 52001)
    const page = (path: string, id: string): string => `Nothing found for ${path}. Maybe try a search? Request id ${id}`;
    const probe = pageShape(page('/da/urldedup-not-found-5c109d5d1bb63d6b', '9e7d63079d7d6174a07d662d9f7d649a'), 'http://h.localhost/da/urldedup-not-found-5c109d5d1bb63d6b');
    expect(pageShape(page('/da/mod/Mod_filter.de', 'a62e173aa72e18cda42e1414a52e15a7'), { path: '/da/mod/Mod_filter.de', query: '' })).toBe(probe);
    // an echo that is a whole token (a session id printed back) is still taken out
    const session = (sid: string): string => `Your session ${sid} has expired.`;
    expect(pageShape(session('0a343e319e4125a9b8cf'), 'http://h.localhost/s/0a343e319e4125a9b8cf')).toBe(pageShape(session('ffee3e319e4125a9b8cf'), 'http://h.localhost/s/ffee3e319e4125a9b8cf'));
    // and an echo glued to the text before it (pieces joined without a space) too
    expect(pageShape('Not foundmod_filter.de', 'http://h.localhost/mod_filter.de')).toBe(pageShape('Not foundother', 'http://h.localhost/other'));
  });

  it('a path whose name is a word of the template: the template keeps its word, one shape still', () => {
    // WordPress's "Nothing found … Maybe try a search?" asked as `/blog/search`: the echo is the
    // whole path; taking `search` out everywhere would take the template's word too (simulator seed 20)
    const page = (path: string): string => `Nothing found for ${path}. It looks like nothing was found at this location. Maybe try a search?`;
    const probe = pageShape(page('/blog/urldedup-not-found-3c4916b1d0959cfd'), 'http://h.example/blog/urldedup-not-found-3c4916b1d0959cfd');
    for (const path of ['/blog/search', '/blog/found', '/blog/nothing-found', '/location/try']) expect(pageShape(page(path), `http://h.example${path}`)).toBe(probe);
    // a page that prints only the name asked for (a slug) still loses it
    const slug = (name: string): string => `No page called ${name} here.`;
    expect(pageShape(slug('a post'), 'http://h.example/docs/a-post')).toBe(pageShape(slug('other'), 'http://h.example/docs/other'));
    // a query printed whole is taken out whole; its values alone, where only they are printed
    expect(pageShape(page('/blog/x?s=found'), 'http://h.example/blog/x?s=found')).toBe(probe);
    expect(pageShape('Results for kettle: none.', 'http://h.example/s?q=kettle')).toBe(pageShape('Results for xyz: none.', 'http://h.example/s?q=xyz'));
  });

  it('pages that differ in more than the echo have different shapes', () => {
    const a = pageShape('The quick brown fox jumps', 'http://h.example/a');
    expect(pageShape('The slow brown fox sleeps', 'http://h.example/b')).not.toBe(a);
  });

  it('a page that prints its own address (a share widget): one echo-free hash under every name, digits kept', () => {
    const page = (u: string): string => `Release notes 4.2. Share this page: https://twitter.com/intent/tweet?url=${encodeURIComponent(u)} or copy ${u}`;
    const hash = (u: string): string => echoFreeTextHash(withoutOwnAddress(page(u), u));
    const plain = hash('http://h.example/notes.html');
    expect(hash('http://h.example/notes.html?utm_source=feed&utm_campaign=b942c4')).toBe(plain);
    expect(hash('http://h.example/notes.html;jsessionid=0003A6F8')).toBe(plain);
    // another text, or other digits, is another page (the stable hash reads digit runs as one)
    const other = (u: string): string => echoFreeTextHash(withoutOwnAddress(page(u).replace('4.2', '4.3'), u));
    expect(other('http://h.example/notes.html')).not.toBe(plain);
    expect(stableTextHash(withoutOwnAddress(page('http://h.example/a?x=1'), 'http://h.example/a?x=1'))).toBe(stableTextHash(withoutOwnAddress(page('http://h.example/a'), 'http://h.example/a').replace('4.2', '4.3')));
  });

  it('the echo-free hash reads a page\'s links: same words, other links (a sort order) is another page', () => {
    const listing = (self: string, items: string[]): string =>
      `<html><body><p>List, entries 6 to 10 of 22.</p><a href="/list">this list</a>${items.map((i) => `<a href="/doc/${i}">link</a>`).join(' ')}<p>Share: <a href="https://twitter.com/intent/tweet?url=${encodeURIComponent(self)}">tweet</a> ${self}</p></body></html>`;
    const hashOf = (self: string, items: string[]): string => extractLinks(listing(self, items), self).echoFreeHash;
    const plain = hashOf('http://h.example/list?page=2', ['f', 'g', 'h']);
    expect(hashOf('http://h.example/list?page=2&utm_source=feed', ['f', 'g', 'h'])).toBe(plain);
    // a link to the page's bare self reads alike whichever name it was requested under
    expect(hashOf('http://h.example/list', ['f', 'g', 'h'])).toBe(hashOf('http://h.example/list?utm_source=feed', ['f', 'g', 'h']));
    expect(hashOf('http://h.example/list?page=2&sort=desc', ['q', 'p', 'o'])).not.toBe(plain);
    // a page's own address is taken out whole, never from a longer URL: two directory pages that
    // link to their own children do not read alike
    const dir = (self: string): string => extractLinks(`<p>Index</p><a href="${self}a">a</a><a href="${self}b">b</a>`, `http://h.example${self}`).echoFreeHash;
    expect(dir('/x/')).not.toBe(dir('/y/'));
  });

  it('the echo-free hash reads links as written: a mirror\'s page whose home link is its canonical on one host alone reads alike', () => {
    // one body served under two host names (a ServerAlias): its rel=canonical names the main
    // host's home, and a body link `/` resolves to that very URL there only
    const body = (self: string): string =>
      `<html><head><link rel="canonical" href="http://main.example/"><meta property="og:url" content="${self}"></head><body><h1>Functions</h1><a href="/a.html">a</a><a href="http://mirror.main.example/b.html">b</a><a href="/">home</a><p>Share: ${encodeURIComponent(self)}</p></body></html>`;
    const on = (host: string): string => extractLinks(body(`http://${host}/f.html`), `http://${host}/f.html`).echoFreeHash;
    expect(on('mirror.main.example')).toBe(on('main.example'));
  });

  it('words: letters only, lower-cased, three or more, each once', () => {
    expect(textWords('Events: November 2026, NOVEMBER; a to of 42x item-list')).toEqual(['events', 'november', 'item', 'list']);
  });

  it('words are the runs of three letters or more by code point, as /\\p{L}{3,}/u reads them', () => {
    const texts = ['Ärger über Straße', 'naïve CAFÉ déjà', '日本語 ab 中文字', '𝒜𝒷𝒸 x𝒜y', 'ab\ud800cd ef\udc00gh ijk', 'İstanbul ǅemal ﬃx', 'one1two3three', 'a-b-c dd_ee fff'];
    for (const t of texts) expect(textWords(t)).toEqual([...new Set([...t.toLowerCase().matchAll(/\p{L}{3,}/gu)].map((m) => m[0]))]);
    expect(textWords('𝒜𝒷𝒸 x𝒜y')).toEqual(['𝒜𝒷𝒸', 'x𝒜y']);
  });

  it('textHashes gives the stable and echo-free hashes of one text', () => {
    for (const t of ['  a 1\n\t2 b  ', 'Page 12 of 40\u00a0\u2003end', '', 'x'.repeat(100)]) {
      for (const truncated of [false, true]) expect(textHashes(t, truncated)).toEqual({ stableHash: stableTextHash(t, truncated), echoFreeHash: echoFreeTextHash(t, truncated) });
    }
    expect(stableTextHash('page 1 of 2')).toBe(stableTextHash('page  13 of\n7'));
    expect(echoFreeTextHash('page 1 of 2')).not.toBe(echoFreeTextHash('page 13 of 7'));
  });

  it('the title hash: the first title, in any case and spacing; none without one', () => {
    const of = (html: string) => extractLinks(html, 'http://t.localhost/p').titleHash;
    const notFound = of('<html><head><title>Page not found</title></head><body>Nothing at /p.</body></html>');
    expect(notFound).toMatch(/^[0-9a-f]{16}$/);
    expect(of('<title>  PAGE\n not   found </title><p>Did you mean <a href="/q">q</a>?</p>')).toBe(notFound);
    // the first title only (an SVG's or a later one is not the document's), its references decoded
    expect(of('<title>Page not found</title><svg><title>icon</title></svg>')).toBe(notFound);
    expect(of('<title>Page &amp; not found</title>')).toBe(of('<title>page & not found</title>'));
    expect(of('<title>Another page</title>')).not.toBe(notFound);
    expect(of('<p>no title</p>')).toBeUndefined();
    expect(of('<title> </title><p>empty</p>')).toBeUndefined();
    // its text is still the page's text
    expect(extractLinks('<title>A</title><p>b</p>', 'http://t.localhost/p').textHash).not.toBe(extractLinks('<title>C</title><p>b</p>', 'http://t.localhost/p').textHash);
  });

  it('the main hash leaves out the aside and nav regions a template draws per response', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`).join(' ');
    const page = (main: string, aside: string, tag = 'aside'): string => `<html><body><nav><a href="/n${aside}">menu</a></nav><p>${main}</p><a href="/x">x</a><${tag}><a href="/r${aside}">post ${aside}</a> ${aside}</${tag}></body></html>`;
    const of = (html: string) => extractLinks(html, 'http://m.localhost/p');
    const a = of(page(words, 'one'));
    // another draw of the aside: the text and links change, the main content does not
    expect(of(page(words, 'two')).mainHash).toBe(a.mainHash);
    expect(of(page(words, 'two')).stableHash).not.toBe(a.stableHash);
    // a change of the main content, or of its links, shows
    expect(of(page(words + ' more', 'one')).mainHash).not.toBe(a.mainHash);
    expect(of(page(words, 'one').replace('/x', '/y')).mainHash).not.toBe(a.mainHash);
    // a block drawn outside such regions is main content
    expect(of(page(words, 'one', 'div')).mainHash).not.toBe(of(page(words, 'two', 'div')).mainHash);
    // nested regions: the text after the outer one's end is main content again
    const nested = (after: string): string => `<aside><nav>n</nav> a</aside><p>${words}</p><aside><aside>x</aside> y</aside>${after}`;
    expect(of(nested('tail')).mainHash).not.toBe(of(nested('other')).mainHash);
    // no region, or too little main content: no main hash
    expect(of(`<p>${words}</p>`).mainHash).toBeUndefined();
    expect(of(page('a few words', 'one')).mainHash).toBeUndefined();
    expect(MAIN_MIN_WORDS).toBe(20);
  });

  it('a minted token is taken out of the shape whatever surrounds it; a long word is not', () => {
    const page = (id: string): string => `Not found. Reference ${id}; please retry.`;
    expect(pageShape(page('7f3a09c2b1d44e0f9a8b'), 'http://h.localhost/x')).toBe(pageShape(page('00c9e1a2f7b3d5e8aa10'), 'http://h.localhost/y'));
    expect(pageShape('internationalization guide', 'http://h.localhost/x')).not.toBe(pageShape('internationalisation guide', 'http://h.localhost/x'));
  });

  it('word sketches estimate how alike two pages are', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
    const same = wordSketch(words);
    expect(sketchSimilarity(same, wordSketch([...words, 'fbd']))).toBeGreaterThanOrEqual(0.75);
    expect(sketchSimilarity(same, wordSketch(words.map((w) => `${w}q`)))).toBeLessThan(0.5);
    expect(sketchSimilarity(undefined, same)).toBe(1);
    expect(wordSketch([])).toBe('');
  });
});
