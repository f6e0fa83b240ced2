/**
 * The in-memory front of the seen set: a Bloom filter that answers "certainly absent" without a
 * disk read, and a bounded cache of the entries of keys known present. The database stays the
 * truth: a Bloom "maybe" is always confirmed against it or the cache (which compares whole keys),
 * so the front can make the store faster but never wrong. The Bloom filter is rebuilt from the
 * database at open; the cache starts empty and fills as entries are written and read.
 *
 * Bloom filter: Bloom, "Space/time trade-offs in hash coding with allowable errors" (CACM 1970),
 * blocked (see `BloomFilter`), the k probe positions derived from two 32-bit hashes (Kirsch and
 * Mitzenmacher, "Less hashing, same performance", 2006). The hashes are the key's 64-bit
 * fingerprint from src/normalize. When the filter has taken the number of keys it was sized for,
 * a new filter of twice the capacity is chained after it (Almeida et al., "Scalable Bloom
 * Filters", 2007), so the false-positive rate stays bounded without a rescan of the database.
 */
import { fingerprintWords } from '../../normalize/index.js';

/**
 * One fixed-size Bloom filter over a power-of-two bit array, blocked: the k bits of a key lie in
 * one 512-bit block (one 64-byte cache line) picked by `h1`, at positions a + i·b (mod 512) from
 * `h2` (b odd: k distinct bits). One cache miss per probe instead of k (Putze, Sanders and Singler,
 * "Cache-, hash- and space-efficient Bloom filters", 2007), for a slightly higher false-positive
 * rate (≈ 1.2 % instead of ≈ 0.8 % at 10 bits per key).
 */
export class BloomFilter {
  readonly capacity: number;
  readonly hashes: number;
  readonly bits: number;
  count = 0;
  private readonly words: Uint32Array;
  /** Blocks − 1 (the number of blocks is a power of two). */
  private readonly blockMask: number;

  constructor(capacity: number, bitsPerKey: number, restored?: BloomLayerSnapshot) {
    if (restored !== undefined) {
      // a layer as `snapshot()` left it (front-snapshot.ts checked its shape)
      this.capacity = restored.capacity;
      this.bits = restored.words.length * 32;
      this.blockMask = (this.bits >>> 9) - 1;
      this.hashes = restored.hashes;
      this.words = restored.words;
      this.count = restored.count;
      return;
    }
    if (!(capacity >= 1) || !(bitsPerKey >= 1)) throw new TypeError('BloomFilter: capacity and bitsPerKey must be >= 1');
    this.capacity = Math.ceil(capacity);
    // m = the next power of two ≥ n·b, at least 1024 bits; k = round(b·ln 2), 1 to 16
    let bits = 1024;
    while (bits < this.capacity * bitsPerKey && bits < 2 ** 31) bits *= 2;
    this.bits = bits;
    this.blockMask = (bits >>> 9) - 1;
    this.hashes = Math.max(1, Math.min(16, Math.round(bitsPerKey * Math.LN2)));
    this.words = new Uint32Array(bits >>> 5);
  }

  /** The layer's state (its bit array shared, not copied). */
  snapshot(): BloomLayerSnapshot {
    return { capacity: this.capacity, hashes: this.hashes, count: this.count, words: this.words };
  }

  addHashes(h1: number, h2: number): void {
    const base = (h1 & this.blockMask) << 4; // first word of the block
    const step = (h2 >>> 9) | 1; // odd: k distinct positions in the block
    let bit = h2;
    for (let i = 0; i < this.hashes; i++) {
      const b = bit & 511;
      this.words[base + (b >>> 5)]! |= 1 << (b & 31);
      bit += step;
    }
    this.count++;
  }

  hasHashes(h1: number, h2: number): boolean {
    const base = (h1 & this.blockMask) << 4;
    const step = (h2 >>> 9) | 1;
    let bit = h2;
    for (let i = 0; i < this.hashes; i++) {
      const b = bit & 511;
      if ((this.words[base + (b >>> 5)]! & (1 << (b & 31))) === 0) return false;
      bit += step;
    }
    return true;
  }

  get byteLength(): number {
    return this.words.byteLength;
  }
}

/** What a Bloom layer is, to be written down and read back (front-snapshot.ts). */
export interface BloomLayerSnapshot {
  readonly capacity: number;
  readonly hashes: number;
  readonly count: number;
  /** The bit array: a power of two of 32-bit words, at least one 512-bit block. */
  readonly words: Uint32Array;
}

/**
 * A chain of Bloom filters that grows by doubling: never a false negative, bounded false positives.
 *
 * `ScalableBloom.unknown()` is a front that knows nothing of the keys stored before it: it answers
 * "maybe" for every key (each is settled by the database), holds no bits, and only counts what is
 * added. A fleet partition taken over without the snapshot of a clean close starts with one, so
 * that taking a host over reads its queue and its rules, not every URL it ever saw.
 */
export class ScalableBloom {
  private readonly layers: BloomFilter[] = [];
  private readonly bitsPerKey: number;
  /** False for `unknown()`: a "no" from this front would not be certain, so it never says one. */
  readonly complete: boolean;
  /** Keys added to a front with no layers (`unknown()`). */
  private added = 0;

  /** A front that knows none of the keys stored before it (see the class comment). */
  static unknown(): ScalableBloom {
    return new ScalableBloom(0, 0, undefined, false);
  }

  /**
   * @param expected keys to size the first filter for (the stored count at open, plus room).
   * @param restored the layers of a front written down before (`snapshot()`), instead of an empty one.
   */
  constructor(expected: number, bitsPerKey: number, restored?: readonly BloomLayerSnapshot[], complete = true) {
    this.bitsPerKey = bitsPerKey;
    this.complete = complete;
    if (!complete) return;
    if (restored !== undefined && restored.length > 0) {
      for (const layer of restored) this.layers.push(new BloomFilter(layer.capacity, bitsPerKey, layer));
    } else {
      this.layers.push(new BloomFilter(Math.max(1 << 20, Math.ceil(expected * 1.5)), bitsPerKey));
    }
  }

  /** The layers' state, oldest first (bit arrays shared, not copied). */
  snapshot(): BloomLayerSnapshot[] {
    return this.layers.map((l) => l.snapshot());
  }

  add(key: string): void {
    const [h1, h2] = fingerprintWords(key);
    this.addWords(h1, h2);
  }

  /** Add by the key's fingerprint words (`fingerprintWords(key)`), computed once by the caller. */
  addWords(h1: number, h2: number): void {
    if (!this.complete) {
      this.added++;
      return;
    }
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
    return !this.complete;
  }

  /** True when no key was ever added: certain only for a complete front. */
  get knownEmpty(): boolean {
    return this.complete && this.count === 0;
  }

  /** The keys added (for `unknown()`, those added since it was made). */
  get count(): number {
    let n = this.added;
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
 * A bounded cache of the `url` entries of keys known present: two-way set-associative, the set
 * picked by the fingerprint the caller already computed; the newer key takes the first way and
 * pushes the older one to the second. Exact (a hit compares the whole key), O(1) with no hashing
 * of its own and no per-entry allocation, so it costs nothing on the common path where the Bloom
 * front already said "absent".
 *
 * Each key carries a value: what the store keeps of the key's entry (its state, see engine/url-state.ts, `entrySummary`),
 * so a present key can be answered without a read. The owner keeps it coherent: every write of an
 * entry goes through `set`, and a value read from the database is only kept when no write can
 * have overtaken the read.
 */
export class EntryCache {
  private keys: (string | undefined)[];
  private values: (string | undefined)[];
  /** `h1` of each cached key, to place it again when the cache grows. */
  private words: Int32Array;
  private mask: number;
  /** Slots at most: `size` rounded up to a power of two. */
  private readonly maxSlots: number;
  /** Keys put in since the last growth. */
  private inserted = 0;

  /**
   * @param size keys held at most (rounded up to a power of two, at least 1024). The cache starts
   * smaller and doubles, up to that, each time half as many keys went in as it has slots: a small store
   * pays for a small cache.
   */
  constructor(size: number) {
    let n = 1024;
    while (n < size && n < 2 ** 26) n *= 2;
    this.maxSlots = n;
    const start = Math.min(n, 1 << 16);
    this.keys = new Array<string | undefined>(start).fill(undefined);
    this.values = new Array<string | undefined>(start).fill(undefined);
    this.words = new Int32Array(start);
    this.mask = (start >>> 1) - 1;
  }

  /** The value of `key`, or `undefined` when it is not cached. `h1` is `fingerprintWords(key)[0]`. */
  get(key: string, h1: number): string | undefined {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    if (this.keys[i] === key) return this.values[i];
    if (this.keys[i + 1] === key) return this.values[i + 1];
    return undefined;
  }

  has(key: string, h1: number): boolean {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    return this.keys[i] === key || this.keys[i + 1] === key;
  }

  /**
   * `has(head + rest, h1)` without that key being built or flattened: a cached key is compared by
   * its fingerprint word first, then by its two parts.
   */
  hasSplit(head: string, rest: string, h1: number): boolean {
    h1 |= 0;
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    return this.holds(i, head, rest, h1) || this.holds(i + 1, head, rest, h1);
  }

  /** `get(head + rest, h1)` without that key being built or flattened (`hasSplit`). */
  getSplit(head: string, rest: string, h1: number): string | undefined {
    h1 |= 0;
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    if (this.holds(i, head, rest, h1)) return this.values[i];
    if (this.holds(i + 1, head, rest, h1)) return this.values[i + 1];
    return undefined;
  }

  private holds(i: number, head: string, rest: string, h1: number): boolean {
    const k = this.keys[i];
    return k !== undefined && this.words[i] === h1 && k.length === head.length + rest.length && k.startsWith(head) && k.endsWith(rest);
  }

  /** Cache `key` with `value` (replacing its value when it is cached already). */
  set(key: string, h1: number, value: string): void {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    const first = this.keys[i];
    if (first === key) {
      this.values[i] = value;
      return;
    }
    if (this.keys[i + 1] !== key && ++this.inserted > this.keys.length >>> 1 && this.keys.length < this.maxSlots) {
      this.grow();
      this.set(key, h1, value);
      return;
    }
    // the first way moves to the second (evicting it, or swapping when `key` was there)
    this.keys[i + 1] = first;
    this.values[i + 1] = this.values[i];
    this.words[i + 1] = this.words[i]!;
    this.keys[i] = key;
    this.values[i] = value;
    this.words[i] = h1;
  }

  delete(key: string, h1: number): void {
    const i = ((h1 ^ (h1 >>> 15)) & this.mask) << 1;
    if (this.keys[i] === key) {
      this.keys[i] = this.keys[i + 1];
      this.values[i] = this.values[i + 1];
      this.words[i] = this.words[i + 1]!;
    } else if (this.keys[i + 1] !== key) return;
    this.keys[i + 1] = undefined;
    this.values[i + 1] = undefined;
  }

  clear(): void {
    this.keys.fill(undefined);
    this.values.fill(undefined);
  }

  /** Twice the slots; every key placed again, the older way first so recency order is kept. */
  private grow(): void {
    const { keys, values, words } = this;
    const n = keys.length * 2;
    this.keys = new Array<string | undefined>(n).fill(undefined);
    this.values = new Array<string | undefined>(n).fill(undefined);
    this.words = new Int32Array(n);
    this.mask = (n >>> 1) - 1;
    this.inserted = 0;
    for (let way = 1; way >= 0; way--) {
      for (let i = way; i < keys.length; i += 2) {
        const k = keys[i];
        if (k !== undefined) this.set(k, words[i]!, values[i]!);
      }
    }
    this.inserted = 0;
  }
}

/**
 * An exact set of keys indexed by the fingerprint word the caller already has (`h1`): open
 * addressing with linear probing, backward-shift deletion (no tombstones), doubling at half load.
 * For the keys of batches being written: a few thousand that come and go every batch, where a
 * JavaScript `Set` would hash each key string again on add, lookup and delete.
 */
export class KeyTable {
  private keys: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
  private words = new Int32Array(1024);
  private mask = 1023;
  size = 0;

  /** `h1`: `fingerprintWords(key)[0]`, signed or not (compared as a 32-bit integer). */
  has(key: string, h1: number): boolean {
    h1 |= 0;
    for (let i = this.home(h1); ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === undefined) return false;
      if (this.words[i] === h1 && k === key) return true;
    }
  }

  add(key: string, h1: number): void {
    h1 |= 0;
    if (2 * (this.size + 1) > this.keys.length) this.grow();
    let i = this.home(h1);
    for (; this.keys[i] !== undefined; i = (i + 1) & this.mask) if (this.words[i] === h1 && this.keys[i] === key) return;
    this.keys[i] = key;
    this.words[i] = h1;
    this.size++;
  }

  delete(key: string, h1: number): void {
    h1 |= 0;
    let i = this.home(h1);
    for (; ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === undefined) return;
      if (this.words[i] === h1 && k === key) break;
    }
    this.size--;
    // backward shift: move up every later entry of the run whose home is not in (i, j]
    for (let j = (i + 1) & this.mask; this.keys[j] !== undefined; j = (j + 1) & this.mask) {
      const home = this.home(this.words[j]!);
      if (((j - home) & this.mask) >= ((j - i) & this.mask)) {
        this.keys[i] = this.keys[j];
        this.words[i] = this.words[j]!;
        i = j;
      }
    }
    this.keys[i] = undefined;
  }

  clear(): void {
    this.keys.fill(undefined);
    this.size = 0;
  }

  private home(h1: number): number {
    return (h1 ^ (h1 >>> 15)) & this.mask;
  }

  private grow(): void {
    const { keys, words } = this;
    this.keys = new Array<string | undefined>(keys.length * 2).fill(undefined);
    this.words = new Int32Array(keys.length * 2);
    this.mask = keys.length * 2 - 1;
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) this.add(keys[i]!, words[i]!);
  }
}
