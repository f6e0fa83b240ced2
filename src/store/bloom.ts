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
    this.layers.push(new BloomFilter(Math.max(1 << 20, Math.ceil(expected * 1.5)), bitsPerKey));
  }

  add(key: string): void {
    const [h1, h2] = fingerprintWords(key);
    this.addWords(h1, h2);
  }

  /** Add by the key's fingerprint words (`fingerprintWords(key)`), computed once by the caller. */
  addWords(h1: number, h2: number): void {
    let last = this.layers[this.layers.length - 1]!;
    if (last.count >= last.capacity) {
      last = new BloomFilter(last.capacity * 2, this.bitsPerKey);
      this.layers.push(last);
    }
    last.addHashes(h1, h2);
  }

  has(key: string): boolean {
    const [h1, h2] = fingerprintWords(key);
    return this.hasWords(h1, h2);
  }

  hasWords(h1: number, h2: number): boolean {
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
 * A bounded cache of keys known present: two-way set-associative, the set picked by the
 * fingerprint the caller already computed; the newer key takes the first way and pushes the
 * older one to the second. Exact (a hit compares the whole key), O(1) with no hashing of its own
 * and no per-entry allocation, so it costs nothing on the common path where the Bloom front
 * already said "absent".
 */
export class KeyCache {
  private readonly slots: (string | undefined)[];
  private readonly mask: number;

  /** @param size keys held at most (rounded up to a power of two, at least 1024) */
  constructor(size: number) {
    let n = 1024;
    while (n < size && n < 2 ** 26) n *= 2;
    this.slots = new Array<string | undefined>(n).fill(undefined);
    this.mask = (n >>> 1) - 1;
  }

  /** `h1` is the key's first fingerprint word (`fingerprintWords(key)[0]`). */
  has(key: string, h1: number): boolean {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    return this.slots[i] === key || this.slots[i + 1] === key;
  }

  add(key: string, h1: number): void {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    const first = this.slots[i];
    if (first === key) return;
    this.slots[i + 1] = first;
    this.slots[i] = key;
  }

  clear(): void {
    this.slots.fill(undefined);
  }
}
