/**
 * The in-memory front of the seen set: a Bloom filter that answers "certainly absent" without a
 * disk read, and a bounded cache of keys known present. The database stays the truth: a Bloom
 * "maybe" is always confirmed against it (or the cache), so the front can make the store faster
 * but never wrong. Both are rebuilt from the database at open.
 *
 * Bloom filter: Bloom, "Space/time trade-offs in hash coding with allowable errors" (CACM 1970),
 * with the k probe positions derived from two 32-bit hashes as h1 + i·h2 (Kirsch and
 * Mitzenmacher, "Less hashing, same performance", 2006). The hashes are the key's 64-bit
 * fingerprint from src/normalize. When the filter has taken the number of keys it was sized for,
 * a new filter of twice the capacity is chained after it (Almeida et al., "Scalable Bloom
 * Filters", 2007), so the false-positive rate stays bounded without a rescan of the database.
 */
import { fingerprintWords } from '../normalize/index.js';

/** One fixed-size Bloom filter over a power-of-two bit array. */
export class BloomFilter {
  readonly capacity: number;
  readonly hashes: number;
  readonly bits: number;
  count = 0;
  private readonly words: Uint32Array;
  private readonly mask: number;

  constructor(capacity: number, bitsPerKey: number) {
    if (!(capacity >= 1) || !(bitsPerKey >= 1)) throw new TypeError('BloomFilter: capacity and bitsPerKey must be >= 1');
    this.capacity = Math.ceil(capacity);
    // m = the next power of two ≥ n·b, at least 1024 bits; k = round(b·ln 2), 1 to 16
    let bits = 1024;
    while (bits < this.capacity * bitsPerKey && bits < 2 ** 31) bits *= 2;
    this.bits = bits;
    this.mask = bits - 1;
    this.hashes = Math.max(1, Math.min(16, Math.round(bitsPerKey * Math.LN2)));
    this.words = new Uint32Array(bits >>> 5);
  }

  addHashes(h1: number, h2: number): void {
    const step = (h2 | 1) >>> 0; // odd: visits k distinct positions of a power-of-two table
    let h = h1 >>> 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = h & this.mask;
      this.words[bit >>> 5]! |= 1 << (bit & 31);
      h = (h + step) >>> 0;
    }
    this.count++;
  }

  hasHashes(h1: number, h2: number): boolean {
    const step = (h2 | 1) >>> 0;
    let h = h1 >>> 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = h & this.mask;
      if ((this.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      h = (h + step) >>> 0;
    }
    return true;
  }

  get byteLength(): number {
    return this.words.byteLength;
  }
}

/** A chain of Bloom filters that grows by doubling: never a false negative, bounded false positives. */
export class ScalableBloom {
  private readonly layers: BloomFilter[] = [];
  private readonly bitsPerKey: number;

  /** @param expected keys to size the first filter for (the stored count at open, plus room). */
  constructor(expected: number, bitsPerKey: number) {
    this.bitsPerKey = bitsPerKey;
    this.layers.push(new BloomFilter(Math.max(1 << 14, Math.ceil(expected * 1.5)), bitsPerKey));
  }

  add(key: string): void {
    const [h1, h2] = fingerprintWords(key);
    let last = this.layers[this.layers.length - 1]!;
    if (last.count >= last.capacity) {
      last = new BloomFilter(last.capacity * 2, this.bitsPerKey);
      this.layers.push(last);
    }
    last.addHashes(h1, h2);
  }

  has(key: string): boolean {
    const [h1, h2] = fingerprintWords(key);
    for (let i = 0; i < this.layers.length; i++) if (this.layers[i]!.hasHashes(h1, h2)) return true;
    return false;
  }

  get count(): number {
    let n = 0;
    for (const l of this.layers) n += l.count;
    return n;
  }

  get byteLength(): number {
    let n = 0;
    for (const l of this.layers) n += l.byteLength;
    return n;
  }
}

/**
 * A bounded set of recently used keys, in two generations: when the young generation is full it
 * becomes the old one and the previous old one is dropped; a hit in the old generation moves the
 * key to the young one. An approximation of LRU with O(1) work and no per-entry links.
 */
export class KeyCache {
  private young = new Set<string>();
  private old = new Set<string>();
  private readonly half: number;

  constructor(size: number) {
    this.half = Math.max(1, Math.floor(size / 2));
  }

  has(key: string): boolean {
    if (this.young.has(key)) return true;
    if (this.old.has(key)) {
      this.add(key);
      return true;
    }
    return false;
  }

  add(key: string): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Set();
    }
    this.young.add(key);
  }

  delete(key: string): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}
