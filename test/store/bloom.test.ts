// The in-memory front: no false negatives ever, a bounded false-positive rate, an exact cache.
import { describe, expect, it } from 'vitest';
import { fingerprintWords } from '../../src/normalize/index.js';
import { BloomFilter, KeyCache, ScalableBloom } from '../../src/store/bloom.js';

const keyOf = (i: number): string => `com,example,h${i % 97})https://p/${i}/page-${(i * 7919) % 10007}.html`;

describe('ScalableBloom', () => {
  it('has no false negatives and about 1 % false positives at 10 bits per key, growing past its size', () => {
    const bloom = new ScalableBloom(0, 10);
    const n = 1_500_000; // past the first layer (1M)
    for (let i = 0; i < n; i++) bloom.add(keyOf(i));
    for (let i = 0; i < n; i += 7) expect(bloom.has(keyOf(i))).toBe(true);
    let fp = 0;
    const probes = 200_000;
    for (let i = 0; i < probes; i++) if (bloom.has(keyOf(n + i))) fp++;
    expect(fp / probes).toBeLessThan(0.03);
    expect(bloom.count).toBe(n);
  });

  it('agrees with itself by words and by key', () => {
    const bloom = new ScalableBloom(10, 10);
    const [h1, h2] = fingerprintWords('k');
    bloom.addWords(h1, h2);
    expect(bloom.has('k')).toBe(true);
    expect(new BloomFilter(100, 10).hashes).toBe(7);
  });
});

describe('KeyCache', () => {
  it('is exact: a hit compares the whole key', () => {
    const cache = new KeyCache(1024);
    for (let i = 0; i < 5000; i++) {
      const k = keyOf(i);
      cache.add(k, fingerprintWords(k)[0]);
    }
    let hits = 0;
    for (let i = 0; i < 5000; i++) {
      const k = keyOf(i);
      if (cache.has(k, fingerprintWords(k)[0])) hits++;
      // a different key in the same slot is never a hit
      expect(cache.has(k + 'x', fingerprintWords(k)[0])).toBe(false);
    }
    expect(hits).toBeGreaterThan(500);
    expect(hits).toBeLessThanOrEqual(1024);
    const recent = keyOf(4999);
    expect(cache.has(recent, fingerprintWords(recent)[0])).toBe(true);
  });
});
