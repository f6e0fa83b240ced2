/**
 * The LevelDB backend: one database folder through the `level` package (classic-level in Node),
 * one sublevel per concern (see keys.ts), every change of one call in one chained batch across
 * sublevels (LevelDB applies a WriteBatch atomically, and its log makes it survive a process
 * crash once `write()` returned).
 *
 * Errors from abstract-level are mapped to coded `StoreError`s (abstract-level "Errors"):
 * - `LEVEL_LOCKED` (usually as the `cause` of `LEVEL_DATABASE_NOT_OPEN`): another process or
 *   instance holds the folder's LOCK → `ERR_STORE_LOCKED`. LevelDB's lock is an fcntl lock, which
 *   the kernel releases when its process dies, so a restart after `kill -9` needs no unlock;
 * - `LEVEL_CORRUPTION` → `ERR_STORE_CORRUPT` (try `urldedup repair`, i.e. `ClassicLevel.repair`);
 * - anything else from the database (`LEVEL_IO_ERROR`, …) → `ERR_STORE_IO`.
 * Each keeps the original error as `cause`.
 */
import { existsSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { StoreError } from '../errors.js';
import { resolveStoreOptions, StoreEngine } from '../engine/index.js';
import { SPACES, type Space } from '../keys.js';
import { describeValue } from '../../normalize/misuse.js';
import { checkStoreOptionNames, openStoreOptionNames } from '../option-names.js';
import { checkFolder, damagedFilesError, rememberChecked, type FolderCheck } from './leveldb/folder-check.js';
import { lockHolder } from './leveldb/lock-holder.js';
import { CHECKED_MARK, seal, unseal } from './leveldb/record-checksum.js';
import { refuseDuringRepair } from './leveldb/repair-marker.js';
import type { Kv, KvOp, KvRange } from './kv.js';
import type { SeenStore, StoreOptions } from '../seen-store.js';

/** The part of an abstract-level database (or sublevel) with string keys and values that the store uses. */
export interface LevelDatabase {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
  sublevel(name: string, options: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): LevelSublevel;
}

interface LevelRoot {
  get(key: string, options?: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): Promise<string | undefined>;
  put(key: string, value: string, options?: { keyEncoding: 'utf8'; valueEncoding: 'utf8'; sync?: boolean }): Promise<void>;
  iterator(options: object): AsyncIterable<[string, string]> & { close(): Promise<void> };
  getMany(keys: string[], options: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): Promise<(string | undefined)[]>;
  /** A chained batch (abstract-level): one atomic WriteBatch, like the array form. */
  batch(): LevelChainedBatch;
  keyEncoding(): { readonly name: string };
  valueEncoding(): { readonly name: string };
  keys(options: object): AsyncIterable<string> & { close(): Promise<void> };
}

interface LevelChainedBatch {
  put(key: string, value: string, options?: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): unknown;
  del(key: string, options?: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): unknown;
  write(options: { sync: boolean }): Promise<void>;
  close(): Promise<void>;
}

interface LevelSublevel {
  /** The root database. */
  readonly db: LevelRoot;
  prefixKey(key: string, keyFormat: 'utf8'): string;
  iterator(options: object): AsyncIterable<[string, string]> & { close(): Promise<void>; all(): Promise<[string, string][]> };
  keys(options: object): AsyncIterable<string> & { close(): Promise<void> };
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

/** A database error as a coded `StoreError` with the original as `cause`. */
export function storeError(error: unknown, location: string): StoreError {
  if (error instanceof StoreError) return error;
  const codes = codesOf(error);
  if (codes.includes('LEVEL_LOCKED')) {
    return new StoreError('ERR_STORE_LOCKED', location, { cause: error, detail: 'another process or instance has this store open (LevelDB LOCK)' });
  }
  if (codes.includes('LEVEL_CORRUPTION')) {
    return new StoreError('ERR_STORE_CORRUPT', location, { cause: error, detail: 'the database files are damaged; try `urldedup repair`' });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('ERR_STORE_IO', location, { cause: error, detail: message });
}

const UTF8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;


function damagedRecord(location: string, fullKey: string): StoreError {
  const shown = fullKey.length > 200 ? `${fullKey.slice(0, 200)}…` : fullKey;
  return new StoreError('ERR_STORE_CORRUPT', location, { detail: `the record ${JSON.stringify(shown)} fails its checksum (damaged on disk); run \`urldedup repair\`` });
}


/** The files LevelDB writes in its folder; `LOCK` and `LOG` alone are left by any open, a store or not. */
const LEVELDB_FILE = /^(\d{6}\.(ldb|log|sst|dbtmp)|MANIFEST-\d{6}|CURRENT|LOCK|LOG(\.old)?|URLDEDUP-CHECKED(\.\d+\.tmp)?|URLDEDUP-REPAIRING)$/;
const LEVELDB_DATA = /^(\d{6}\.(ldb|log|sst)|MANIFEST-\d{6})$/;
const TABLE_FILE = /^\d{6}\.(ldb|sst)$/;
const LOG_FILE = /^\d{6}\.log$/;
/** The temporary file LevelDB writes `CURRENT` through. */
const CREATION_TEMP = /^\d{6}\.dbtmp$/;

/**
 * What a store folder holds, checked before LevelDB touches it: `new` (missing, empty, or only a
 * `LOCK` and `LOG` left by an open), or `existing` (a database: its `CURRENT` names the live
 * files). A folder whose data files are there without `CURRENT` is damaged, never made into a new
 * store (LevelDB would, and delete the old tables); a folder of other files is no store.
 */
function folderState(location: string, readOnly: boolean): 'new' | 'existing' {
  if (!existsSync(location)) return 'new';
  let names: string[];
  try {
    names = readdirSync(location);
  } catch (e) {
    throw storeError(e, location);
  }
  if (names.includes('CURRENT')) return 'existing';
  if (interruptedCreation(location, names, readOnly)) return 'new';
  if (names.some((n) => LEVELDB_DATA.test(n))) {
    throw new StoreError('ERR_STORE_CORRUPT', location, { detail: 'the folder has LevelDB files but no CURRENT file, which names the live ones; run `urldedup repair` (opening would start an empty store and delete them)' });
  }
  if (names.some((n) => !LEVELDB_FILE.test(n))) {
    throw new StoreError('ERR_STORE_IO', location, { detail: 'not a store: the folder holds other files; give an empty or new folder' });
  }
  return 'new';
}

/**
 * A store's creation cut short (a kill, a power loss): LevelDB writes its first manifest, then
 * names it in `CURRENT` (through a `.dbtmp` file renamed), and only then opens the database for
 * writing, so a folder without `CURRENT` whose only data files are manifests and empty logs, with
 * no table, never held a record: nothing was acknowledged from it. Its leftovers are removed and
 * the store is created again. Left alone while another process holds the folder's lock: that one
 * may be creating it now (its open then fails with `ERR_STORE_LOCKED`).
 */
function interruptedCreation(location: string, names: readonly string[], readOnly: boolean): boolean {
  const leftovers = names.filter((n) => LEVELDB_DATA.test(n) || CREATION_TEMP.test(n));
  if (leftovers.length === 0) return false;
  for (const n of leftovers) {
    if (TABLE_FILE.test(n)) return false;
    if (LOG_FILE.test(n) && statSync(join(location, n)).size > 0) return false;
  }
  if (typeof lockHolder(location) === 'number') return false;
  if (readOnly) return true; // no store to read, and nothing touched
  try {
    for (const n of leftovers) unlinkSync(join(location, n));
  } catch (e) {
    throw storeError(e, location);
  }
  return true;
}

/**
 * Check a store folder's files before LevelDB reads them (leveldb/folder-check.ts): a damaged table
 * or log is `ERR_STORE_CORRUPT` naming it, before LevelDB can answer from it or abort on it.
 * Skipped while another process holds the store (the open then fails with `ERR_STORE_LOCKED`):
 * its compactions may be writing a table that is not finished yet.
 */
function checkBeforeOpen(location: string): FolderCheck | undefined {
  if (typeof lockHolder(location) === 'number') return undefined;
  let check: FolderCheck;
  try {
    check = checkFolder(location);
  } catch (e) {
    throw storeError(e, location);
  }
  if (check.damage.length === 0) return check;
  // a process that opened the store meanwhile may have been writing what looked damaged
  if (typeof lockHolder(location) === 'number') return undefined;
  throw damagedFilesError(location, check.damage);
}

/**
 * `Kv` over LevelDB sublevels. Reads by key and writes go to the root database with each
 * sublevel's own prefix (`sublevel.prefixKey`), which gives the very keys the sublevel would write,
 * in one `batch()` across sublevels, without the per-operation sublevel work; ranges are read
 * through the sublevels.
 */
class LevelKv implements Kv {
  readonly durable = true;
  readonly failStop = true;
  /** Values carry a checksum of their own (record-checksum.ts): every store created or upgraded by this build. */
  checked = false;
  /** Damage the background check found in a live table: every read and write fails with it from then on. */
  private damage: StoreError | undefined;
  private scrubber: NodeJS.Timeout | undefined;
  private readonly subs: Record<Space, LevelSublevel>;
  private readonly prefixes: Record<Space, string>;
  private readonly root: LevelRoot;
  /** Per-operation encodings for the root's batches: none when its defaults are utf8 already. */
  private readonly opEncodings: typeof UTF8 | undefined;

  constructor(
    private readonly db: LevelDatabase,
    readonly location: string,
    private readonly owned: boolean,
  ) {
    const subs = {} as Record<Space, LevelSublevel>;
    const prefixes = {} as Record<Space, string>;
    for (const s of SPACES) {
      subs[s] = db.sublevel(s, UTF8);
      prefixes[s] = subs[s].prefixKey('', 'utf8');
    }
    this.subs = subs;
    this.prefixes = prefixes;
    this.root = subs.meta.db;
    // per-operation options cost abstract-level several µs each (the op is cloned with them)
    this.opEncodings = this.root.keyEncoding().name === 'utf8' && this.root.valueEncoding().name === 'utf8' ? undefined : UTF8;
  }

  async get(space: Space, key: string): Promise<string | undefined> {
    return (await this.getMany(space, [key]))[0];
  }

  async getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    const prefix = this.prefixes[space];
    const full = new Array<string>(keys.length);
    for (let i = 0; i < keys.length; i++) full[i] = prefix + keys[i]!;
    return this.read(full);
  }

  async getAcross(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    const full = new Array<string>(keys.length);
    for (let i = 0; i < keys.length; i++) full[i] = this.prefixes[keys[i]![0]] + keys[i]![1];
    return this.read(full);
  }

  private async read(full: string[]): Promise<(string | undefined)[]> {
    if (this.damage !== undefined) throw this.damage;
    let values: (string | undefined)[];
    try {
      values = await this.root.getMany(full, UTF8);
    } catch (e) {
      throw storeError(e, this.location);
    }
    if (this.checked) {
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (v !== undefined) values[i] = this.open(full[i]!, v);
      }
    }
    return values;
  }

  /** A stored value checked against its key (record-checksum.ts): the value, or `ERR_STORE_CORRUPT`. */
  private open(fullKey: string, stored: string): string {
    const value = unseal(fullKey, stored);
    if (value === undefined) throw damagedRecord(this.location, fullKey);
    return value;
  }

  async *entries(space: Space, range: KvRange = {}): AsyncIterable<[string, string]> {
    if (this.damage !== undefined) throw this.damage;
    const it = this.subs[space].iterator(range);
    const prefix = this.prefixes[space];
    try {
      if (this.checked) {
        for await (const e of it) yield [e[0], this.open(prefix + e[0], e[1])];
      } else {
        for await (const e of it) yield e;
      }
    } catch (e) {
      throw storeError(e, this.location);
    } finally {
      await it.close().catch(() => undefined);
    }
  }

  async range(space: Space, range: KvRange & { readonly limit: number }): Promise<[string, string][]> {
    if (this.damage !== undefined) throw this.damage;
    // `all()` reads up to the limit in one call of the native iterator (`for await` asks for one
    // entry, then for the rest: two calls, each a task on libuv's pool)
    const it = this.subs[space].iterator(range);
    try {
      const all = (await it.all()) as [string, string][];
      if (!this.checked) return all;
      const prefix = this.prefixes[space];
      return all.map((e) => [e[0], this.open(prefix + e[0], e[1])]);
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

  /**
   * One chained batch: the same single atomic WriteBatch as `batch(array)`, but each operation
   * goes to the native batch as it is added. The array form clones every operation and the
   * binding then reads `type`, `key` and `value` back as properties: measured here at 2–7 µs per
   * operation on the event loop, against 0.7 µs chained without per-operation options (both
   * write the same bytes). The batch is made right before it is written, so it is short-lived:
   * classic-level frees a chained batch's native memory only when its JavaScript object is
   * garbage-collected.
   */
  async write(ops: readonly KvOp[], options: { readonly sync: boolean }): Promise<void> {
    if (this.damage !== undefined) throw this.damage;
    let batch: LevelChainedBatch | undefined;
    try {
      batch = this.root.batch();
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!;
        const key = this.prefixes[op.space] + op.key;
        if (op.value === undefined) batch.del(key, this.opEncodings);
        else batch.put(key, this.checked ? seal(key, op.value) : op.value, this.opEncodings);
      }
      const written = batch.write({ sync: options.sync });
      batch = undefined; // write() closes it
      await written;
    } catch (e) {
      if (batch !== undefined) await batch.close().catch(() => undefined);
      throw storeError(e, this.location);
    }
  }

  /**
   * True when the database holds no key at all: a folder the store owns that has no urldedup meta
   * must be empty to become a store (another program's LevelDB is not written into). A database
   * handed in by the caller may hold other data beside the store's sublevels: not asked.
   */
  async isEmpty(): Promise<boolean | undefined> {
    if (!this.owned) return undefined;
    for (const range of [{ lt: CHECKED_MARK }, { gt: CHECKED_MARK }]) {
      const it = this.root.keys({ ...range, limit: 1 });
      try {
        for await (const _ of it) return false;
      } catch (e) {
        throw storeError(e, this.location);
      } finally {
        await it.close().catch(() => undefined);
      }
    }
    return true;
  }

  /**
   * Decide whether values carry checksums: a new store gets them; a store written before them gets
   * them now (each value rewritten with its checksum, in batches; a value that already has a valid
   * one is left as it is, so an upgrade cut short by a crash is taken up again); a read-only open
   * of such a store reads its values as they are.
   */
  async useChecksums(readOnly: boolean): Promise<void> {
    let mark: string | undefined;
    try {
      mark = await this.root.get(CHECKED_MARK, UTF8);
    } catch (e) {
      throw storeError(e, this.location);
    }
    if (mark === 'done') {
      this.checked = true;
      return;
    }
    if (readOnly) return;
    if ((await this.isEmpty()) === false) {
      // another program's data is not the store's to rewrite (the engine refuses it next)
      if ((await this.root.get(this.prefixes.meta + 'format', UTF8)) === undefined) return;
      await this.sealAll();
    }
    try {
      await this.root.put(CHECKED_MARK, 'done', { ...UTF8, sync: true });
    } catch (e) {
      throw storeError(e, this.location);
    }
    this.checked = true;
  }

  private async sealAll(): Promise<void> {
    let ops: KvOp[] = [];
    const flush = async (): Promise<void> => {
      let batch: LevelChainedBatch | undefined = this.root.batch();
      try {
        for (const op of ops) batch.put(op.key, op.value!, this.opEncodings);
        const written = batch.write({ sync: false });
        batch = undefined;
        await written;
      } catch (e) {
        if (batch !== undefined) await batch.close().catch(() => undefined);
        throw storeError(e, this.location);
      }
      ops = [];
    };
    for (const space of SPACES) {
      const prefix = this.prefixes[space];
      for await (const [key, value] of this.subs[space].iterator({})) {
        if (unseal(prefix + key, value) !== undefined) continue;
        ops.push({ space, key: prefix + key, value: seal(prefix + key, value) });
        if (ops.length >= 5000) await flush();
      }
    }
    if (ops.length > 0) await flush();
  }

  async checkFiles(): Promise<readonly string[]> {
    if (!this.owned) return [];
    try {
      return checkFolder(this.location, { all: true, settledMs: 5000 }).damage.map((d) => `file ${d.file}: ${d.detail}`);
    } catch (e) {
      throw storeError(e, this.location);
    }
  }

  /**
   * Check the tables compactions write while the store is open, in the background: every 5 s, at
   * most 16 MiB of tables not checked yet (about 25 ms of CPU), remembered for the next open.
   * A damaged one makes every later read and write `ERR_STORE_CORRUPT`.
   */
  startScrub(): void {
    if (!this.owned) return;
    this.scrubber = setInterval(() => {
      try {
        const check = checkFolder(this.location, { tablesOnly: true, settledMs: 5000, maxBytes: 16 * 2 ** 20 });
        if (check.damage.length > 0) this.damage ??= damagedFilesError(this.location, check.damage);
        else rememberChecked(this.location, check);
      } catch {
        // a folder that cannot be listed now is checked at the next open
      }
    }, 5000);
    this.scrubber.unref();
  }

  async close(): Promise<void> {
    if (this.scrubber !== undefined) clearInterval(this.scrubber);
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
  /** Snappy compression of table blocks. @default true */
  readonly compression?: boolean;
  /**
   * LevelDB's write buffer (memtable and log size). The store's default is larger than LevelDB's
   * 4 MiB: fewer level-0 files means much less compaction work for an admit-heavy load (about 40 %
   * less CPU per admitted URL in bench/store), for up to twice this much memory.
   * @default 16 MiB
   */
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
 * With `readOnly`, nothing is written (and a missing folder is not created); LevelDB has no shared
 * lock, so the open still takes the folder's LOCK and excludes every other opener.
 * Rejects with `ERR_STORE_LOCKED` when another process or instance has the folder open,
 * `ERR_STORE_CORRUPT` for damaged files, `ERR_STORE_IO` otherwise (an incompatible key format too).
 */
export async function openStore(location: string | LevelDatabase, options: OpenStoreOptions = {}): Promise<SeenStore> {
  // misuse is a TypeError before any file is touched
  if (typeof location !== 'string' && typeof (location as Partial<LevelDatabase> | null)?.sublevel !== 'function') {
    throw new TypeError(`openStore: location must be a folder path or an open abstract-level database, not ${describeValue(location)}`);
  }
  checkStoreOptionNames('openStore', options, openStoreOptionNames);
  resolveStoreOptions(options);
  let kv: LevelKv;
  if (typeof location === 'string') {
    const { level: tuning, ...rest } = options;
    void rest;
    // what the folder holds decides, before LevelDB touches it: a new store only in a new folder, a
    // damaged one (no CURRENT) or a folder of other files refused; read-only never creates (nor
    // leaves a LOCK or LOG behind in a folder that is no store)
    refuseDuringRepair(location);
    const state = folderState(location, options.readOnly === true);
    if (options.readOnly === true && state === 'new') throw new StoreError('ERR_STORE_IO', location, { detail: 'read-only: no store in this folder' });
    const check = state === 'existing' ? checkBeforeOpen(location) : undefined;
    const create = { createIfMissing: state === 'new' };
    const db = new Level<string, string>(location, { keyEncoding: 'utf8', valueEncoding: 'utf8', writeBufferSize: 16 * 2 ** 20, ...create, ...(tuning ?? {}) });
    try {
      await db.open(create);
    } catch (e) {
      throw storeError(e, location);
    }
    kv = new LevelKv(db as unknown as LevelDatabase, location, true);
    try {
      // an opener that looked just before a repair placed its marker backs out now
      refuseDuringRepair(location);
      if (check !== undefined && options.readOnly !== true) rememberChecked(location, check);
      await kv.useChecksums(options.readOnly === true);
      if (options.readOnly !== true) kv.startScrub();
    } catch (e) {
      await db.close().catch(() => undefined);
      throw storeError(e, location);
    }
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
