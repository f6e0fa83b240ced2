/**
 * `urldedup repair`: LevelDB repair of a damaged store, the derived records rebuilt, then verify.
 */
import { resolve as resolvePath } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isPresetName, type PresetName } from '../../normalize/index.js';
import { repairStore, type RepairReport } from '../../store/index.js';
import { presetsFrom } from '../args.js';
import { failure } from '../errors.js';
import { EXIT_OK, EXIT_SOME_INVALID } from '../exit-codes.js';
import { DEFAULT_DB, openForCommand, openReadOnly } from '../store-access.js';
import { verifyAndReport } from './verify.js';

/** LevelDB only: a Redis store has no repair (its masters' AOF is what recovers it). */
const repairFlags = {
  db: { type: 'string' },
  preset: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const REPAIR_HELP = `Usage: urldedup repair --db DIR

Repairs a damaged store (after ERR_STORE_CORRUPT): checks every file, reads the intact blocks of
damaged tables and moves the tables to lost/, runs LevelDB's repair, writes back what was salvaged,
deletes records that fail their checksum, then reports what was damaged and lost (the URLs the
store had counted against those found), rebuilds what is derived from the URL and alias records
(counters, frontier, indexes) and checks the store as 'urldedup verify' does. A store another
process has open is refused with ERR_STORE_LOCKED before any file is touched, and no process can
open the store while the repair runs.
Exit codes: 0 repaired, nothing lost, consistent; 1 repaired with losses or problems left;
3 locked or not repairable.

Example:
  urldedup repair --db ./.urldedup/db && urldedup verify --db ./.urldedup/db
`;

/**
 * After a LevelDB repair: recount the counters and rebuild the frontier and indexes from the URL
 * records. The store is opened with the presets that have pruned URLs (so none is given back)
 * plus any given with --preset.
 */
async function rebuildDerived(location: string, extra: readonly PresetName[] | undefined): Promise<void> {
  const presets = new Set<PresetName>(extra ?? []);
  const ro = await openReadOnly({ kind: 'level', db: location });
  try {
    for (const reason of Object.keys((await ro.stats()).pruned)) {
      const name = reason.startsWith('preset:') ? reason.slice(7) : '';
      if (isPresetName(name)) presets.add(name);
    }
  } finally {
    await ro.close();
  }
  // (a repair aligns the store's recorded presets with what its pruned URLs say)
  const store = await openForCommand({ kind: 'level', db: location }, [...presets], false, true);
  try {
    await store.rebuildDerived();
  } finally {
    await store.close();
  }
}

/** What a repair found and did, one line per item (stdout). */
function formatRepair(r: RepairReport): string {
  const lines: string[] = [];
  for (const d of r.damaged) lines.push(`  damaged ${d.file}: ${d.detail}`);
  if (r.salvaged > 0) lines.push(`  salvaged ${r.salvaged} records from the intact blocks of damaged tables`);
  for (const [space, n] of Object.entries(r.deleted)) lines.push(`  deleted ${n} ${space} records that fail their checksum`);
  if (r.restored.length > 0) lines.push(`  meta records lost and written anew with the defaults: ${r.restored.join(', ')} (open it with the options it was made with)`);
  lines.push(`  entries per sublevel: ${Object.entries(r.after).map(([space, n]) => `${space} ${n}`).join(', ')}`);
  const { recorded, found } = r.urls;
  if (recorded === undefined) lines.push(`  URLs: ${found} found (the store's own count did not survive)`);
  else if (recorded > found) lines.push(`  URLs: ${found} of the ${recorded} the store had counted; ${recorded - found} lost`);
  else lines.push(`  URLs: ${found}, as the store had counted`);
  return `${lines.join('\n')}\n`;
}

export async function runRepairCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: repairFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(REPAIR_HELP);
      return EXIT_OK;
    }
    const location = resolvePath(values.db ?? DEFAULT_DB);
    // refused with ERR_STORE_LOCKED, touching nothing, while another process has the store open
    const report = await repairStore(location);
    stdout.write(`store ${location}: ${report.complete ? 'repaired, nothing lost' : 'repaired with losses'}\n`);
    stdout.write(formatRepair(report));
    await rebuildDerived(location, presetsFrom(values.preset));
    const verified = await verifyAndReport({ kind: 'level', db: location }, values.json === true, stdout);
    // a store that lost records is never reported as simply repaired: exit 1 with what was lost
    return verified === EXIT_OK && !report.complete ? EXIT_SOME_INVALID : verified;
  } catch (error) {
    return failure(error, stderr, 'repair');
  }
}
