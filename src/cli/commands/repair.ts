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
import { EXIT_OK } from '../exit-codes.js';
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

Runs LevelDB's repair on a damaged store (after ERR_STORE_CORRUPT), recovering every record that
can still be read, reports the entries of each sublevel before and after (what the repair dropped),
rebuilds what is derived from the URL and alias records (counters, frontier, indexes), then checks
the store as 'urldedup verify' does. A store another process has open is refused with
ERR_STORE_LOCKED before any file is touched: stop every process using the store first.
Exit codes: 0 repaired and consistent, 1 repaired with problems left, 3 locked or not repairable.

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

/** `url 20000 → 19744 (-256), alias 1 → 1, …`: each sublevel's entries before and after a repair. */
function formatRepairCounts(r: RepairReport): string {
  const parts: string[] = [];
  for (const [space, after] of Object.entries(r.after)) {
    const before = r.before[space as keyof RepairReport['before']];
    if (before === undefined) parts.push(`${space} unreadable → ${after}`);
    else parts.push(`${space} ${before} → ${after}${before === after ? '' : ` (${after - before})`}`);
  }
  return parts.length === 0 ? 'none readable' : parts.join(', ');
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
    stdout.write(`store ${location}: repaired\n`);
    stdout.write(`  entries per sublevel before → after: ${formatRepairCounts(report)}\n`);
    await rebuildDerived(location, presetsFrom(values.preset));
    return await verifyAndReport({ kind: 'level', db: location }, values.json === true, stdout);
  } catch (error) {
    return failure(error, stderr);
  }
}
