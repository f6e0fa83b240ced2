/**
 * The marker a repair leaves in a store folder while it runs. LevelDB's repairer takes no lock,
 * and taking LevelDB's own (by opening the database) would replay and rewrite the very files being
 * repaired. So a repair first creates `URLDEDUP-REPAIRING` (exclusively, with its pid), and every
 * opener of the store refuses a folder that has it: before it opens LevelDB, and again once LevelDB
 * is open (an opener that looked just before the marker appeared backs out). A marker whose
 * process is gone is a repair that was cut short: the folder is damaged until a repair completes.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../../errors.js';

export const REPAIR_MARKER = 'URLDEDUP-REPAIRING';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the repair under way in the folder; `0` for a repair cut short; `undefined` for none. */
export function repairUnderWay(location: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(location, REPAIR_MARKER), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : 0;
}

/** Throw the error an opener gets while a repair is under way or was cut short; nothing otherwise. */
export function refuseDuringRepair(location: string): void {
  const pid = repairUnderWay(location);
  if (pid === undefined) return;
  if (pid === 0) {
    throw new StoreError('ERR_STORE_CORRUPT', location, { detail: 'a repair of this store was cut short; run `urldedup repair` again' });
  }
  throw new StoreError('ERR_STORE_LOCKED', location, { detail: `a repair (pid ${pid}) is under way in this store` });
}

/** Claim the folder for a repair: `ERR_STORE_LOCKED` when another live repair has it. */
export function placeRepairMarker(location: string): void {
  const path = join(location, REPAIR_MARKER);
  try {
    writeFileSync(path, String(process.pid), { flag: 'wx' });
    return;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreError('ERR_STORE_IO', location, { cause: e, detail: 'cannot create the repair marker' });
  }
  const pid = repairUnderWay(location);
  if (pid !== undefined && pid !== 0 && pid !== process.pid) throw new StoreError('ERR_STORE_LOCKED', location, { detail: `another repair (pid ${pid}) is under way in this store` });
  // a marker left by a repair that was cut short: this repair takes it over
  writeFileSync(path, String(process.pid));
}

export function removeRepairMarker(location: string): void {
  rmSync(join(location, REPAIR_MARKER), { force: true });
}
