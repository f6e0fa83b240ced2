// The fast path (isNormalHttpUrl) must agree with the full ladder: a URL it accepts is its own
// normal form, and its fast key equals the key the ladder gives.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isNormalHttpUrl, keyFromRecord, normalizeRecord, recompose, key, UrlError } from '../../src/normalize/index.js';

const CORPUS = new URL('../../bench/corpus/urls.txt', import.meta.url);

function slow(u: string): { normal: string; key: string } | null {
  try {
    const r = normalizeRecord(u, { keepFragment: false, maxSegments: 0, level: 'scheme', strict: false, presets: [] });
    // normalizeRecord with explicit options still takes the fast path; force the ladder by a
    // round-trip through a non-normal spelling (uppercase scheme), which the fast path refuses.
    const forced = normalizeRecord(u.replace(/^http/, 'HTTP'));
    expect(recompose(forced)).toBe(recompose(r));
    return { normal: recompose(forced), key: keyFromRecord(forced) };
  } catch (error) {
    if (error instanceof UrlError) return null;
    throw error;
  }
}

function check(urls: string[]): number {
  let fast = 0;
  for (const u of urls) {
    if (!isNormalHttpUrl(u)) continue;
    fast++;
    const s = slow(u);
    expect(s, u).not.toBeNull();
    expect(s!.normal, u).toBe(u);
    expect(key(u), u).toBe(s!.key);
  }
  return fast;
}

describe('fast path', () => {
  it('agrees with the ladder on hand-picked URLs', () => {
    const urls = [
      'http://example.com/', 'https://example.com/a/b?c=d&e', 'http://example.com:8080/x', 'http://a.b.c/%2F%20',
      'http://example.com/a/.b/..c/', 'https://example.com/?', 'http://x-y.z/~a_b', 'http://example.com/a;b=c/d:e@f',
    ];
    expect(check(urls)).toBe(urls.length);
    for (const u of ['HTTP://a/', 'http://a', 'http://a:80/', 'http://a/./b', 'http://a/%7e', 'http://a/%2f', 'http://a/#f', 'http://1.2.3.4/', 'http://xn--p-e.com/', 'http://a../', 'http://a/b c', 'http://u@a/', 'http://a:08/']) {
      expect(isNormalHttpUrl(u), u).toBe(false);
    }
  });
  it('agrees with the ladder on every bench corpus URL', () => {
    const urls = readFileSync(CORPUS, 'utf8').split('\n').filter(Boolean);
    const fast = check(urls);
    console.log(`fast path: ${fast} of ${urls.length} corpus URLs`);
    expect(fast).toBeGreaterThan(0);
  }, 60_000);
});
