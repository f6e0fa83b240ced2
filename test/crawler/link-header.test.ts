/**
 * The `Link` header's canonical URL (RFC 8288 Web Linking, RFC 6596 §3), read as a page's
 * `rel=canonical`: src/crawler/http/link-header.ts.
 */
import { describe, expect, it } from 'vitest';
import { linkHeaderCanonical, pageCanonical, parseLinkHeader } from '../../src/crawler/http/link-header.js';

describe('parseLinkHeader (RFC 8288 §3)', () => {
  it('reads the examples of RFC 8288 §3.5', () => {
    expect(parseLinkHeader('<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter"')).toEqual([
      { target: 'http://example.com/TheBook/chapter2', params: new Map([['rel', 'previous'], ['title', 'previous chapter']]) },
    ]);
    expect(parseLinkHeader('</terms>; rel="copyright"; anchor="#foo"')[0]!.params.get('anchor')).toBe('#foo');
    const two = parseLinkHeader('<https://example.org/>; rel="start http://example.net/relation/other", <https://example.org/index>; rel="index"');
    expect(two.map((l) => [l.target, l.params.get('rel')])).toEqual([
      ['https://example.org/', 'start http://example.net/relation/other'],
      ['https://example.org/index', 'index'],
    ]);
  });

  it('splits on commas outside <…> and quoted strings only, and keeps the first of a parameter', () => {
    const links = parseLinkHeader('<http://h/a,b>; title="x, y \\"z\\""; rel=canonical; rel=next , <http://h/c>;rel=next');
    expect(links.map((l) => l.target)).toEqual(['http://h/a,b', 'http://h/c']);
    expect(links[0]!.params.get('title')).toBe('x, y "z"');
    expect(links[0]!.params.get('rel')).toBe('canonical');
  });

  it('skips a link-value that does not open with <', () => {
    expect(parseLinkHeader('http://h/x; rel=canonical, <http://h/y>; rel=canonical').map((l) => l.target)).toEqual(['http://h/y']);
    expect(parseLinkHeader('')).toEqual([]);
    expect(parseLinkHeader('<http://h/unclosed; rel=canonical')).toEqual([]);
  });
});

describe('the canonical URL a response names in its Link header', () => {
  const base = 'http://h.example/list?page=2&utm_source=x';

  it('resolves the target against the URL that answered, its relation type in any case', () => {
    expect(linkHeaderCanonical('</list>; rel="Canonical"', base)).toBe('http://h.example/list');
    expect(linkHeaderCanonical(['<http://h.example/a>; rel="alternate"', '<a>; rel="nofollow canonical"'], base)).toBe('http://h.example/a');
  });

  it('names none where links disagree, or where an anchor makes it another resource\'s', () => {
    expect(linkHeaderCanonical('</a>; rel=canonical, </b>; rel=canonical', base)).toBeUndefined();
    expect(linkHeaderCanonical('</a>; rel=canonical, <http://h.example/a>; rel=canonical', base)).toBe('http://h.example/a');
    expect(linkHeaderCanonical('</a>; rel=canonical; anchor="/other.pdf"', base)).toBeUndefined();
    expect(linkHeaderCanonical('</a>; rel=prev', base)).toBeUndefined();
    expect(linkHeaderCanonical(undefined, base)).toBeUndefined();
  });

  it('a page naming two canonical URLs, in its head and its header, names none', () => {
    expect(pageCanonical('http://h.example/a', '</a>; rel=canonical', base)).toBe('http://h.example/a');
    expect(pageCanonical(undefined, '</a>; rel=canonical', base)).toBe('http://h.example/a');
    expect(pageCanonical('http://h.example/a', undefined, base)).toBe('http://h.example/a');
    expect(pageCanonical('http://h.example/a', '</b>; rel=canonical', base)).toBeUndefined();
  });
});
