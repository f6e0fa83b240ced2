/**
 * A fault-injecting `Kv` for power-loss tests, after LevelDB's FaultInjectionTestEnv: sorted
 * in-memory namespaces that also remember their state as of the last `write(…, { sync: true })`.
 * `dropUnsynced()` reverts every namespace to that state (what a power loss does to writes that
 * were not fsynced) and cuts off the `Kv` in use; `reopen()` gives a fresh `Kv` over what survived.
 */
import { SPACES, type Space } from '../../src/store/keys.js';
import type { Kv, KvOp, KvRange } from '../../src/store/backends/kv.js';

type Data = Record<Space, Map<string, string>>;

function emptyData(): Data {
  const d = {} as Data;
  for (const s of SPACES) d[s] = new Map();
  return d;
}

function copyData(src: Data): Data {
  const d = {} as Data;
  for (const s of SPACES) d[s] = new Map(src[s]);
  return d;
}

function rangeOf(map: ReadonlyMap<string, string>, range: KvRange): [string, string][] {
  let all = [...map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  all = all.filter(([k]) => {
    if (range.gte !== undefined && k < range.gte) return false;
    if (range.gt !== undefined && k <= range.gt) return false;
    if (range.lt !== undefined && k >= range.lt) return false;
    return true;
  });
  if (range.reverse === true) all.reverse();
  const limit = range.limit === undefined || range.limit < 0 ? Infinity : range.limit;
  return all.slice(0, limit);
}

/** One write as the disk saw it. */
export interface WriteEvent {
  readonly ops: readonly KvOp[];
  readonly sync: boolean;
}

/** The "disk": live data, the synced image, and the `Kv`s opened on it. */
export class FaultDisk {
  private live: Data = emptyData();
  private synced: Data = emptyData();
  private generation = 0;
  /** Called for every write that was applied (after it is applied). */
  onWrite: ((event: WriteEvent) => void) | undefined;
  writes = 0;
  syncedWrites = 0;
  drops = 0;

  /** A `Kv` for `StoreEngine.open` on the current data. */
  reopen(): FaultKv {
    return new FaultKv(this, this.generation);
  }

  /** Power loss: every namespace goes back to the last synced state; open `Kv`s are dead. */
  dropUnsynced(): void {
    this.live = copyData(this.synced);
    this.generation++;
    this.drops++;
  }

  /** Whether the live data differs from the synced image (there is something to lose). */
  hasUnsynced(): boolean {
    return SPACES.some((s) => {
      const a = this.live[s];
      const b = this.synced[s];
      if (a.size !== b.size) return true;
      for (const [k, v] of a) if (b.get(k) !== v) return true;
      return false;
    });
  }

  /** @internal */
  alive(generation: number): boolean {
    return generation === this.generation;
  }

  /** @internal */
  data(): Data {
    return this.live;
  }

  /** @internal */
  apply(ops: readonly KvOp[], sync: boolean): void {
    for (const op of ops) {
      if (op.value === undefined) this.live[op.space].delete(op.key);
      else this.live[op.space].set(op.key, op.value);
    }
    this.writes++;
    // fsync makes everything written so far durable (LevelDB: one log, synced up to here)
    if (sync) {
      this.synced = copyData(this.live);
      this.syncedWrites++;
    }
    this.onWrite?.({ ops, sync });
  }
}

export class FaultKv implements Kv {
  readonly location = '(fault-injection memory)';
  readonly durable = true;
  private open = true;

  constructor(
    private readonly disk: FaultDisk,
    private readonly generation: number,
  ) {}

  private check(): void {
    if (!this.disk.alive(this.generation)) throw new Error('fault kv: the power went out (this Kv is dead)');
    if (!this.open) throw new TypeError('fault kv: closed');
  }

  async get(space: Space, key: string): Promise<string | undefined> {
    this.check();
    return this.disk.data()[space].get(key);
  }

  async getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    this.check();
    const m = this.disk.data()[space];
    return keys.map((k) => m.get(k));
  }

  async getAcross(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    this.check();
    const d = this.disk.data();
    return keys.map(([s, k]) => d[s].get(k));
  }

  async *entries(space: Space, range: KvRange = {}): AsyncIterable<[string, string]> {
    this.check();
    yield* rangeOf(this.disk.data()[space], range);
  }

  async *keys(space: Space, range: KvRange = {}): AsyncIterable<string> {
    this.check();
    for (const [k] of rangeOf(this.disk.data()[space], range)) yield k;
  }

  async write(ops: readonly KvOp[], options: { readonly sync: boolean }): Promise<void> {
    this.check();
    this.disk.apply(ops, options.sync);
  }

  async close(): Promise<void> {
    this.open = false;
  }
}
