/**
 * `urldedup crawl [URL...] --db DIR`: the crawl command. With no URL it starts the built-in demo
 * site on loopback and crawls it, with loopback allowed for that site's port only.
 */
import { accessSync, constants as fsConstants, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Writable } from 'node:stream';
import { crawl, defaultCrawlOptions, formatReport, type CrawlOptions, type CrawlProgress, type ScopeMode } from '../../crawler/index.js';
import { renderReportHtml } from '../report-html.js';
import { defaultRetryOptions } from '../../crawler/http/retry.js';
import { isPresetName, type PresetName } from '../../normalize/index.js';
import { isStoreError, type FleetLocation } from '../../store/index.js';
import { STORE_FLAGS, storeLocationFrom } from '../store-access.js';
import { isParseArgsError, UsageError, usageLines } from '../errors.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, EXIT_STORE, EXIT_USAGE } from '../exit-codes.js';
import { createLogger, logFormatFrom, type LogFormat, type LogLevel } from '../logger.js';
import { progressFigures, progressLine } from '../progress.js';
import { startDemoSite, type DemoSite } from './demo-site.js';

export const CRAWL_HELP = `Usage: urldedup crawl [URL...] [options]

Crawls from the seed URLs, deduplicating every discovered link through the store, until the
frontier is empty or a limit is reached, then prints a report. With no URL it starts the built-in
demo site on 127.0.0.1 and crawls that (loopback is allowed for that site only). Run it again with
the same --db to resume: nothing recorded as fetched is fetched again.

Options:
  --db DIR             the store (LevelDB folder; default ./.urldedup/db)
  --redis SEEDS        join a fleet instead: workers on any machines share one frontier and
                       seen set on a Redis Cluster (redis://HOST:PORT,…; docs/scale-out.md);
                       each holds a few hosts at a time with a lease, so --per-host and
                       --delay-ms hold fleet-wide; it finishes when the fleet has no work left
  --redis-name NAME    the fleet's store name in the cluster (default ud)
  --redis-sync MODE    everysec or always: refuse masters whose AOF promises less
  --lease-ms N         a host's lease; a killed worker's hosts return after it (default 15000)
  --max-hosts N        hosts one fleet worker holds at once (default: ceil(concurrency /
                       per-host) + 1)
  --concurrency N      requests in flight in all (default ${defaultCrawlOptions.concurrency})
  --per-host N         requests in flight per host (default ${defaultCrawlOptions.perHost})
  --delay-ms N         least time between two requests to one host (default ${defaultCrawlOptions.delayMs};
                       a larger robots.txt Crawl-delay wins, up to 30 s)
  --max-pages N        stop after N pages in this run (the rest stays queued)
  --max-links N        distinct links taken from one page (default 5000; the rest are counted
                       as dropped in the report)
  --max-depth N        follow links at most N steps from a seed
  --scope MODE         host (default: the seeds' hosts, with or without www.), domain (and their
                       subdomains) or any
  --include RE         crawl only URLs matching RE (repeatable)
  --exclude RE         never crawl URLs matching RE (repeatable)
  --allow-private      allow loopback, private, link-local and other special-use addresses
                       (refused by default, checked on the resolved address at connect time)
  --preset NAME        opt-in normalization preset, repeatable or comma-separated
                       (tracking, session-ids, sort-query, www, remove-index-document, …);
                       a store's presets are its own: without --preset it uses them, and
                       naming others needs --change-presets (exit 3 otherwise)
  --change-presets     make the presets named the store's own: what a preset no longer named
                       pruned comes back, queued URLs a new one maps elsewhere are pruned
  --learn-mirrors      learn mirror hosts too: a host whose documents are another host's under
                       the same paths (a ServerAlias) is mapped onto it, checked like every
                       learned rule (docs/rules.md); not in a fleet
  --sync POLICY        when store writes reach the disk: hybrid (default: a synced write every
                       64 batches or 1 s, power loss loses at most that), always, or never
  --max-retries N      fetches again, within the run, of a URL that failed transiently: 5xx, 429,
                       timeout, broken connection, DNS failure (default ${defaultRetryOptions.maxRetries}; backoff with jitter,
                       Retry-After honoured up to 60 s); a URL still failing stays retryable
  --retry-cooldown T   a later run queues such a URL again once T has passed since its last
                       attempt: seconds, or with s, m or h (default 1h)
  --retry-failed       queue every transiently failed URL again now, whatever the cool-down
  --report text|json   the final report's format (default text, on stdout)
  --report html FILE   write the report as one self-contained HTML page to FILE (docs/report.md)
  --log-level LEVEL    pino logs on stderr: silent, error, warn (default), info, debug, trace
  --log-format FORMAT  json (one object a line; the default when stderr is not a terminal) or
                       pretty (for people; the default on a terminal)
  --stats-interval S   when stderr is not a terminal: a 'crawl progress' log record every S
                       seconds (pages/s, fetched, queued, documents, requests per document, ETA;
                       default 60, 0 for none); on a terminal, a live line that fits its width
  --demo-port N        the demo site's port (default: the last one used with this --db, else any)
  -h, --help

Exit codes: 0 done (or a limit reached), 2 usage, 3 store locked or unavailable, 4 failure (no
page fetched successfully: every seed failed, or an unexpected error),
130 / 143 stopped by SIGINT / SIGTERM (in-flight pages are finished and recorded first).

Examples:
  urldedup crawl                                      # the demo site, report on stdout
  urldedup crawl https://example.com/ --max-pages 100 --delay-ms 500 --db ./example-db
  urldedup crawl --db ./example-db                    # resume
`;

const flags = {
  ...STORE_FLAGS,
  'lease-ms': { type: 'string' },
  'max-hosts': { type: 'string' },
  concurrency: { type: 'string' },
  'per-host': { type: 'string' },
  'delay-ms': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-links': { type: 'string' },
  'max-depth': { type: 'string' },
  scope: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'allow-private': { type: 'boolean' },
  preset: { type: 'string', multiple: true },
  'learn-mirrors': { type: 'boolean' },
  'change-presets': { type: 'boolean' },
  report: { type: 'string' },
  'max-retries': { type: 'string' },
  'retry-cooldown': { type: 'string' },
  'retry-failed': { type: 'boolean' },
  sync: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'stats-interval': { type: 'string' },
  'demo-port': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function wholeNumber(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} needs a whole number >= ${min}, not ${JSON.stringify(value)}`);
  return n;
}

function regex(name: string, source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new UsageError(`--${name} ${JSON.stringify(source)}: ${(error as Error).message}`);
  }
}

/** `--retry-cooldown`: seconds, or a number with s, m or h, as ms. */
function duration(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)([smh]?)$/.exec(value.trim());
  if (m === null) throw new UsageError(`--${name} needs a duration (seconds, or 30s, 15m, 2h), not ${JSON.stringify(value)}`);
  return Number(m[1]) * (m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : 1000);
}

/**
 * `--report html FILE`: FILE is the argument right after `html` (`parseArgs` sees it as a
 * positional); taken out of the positionals, so it is not read as a seed.
 */
function htmlReportFile(tokens: readonly { kind: string; name?: string; index: number; inlineValue?: boolean | undefined; value?: string | undefined }[], positionals: string[]): string {
  const option = tokens.filter((t) => t.kind === 'option' && t.name === 'report').at(-1)!;
  const at = option.index + (option.inlineValue === true ? 1 : 2);
  const file = tokens.find((t) => t.kind === 'positional' && t.index === at);
  if (file?.value === undefined) throw new UsageError('--report html needs a FILE to write the page to (--report html FILE)');
  positionals.splice(positionals.indexOf(file.value), 1);
  // checked before the crawl, not after it: a report that cannot be written is lost with its crawl
  const folder = dirname(resolvePath(file.value));
  try {
    if (!statSync(folder).isDirectory()) throw new Error('not a folder');
    accessSync(folder, fsConstants.W_OK);
  } catch {
    throw new UsageError(`--report html ${file.value}: the folder ${folder} does not exist or cannot be written`);
  }
  return file.value;
}

const LOG_LEVELS: readonly LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export interface CrawlCommandIo {
  readonly stdout?: Writable;
  readonly stderr?: Writable & { isTTY?: boolean };
  /** Install SIGINT/SIGTERM handlers for the crawl's duration. @default true */
  readonly handleSignals?: boolean;
}

/** The demo site's port is remembered next to the store, so a demo crawl can resume on the same URLs. */
function demoPortFile(db: string): string {
  return resolvePath(db) + '.demo-port';
}

/**
 * Start the demo site on the requested port, else the one remembered for this store, else any.
 * The port is remembered only once the crawl holds the store (`rememberDemoPort`): a run refused
 * with ERR_STORE_LOCKED must not move the next resume to another port, where every queued URL
 * would name a site that is not there.
 */
async function startDemo(db: string, requested: number | undefined): Promise<DemoSite> {
  let remembered: number | undefined;
  try {
    remembered = Number(readFileSync(demoPortFile(db), 'utf8').trim()) || undefined;
  } catch {
    remembered = undefined;
  }
  let site: DemoSite;
  try {
    site = await startDemoSite({ port: requested ?? remembered ?? 0 });
  } catch (error) {
    if (requested !== undefined || remembered === undefined) throw error;
    site = await startDemoSite({ port: 0 }); // the remembered port is taken: a fresh one
  }
  return site;
}

function rememberDemoPort(db: string, port: number): void {
  try {
    mkdirSync(dirname(demoPortFile(db)), { recursive: true });
    writeFileSync(demoPortFile(db), `${port}\n`);
  } catch {
    // only a convenience
  }
}

/** Run `urldedup crawl` with `argv` (the arguments after `crawl`); resolves to the exit code. */
export async function runCrawlCommand(argv: string[], io: CrawlCommandIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof flags; allowPositionals: true }>>['values'];
  let positionals: string[];
  let options: Omit<CrawlOptions, 'store' | 'seeds' | 'logger'>;
  let db: string;
  let fleet: FleetLocation | undefined;
  let report: 'text' | 'json' | 'html';
  let htmlFile: string | undefined;
  let logLevel: LogLevel;
  let logFormat: LogFormat;
  let statsIntervalMs: number;
  try {
    const parsed = parseArgs({ args: argv, options: flags, allowPositionals: true, strict: true, tokens: true });
    ({ values, positionals } = parsed);
    if (values.help === true) {
      stdout.write(CRAWL_HELP);
      return EXIT_OK;
    }
    const presets: PresetName[] = [];
    for (const p of (values.preset ?? []).flatMap((x) => x.split(','))) {
      const name = p.trim();
      if (name === '') continue;
      if (!isPresetName(name)) throw new UsageError(`unknown preset ${JSON.stringify(name)}`);
      presets.push(name);
    }
    const scope = values.scope ?? 'host';
    if (scope !== 'host' && scope !== 'domain' && scope !== 'any') throw new UsageError('--scope must be host, domain or any');
    report = (values.report ?? 'text') as 'text' | 'json' | 'html';
    if (report !== 'text' && report !== 'json' && report !== 'html') throw new UsageError('--report must be text, json or html FILE');
    if (report === 'html') htmlFile = htmlReportFile(parsed.tokens, positionals);
    logLevel = (values['log-level'] ?? 'warn') as LogLevel;
    if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
    logFormat = logFormatFrom(values['log-format'], stderr.isTTY === true);
    statsIntervalMs = (wholeNumber('stats-interval', values['stats-interval'], 0) ?? 60) * 1000;
    for (const u of positionals) {
      let parsed: URL;
      try {
        parsed = new URL(u);
      } catch {
        throw new UsageError(`not an absolute URL: ${JSON.stringify(u)}`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`only http and https URLs are crawled: ${JSON.stringify(u)}`);
    }
    const location = storeLocationFrom(values);
    db = location.kind === 'level' ? location.db : '';
    if (location.kind === 'redis') {
      if (positionals.length === 0) throw new UsageError('a fleet (--redis) crawls the URLs given, not the demo site');
      const leaseMs = wholeNumber('lease-ms', values['lease-ms'], 1000);
      const maxHosts = wholeNumber('max-hosts', values['max-hosts'], 1);
      const c = wholeNumber('concurrency', values.concurrency, 1) ?? defaultCrawlOptions.concurrency;
      const ph = wholeNumber('per-host', values['per-host'], 1) ?? defaultCrawlOptions.perHost;
      fleet = {
        redis: location.seeds,
        fleet: {
          ...(location.redis.name === undefined ? {} : { name: location.redis.name }),
          ...(location.redis.sync === undefined ? {} : { sync: location.redis.sync }),
          ...(leaseMs === undefined ? {} : { leaseMs }),
          maxHosts: maxHosts ?? Math.ceil(c / ph) + 1,
        },
      };
      if (values['learn-mirrors'] === true) throw new UsageError('--learn-mirrors is not available in a fleet (a host and its mirror are two partitions)');
    } else if (values['lease-ms'] !== undefined || values['max-hosts'] !== undefined) {
      throw new UsageError('--lease-ms and --max-hosts need --redis');
    }
    const maxPages = wholeNumber('max-pages', values['max-pages'], 0);
    const maxLinks = wholeNumber('max-links', values['max-links'], 1);
    const maxDepth = wholeNumber('max-depth', values['max-depth'], 0);
    const concurrency = wholeNumber('concurrency', values.concurrency, 1);
    const perHost = wholeNumber('per-host', values['per-host'], 1);
    const delayMs = wholeNumber('delay-ms', values['delay-ms'], 0);
    const maxRetries = wholeNumber('max-retries', values['max-retries'], 0);
    const retryCooldownMs = duration('retry-cooldown', values['retry-cooldown']);
    const sync = values.sync ?? 'hybrid';
    if (sync !== 'hybrid' && sync !== 'always' && sync !== 'never') throw new UsageError('--sync must be hybrid, always or never');
    const storeOptions: NonNullable<CrawlOptions['storeOptions']> = {
      ...(sync === 'hybrid' ? {} : { sync: sync as 'always' | 'never' }),
      ...(values['learn-mirrors'] === true ? { learnMirrors: true } : {}),
      ...(values['change-presets'] === true ? { changePresets: true } : {}),
    };
    options = {
      ...(Object.keys(storeOptions).length === 0 ? {} : { storeOptions }),
      // no --preset: the store's own presets
      ...(values.preset === undefined ? {} : { presets }),
      scope: scope as ScopeMode,
      include: (values.include ?? []).map((r) => regex('include', r)),
      exclude: (values.exclude ?? []).map((r) => regex('exclude', r)),
      allowPrivate: values['allow-private'] === true,
      ...(maxPages === undefined ? {} : { maxPages }),
      ...(maxLinks === undefined ? {} : { extract: { maxOutlinks: maxLinks } }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(perHost === undefined ? {} : { perHost }),
      ...(delayMs === undefined ? {} : { delayMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(retryCooldownMs === undefined ? {} : { retryCooldownMs }),
      ...(values['retry-failed'] === true ? { retryFailed: true } : {}),
    };
  } catch (error) {
    if (!(error instanceof UsageError || isParseArgsError(error))) throw error;
    stderr.write(usageLines(error, 'crawl'));
    return EXIT_USAGE;
  }

  const logger = createLogger(logLevel, logFormat, stderr);
  const tty = stderr.isTTY === true;
  // notices and periodic stats are log records in the log's own format, logged at info whatever
  // --log-level says (a child logger's level is its own), except under --log-level silent
  const notices = logLevel === 'silent' ? undefined : logger.child({}, { level: 'info' });
  const clearLine = (): void => void (tty && stderr.write('\r\x1b[K'));
  const notice = (level: 'info' | 'warn', message: string): void => {
    clearLine();
    notices?.[level](message);
  };
  let site: DemoSite | undefined;
  let seeds = positionals;
  let allow: CrawlOptions['allow'] = [];
  if (seeds.length === 0) {
    try {
      site = await startDemo(db, wholeNumber('demo-port', values['demo-port'], 0));
    } catch (error) {
      stderr.write(`urldedup crawl: cannot start the demo site: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    seeds = [site.url];
    allow = [
      { address: '127.0.0.1', port: site.port },
      { address: '::1', port: site.port },
    ];
    notice('info', `crawling the built-in demo site ${site.url} (loopback allowed for port ${site.port} only), store ${db}`);
  }

  // the first page fetched shows the crawl holds the store: then the demo's port is remembered
  let remembered = site === undefined;
  const demo = site;
  const c = crawl({
    ...options,
    store: fleet ?? db,
    seeds,
    allow,
    logger,
    ...(tty
      ? { onProgress: (p: CrawlProgress) => void stderr.write(`\r\x1b[K${progressLine(p, (stderr as { columns?: number }).columns ?? 80)}`) }
      : notices !== undefined && statsIntervalMs > 0
        ? { progressIntervalMs: statsIntervalMs, onProgress: (p: CrawlProgress) => notices.info(progressFigures(p), 'crawl progress') }
        : {}),
    ...(demo === undefined
      ? {}
      : {
          onPage: () => {
            if (remembered) return;
            remembered = true;
            rememberDemoPort(db, demo.port);
          },
        }),
  });

  let signal: NodeJS.Signals | undefined;
  const onSignal = (s: NodeJS.Signals): void => {
    if (signal !== undefined) {
      c.abort(); // a second signal: do not wait for in-flight fetches
      return;
    }
    signal = s;
    notice('warn', `${s}: finishing in-flight pages, then closing the store (again to abort them)`);
    c.stop('signal');
  };
  const handleSignals = io.handleSignals !== false;
  if (handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    const r = await c.done;
    if (tty) stderr.write('\r\x1b[K');
    if (htmlFile !== undefined) {
      try {
        writeFileSync(htmlFile, renderReportHtml(r));
        notice('info', `report written to ${htmlFile}`);
      } catch (error) {
        // the crawl is done: its report goes to stdout rather than nowhere
        stderr.write(`urldedup crawl: the report could not be written to ${htmlFile} (${(error as Error).message}); here it is as text\n`);
        stdout.write(formatReport(r));
      }
    } else stdout.write(report === 'json' ? JSON.stringify(r, null, 2) + '\n' : formatReport(r));
    if (signal !== undefined) return signal === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
    // a crawl that fetched nothing successfully (every seed refused, unreachable or failing) failed
    if (r.pagesOk === 0 && (r.pagesFetched > 0 || Object.keys(r.errors).length > 0)) {
      stderr.write(`urldedup crawl: no page was fetched successfully (every seed failed: see the report's statuses and errors)\n`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  } catch (error) {
    if (tty) stderr.write('\r\x1b[K');
    stderr.write(`urldedup crawl: ${(error as Error).message}\n`);
    if (isStoreError(error)) {
      return EXIT_STORE;
    }
    return EXIT_FAILURE;
  } finally {
    if (handleSignals) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    await site?.close();
    logger.flush();
  }
}
