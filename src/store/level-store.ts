/**
 * The LevelDB backend: one database folder through the `level` package (classic-level in Node),
 * one sublevel per concern (see keys.ts), every change of one call in one chained batch across
 * sublevels (LevelDB applies a WriteBatch atomically, and its log makes it survive a process
 * crash once `write()` returned).
 *
 * Errors from abstract-level are mapped to coded `UrlError`s (abstract-level "Errors"):
 * - `LEVEL_LOCKED` (usually as the `cause` of `LEVEL_DATABASE_NOT_OPEN`): another process or
 *   instance holds the folder's LOCK → `ERR_STORE_LOCKED`. LevelDB's lock is an fcntl lock, which
 *   the kernel releases when its process dies, so a restart after `kill -9` needs no unlock;
 * - `LEVEL_CORRUPTION` → `ERR_STORE_CORRUPT` (try `urldedup repair`, i.e. `ClassicLevel.repair`);
 * - anything else from the database (`LEVEL_IO_ERROR`, …) → `ERR_STORE_IO`.
 * Each keeps the original error as `cause`.
 */
import { Level } from 'level';
import { UrlError } from '../normalize/index.js';
import { StoreEngine } from './engine.js';
import { SPACES, type Space } from './keys.js';
import type { Kv, KvOp, KvRange } from './kv.js';
import type { SeenStore, StoreOptions } from './seen-store.js';

/** The part of an abstract-level database (or sublevel) with string keys and values that the store uses. */
export interface LevelDatabase {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
  sublevel(name: string, options: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): LevelSublevel;
  batch(): LevelChainedBatch;
}

interface LevelSublevel {
  get(key: string): Promise<string | undefined>;
  getMany(keys: string[]): Promise<(string | undefined)[]>;
  iterator(options: object): AsyncIterable<[string, string]> & { close(): Promise<void> };
  keys(options: object): AsyncIterable<string> & { close(): Promise<void> };
}

interface LevelChainedBatch {
  put(key: string, value: string, options: { sublevel: LevelSublevel }): unknown;
  del(key: string, options: { sublevel: LevelSublevel }): unknown;
  write(options: { sync: boolean }): Promise<void>;
  close(): Promise<void>;
}

interface CodedError {
  readonly code?: unknown;
  readonly cause?: unknown;
}

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error as CodedError | undefined, depth = 0; e !== undefined && e !== null && depth < 5; e = e.cause as CodedError | undefined, depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
  }
  return codes;
}

/** A database error as a coded `UrlError` with the original as `cause`. */
export function storeError(error: unknown, location: string): UrlError {
  if (error instanceof UrlError) return error;
  const codes = codesOf(error);
  if (codes.includes('LEVEL_LOCKED')) {
    return new UrlError('ERR_STORE_LOCKED', location, { cause: error, detail: 'another process or instance has this store open (LevelDB LOCK)' });
  }
  if (codes.includes('LEVEL_CORRUPTION')) {
    return new UrlError('ERR_STORE_CORRUPT', location, { cause: error, detail: 'the database files are damaged; try `urldedup repair`' });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new UrlError('ERR_STORE_IO', location, { cause: error, detail: message });
}

/** `Kv` over LevelDB sublevels. */
class LevelKv implements Kv {
  readonly durable = true;
  private readonly subs: Record<Space, LevelSublevel>;

  constructor(
    private readonly db: LevelDatabase,
    readonly location: string,
    private readonly owned: boolean,
  ) {
    const subs = {} as Record<Space, LevelSublevel>;
    for (const s of SPACES) subs[s] = db.sublevel(s, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    this.subs = subs;
  }

  async get(space: Space, key: string): Promise<string | undefined> {
    try {
      return await this.subs[space].get(key);
    } catch (e) {
      throw storeError(e, this.location);
    }
  }

  async getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    try {
      return await this.subs[space].getMany(keys as string[]);
    } catch (e) {
      throw storeError(e, this.location);
    }
  }

  async *entries(space: Space, range: KvRange = {}): AsyncIterable<[string, string]> {
    const it = this.subs[space].iterator(range);
    try {
      for await (const e of it) yield e;
    } catch (e) {
      throw storeError(e, this.location);
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  async *keys(space: Space, range: KvRange = {}): AsyncIterable<string> {
    const it = this.subs[space].keys(range);
    try {
      for await (const k of it) yield k;
    } catch (e) {
      throw storeError(e, this.location);
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  async write(ops: readonly KvOp[], options: { readonly sync: boolean }): Promise<void> {
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        const sublevel = this.subs[op.space];
        if (op.value === undefined) batch.del(op.key, { sublevel });
        else batch.put(op.key, op.value, { sublevel });
      }
      await batch.write({ sync: options.sync });
    } catch (e) {
      await batch.close().catch(() => undefined);
      throw storeError(e, this.location);
    }
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    try {
      await this.db.close();
    } catch (e) {
      throw storeError(e, this.location);
    }
  }
}

/** LevelDB tuning passed to classic-level's `open()` (see its README); the defaults suit most stores. */
export interface LevelTuning {
  /** @default 8 MiB */
  readonly cacheSize?: number;
  /** @default 4 MiB */
  readonly writeBufferSize?: number;
  /** @default 2 MiB */
  readonly maxFileSize?: number;
}

export interface OpenStoreOptions extends StoreOptions {
  readonly level?: LevelTuning;
}

/**
 * Open (or create) the store in the folder `location`, or inside an already open abstract-level
 * database or sublevel with utf8-compatible keys (which the caller closes).
 * Rejects with `ERR_STORE_LOCKED` when another process or instance has the folder open,
 * `ERR_STORE_CORRUPT` for damaged files, `ERR_STORE_IO` otherwise (an incompatible key format too).
 */
export async function openStore(location: string | LevelDatabase, options: OpenStoreOptions = {}): Promise<SeenStore> {
  let kv: LevelKv;
  if (typeof location === 'string') {
    const { level: tuning, ...rest } = options;
    void rest;
    const db = new Level<string, string>(location, { keyEncoding: 'utf8', valueEncoding: 'utf8', ...(tuning ?? {}) });
    try {
      await db.open();
    } catch (e) {
      throw storeError(e, location);
    }
    kv = new LevelKv(db as unknown as LevelDatabase, location, true);
  } else {
    if (location.status !== 'open') {
      try {
        await location.open();
      } catch (e) {
        throw storeError(e, '(database)');
      }
    }
    kv = new LevelKv(location, '(database)', false);
  }
  return StoreEngine.open(kv, { durable: true, atomicBatch: true }, options);
}
