/**
 * Opening the store for a command: created when missing (filter, serve), or read-only and never
 * created (stats, export, verify).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import type { PresetName } from '../normalize/index.js';
import { StoreError } from '../store/index.js';
import { openStore, type SeenStore } from '../store/index.js';

/** Where the store lives when `--db` is not given. */
export const DEFAULT_DB = './.urldedup/db';

export const PRESET_NOTE = `  --preset NAME       store preset, repeatable (tracking, session-ids, sort-query, www, …).
                      Give the same presets every time you open a store: opening it without
                      a preset gives the URLs that preset pruned back to the frontier.`;

/** For the commands that open the store read-only (stats, export, verify). */
export const READ_ONLY_PRESET_NOTE = `  --preset NAME       accepted for compatibility and ignored: the store is opened read-only
                      and uses the presets it was last opened with (recorded in the store).`;

/**
 * Open the store for a command. `create`: make the folder (and its parents) when missing;
 * otherwise a missing folder is `ERR_STORE_IO`, not a new empty store.
 */
export async function openForCommand(db: string, presets: readonly PresetName[], create: boolean): Promise<SeenStore> {
  const location = resolvePath(db);
  if (create) await mkdir(dirname(location), { recursive: true });
  else if (!existsSync(location)) throw new StoreError('ERR_STORE_IO', location, { detail: 'no store in this folder' });
  return openStore(location, { presets });
}

/**
 * Open the store read-only (stats, export, verify): nothing is written, and the presets recorded
 * in the store are used, so `--preset` is not needed (it is still validated, then ignored).
 * It still takes the LevelDB LOCK: a store another process has open is ERR_STORE_LOCKED.
 */
export async function openReadOnly(db: string): Promise<SeenStore> {
  const location = resolvePath(db);
  if (!existsSync(location)) throw new StoreError('ERR_STORE_IO', location, { detail: 'no store in this folder' });
  return openStore(location, { readOnly: true });
}
