// The canonical key (format v1): a bijection of the normal form, host-first ordering, stable fingerprints.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fingerprint, fingerprintWords, key, keyFromNormal, normalize, urlFromKey, KEY_FORMAT_VERSION } from '../../src/normalize/index.js';

describe('key format v1', () => {
  it('is version 1', () => expect(KEY_FORMAT_VERSION).toBe(1));

  it.each([
    ['https://www.Example.com:8080/a?b', 'com,example,www)https://:8080/a?b'],
    ['http://example.com', 'com,example)http:///'],
    ['http://u:p@example.com/', 'com,example)http://u:p@/'],
    ['http://u@example.com:81/x', 'com,example)http://u@:81/x'],
    ['http://127.0.0.1/', '127.0.0.1)http:///'],
    ['http://[::1]:8080/', '[::1])http://:8080/'],
    ['http://localhost/', 'localhost)http:///'],
    ['mailto:Joe@Example.COM', ')mailto:Joe@example.com'],
    ['file:///etc/passwd', ')file:///etc/passwd'],
    ['foo://a,b).c/x', 'c,a%2Cb%29)foo:///x'],
    ['foo://a%2Cb.c/x', 'c,a%252Cb)foo:///x'],
    ['http://example.com/?', 'com,example)http:///?'],
  ])('%s → %s', (url, expected) => {
    expect(key(url)).toBe(expected);
    expect(urlFromKey(expected)).toBe(normalize(url));
  });

  it('keeps what distinguishes URLs (unlike SURT)', () => {
    const distinct = [
      'http://example.com/',
      'https://example.com/',
      'http://example.com:8080/',
      'http://u@example.com/',
      'http://example.com/?',
      'http://example.com/A',
      'http://example.com/a',
      'http://example.com/a/',
      'http://example.com/a%2Fb',
      'http://example.com/a/b',
      'http://www.example.com/',
      'http://example.com/?a=1&b=2',
      'http://example.com/?b=2&a=1',
    ];
    expect(new Set(distinct.map((u) => key(u))).size).toBe(distinct.length);
  });

  it('sorts one host (and its subdomains) together', () => {
    const urls = ['http://b.example.com/', 'http://example.org/', 'http://example.com/z', 'http://example.com/a', 'http://a.example.com/', 'http://exampleacom.net/'];
    const keys = urls.map((u) => key(u)).sort();
    const hosts = keys.map((k) => k.slice(0, k.indexOf(')')));
    expect(hosts).toEqual(['com,example', 'com,example', 'com,example,a', 'com,example,b', 'net,exampleacom', 'org,example']);
  });

  it('round-trips: urlFromKey(keyFromNormal(n)) === n (property)', () => {
    const part = fc.stringMatching(/^[a-z0-9]{1,6}$/);
    const url = fc
      .record({
        scheme: fc.constantFrom('http', 'https', 'foo', 'ws'),
        user: fc.option(part, { nil: undefined }),
        labels: fc.array(part, { minLength: 1, maxLength: 4 }),
        port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        path: fc.array(fc.stringMatching(/^[a-zA-Z0-9%,)(._~-]{0,5}$/), { maxLength: 4 }),
        query: fc.option(fc.stringMatching(/^[a-z0-9=&?/]{0,8}$/), { nil: undefined }),
      })
      .map((r) => `${r.scheme}://${r.user ? r.user + '@' : ''}${r.labels.join('.')}${r.port ? ':' + r.port : ''}/${r.path.join('/')}${r.query !== undefined ? '?' + r.query : ''}`);
    fc.assert(
      fc.property(url, (u) => {
        let n: string;
        try {
          n = normalize(u);
        } catch {
          return true; // invalid inputs are covered elsewhere
        }
        const k = keyFromNormal(n);
        return urlFromKey(k) === n && key(u) === k;
      }),
      { numRuns: 3000 },
    );
  });
});

describe('fingerprint', () => {
  it('is 64 bits, 16 hex digits, and stable across runs and machines', () => {
    const k = key('https://www.example.com/');
    expect(fingerprint(k)).toMatch(/^[0-9a-f]{16}$/);
    // Fixed vectors: a change here changes every stored fingerprint (bump KEY_FORMAT_VERSION).
    expect(fingerprint('')).toBe('488bdcb81aee8d83');
    expect(fingerprint('com,example,www)https:///')).toBe('6c498c6fe23a8d69');
    expect(fingerprint('com,example)http:///a')).toBe('837d00293f581dbb');
    const [high, low] = fingerprintWords('com,example)http:///a');
    expect(high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0')).toBe('837d00293f581dbb');
  });
  it('separates 200k distinct keys without a collision', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200_000; i++) seen.add(fingerprint(`com,example)http:///p/${i}`));
    expect(seen.size).toBe(200_000);
  });
});
