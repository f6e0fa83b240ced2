/**
 * The memory backend: the same engine on sorted in-memory maps. For tests, and for embedding
 * users who need no disk. Writes are atomic (applied synchronously as a whole) but not durable.
 */
import { StoreEngine } from '../engine/index.js';
import { SPACES, type Space } from '../keys.js';
import type { Kv, KvOp, KvRange } from './kv.js';
import type { SeenStore, StoreOptions } from '../seen-store.js';
import { checkStoreOptionNames, storeOptionNames } from '../option-names.js';

/** One namespace: a Map for lookups and a lazily sorted key list for ranges. */
class SortedSpace {
  readonly map = new Map<string, string>();
  private sorted: string[] = [];
  private dirty = false;

  set(key: string, value: string): void {
    if (!this.map.has(key)) this.dirty = true;
    this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  private keysInOrder(): string[] {
    if (this.dirty || this.sorted.length > this.map.size * 2 + 64) {
      this.sorted = [...this.map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      this.dirty = false;
    }
    return this.sorted;
  }

  /** The entries of `range`, copied at the call (a snapshot, as LevelDB iterators read one). */
  range(range: KvRange): [string, string][] {
    const keys = this.keysInOrder();
    const lowerKey = range.gte ?? range.gt;
    let lo = 0;
    if (lowerKey !== undefined) {
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const k = keys[mid]!;
        if (k < lowerKey || (range.gte === undefined && k === lowerKey)) lo = mid + 1;
        else hi = mid;
      }
    }
    const limit = range.limit === undefined || range.limit < 0 ? Infinity : range.limit;
    const out: [string, string][] = [];
    if (range.reverse === true) {
      const all: [string, string][] = [];
      for (let i = lo; i < keys.length; i++) {
        const k = keys[i]!;
        if (range.lt !== undefined && k >= range.lt) break;
        const v = this.map.get(k);
        if (v !== undefined) all.push([k, v]);
      }
      for (let i = all.length - 1; i >= 0 && out.length < limit; i--) out.push(all[i]!);
      return out;
    }
    for (let i = lo; i < keys.length && out.length < limit; i++) {
      const k = keys[i]!;
      if (range.lt !== undefined && k >= range.lt) break;
      const v = this.map.get(k);
      if (v !== undefined) out.push([k, v]);
    }
    return out;
  }
}

/** The memory `Kv` (exported for tests that wrap it, e.g. to inject write failures). */
export class MemoryKv implements Kv {
  readonly durable = false;
  readonly location = '(memory)';
  private readonly spaces: Record<Space, SortedSpace>;
  private open = true;

  constructor() {
    const spaces = {} as Record<Space, SortedSpace>;
    for (const s of SPACES) spaces[s] = new SortedSpace();
    this.spaces = spaces;
  }

  async get(space: Space, key: string): Promise<string | undefined> {
    return this.spaces[space].map.get(key);
  }

  async getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    const m = this.spaces[space].map;
    return keys.map((k) => m.get(k));
  }

  async getAcross(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    return keys.map(([space, k]) => this.spaces[space].map.get(k));
  }

  async *entries(space: Space, range: KvRange = {}): AsyncIterable<[string, string]> {
    yield* this.spaces[space].range(range);
  }

  async *keys(space: Space, range: KvRange = {}): AsyncIterable<string> {
    for (const [k] of this.spaces[space].range(range)) yield k;
  }

  async write(ops: readonly KvOp[]): Promise<void> {
    if (!this.open) throw new TypeError('memory store: closed');
    for (const op of ops) {
      if (op.value === undefined) this.spaces[op.space].delete(op.key);
      else this.spaces[op.space].set(op.key, op.value);
    }
  }

  async close(): Promise<void> {
    this.open = false;
  }
}

/**
 * A store in memory, with the same behaviour as `openStore` except durability. With `readOnly`
 * it is an empty store that refuses every write (for code paths that take either backend).
 */
export async function openMemoryStore(options: StoreOptions = {}): Promise<SeenStore> {
  checkStoreOptionNames('openMemoryStore', options, storeOptionNames);
  return StoreEngine.open(new MemoryKv(), { durable: false, atomicBatch: true }, options);
}
