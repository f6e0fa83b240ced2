/**
 * The ordered key-value interface the store's engine runs on: the part of abstract-level it needs,
 * with string keys and values, one namespace per sublevel, and one atomic multi-namespace batch.
 * `level-store.ts` maps it onto LevelDB sublevels, `memory-store.ts` onto sorted maps.
 */
import type { Space } from '../keys.js';

/** A put (`value` is a string) or a del (`value` is `undefined`). */
export interface KvOp {
  readonly space: Space;
  readonly key: string;
  readonly value: string | undefined;
}

export interface KvRange {
  readonly gte?: string;
  readonly gt?: string;
  readonly lt?: string;
  readonly limit?: number;
  readonly reverse?: boolean;
}

export interface Kv {
  /** Where the data lives (a folder, or a description for in-memory data). */
  readonly location: string;
  readonly durable: boolean;
  /**
   * After a failed write, take no more until reopened (fail-stop). LevelDB must: a write that
   * failed part way (a full disk) may leave a damaged record at the end of its log, which it goes
   * on appending to, and a reopen drops the damaged block with the later, acknowledged writes in
   * it. Redis applies a script whole or not at all, so a failed write there leaves nothing behind.
   */
  readonly failStop?: boolean;
  get(space: Space, key: string): Promise<string | undefined>;
  getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]>;
  /** One read of keys in several namespaces (LevelDB: one `getMany` on the root). Optional: the engine falls back to `getMany` per space. */
  getAcross?(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]>;
  /** Entries in key order (reverse when asked), read from a snapshot taken at the call. */
  entries(space: Space, range?: KvRange): AsyncIterable<[string, string]>;
  keys(space: Space, range?: KvRange): AsyncIterable<string>;
  /**
   * The entries of a bounded range (`range.limit` set), as `entries` gives them, read whole.
   * Optional (`readRange` falls back to `entries`): LevelDB reads them in one call of its iterator
   * where iterating takes two or more.
   */
  range?(space: Space, range: KvRange & { readonly limit: number }): Promise<[string, string][]>;
  /** All `ops` or none. With `sync`, returns only after the data reached the disk (fsync). */
  write(ops: readonly KvOp[], options: { readonly sync: boolean }): Promise<void>;
  /**
   * True when the database holds no key at all, in any namespace or outside them; `undefined` (or
   * absent) where it cannot tell or the data may be shared. A database without the store's meta
   * becomes a store only when empty: another program's data is never taken for an empty store.
   */
  isEmpty?(): Promise<boolean | undefined>;
  /** Check every file of the database against its checksums: one line per damaged file. Optional. */
  checkFiles?(): Promise<readonly string[]>;
  close(): Promise<void>;
}

/** The entries of a bounded range of `space`, read whole: one call where the backend has one (`Kv.range`). */
export function readRange(kv: Pick<Kv, 'entries' | 'range'>, space: Space, range: KvRange & { readonly limit: number }): Promise<[string, string][]> {
  return kv.range !== undefined ? kv.range(space, range) : collect(kv.entries(space, range));
}

/** Every entry an iteration gives, in order. */
export async function collect(entries: AsyncIterable<[string, string]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const e of entries) out.push(e);
  return out;
}
