/**
 * The fuzz server (docs/reliability.md `fetch/fuzz-server`, property-based): a loopback server whose
 * pages `/f/0` … `/f/n-1` (and, one time in five, robots.txt) answer with random status lines,
 * headers (lying Content-Length, stacked and unknown Content-Encoding, every kind of Location),
 * framing, bodies and endings (test/support/fuzz-http.ts). Each run crawls a fresh site into a
 * fresh store.
 *
 * Must hold on every run: the crawl ends (its `done` resolves, within a hang guard) and nothing is
 * thrown or rejected unhandled; every URL is in a terminal state with a code, or queued on a host
 * the report says was deferred; conservation holds; `verify()` finds nothing.
 *
 * Time-boxed: 10 s in `npm test`, 60 s under `URLDEDUP_LONG=1`; the seed is printed. Entries of
 * test/regressions/fuzz-seeds.json are replayed first, on every run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { fuzzSite, writeAnswer, type FuzzSite } from '../support/fuzz-http.js';
import { rawHttpServer, respond, type RawServer } from '../support/raw-http-server.js';
import { freshSeed, printRegression, propertyBudgetMs, regressions, type SeedEntry } from '../support/regressions.js';
import { auditStore, describeAudit } from '../support/store-audit.js';
import { tempDir } from './support.js';

const PAGES = 8;
const BUDGET_MS = propertyBudgetMs(10_000);
/** One run's hang guard: its fetches are bounded far below this. */
const RUN_TIMEOUT_MS = 20_000;

/**
 * The site's answers depend on its port (absolute Locations), which is known only once the server
 * listens: the arbitrary is built on a placeholder origin and the placeholder replaced when served.
 */
const PLACEHOLDER = 'http://127.0.0.1:65535';

interface RunStats {
  runs: number;
  requests: number;
  urls: number;
  byState: Record<string, number>;
  byError: Record<string, number>;
}

function bump(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

function rebase(site: FuzzSite, origin: string): FuzzSite {
  const fix = (s: string): string => s.split(PLACEHOLDER).join(origin);
  const answer = (a: FuzzSite['pages'][number]): FuzzSite['pages'][number] => ({
    ...a,
    headers: a.headers.map(([n, v]) => [n, fix(v)] as const),
    links: a.links.map(fix),
  });
  return { pages: site.pages.map(answer), robots: site.robots === null ? null : answer(site.robots) };
}

/** Serve `site`, crawl it into a fresh store, check the invariants; throws on a violation. */
async function crawlFuzzSite(site: FuzzSite, stats: RunStats): Promise<void> {
  const timers = new Set<NodeJS.Timeout>();
  let origin = '';
  let served: FuzzSite = site;
  const server: RawServer = await rawHttpServer((req, socket, next) => {
    const path = req.target.split('?')[0] ?? '';
    if (path === '/robots.txt') {
      if (served.robots === null) return respond(socket, 404, {});
      return writeAnswer(served.robots, socket, next, timers);
    }
    const k = /^\/f\/(\d+)$/.exec(path)?.[1];
    const answer = k === undefined ? undefined : served.pages[Number(k)];
    if (answer === undefined) return respond(socket, 404, {});
    writeAnswer(answer, socket, next, timers);
  });
  origin = server.origin;
  served = rebase(site, origin);
  const db = tempDir('urldedup-fuzz-');
  const failures: unknown[] = [];
  const onUnhandled = (error: unknown): void => void failures.push(error);
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  try {
    let guard: NodeJS.Timeout | undefined;
    const report = await Promise.race([
      runCrawl({
        store: db.path,
        seeds: [`${origin}/f/0`],
        allow: server.allow,
        // no name ever resolves anywhere reachable: every other host is refused by the guard
        resolver: async () => ['192.0.2.1'],
        concurrency: 4,
        perHost: 4,
        robotsAttempts: 1,
        robotsRetryMs: 10,
        fetch: { connectTimeoutMs: 500, headersTimeoutMs: 400, bodyTimeoutMs: 400, deadlineMs: 1500 },
      }),
      new Promise<CrawlReport>((_, reject) => {
        guard = setTimeout(() => reject(new Error(`the crawl did not end within ${RUN_TIMEOUT_MS} ms`)), RUN_TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(guard));
    const audit = await auditStore(db.path);
    stats.runs++;
    stats.requests += server.requests.length;
    stats.urls += audit.entries.length;
    bump(stats.byState, audit.byState);
    bump(stats.byError, audit.byError);
    if (failures.length > 0) throw failures[0];
    if (audit.problems.length > 0) throw new Error(`verify: ${audit.problems.join('; ')}`);
    if (audit.conservationGap !== 0) throw new Error(`conservation: ${describeAudit(audit)}`);
    const deferred = Object.values(report.deferred).reduce((a, b) => a + b, 0);
    const notTerminal = audit.open.filter((o) => !(o.endsWith(': queued') && deferred > 0));
    if (notTerminal.length > 0) throw new Error(`not terminal (${report.stoppedBecause}): ${notTerminal.join('; ')}`);
    if (report.stoppedBecause !== 'done' && report.stoppedBecause !== 'deferred') throw new Error(`stopped because ${report.stoppedBecause}`);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    for (const t of timers) clearTimeout(t);
    await server.close();
    db.remove();
  }
}

function property(stats: RunStats, inflight: { run?: Promise<void> }): fc.IAsyncProperty<[FuzzSite]> {
  return fc.asyncProperty(fuzzSite(PLACEHOLDER, PAGES), async (site) => {
    const run = crawlFuzzSite(site, stats);
    inflight.run = run.catch(() => undefined);
    await run;
  });
}

const newStats = (): RunStats => ({ runs: 0, requests: 0, urls: 0, byState: {}, byError: {} });

describe('fuzz server', () => {
  const kept = regressions<SeedEntry>('fuzz-seeds', 'fuzz-server');

  it.each(kept.map((e) => [e.seed, e] as const))('replays fuzz-seeds.json entry seed=%s', async (_seed, entry) => {
    const stats = newStats();
    const inflight: { run?: Promise<void> } = {};
    const details = await fc.check(property(stats, inflight), {
      seed: entry.seed,
      ...(entry.path === undefined ? { numRuns: 5 } : { path: entry.path, numRuns: 1 }),
      endOnFailure: true,
    });
    await inflight.run;
    console.log(`fuzz-server replay seed=${entry.seed}: ${stats.runs} runs, ${stats.requests} requests, ${stats.urls} URLs; states ${JSON.stringify(stats.byState)}`);
    if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? 'failed');
  }, 120_000);

  it('random answers: the worker never crashes, every URL ends terminal with a code, conservation holds', async () => {
    const seed = freshSeed();
    console.log(`fuzz-server seed=${seed} budget=${BUDGET_MS} ms (replay: URLDEDUP_SEED=${seed})`);
    const stats = newStats();
    const inflight: { run?: Promise<void> } = {};
    const details = await fc.check(property(stats, inflight), {
      seed,
      numRuns: 1_000_000,
      timeout: RUN_TIMEOUT_MS + 5_000,
      plugins: [fc.interruptAfterTimeLimit(BUDGET_MS)],
    });
    await inflight.run; // an interrupted run is still closing its server and store
    console.log(
      `fuzz-server seed=${seed}: ${stats.runs} sites crawled, ${stats.requests} requests, ${stats.urls} URLs; states ${JSON.stringify(stats.byState)}; errors ${JSON.stringify(stats.byError)}`,
    );
    if (details.failed) {
      const entry: SeedEntry = { test: 'fuzz-server', seed: details.seed, path: details.counterexamplePath ?? undefined, note: `failed: ${String(details.errorInstance ?? '').slice(0, 200)}` } as SeedEntry;
      printRegression('fuzz-seeds', entry);
      throw new Error(fc.defaultReportMessage(details) ?? 'failed');
    }
    expect(stats.runs).toBeGreaterThan(0);
  }, BUDGET_MS + 60_000);
});
