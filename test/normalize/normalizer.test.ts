// createNormalizer: the same answers as key()/normalize(), a bounded memo, errors never cached.
import { describe, expect, it } from 'vitest';
import { createNormalizer, key, normalize, UrlError } from '../../src/normalize/index.js';

describe('createNormalizer', () => {
  it('answers as the pure functions do, from the memo the second time', () => {
    const n = createNormalizer({ presets: ['tracking'], cacheSize: 4 });
    const urls = ['HTTP://A.com/x?utm_source=1', 'http://b.com/', 'http://a.com/x', 'HTTP://A.com/x?utm_source=1'];
    for (const u of urls) {
      expect(n.normalize(u)).toBe(normalize(u, { presets: ['tracking'] }));
      expect(n.key(u)).toBe(key(u, { presets: ['tracking'] }));
    }
    expect(n.stats.hits).toBeGreaterThan(0);
  });
  it('stays bounded: two generations of cacheSize/2', () => {
    const n = createNormalizer({ cacheSize: 100 });
    for (let i = 0; i < 10_000; i++) n.key(`http://h/${i}`);
    // the oldest inputs were dropped: asking again is a miss
    const misses = n.stats.misses;
    n.key('http://h/0');
    expect(n.stats.misses).toBe(misses + 1);
    n.key('http://h/9999');
    expect(n.stats.misses).toBe(misses + 1);
  });
  it('does not cache errors and rejects bad options up front', () => {
    const n = createNormalizer();
    expect(() => n.key('http://a:99999/')).toThrow(UrlError);
    expect(() => n.key('http://a:99999/')).toThrow(UrlError);
    expect(() => createNormalizer({ presets: ['nope' as never] })).toThrow(TypeError);
  });
  it('cacheSize 0 turns the memo off', () => {
    const n = createNormalizer({ cacheSize: 0 });
    n.key('http://a/');
    n.key('http://a/');
    expect(n.stats.hits).toBe(0);
  });
});
