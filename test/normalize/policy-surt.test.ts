/**
 * SURT export keys (src/normalize/surt.ts) beyond the Internet Archive suite: ports, IP literals,
 * delimiters that stay encoded, errors.
 */
import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/errors.js';
import { hostToSurt, toSurt } from '../../src/normalize/surt.js';

describe('toSurt', () => {
  it('writes the Internet Archive form', () => {
    expect(toSurt('http://www.Example.com/a/?b=1&a=2#f')).toBe('com,example)/a?a=2&b=1');
    expect(toSurt('http://www.example.com/', { withScheme: true, trailingComma: true })).toBe('http://(com,example,)/');
    expect(toSurt('https://user:pw@www2.example.com:8443/X/')).toBe('com,example:8443)/x');
    expect(toSurt('https://www2.example.com:8443/', { trailingComma: true, hostMassage: false })).toBe('com,example,www2:8443,)/');
    expect(toSurt('http://[2001:DB8::1]:8080/')).toBe('[2001:db8::1]:8080)/');
    expect(toSurt('http://www.com/')).toBe('com,www)/');
  });

  it('drops session ids, the trailing slash, the empty query; keeps query field order by whole field', () => {
    expect(toSurt('http://a.org/p;jsessionid=ABC/?PHPSESSID=x&b=2&a=1&a=0')).toBe('org,a)/p?a=0&a=1&b=2');
    expect(toSurt('http://a.org/dir/?')).toBe('org,a)/dir');
  });

  it('decodes printable escapes once, but never a delimiter or %', () => {
    expect(toSurt('http://a.org/%7Ex%3Ay%2Fz?q=%3A%26%3D%2B%23%25%2541%20')).toBe('org,a)/~x:y%2fz?q=:%26%3d%2b%23%25%2541%20');
  });

  it('passes ARC/WARC pseudo-URIs and URIs without a host through', () => {
    expect(toSurt('  dns:Example.com ')).toBe('dns:Example.com');
    expect(toSurt('mailto:Someone@Example.com')).toBe('mailto:Someone@Example.com');
    expect(toSurt('   ')).toBe('-');
  });

  it('rejects what normalize rejects, with a code', () => {
    expect(() => toSurt('http://exa mple.com/')).toThrow(UrlError);
    expect(() => toSurt('/relative')).toThrow(UrlError);
  });

  it('is linear on a long query (hang guard)', () => {
    const q = Array.from({ length: 20_000 }, (_, i) => `k${i % 101}=%41${i}`).join('&');
    expect(() => toSurt(`http://a.org/?${q}`)).toThrow(/ERR_TOO_LONG/);
    expect(toSurt(`http://a.org/?${q}`, { maxLength: 1_000_000 }).length).toBeGreaterThan(100_000);
  }, 20_000);
});

describe('hostToSurt', () => {
  it('reverses labels, and dotted quads unless told not to', () => {
    expect(hostToSurt('www.archive.org')).toBe('org,archive,www');
    expect(hostToSurt('123.45.167.89')).toBe('89,167,45,123');
    expect(hostToSurt('123.45.167.89', false)).toBe('123.45.167.89');
    expect(hostToSurt('10.162.1024.3', false)).toBe('3,1024,162,10');
    expect(hostToSurt('[::1]')).toBe('[::1]');
  });
});
