/**
 * Checking a LevelDB folder's files before LevelDB opens them (see table.ts and log.ts for why the
 * binding's own reads cannot be relied on). Tables never change once written, so each is checked
 * once: its name, size and modification time are remembered in `URLDEDUP-CHECKED`, and a table is
 * checked again only when one of them changes (a file rewritten or damaged by a tool, a copy, a
 * restore). Logs are checked on every open; they are at most a few write buffers long.
 *
 * While a store is open, the tables its compactions write are checked in the background, a few
 * megabytes at a time (level-store.ts), so the next open has little left to check.
 *
 * Damage that happens later in a remembered table without changing its size or time (bit rot on
 * the medium) is found by `urldedup verify`, which checks every file, and by the per-record
 * checksums (record-checksum.ts) on every read of a value.
 */
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreError } from '../../errors.js';
import { checkLog } from './log.js';
import { liveFiles } from './manifest.js';
import { checkTable } from './table.js';

/** The file where checked tables are remembered, and its temporary name while it is replaced. */
export const CHECKED_FILE = 'URLDEDUP-CHECKED';
const TABLE = /^\d{6}\.(ldb|sst)$/;
const LOG = /^\d{6}\.log$/;

export interface FileDamage {
  readonly file: string;
  readonly detail: string;
}

export interface FolderCheck {
  readonly damage: readonly FileDamage[];
  /** Tables checked in this pass (not remembered as checked before). */
  readonly tablesChecked: number;
  readonly bytesChecked: number;
  /** The intact tables, by name: their size and time, to remember (`rememberChecked`). */
  readonly intact: Readonly<Record<string, string>>;
}

function remembered(location: string): Map<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(join(location, CHECKED_FILE), 'utf8')) as { tables?: Record<string, string> };
    return new Map(Object.entries(parsed.tables ?? {}));
  } catch {
    return new Map();
  }
}

function stamp(size: number, mtimeMs: number): string {
  return `${size}:${Math.round(mtimeMs)}`;
}

/** Read a file; `undefined` when it went away meanwhile (another process compacting). */
function readIfThere(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Check the folder's tables (all with `all`, else those not remembered as checked) and logs.
 */
export interface CheckOptions {
  /** Check every table, remembered or not. */
  readonly all?: boolean;
  /** Every table and log in the folder, not only the live ones the manifest names. */
  readonly ignoreManifest?: boolean;
  /** The database is open meanwhile: a table without its footer written this recently is in progress. */
  readonly settledMs?: number;
  /** Tables only, no logs (a check while the database is open and appending to its log). */
  readonly tablesOnly?: boolean;
  /** Stop reading tables once this many bytes were checked (the rest waits for the next check). */
  readonly maxBytes?: number;
}

export function checkFolder(location: string, options: CheckOptions = {}): FolderCheck {
  const known = options.all === true ? new Map<string, string>() : remembered(location);
  const kept: Record<string, string> = {};
  const damage: FileDamage[] = [];
  let tablesChecked = 0;
  let bytesChecked = 0;
  // only what the manifest names is the database (without a readable manifest: every file)
  const live = options.ignoreManifest === true ? undefined : liveFiles(location);
  for (const name of readdirSync(location).sort()) {
    const isTable = TABLE.test(name);
    if (!isTable && (options.tablesOnly === true || !LOG.test(name))) continue;
    const number = Number.parseInt(name, 10);
    if (live !== undefined && (isTable ? !live.tables.has(number) : number < live.minLog)) continue;
    const path = join(location, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    const s = stamp(st.size, st.mtimeMs);
    if (isTable && known.get(name) === s) {
      kept[name] = s;
      continue;
    }
    if (options.maxBytes !== undefined && bytesChecked >= options.maxBytes) continue;
    const bytes = readIfThere(path);
    if (bytes === undefined) continue;
    bytesChecked += bytes.length;
    if (isTable) {
      tablesChecked++;
      const c = checkTable(bytes);
      // a table is written front to back, its footer last: one without a footer, written just now
      // while the database is open, is a compaction's output in progress
      const inProgress = c.blocks === 0 && c.damaged[0]?.what === 'footer' && options.settledMs !== undefined && Date.now() - st.mtimeMs < options.settledMs;
      if (inProgress) continue;
      if (c.damaged.length === 0) kept[name] = s;
      else {
        const first = c.damaged[0]!;
        const data = c.damaged.filter((d) => d.what === 'data').length;
        damage.push({
          file: name,
          detail: c.blocks === 0 ? `its ${first.what} block at offset ${first.offset} fails its checksum: no record can be read` : `${data} of ${c.blocks} data blocks fail their checksum (first at offset ${first.offset})`,
        });
      }
    } else {
      const c = checkLog(bytes);
      if (c.damagedAt !== undefined) damage.push({ file: name, detail: `a record at offset ${c.damagedAt} fails its checksum, and intact records follow it` });
    }
  }
  return { damage, tablesChecked, bytesChecked, intact: kept };
}

/** `ERR_STORE_CORRUPT` naming each damaged file and what is damaged in it. */
export function damagedFilesError(location: string, damage: readonly FileDamage[], cause?: unknown): StoreError {
  const files = damage.map((d) => `${d.file}: ${d.detail}`).join('; ');
  return new StoreError('ERR_STORE_CORRUPT', location, { ...(cause === undefined ? {} : { cause }), detail: `damaged files (${files}); run \`urldedup repair\`` });
}

/**
 * Remember the tables a check found intact (the file replaced atomically). Called with the
 * folder's LOCK held, after LevelDB opened it: no other process writes the file meanwhile.
 */
export function rememberChecked(location: string, check: FolderCheck): void {
  if (check.tablesChecked === 0 || check.damage.length > 0) return;
  if (!existsSync(location)) return;
  const tmp = join(location, `${CHECKED_FILE}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify({ tables: check.intact }));
    renameSync(tmp, join(location, CHECKED_FILE));
  } catch {
    // remembering saves time only: a folder that cannot take it is checked again next time
  }
}
