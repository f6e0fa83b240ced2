// Crawl runs on a served site, measured against its requests and documents: urldedup in this
// process or in a child process whose CPU is measured, and `wget --recursive` through the server
// as its proxy. Used by bench/crawl-real-site.ts, bench/crawl-realistic-site.ts (through
// sites/realistic-runs.ts) and the tests.

import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCrawl } from '../src/crawler/crawl.js';
import type { CrawlReport } from '../src/crawler/report/report.js';
import type { PresetName } from '../src/normalize/index.js';
import type { SiteRequest } from './alias-site.js';

/** What the crawl runs below need of a site: its seeds, its port, its request log and its truth. */
export interface CrawlSite {
  readonly port: number;
  readonly url: string;
  /** Seeds (default: `url` alone). */
  readonly seeds?: readonly string[];
  /** Domains wget may span to (--span-hosts --domains); none: wget stays on the seed's host. */
  readonly domains?: readonly string[];
  readonly documents: readonly string[];
  readonly disallowed: readonly string[];
  readonly requests: SiteRequest[];
}

export interface ClientRun {
  readonly client: string;
  readonly requests: number;
  readonly documentsReached: number;
  readonly documentsMissed: readonly string[];
  readonly requestsPerDocument: number;
  /** Documents answered more than once (each extra answer counted). */
  readonly extraFetches: number;
  readonly disallowedFetched: number;
  readonly seconds: number;
  readonly report?: CrawlReport;
  /** The crawl's CPU (user + sys), when measured in a child process. */
  readonly cpu?: CrawlCpu;
}

export interface CrawlCpu {
  readonly linksFound: number;
  readonly cpuSeconds: number;
  readonly microsPerLink: number;
  /** Of `cpuSeconds`, the main thread's (Linux only, 10 ms resolution). */
  readonly mainThreadSeconds?: number;
  /** The crawl process's whole CPU (user + sys), start-up included: what the floor is compared with. */
  readonly processSeconds?: number;
}

/** Summarize the requests of one client run against the site's documents. */
export function summarize(site: Pick<CrawlSite, 'documents' | 'disallowed'>, client: string, requests: readonly SiteRequest[], seconds: number, report?: CrawlReport, cpu?: CrawlCpu): ClientRun {
  const served = new Map<string, number>();
  for (const r of requests) if (r.document !== undefined && r.status === 200) served.set(r.document, (served.get(r.document) ?? 0) + 1);
  const reached = site.documents.filter((d) => served.has(d));
  let extra = 0;
  for (const [d, n] of served) if (d !== '/robots.txt') extra += n - 1;
  return {
    client,
    requests: requests.length,
    documentsReached: reached.length,
    documentsMissed: site.documents.filter((d) => !served.has(d)),
    requestsPerDocument: Math.round((requests.length / Math.max(1, reached.length)) * 1000) / 1000,
    extraFetches: extra,
    disallowedFetched: requests.filter((r) => site.disallowed.includes(r.target)).length,
    seconds: Math.round(seconds * 100) / 100,
    ...(report === undefined ? {} : { report }),
    ...(cpu === undefined ? {} : { cpu }),
  };
}

interface ChildJob {
  readonly store: string;
  readonly seeds: readonly string[];
  readonly port: number;
  readonly presets: readonly PresetName[];
  readonly concurrency: number;
  /** Crawl once into a scratch store first (not measured). */
  readonly warm?: boolean;
  /** The store option `learnMirrors`. */
  readonly learnMirrors?: boolean;
}

function crawlOptions(job: ChildJob): Parameters<typeof runCrawl>[0] {
  return {
    store: job.store,
    seeds: job.seeds,
    allow: [
      { address: '127.0.0.1', port: job.port },
      { address: '::1', port: job.port },
    ],
    presets: job.presets,
    concurrency: job.concurrency,
    perHost: job.concurrency,
    ...(job.learnMirrors === true ? { storeOptions: { learnMirrors: true } } : {}),
  };
}

/** The main thread's CPU (user + sys) in µs from /proc (clock ticks of 10 ms); undefined elsewhere. */
function mainThreadMicros(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** The child's side: one crawl, its report and its CPU (user + sys) sent to the parent. */
async function crawlChild(job: ChildJob): Promise<void> {
  if (job.warm === true) {
    const scratch = mkdtempSync(join(tmpdir(), 'urldedup-warm-'));
    try {
      await runCrawl(crawlOptions({ ...job, store: scratch }));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const mainBefore = mainThreadMicros();
  const before = process.cpuUsage();
  const report = await runCrawl(crawlOptions(job));
  const used = process.cpuUsage(before);
  const mainAfter = mainThreadMicros();
  const mainMicros = mainBefore === undefined || mainAfter === undefined ? undefined : mainAfter - mainBefore;
  const whole = process.cpuUsage();
  process.send!({ report, cpuMicros: used.user + used.system, mainMicros, processMicros: whole.user + whole.system });
}

/** Run one crawl in a child process; the child's CPU over the crawl is the crawler's own. */
function crawlInChild(job: ChildJob, profileDir: string | undefined, nodeArgs: readonly string[]): Promise<{ report: CrawlReport; cpu: CrawlCpu }> {
  const execArgv = [...nodeArgs, ...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir])];
  const child = fork(fileURLToPath(import.meta.url), ['--crawl-child', JSON.stringify(job)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let got: { report: CrawlReport; cpuMicros: number; mainMicros?: number; processMicros: number } | undefined;
    child.on('message', (m) => (got = m as typeof got));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (got === undefined) return reject(new Error(`crawl child exited ${code} without a report`));
      const found = got.report.links.found;
      resolve({
        report: got.report,
        cpu: {
          linksFound: found,
          cpuSeconds: got.cpuMicros / 1e6,
          microsPerLink: found > 0 ? got.cpuMicros / found : 0,
          processSeconds: got.processMicros / 1e6,
          ...(got.mainMicros === undefined ? {} : { mainThreadSeconds: got.mainMicros / 1e6 }),
        },
      });
    });
  });
}

/** How a crawl is measured and inspected. */
export interface CrawlMeasure {
  /** Crawl in a child process whose CPU (user + sys) over the crawl is reported. */
  readonly child?: boolean;
  /** With `child`: write a V8 CPU profile of it here. */
  readonly profileDir?: string;
  /** With `child`: crawl once into a scratch store first, in the same process (not measured). */
  readonly warm?: boolean;
  /** Given the store's folder after the crawl, before it is removed. */
  readonly inspect?: (store: string) => Promise<void>;
  /** The store option `learnMirrors` (the opt-in mirror rule). */
  readonly learnMirrors?: boolean;
  /** Node and V8 flags for the crawl child (`--no-concurrent-recompilation`: compile on the main thread). */
  readonly nodeArgs?: readonly string[];
}

/**
 * Crawl the site with urldedup into a fresh LevelDB store: in this process, or (`child`) in a child
 * process whose CPU is measured (`profileDir`: a V8 CPU profile of it).
 */
export async function crawlWithUrldedup(
  site: CrawlSite,
  presets: readonly PresetName[] = [],
  concurrency = 8,
  measure: CrawlMeasure = {},
): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-real-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const job: ChildJob = { store: dir, seeds: site.seeds ?? [site.url], port: site.port, presets, concurrency, ...(measure.warm === true ? { warm: true } : {}), ...(measure.learnMirrors === true ? { learnMirrors: true } : {}) };
    const name = presets.length === 0 ? 'urldedup' : `urldedup --preset ${presets.join(',')}`;
    if (measure.child === true) {
      const { report, cpu } = await crawlInChild(job, measure.profileDir, measure.nodeArgs ?? []);
      if (measure.inspect !== undefined) await measure.inspect(dir);
      return summarize(site, name, site.requests.slice(from), (performance.now() - t) / 1000, report, cpu);
    }
    const report = await runCrawl(crawlOptions(job));
    if (measure.inspect !== undefined) await measure.inspect(dir);
    return summarize(site, name, site.requests.slice(from), (performance.now() - t) / 1000, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Crawl the site with `wget --recursive`, through the server as its proxy. */
export async function crawlWithWget(site: CrawlSite): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-wget-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const span = site.domains === undefined ? [] : ['--span-hosts', `--domains=${site.domains.join(',')}`];
    const args = ['--recursive', '--level=inf', '--no-parent', '--no-verbose', '--tries=1', '--timeout=10', ...span, '-e', 'robots=on', '-e', 'use_proxy=on', '-e', `http_proxy=http://127.0.0.1:${site.port}/`, '--directory-prefix', dir, ...(site.seeds ?? [site.url])];
    await new Promise<void>((resolve, reject) => {
      const p = spawn('wget', args, { stdio: ['ignore', 'ignore', 'ignore'] });
      p.on('error', reject);
      p.on('close', () => resolve()); // wget exits 8 when some link answered 404: the log is what counts
    });
    return summarize(site, 'wget --recursive', site.requests.slice(from), (performance.now() - t) / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


// the child side of `crawlInChild`: this module, forked with --crawl-child
if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const i = process.argv.indexOf('--crawl-child');
  if (i !== -1) await crawlChild(JSON.parse(process.argv[i + 1]!) as ChildJob);
}
