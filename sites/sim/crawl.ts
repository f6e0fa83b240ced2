/**
 * A simulated site crawled for real on loopback, by urldedup (in this process, into a fresh
 * LevelDB store) or by `wget --recursive`, and scored against the site's ground truth:
 *
 * - **recall**: the share of reachable documents the server answered at least once;
 * - **false merges**: documents with a link URL the store maps onto something that is not that
 *   document (another document, a not-found page, nothing), and how many of them were never
 *   fetched;
 * - **requests per document**, and the same over the site's floor.
 *
 * Or by a fleet: several workers (each its own fleet store and Redis connections, in this process)
 * through one fleet store on a Redis Cluster, each partition learning alone (docs/scale-out.md).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrawl, type CrawlOptions } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import type { PresetName } from '../../src/normalize/index.js';
import { openFleetStore } from '../../src/store/fleet/fleet-store.js';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { openStore, type SeenStore } from '../../src/store/index.js';
import { findFalseMerges, type FalseMerge } from '../realistic-runs.js';
import type { SimSite } from './site.js';

export type { FalseMerge };

export interface SimRun {
  readonly client: string;
  readonly requests: number;
  readonly documents: number;
  readonly reached: number;
  readonly missed: readonly string[];
  readonly falseMerges: number;
  readonly lostToMerges: number;
  readonly merges: readonly FalseMerge[];
  readonly requestsPerDocument: number;
  /** Requests over the site's floor. */
  readonly overFloor: number;
  readonly disallowedFetched: number;
  /**
   * URLs the store still held queued when the crawl ended: a crawl that ran to its end (no page
   * cap, no stop) leaves none, so any is a URL the frontier never handed out.
   */
  readonly leftQueued: number;
  readonly seconds: number;
  readonly report?: CrawlReport;
}

/** Where the store puts every document's link URL, against the truth (the port left out of `via`). */
export async function falseMerges(site: SimSite, store: SeenStore): Promise<FalseMerge[]> {
  return (await findFalseMerges(site, store)).map((m) => ({ ...m, via: m.via.replace(/:\d+\//, ':PORT/') }));
}

function score(site: SimSite, client: string, from: number, seconds: number, merges: readonly FalseMerge[], leftQueued: number, report?: CrawlReport): SimRun {
  const requests = site.requests.slice(from).filter((r) => r.client === (client.startsWith('wget') ? 'wget' : 'urldedup'));
  const served = new Set<string>();
  for (const r of requests) if (r.document !== undefined) served.add(r.document);
  const missed = site.documents.filter((d) => !served.has(d));
  const merged = new Set(merges.map((m) => m.document));
  const reached = site.documents.length - missed.length;
  return {
    client,
    requests: requests.length,
    documents: site.documents.length,
    reached,
    missed,
    falseMerges: merged.size,
    lostToMerges: [...merged].filter((d) => missed.includes(d)).length,
    merges,
    requestsPerDocument: Math.round((requests.length / Math.max(1, reached)) * 100) / 100,
    overFloor: Math.round((requests.length / Math.max(1, site.floor)) * 100) / 100,
    disallowedFetched: requests.filter((r) => site.disallowed.has(`${r.host}${r.target}`)).length,
    leftQueued,
    seconds: Math.round(seconds * 100) / 100,
    ...(report === undefined ? {} : { report }),
  };
}

/** What every urldedup crawl of a simulated site is given, whatever its store. */
function simCrawlOptions(site: SimSite, presets: readonly PresetName[], concurrency: number): Omit<CrawlOptions, 'store'> {
  return {
    seeds: site.seeds,
    presets,
    scope: 'domain',
    allow: [
      { address: '127.0.0.1', port: site.port },
      { address: '::1', port: site.port },
    ],
    concurrency,
    perHost: concurrency,
    fetch: { userAgent: 'urldedup/sim' },
    // a cap on pages per host for sweeps of older builds, whose traps may run to the budget
    ...(process.env['URLDEDUP_SIM_MAX_PAGES'] === undefined ? {} : { traps: { maxPagesPerHost: Number(process.env['URLDEDUP_SIM_MAX_PAGES']) } }),
  };
}

/** Crawl the site with urldedup into a fresh LevelDB store, and score it (`learnMirrors`: the opt-in mirror rule too). */
export async function crawlSimWithUrldedup(site: SimSite, presets: readonly PresetName[] = [], concurrency = 4, learnMirrors = false): Promise<SimRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-sim-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const report = await runCrawl({
      store: dir,
      ...simCrawlOptions(site, presets, concurrency),
      ...(learnMirrors ? { storeOptions: { learnMirrors } } : {}),
    });
    const store = await openStore(dir, { readOnly: true, presets: [...presets] });
    let merges: FalseMerge[];
    let left: number;
    try {
      merges = await falseMerges(site, store);
      left = (await store.stats()).urls.queued;
    } finally {
      await store.close();
    }
    const name = `urldedup${presets.length === 0 ? '' : ` --preset ${presets.join(',')}`}${learnMirrors ? ' --learn-mirrors' : ''}`;
    return score(site, name, from, (performance.now() - t) / 1000, merges, left, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Crawl the site with a fleet of `workers` urldedup workers sharing one fleet store on the Redis
 * Cluster reached through `redis` (a fresh store name, destroyed at the end), and score it.
 */
export async function crawlSimWithFleet(site: SimSite, redis: string, workers: number, presets: readonly PresetName[] = [], concurrency = 4): Promise<SimRun> {
  const name = `sim-${randomBytes(6).toString('hex')}`;
  const from = site.requests.length;
  const t = performance.now();
  try {
    const worker = () =>
      runCrawl({
        store: { redis, fleet: { name, leaseMs: 3000, maxHosts: 2, pollMs: 50 } },
        ...simCrawlOptions(site, presets, concurrency),
      });
    const reports = await Promise.all(Array.from({ length: workers }, worker));
    const reader = await openFleetStore(redis, { fleet: { name }, presets: [...presets] });
    let merges: FalseMerge[];
    let left: number;
    try {
      merges = await falseMerges(site, reader);
      left = (await reader.stats()).urls.queued;
    } finally {
      await reader.close();
    }
    const client = `urldedup fleet of ${workers}${presets.length === 0 ? '' : ` --preset ${presets.join(',')}`}`;
    return score(site, client, from, (performance.now() - t) / 1000, merges, left, reports[0]);
  } finally {
    await destroyRedisStore(redis, name);
  }
}

/** Crawl the site with `wget --recursive` through the server as its proxy (no store: no merges asked). */
export async function crawlSimWithWget(site: SimSite): Promise<SimRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-sim-wget-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const args = ['--recursive', '--level=inf', '--no-verbose', '--tries=1', '--timeout=10', '--span-hosts', `--domains=${site.domain}`, '-e', 'robots=on', '-e', 'use_proxy=on', '-e', `http_proxy=http://127.0.0.1:${site.port}/`, '--user-agent=wget/sim', '--directory-prefix', dir, ...site.seeds];
    await new Promise<void>((resolve, reject) => {
      const p = spawn('wget', args, { stdio: ['ignore', 'ignore', 'ignore'] });
      p.on('error', reject);
      p.on('close', () => resolve());
    });
    return score(site, 'wget --recursive', from, (performance.now() - t) / 1000, [], 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
