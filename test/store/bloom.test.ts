// The in-memory front: no false negatives ever, a bounded false-positive rate, an exact cache.
import { describe, expect, it } from 'vitest';
import { fingerprintWords } from '../../src/normalize/index.js';
import { BloomFilter, EntryCache, KeyTable, ScalableBloom } from '../../src/store/front/bloom.js';
import { seededRandom } from '../../sites/seeded-random.js';

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

describe('EntryCache', () => {
  it('is exact: a hit compares the whole key', () => {
    const cache = new EntryCache(1024);
    for (let i = 0; i < 5000; i++) {
      const k = keyOf(i);
      cache.set(k, fingerprintWords(k)[0], 'q');
    }
    let hits = 0;
    for (let i = 0; i < 5000; i++) {
      const k = keyOf(i);
      if (cache.has(k, fingerprintWords(k)[0])) hits++;
      // a different key in the same slot is never a hit
      expect(cache.has(k + 'x', fingerprintWords(k)[0])).toBe(false);
      expect(cache.get(k + 'x', fingerprintWords(k)[0])).toBeUndefined();
    }
    expect(hits).toBeGreaterThan(500);
    expect(hits).toBeLessThanOrEqual(1024);
    const recent = keyOf(4999);
    expect(cache.has(recent, fingerprintWords(recent)[0])).toBe(true);
  });

  it('answers hasSplit(head, rest) exactly as has(head + rest), for every split', () => {
    const cache = new EntryCache(1024);
    for (let i = 0; i < 3000; i++) {
      const k = keyOf(i);
      cache.set(k, fingerprintWords(k)[0], 'q');
    }
    for (let i = 0; i < 3000; i += 7) {
      const k = keyOf(i);
      const w = fingerprintWords(k)[0];
      const unsigned = w;
      const signed = w | 0;
      for (let cut = 0; cut <= k.length; cut += 5) {
        const [head, rest] = [k.slice(0, cut), k.slice(cut)];
        expect(cache.hasSplit(head, rest, cut % 2 === 0 ? unsigned : signed), `${head}|${rest}`).toBe(cache.has(k, w));
        // the same word with other text of the same length, or a part of the key missing
        if (rest !== '') expect(cache.hasSplit(head, rest.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x')), w)).toBe(false);
        expect(cache.hasSplit(head, rest.slice(1), w)).toBe(cut === k.length && cache.has(head, w));
        expect(cache.hasSplit('x' + head, rest, w)).toBe(false);
      }
    }
  });

  it('grows up to its size, keeping what it held and each value', () => {
    const cache = new EntryCache(1 << 18);
    const n = 150_000; // past the first size (65,536 slots): it doubles twice
    for (let i = 0; i < n; i++) {
      const k = keyOf(i);
      cache.set(k, fingerprintWords(k)[0], i % 3 === 0 ? 'q' : `p d0 t0 Bx T${i}`);
    }
    let hits = 0;
    for (let i = 0; i < n; i++) {
      const k = keyOf(i);
      const v = cache.get(k, fingerprintWords(k)[0]);
      if (v === undefined) continue;
      hits++;
      expect(v).toBe(i % 3 === 0 ? 'q' : `p d0 t0 Bx T${i}`);
    }
    // 2^18 slots in sets of two at 57 % load: most of 150,000 keys stay (≈ 13 % are pushed out of
    // a full set, a few more before a growth)
    expect(hits).toBeGreaterThan(0.75 * n);
    const last = keyOf(n - 1);
    expect(cache.get(last, fingerprintWords(last)[0])).toBe(`p d0 t0 Bx T${n - 1}`);
  });

  it('carries each key\'s latest value, and forgets a deleted key', () => {
    const cache = new EntryCache(1024);
    const keys = [keyOf(1), keyOf(2), keyOf(3)];
    // all three in one set (two ways): force it with the same h1
    const h1 = 12345;
    cache.set(keys[0]!, h1, 'q');
    cache.set(keys[1]!, h1, 'f');
    expect(cache.get(keys[0]!, h1)).toBe('q');
    expect(cache.get(keys[1]!, h1)).toBe('f');
    // an update in the second way swaps the pair and keeps both
    cache.set(keys[0]!, h1, 'x');
    expect(cache.get(keys[0]!, h1)).toBe('x');
    expect(cache.get(keys[1]!, h1)).toBe('f');
    // a third key evicts the older one
    cache.set(keys[2]!, h1, 'r');
    expect(cache.get(keys[2]!, h1)).toBe('r');
    expect(cache.get(keys[0]!, h1)).toBe('x');
    expect(cache.has(keys[1]!, h1)).toBe(false);
    cache.delete(keys[2]!, h1);
    expect(cache.has(keys[2]!, h1)).toBe(false);
    expect(cache.get(keys[0]!, h1)).toBe('x');
    cache.delete(keys[0]!, h1);
    expect(cache.has(keys[0]!, h1)).toBe(false);
  });
});

describe('KeyTable', () => {
  it('agrees with a Set through random adds and deletes, with colliding words and wrap-around', () => {
    const rnd = seededRandom(0x7ab1e);
    const table = new KeyTable();
    const model = new Set<string>();
    // few distinct words, so runs collide and wrap past the end of the slots; signed and unsigned
    // forms of one word are the same word
    const wordOf = (k: string): number => {
      const w = fingerprintWords(k)[0] % 5000;
      return w % 2 === 0 ? w : (w | 0x80000000) >>> 0;
    };
    for (let step = 0; step < 200_000; step++) {
      const k = `k${rnd.int(0, 3000)}`;
      const w = wordOf(k);
      const r = rnd.next();
      if (r < 0.5) {
        table.add(k, r < 0.25 ? w : w | 0);
        model.add(k);
      } else if (r < 0.9) {
        table.delete(k, w);
        model.delete(k);
      } else {
        expect(table.has(k, w), k).toBe(model.has(k));
      }
      expect(table.size).toBe(model.size);
    }
    for (let i = 0; i <= 3000; i++) expect(table.has(`k${i}`, wordOf(`k${i}`)), `k${i}`).toBe(model.has(`k${i}`));
    table.clear();
    expect(table.size).toBe(0);
    for (let i = 0; i <= 3000; i++) expect(table.has(`k${i}`, wordOf(`k${i}`))).toBe(false);
  });

  it('grows past half load and keeps every key', () => {
    const table = new KeyTable();
    for (let i = 0; i < 100_000; i++) table.add(keyOf(i), fingerprintWords(keyOf(i))[0]);
    expect(table.size).toBe(100_000);
    for (let i = 0; i < 100_000; i += 3) expect(table.has(keyOf(i), fingerprintWords(keyOf(i))[0])).toBe(true);
    expect(table.has(keyOf(100_001), fingerprintWords(keyOf(100_001))[0])).toBe(false);
  });
});
