/**
 * The store's commands: `urldedup serve`, `filter`, `export`, `stats`. Each returns its exit code
 * (exit-codes.ts): 0 ok, 1 some inputs invalid, 2 usage, 3 store locked, corrupt or unavailable,
 * 4 another failure, 130/143 stopped by SIGINT/SIGTERM (serve).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isPresetName, type PresetName } from '../normalize/index.js';
import { isStoreError, openStore, repairStore, StoreError, type AdmitResult, type RepairReport, type SeenStore, type StoreStats } from '../store/index.js';
import { readTokenFile, TokenFileError } from '../service/auth.js';
import { defaultServiceOptions, startService, type Service } from '../service/server.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, EXIT_SOME_INVALID, EXIT_STORE, EXIT_USAGE } from './exit-codes.js';
import { LineWriter, readLines } from './lines.js';
import { createLogger } from './logger.js';

/** Where the store lives when `--db` is not given. */
export const DEFAULT_DB = './.urldedup/db';

/** URLs per `admit` call in `filter`: one atomic batch each, so memory stays constant. */
export const FILTER_BATCH = 1000;

const PRESET_NOTE = `  --preset NAME       store preset, repeatable (tracking, session-ids, sort-query, www, …).
                      Give the same presets every time you open a store: opening it without
                      a preset gives the URLs that preset pruned back to the frontier.`;

/** For the commands that open the store read-only (stats, export, verify). */
const READ_ONLY_PRESET_NOTE = `  --preset NAME       accepted for compatibility and ignored: the store is opened read-only
                      and uses the presets it was last opened with (recorded in the store).`;

const SERVE_HELP = `Usage: urldedup serve [--db DIR] [options]

Serves the store over HTTP/JSON until SIGTERM or SIGINT (then in-flight requests finish and
the store closes: exit 143 or 130). When it listens it prints one JSON line on stdout:
  {"event":"listening","url":"http://127.0.0.1:7070","host":"127.0.0.1","port":7070,…}

Routes (docs/openapi.yaml): GET /v1/key?url=…, POST /v1/key, POST /v1/admit,
POST /v1/evidence, GET /v1/stats, GET /healthz, GET /metrics (Prometheus).

Options:
  --db DIR            the store folder (default ${DEFAULT_DB})
  --host ADDR         address to bind (default ${defaultServiceOptions.host}: this machine only)
  --port N            TCP port, 0 for any free one (default ${defaultServiceOptions.port})
  --token-file FILE   require 'Authorization: Bearer <token>' (the file's text) on every
                      route but /healthz
  --max-body BYTES    largest request body (default ${defaultServiceOptions.maxBody}); more is 413
  --max-batch N       most URLs per request (default ${defaultServiceOptions.maxBatch}); more is 413
  --max-inflight N    requests handled at once (default ${defaultServiceOptions.maxInFlight}); more get 503 + Retry-After
${PRESET_NOTE}
  --verbose           log requests' errors and lifecycle as JSON on stderr
  -h, --help

Example:
  urldedup serve --db ./seen --port 7070 &
  curl -s 'http://127.0.0.1:7070/v1/key' -G --data-urlencode 'url=HTTP://Example.COM:80/a/../b'
  curl -s http://127.0.0.1:7070/v1/admit -H 'content-type: application/json' \\
       -d '["https://example.com/", "https://example.com:443/"]'
`;

const FILTER_HELP = `Usage: urldedup filter [--db DIR] [--explain] [--preset NAME]… < urls.txt

Reads URLs on stdin, one per line, and writes the ones the store admits (new: never seen,
not a duplicate of a URL seen before) to stdout as given, in order. The store remembers them,
so a second run over the same URLs writes nothing. Invalid lines go to stderr as
'!ERR_CODE<TAB>line' (exit 1). Lines are admitted ${FILTER_BATCH} at a time, in constant memory.

Options:
  --db DIR            the store folder (default ${DEFAULT_DB})
  --explain           write every input as JSONL {url, key, admitted, reason[, via]} instead
  --batch N           lines per admit batch (default ${FILTER_BATCH})
${PRESET_NOTE}
  -h, --help

Example:
  cat day1.txt day2.txt | urldedup filter --db ./seen --preset tracking > new.txt
  printf 'https://a.example/x\\nhttps://A.example:443/x\\n' | urldedup filter --db ./seen --explain
`;

const EXPORT_HELP = `Usage: urldedup export [--db DIR] [--what urls|aliases|rules]

Writes the store's contents as JSONL (one JSON object per line), streamed:
  urls      the canonical URL set: {key, url, state, depth, status?} (queued, fetched, failed)
  aliases   {from, to, fromUrl, toUrl, status}: URLs merged into another by permanent redirects
  rules     learned host rules with their state and evidence

Options:
  --db DIR            the store folder (default ${DEFAULT_DB})
  --what KIND         urls (default), aliases or rules
${READ_ONLY_PRESET_NOTE}
  -h, --help

Example:
  urldedup export --db ./seen --what urls | jq -r 'select(.state == "queued") | .url'
`;

const STATS_HELP = `Usage: urldedup stats [--db DIR] [--json]

Prints the store's counts: URLs by state, aliases, rules, pruned URLs by reason, the frontier.

Options:
  --db DIR            the store folder (default ${DEFAULT_DB})
  --json              one JSON object (the shape of GET /v1/stats)
${READ_ONLY_PRESET_NOTE}
  -h, --help

Example:
  urldedup stats --db ./seen --json | jq .urls
`;

class UsageError extends Error {}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

function integer(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} needs a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return n;
}

function presetsFrom(values: readonly string[] | undefined): PresetName[] {
  const out: PresetName[] = [];
  for (const p of values ?? []) {
    if (!isPresetName(p)) throw new UsageError(`unknown preset ${JSON.stringify(p)}`);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** The exit code and stderr message of an error out of a command. */
function failure(error: unknown, stderr: Writable): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    stderr.write(`urldedup: ${(error as Error).message}\nRun 'urldedup <command> --help'.\n`);
    return EXIT_USAGE;
  }
  if (error instanceof TokenFileError) {
    stderr.write(`urldedup: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (isStoreError(error)) {
    stderr.write(`urldedup: ${error.message}\n`);
    return EXIT_STORE;
  }
  stderr.write(`urldedup: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILURE;
}

/**
 * Open the store for a command. `create`: make the folder (and its parents) when missing;
 * otherwise a missing folder is `ERR_STORE_IO`, not a new empty store.
 */
async function openForCommand(db: string, presets: readonly PresetName[], create: boolean): Promise<SeenStore> {
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
async function openReadOnly(db: string): Promise<SeenStore> {
  const location = resolvePath(db);
  if (!existsSync(location)) throw new StoreError('ERR_STORE_IO', location, { detail: 'no store in this folder' });
  return openStore(location, { readOnly: true });
}

function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'EPIPE';
}

// ---- serve ------------------------------------------------------------------------------------

const serveFlags = {
  db: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'token-file': { type: 'string' },
  'max-body': { type: 'string' },
  'max-batch': { type: 'string' },
  'max-inflight': { type: 'string' },
  preset: { type: 'string', multiple: true },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export interface ServeIo {
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Resolves with the signal that stops the service (tests); default: SIGTERM or SIGINT. */
  readonly stopSignal?: Promise<'SIGTERM' | 'SIGINT'>;
}

/** `urldedup serve`: runs until SIGTERM/SIGINT; resolves with 143/130 after a clean shutdown. */
export async function runServeCommand(argv: string[], io: ServeIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let store: SeenStore | undefined;
  let service: Service | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: serveFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(SERVE_HELP);
      return EXIT_OK;
    }
    const port = integer('port', values.port, 0, 65535);
    const maxBody = integer('max-body', values['max-body'], 1);
    const maxBatch = integer('max-batch', values['max-batch'], 1);
    const maxInFlight = integer('max-inflight', values['max-inflight'], 1);
    const presets = presetsFrom(values.preset);
    const log = createLogger(values.verbose ? 'info' : 'warn');
    let token: string | undefined;
    if (values['token-file'] !== undefined) {
      const t = await readTokenFile(values['token-file']);
      if (t.warning !== undefined) log.warn(t.warning);
      token = t.token;
    }
    const db = values.db ?? DEFAULT_DB;

    // listen for the stop signals before the store opens, so none is missed
    const signals = new SignalWatch();
    try {
      store = await openForCommand(db, presets, true);
      const maxPendingUrls = Math.max(defaultServiceOptions.maxPendingUrls, maxBatch ?? 0);
      const maxBufferedBytes = Math.max(defaultServiceOptions.maxBufferedBytes, maxBody ?? 0);
      service = await startService(store, {
        ...(values.host === undefined ? {} : { host: values.host }),
        ...(port === undefined ? {} : { port }),
        ...(maxBody === undefined ? {} : { maxBody }),
        ...(maxBatch === undefined ? {} : { maxBatch }),
        ...(maxInFlight === undefined ? {} : { maxInFlight }),
        ...(token === undefined ? {} : { token }),
        maxPendingUrls,
        maxBufferedBytes,
        logger: log,
      });
      stdout.write(
        JSON.stringify({ event: 'listening', url: service.url, host: service.host, port: service.port, db: store.location, pid: process.pid }) + '\n',
      );
      log.info({ url: service.url, db: store.location }, 'listening');
      const signal = await (io.stopSignal ?? signals.first);
      log.info({ signal, inFlight: service.inFlight }, 'shutting down');
      // a second signal cuts the connections still open; the store still closes cleanly
      void signals.second.then(() => service?.abort());
      await service.close();
      const s = store;
      store = undefined;
      await s.close();
      log.info('stopped');
      return signal === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
    } finally {
      signals.dispose();
    }
  } catch (error) {
    if (service !== undefined) service.abort();
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr);
  }
}

/** SIGTERM and SIGINT as promises, without the default exit while they are watched. */
class SignalWatch {
  private count = 0;
  private resolveFirst!: (s: 'SIGTERM' | 'SIGINT') => void;
  private resolveSecond!: () => void;
  readonly first = new Promise<'SIGTERM' | 'SIGINT'>((r) => (this.resolveFirst = r));
  readonly second = new Promise<void>((r) => (this.resolveSecond = r));
  private readonly onTerm = (): void => this.got('SIGTERM');
  private readonly onInt = (): void => this.got('SIGINT');

  constructor() {
    process.on('SIGTERM', this.onTerm);
    process.on('SIGINT', this.onInt);
  }

  private got(signal: 'SIGTERM' | 'SIGINT'): void {
    if (++this.count === 1) this.resolveFirst(signal);
    else this.resolveSecond();
  }

  dispose(): void {
    process.off('SIGTERM', this.onTerm);
    process.off('SIGINT', this.onInt);
  }
}

// ---- filter -----------------------------------------------------------------------------------

const filterFlags = {
  db: { type: 'string' },
  explain: { type: 'boolean' },
  batch: { type: 'string' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function explainLine(r: AdmitResult): string {
  const o: { url: string; key: string | null; admitted: boolean; reason: string; via?: string } = {
    url: r.url,
    key: r.key ?? null,
    admitted: r.admitted,
    reason: r.reason,
  };
  if (r.via !== undefined) o.via = r.via;
  return JSON.stringify(o);
}

/** `urldedup filter`: stdin URLs → the admitted ones (or every decision with `--explain`). */
export async function runFilterCommand(argv: string[], stdin: Readable, stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: filterFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(FILTER_HELP);
      return EXIT_OK;
    }
    const batchSize = integer('batch', values.batch, 1, 100_000) ?? FILTER_BATCH;
    const presets = presetsFrom(values.preset);
    const explain = values.explain === true;
    store = await openForCommand(values.db ?? DEFAULT_DB, presets, true);
    const s = store;
    const out = new LineWriter(stdout);
    const err = new LineWriter(stderr);
    let invalid = 0;
    const emit = async (results: readonly AdmitResult[]): Promise<void> => {
      for (const r of results) {
        if (explain) await out.write(explainLine(r));
        else if (r.admitted) await out.write(r.url);
        if (r.reason.startsWith('invalid:')) {
          invalid++;
          if (!explain) await err.write(`!${r.reason.slice(8)}\t${r.url}`);
        }
      }
    };
    // one batch admitted while the next is read (the store pipelines them); results in input order
    let pending: Promise<AdmitResult[]> | undefined;
    let batch: string[] = [];
    const submit = async (): Promise<void> => {
      const next = s.admit(batch);
      next.catch(() => undefined); // awaited below; this only keeps an early rejection from being unhandled
      batch = [];
      if (pending !== undefined) await emit(await pending);
      pending = next;
    };
    for await (const line of readLines(stdin)) {
      batch.push(line);
      if (batch.length >= batchSize) await submit();
    }
    if (batch.length > 0) await submit();
    if (pending !== undefined) await emit(await pending);
    await out.flush();
    await err.flush();
    store = undefined;
    await s.close();
    return invalid > 0 ? EXIT_SOME_INVALID : EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    if (isBrokenPipe(error)) return EXIT_OK; // the reader went away (`| head`): nothing left to do
    return failure(error, stderr);
  }
}

// ---- export -----------------------------------------------------------------------------------

const exportFlags = {
  db: { type: 'string' },
  what: { type: 'string' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export type ExportKind = 'urls' | 'aliases' | 'rules';

/** `urldedup export`: the canonical URLs, aliases or rules as JSONL, streamed. */
export async function runExportCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: exportFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(EXPORT_HELP);
      return EXIT_OK;
    }
    const what = values.what ?? 'urls';
    if (what !== 'urls' && what !== 'aliases' && what !== 'rules') throw new UsageError('--what must be urls, aliases or rules');
    presetsFrom(values.preset); // accepted for compatibility: the store's recorded presets are used
    store = await openReadOnly(values.db ?? DEFAULT_DB);
    const records: AsyncIterable<unknown> = what === 'urls' ? store.canonicalUrls() : what === 'aliases' ? store.aliases() : store.rules();
    const out = new LineWriter(stdout);
    for await (const r of records) await out.write(JSON.stringify(r));
    await out.flush();
    const s = store;
    store = undefined;
    await s.close();
    return EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    if (isBrokenPipe(error)) return EXIT_OK;
    return failure(error, stderr);
  }
}

// ---- stats ------------------------------------------------------------------------------------

const statsFlags = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function counts(record: Readonly<Record<string, number>>): string {
  const parts = Object.entries(record).map(([k, n]) => `${k} ${n}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** The human-readable form of `urldedup stats`. */
export function formatStats(location: string, s: StoreStats): string {
  const { admitted, ...states } = s.urls;
  const hosts = Object.keys(s.frontier.hosts).length;
  const rows: [string, string][] = [
    ['store', location],
    ['urls seen', `${admitted} (${counts(states)})`],
    ['aliases', String(s.aliases)],
    ['redirect loops', String(s.loops)],
    ['temp. redirects', String(s.temporaryRedirects)],
    ['rules', counts(s.rules)],
    ['pruned', counts(s.pruned)],
    ['frontier', `${s.frontier.size} queued on ${hosts} host${hosts === 1 ? '' : 's'}, ${s.frontier.inFlight} in flight`],
  ];
  return rows.map(([k, v]) => `${k.padEnd(16)} ${v}`).join('\n') + '\n';
}

/** `urldedup stats`: the store's counts, human-readable or `--json`. */
export async function runStatsCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: statsFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(STATS_HELP);
      return EXIT_OK;
    }
    presetsFrom(values.preset); // accepted for compatibility: the store's recorded presets are used
    store = await openReadOnly(values.db ?? DEFAULT_DB);
    const stats = await store.stats();
    const location = store.location;
    const s = store;
    store = undefined;
    await s.close();
    stdout.write(values.json === true ? JSON.stringify(stats) + '\n' : formatStats(location, stats));
    return EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr);
  }
}

// ---- verify and repair ------------------------------------------------------------------------

const VERIFY_HELP = `Usage: urldedup verify --db DIR [--json]

Checks the store's invariants (a consistency check, like fsck): every queued URL has a frontier
entry and every frontier entry a queued URL; every alias target exists and the alias graph has no
cycle; every pruned entry names an existing rule or preset; the counters equal a recount.
The store is opened read-only and judged with the presets it was last opened with (recorded in
the store); --preset is accepted for compatibility and ignored.
Exit codes: 0 consistent, 1 problems found (listed), 3 store locked, corrupt or missing.

Example:
  urldedup verify --db ./.urldedup/db
`;

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

const verifyFlags = {
  db: { type: 'string' },
  preset: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Open, verify, close; the report as text or JSON; exit 0 when consistent, 1 otherwise. */
async function verifyAndReport(db: string, json: boolean, stdout: Writable): Promise<number> {
  const store = await openReadOnly(db);
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
    return await verifyAndReport(values.db ?? DEFAULT_DB, values.json === true, stdout);
  } catch (error) {
    return failure(error, stderr);
  }
}

/**
 * After a LevelDB repair: recount the counters and rebuild the frontier and indexes from the URL
 * records. The store is opened with the presets that have pruned URLs (so none is given back)
 * plus any given with --preset.
 */
async function rebuildDerived(location: string, extra: readonly PresetName[]): Promise<void> {
  const presets = new Set<PresetName>(extra);
  const ro = await openReadOnly(location);
  try {
    for (const reason of Object.keys((await ro.stats()).pruned)) {
      const name = reason.startsWith('preset:') ? reason.slice(7) : '';
      if (isPresetName(name)) presets.add(name);
    }
  } finally {
    await ro.close();
  }
  const store = await openForCommand(location, [...presets], false);
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
    const { values } = parseArgs({ args: argv, options: verifyFlags, allowPositionals: false, strict: true });
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
    return await verifyAndReport(location, values.json === true, stdout);
  } catch (error) {
    return failure(error, stderr);
  }
}
