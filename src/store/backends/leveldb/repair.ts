/**
 * `repairStore`: salvage a damaged LevelDB store, say exactly what was lost, and leave it for the
 * engine's `rebuildDerived` (counters, frontier, indexes), which `urldedup repair` runs next.
 *
 * 1. Claim the folder (leveldb/repair-marker.ts): every opener refuses it from now on, and a
 *    process that has it open already is found by its lock (leveldb/lock-holder.ts) and refused
 *    with `ERR_STORE_LOCKED` before a file is touched. LevelDB's repairer takes no lock of its own.
 * 2. Check every table and log (leveldb/folder-check.ts). A damaged table's intact blocks are read
 *    here (leveldb/table.ts) and their records kept; the table moves to `lost/`, where LevelDB's
 *    repairer puts what it cannot use. LevelDB would read the damaged blocks as if they were
 *    intact: wrong records, or an assertion that aborts the process.
 * 3. LevelDB's repairer (`RepairDB`) rebuilds the manifest from the tables and logs that are left
 *    (it skips damaged log records itself).
 * 4. The salvaged records whose keys the repaired store lacks are written back (the newest version
 *    of each); records that fail their own checksum (leveldb/record-checksum.ts) are deleted.
 * 5. The report: damaged files, records salvaged and deleted, entries per sublevel, and the URLs
 *    the store had recorded (its `admitted` counter) against those found.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Level } from 'level';
import { StoreError } from '../../errors.js';
import { identityOptions, resolveStoreOptions } from '../../engine/options.js';
import { counterNames, encodeJson, SPACES, STORE_FORMAT_VERSION, type Space } from '../../keys.js';
import { KEY_FORMAT_VERSION } from '../../../normalize/index.js';
import { newSalt } from '../../userinfo.js';
import { storeError } from '../level-store.js';
import { checkFolder, type FileDamage } from './folder-check.js';
import { lockHolder } from './lock-holder.js';
import { placeRepairMarker, removeRepairMarker } from './repair-marker.js';
import { CHECKED_MARK, seal, unseal } from './record-checksum.js';
import { tableRecords } from './table.js';

/** Entries per sublevel. */
export type SublevelCounts = Partial<Record<Space, number>>;

export interface RepairReport {
  /** Files found damaged, and what became of each. */
  readonly damaged: readonly FileDamage[];
  /** Records read from the intact blocks of damaged tables and written back. */
  readonly salvaged: number;
  /** Records deleted because they failed their own checksum, per sublevel. */
  readonly deleted: SublevelCounts;
  /** Entries per sublevel after the repair. */
  readonly after: SublevelCounts;
  /** URLs the store had counted as admitted (its counter, where it survived) and URL records found after the repair. */
  readonly urls: { readonly recorded: number | undefined; readonly found: number };
  /**
   * Meta records that did not survive and were written anew with this build's defaults (`format`,
   * `identity`, `presets`, `salt`): the store's own settings were lost with them.
   */
  readonly restored: readonly string[];
  /** True when nothing is known to be lost: no damaged file, no deleted record, no URL missing from the count, no meta record restored. */
  readonly complete: boolean;
}

const UTF8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;
/** Openers that looked for the marker just before it appeared have taken LevelDB's lock by then. */
const CLAIM_GRACE_MS = 1000;
const decoder = new TextDecoder('utf-8', { fatal: true });

interface Salvaged {
  readonly sequence: bigint;
  readonly value: string | undefined;
}

/** The records of a damaged table's intact blocks (newest version of each key), then the table moved to lost/. */
function salvageTable(location: string, name: string, into: Map<string, Salvaged>): void {
  const path = join(location, name);
  for (const r of tableRecords(readFileSync(path))) {
    let key: string;
    let value: string | undefined;
    try {
      key = decoder.decode(r.key);
      value = r.type === 1 ? decoder.decode(r.value) : undefined;
    } catch {
      continue;
    }
    const known = into.get(key);
    if (known === undefined || known.sequence < r.sequence) into.set(key, { sequence: r.sequence, value });
  }
  mkdirSync(join(location, 'lost'), { recursive: true });
  renameSync(path, join(location, 'lost', name));
}

/** Claim the folder: the marker, then no process may hold LevelDB's lock. */
async function claim(location: string): Promise<void> {
  placeRepairMarker(location);
  await new Promise((r) => setTimeout(r, CLAIM_GRACE_MS));
  const holder = lockHolder(location);
  if (typeof holder === 'number') {
    removeRepairMarker(location);
    throw new StoreError('ERR_STORE_LOCKED', location, { cause: Object.assign(new Error('lock held'), { code: 'LEVEL_LOCKED' }), detail: `another process (pid ${holder}) has this store open; stop it first` });
  }
  if (holder === null && existsSync(join(location, 'CURRENT'))) {
    // no /proc/locks (not Linux): find out by taking the lock, the one way LevelDB offers
    const db = new Level<string, string>(location, { ...UTF8, createIfMissing: false });
    try {
      await db.open({ createIfMissing: false });
      await db.close();
    } catch (error) {
      const e = storeError(error, location);
      if (e.code === 'ERR_STORE_LOCKED') {
        removeRepairMarker(location);
        throw e;
      }
    }
  }
}

/**
 * Repair the store in the folder `location` and report what was lost. Rejects with
 * `ERR_STORE_LOCKED` while another process or instance has it open or repairs it (nothing
 * touched), `ERR_STORE_IO` for a missing folder, `ERR_STORE_CORRUPT` when LevelDB's repairer fails.
 */
export async function repairStore(location: string): Promise<RepairReport> {
  if (!existsSync(location)) throw new StoreError('ERR_STORE_IO', location, { detail: 'no store in this folder' });
  await claim(location);
  try {
    const check = checkFolder(location, { all: true, ignoreManifest: true });
    const salvage = new Map<string, Salvaged>();
    const damaged: FileDamage[] = [];
    for (const d of check.damage) {
      if (d.file.endsWith('.log')) {
        damaged.push({ file: d.file, detail: `${d.detail}; LevelDB's repair skips the damaged records` });
        continue;
      }
      salvageTable(location, d.file, salvage);
      damaged.push({ file: d.file, detail: `${d.detail}; the intact blocks were read and the file moved to lost/` });
    }
    try {
      await ClassicLevel.repair(location);
    } catch (error) {
      throw new StoreError('ERR_STORE_CORRUPT', location, { cause: error, detail: 'LevelDB repair failed' });
    }
    return await finish(location, damaged, salvage);
  } finally {
    removeRepairMarker(location);
  }
}

/**
 * A store of this build (its records carry checksums) whose meta records were in a damaged block:
 * each missing one is written with the defaults an `openStore` without options would write, so the
 * store opens again, and reported, because what it held (presets, normalize level, the salt of
 * hidden passwords) is gone.
 */
async function restoreMeta(db: Level<string, string>): Promise<string[]> {
  const meta = db.sublevel('meta', UTF8);
  const prefix = meta.prefixKey('', 'utf8');
  const defaults: Record<string, string> = {
    format: encodeJson({ store: STORE_FORMAT_VERSION, key: KEY_FORMAT_VERSION }),
    identity: encodeJson(identityOptions(resolveStoreOptions({}).normalize)),
    presets: encodeJson([]),
    salt: newSalt(),
  };
  const restored: string[] = [];
  for (const [name, value] of Object.entries(defaults)) {
    if ((await db.get(prefix + name)) !== undefined) continue;
    await db.put(prefix + name, seal(prefix + name, value), { sync: true });
    restored.push(name);
  }
  return restored;
}

/**
 * Whether the store's values carry checksums: its mark says so, or (the mark lost with a damaged
 * block) its first meta or URL record passes one. The mark is written back when it was lost.
 */
async function recordsChecked(db: Level<string, string>): Promise<boolean> {
  if ((await db.get(CHECKED_MARK)) === 'done') return true;
  for (const space of ['meta', 'url'] as const) {
    const sub = db.sublevel(space, UTF8);
    const prefix = sub.prefixKey('', 'utf8');
    for await (const [key, value] of sub.iterator({ limit: 1 })) {
      if (unseal(prefix + key, value) === undefined) return false;
      await db.put(CHECKED_MARK, 'done', { sync: true });
      return true;
    }
  }
  return false;
}

/** Write back what was salvaged, delete what fails its checksum, count. */
async function finish(location: string, damaged: FileDamage[], salvage: Map<string, Salvaged>): Promise<RepairReport> {
  const db = new Level<string, string>(location, { ...UTF8, createIfMissing: false });
  try {
    await db.open({ createIfMissing: false });
  } catch (error) {
    throw storeError(error, location);
  }
  try {
    const checked = await recordsChecked(db);
    let salvaged = 0;
    let batch = db.batch();
    for (const [key, { value }] of salvage) {
      if (value === undefined || (await db.get(key)) !== undefined) continue;
      if (checked && unseal(key, value) === undefined) continue;
      batch.put(key, value);
      salvaged++;
      if (batch.length >= 5000) {
        await batch.write();
        batch = db.batch();
      }
    }
    await batch.write();
    batch = db.batch();
    const deleted: SublevelCounts = {};
    const after: SublevelCounts = {};
    let recorded: number | undefined;
    for (const space of SPACES) {
      const sub = db.sublevel(space, UTF8);
      const prefix = sub.prefixKey('', 'utf8');
      let n = 0;
      for await (const [key, stored] of sub.iterator()) {
        const value = checked ? unseal(prefix + key, stored) : stored;
        if (value === undefined) {
          batch.del(prefix + key);
          deleted[space] = (deleted[space] ?? 0) + 1;
          continue;
        }
        if (space === 'counter' && key === counterNames.admitted) recorded = Number(value);
        n++;
      }
      after[space] = n;
    }
    await batch.write({ sync: true });
    const restored = checked ? await restoreMeta(db) : [];
    const found = after.url ?? 0;
    const lostUrls = recorded !== undefined && recorded > found;
    const complete = damaged.length === 0 && Object.keys(deleted).length === 0 && restored.length === 0 && !lostUrls;
    return { damaged, salvaged, deleted, after, urls: { recorded, found }, restored, complete };
  } finally {
    await db.close().catch(() => undefined);
  }
}
