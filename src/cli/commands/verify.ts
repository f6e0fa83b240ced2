/**
 * `urldedup verify`: the store's invariants checked (a consistency check, like fsck).
 */
import type { Writable } from 'node:stream';
import { isStoreError } from '../../store/errors.js';
import { checkFolder, damagedFilesError } from '../../store/backends/leveldb/folder-check.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { presetsFrom } from '../args.js';
import { failure } from '../errors.js';
import { EXIT_OK, EXIT_SOME_INVALID } from '../exit-codes.js';
import { openReadOnly, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom, type StoreLocation } from '../store-access.js';

const VERIFY_HELP = `Usage: urldedup verify [--db DIR | --redis SEEDS] [--json]

Checks the store's invariants (a consistency check, like fsck): every queued URL has a frontier
entry and every frontier entry a queued URL; every alias target exists and the alias graph has no
cycle; every pruned entry names an existing rule or preset; the counters equal a recount; and
(LevelDB) every table and log file passes its checksums, whatever its age.
The store is opened read-only and judged with the presets it was last opened with (recorded in
the store); --preset is accepted for compatibility and ignored.
Exit codes: 0 consistent, 1 problems found (listed), 3 store locked, corrupt or missing.

Options:
${STORE_FLAGS_HELP}
  --json              the report as one JSON object
  -h, --help

Example:
  urldedup verify --db ./.urldedup/db
`;

export const verifyFlags = {
  ...STORE_FLAGS,
  preset: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Open, verify, close; the report as text or JSON; exit 0 when consistent, 1 otherwise. */
export async function verifyAndReport(location: StoreLocation, json: boolean, stdout: Writable): Promise<number> {
  let store;
  try {
    store = await openReadOnly(location);
  } catch (error) {
    // a store too damaged to open: say which files are (every one checked, whatever its time)
    if (location.kind === 'level' && isStoreError(error) && error.code === 'ERR_STORE_CORRUPT') {
      const damage = checkFolder(location.db, { all: true }).damage;
      if (damage.length > 0) throw damagedFilesError(location.db, damage, error);
    }
    throw error;
  }
  let report;
  try {
    report = await store.verify();
  } finally {
    await store.close();
  }
  if (json) stdout.write(JSON.stringify(report) + '\n');
  else {
    stdout.write(`store ${store.location}: ${report.ok ? 'consistent' : `${report.problems.length} problem(s)`}\n`);
    for (const problem of report.problems) stdout.write(`  ${problem}\n`);
    const counted = Object.entries(report.counted).map(([k, v]) => `${k} ${v}`).join(', ');
    if (counted) stdout.write(`  counted: ${counted}\n`);
  }
  return report.ok ? EXIT_OK : EXIT_SOME_INVALID;
}

export async function runVerifyCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: verifyFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(VERIFY_HELP);
      return EXIT_OK;
    }
    presetsFrom(values.preset); // accepted for compatibility: the store's recorded presets are used
    return await verifyAndReport(storeLocationFrom(values), values.json === true, stdout);
  } catch (error) {
    return failure(error, stderr, 'verify');
  }
}
