/**
 * `repairStore`: LevelDB's repairer (`RepairDB`, through classic-level) on a store folder, after
 * `ERR_STORE_CORRUPT`. It recovers every record that can still be read; what the records derive
 * (counters, frontier, indexes) is rebuilt afterwards by the engine's `rebuildDerived`.
 *
 * LevelDB's repairer takes no lock: run beside a live store it rewrites the files under a running
 * process, which then fails (RELIABILITY `store/repair-while-locked`). So the folder's LOCK is taken
 * first, by opening the database the way the store does: another holder gives `ERR_STORE_LOCKED`
 * (cause `LEVEL_LOCKED`) before any file is touched. The same open counts the entries of each
 * sublevel, and a second open after the repair counts them again, so the report says what the
 * repair dropped. The lock is let go for the repairer itself (classic-level's `repair` opens no
 * handle of its own): another opener starting in that moment is the one case not excluded.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Level } from 'level';
import { StoreError } from './errors.js';
import { SPACES, type Space } from './keys.js';
import { storeError } from './level-store.js';

/** Entries per sublevel; a sublevel that could not be read to its end is missing. */
export type SublevelCounts = Partial<Record<Space, number>>;

export interface RepairReport {
  /** Before the repair: the sublevels that could be read (a damaged one is missing; all are when the folder does not open). */
  readonly before: SublevelCounts;
  readonly after: SublevelCounts;
  /** Entries lost per sublevel, where both counts are known (negative: the repair brought back entries the damage hid). */
  readonly dropped: SublevelCounts;
}

const UTF8 = { keyEncoding: 'utf8', valueEncoding: 'utf8' } as const;

/**
 * Open the folder (taking its LOCK), count each sublevel, close. A damaged store may not open or
 * read: its counts are missing; a held LOCK or any other failure to open is thrown as a `StoreError`.
 */
async function countSublevels(location: string): Promise<SublevelCounts> {
  // without CURRENT LevelDB cannot tell the live files: nothing to count until the repairer has
  // written a new one from the tables and logs it finds
  if (!existsSync(join(location, 'CURRENT'))) return {};
  const db = new Level<string, string>(location, { ...UTF8, createIfMissing: false });
  try {
    await db.open({ createIfMissing: false });
  } catch (error) {
    const e = storeError(error, location);
    if (e.code === 'ERR_STORE_CORRUPT') return {};
    throw e;
  }
  const counts: SublevelCounts = {};
  try {
    for (const space of SPACES) {
      let n = 0;
      try {
        for await (const _ of db.sublevel(space, UTF8).keys()) n++;
        counts[space] = n;
      } catch (error) {
        if (storeError(error, location).code !== 'ERR_STORE_CORRUPT') throw storeError(error, location);
      }
    }
  } finally {
    await db.close().catch(() => undefined);
  }
  return counts;
}

/**
 * Repair the store in the folder `location` and report what each sublevel held before and after.
 * Rejects with `ERR_STORE_LOCKED` while another process or instance has it open (nothing touched),
 * `ERR_STORE_IO` for a missing folder, `ERR_STORE_CORRUPT` when the repairer fails.
 */
export async function repairStore(location: string): Promise<RepairReport> {
  if (!existsSync(location)) throw new StoreError('ERR_STORE_IO', location, { detail: 'no store in this folder' });
  const before = await countSublevels(location);
  try {
    await ClassicLevel.repair(location);
  } catch (error) {
    throw new StoreError('ERR_STORE_CORRUPT', location, { cause: error, detail: 'LevelDB repair failed' });
  }
  const after = await countSublevels(location);
  const dropped: SublevelCounts = {};
  for (const space of SPACES) {
    const b = before[space];
    const a = after[space];
    if (b !== undefined && a !== undefined) dropped[space] = b - a;
  }
  return { before, after, dropped };
}
