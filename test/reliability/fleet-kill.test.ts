/**
 * A crawl fleet losing a worker (docs/reliability.md `fleet/worker-kill`, and 1f: one stopped with
 * SIGSTOP past its lease, then resumed): three `urldedup crawl`
 * processes (the built CLI) share a Redis Cluster store and crawl the multi-host loopback site
 * (sites/multi-host-site.ts: 8 hosts, 50 ms answers); one is killed with SIGKILL after a
 * seeded number of its pages, and the other two must finish the crawl (exit 0) once its leases
 * expire (`--lease-ms 2000`). The same crawl without a kill, and one LevelDB worker (`--db`) as
 * the reference.
 *
 * Oracles, all from the server's log (O2), outside the workers:
 * - every document of the site's ground truth was answered;
 * - repeated fetches (a host and target asked twice, robots.txt apart) ≤ the killed worker's
 *   concurrency (only its in-flight fetches may be repeated), 0 without a kill; robots.txt asked
 *   at most once per host and worker (a host's new holder reads it again);
 * - never more than `--per-host` requests in flight for one host, across the fleet;
 * - requests per document within 5 % of the single LevelDB worker's.
 *
 * Reruns: `URLDEDUP_SEED=<seed> npx vitest run test/reliability/fleet-kill.test.ts` regenerates the
 * same site and kill point; entries `{"test":"fleet-kill","siteSeed":N,"killAfterPages":K}` in
 * test/regressions/kill-schedules.json are replayed first.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { tempDir } from '../crawler/support.js';
import { CLI } from '../support/cli.js';
import { finishWithin, startCrawlWorker, type CrawlWorker } from '../../sites/crawl-worker.js';
import { startMultiHostSite, summarizeCrawl, type MultiHostSite, type SiteCrawlSummary } from '../../sites/multi-host-site.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { freshSeed, printRegression, regressions, type RegressionEntry } from '../support/regressions.js';
import { seededRandom } from '../../sites/seeded-random.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'fleet-kill', () => {
  const HOSTS = 8;
  const PAGES_PER_HOST = 40;
  const LATENCY_MS = 50;
  const WORKERS = 3;
  const CONCURRENCY = 4;
  const PER_HOST = 2;
  const LEASE_MS = 2000;
  /** Each crawl must end within this (a hang guard). */
  const FINISH_MS = 30_000;
  /** What a worker logs (a warning) when it takes over a host whose worker stopped renewing its lease. */
  const TAKEOVER = 'fleet: took over a host';

  interface FleetKillEntry extends RegressionEntry {
    readonly siteSeed: number;
    /** The victim is killed once it has logged this many fetched pages. */
    readonly killAfterPages: number;
  }

  interface FleetRun {
    readonly summary: SiteCrawlSummary;
    readonly maxInFlight: Record<string, number>;
    /** Pages the killed (or stopped) worker had logged as fetched when it was killed (or stopped). */
    readonly victimPages?: number;
    readonly victimStopped?: boolean;
    /** Warnings the workers that finished logged on taking over a host whose lease had expired. */
    readonly takeovers: number;
  }

  const crawlFlags = (site: MultiHostSite): string[] => [
    ...site.seeds,
    '--allow-private',
    '--preset',
    'tracking',
    '--concurrency',
    String(CONCURRENCY),
    '--per-host',
    String(PER_HOST),
    '--report',
    'json',
    '--log-level',
    'debug',
  ];

  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  /** One LevelDB worker on `site`: the reference for requests per document. */
  async function crawlWithLevelDb(site: MultiHostSite): Promise<FleetRun> {
    const db = tempDir('urldedup-fleet-ref-');
    site.reset();
    try {
      const w = startCrawlWorker(CLI, 'leveldb worker', [...crawlFlags(site), '--db', db.path]);
      const r = await finishWithin(w, FINISH_MS);
      if (r.code !== 0) throw new Error(`leveldb worker exited ${r.code ?? r.signal}: ${w.stderrTail()}`);
      return { summary: summarizeCrawl(site, site.requests), maxInFlight: site.maxInFlight(), takeovers: 0 };
    } finally {
      db.remove();
    }
  }

  /**
   * Three fleet workers on `site`; with `killAfterPages`, the first is SIGKILLed after that many
   * pages, or with `stop`, SIGSTOPped for longer than its lease and then resumed (it must finish too).
   */
  async function crawlWithFleet(site: MultiHostSite, killAfterPages?: number, stop = false): Promise<FleetRun> {
    const name = `fleet-kill-${randomBytes(6).toString('hex')}`;
    site.reset();
    const workers: CrawlWorker[] = [];
    try {
      const flags = [...crawlFlags(site), '--redis', cluster.seeds, '--redis-name', name, '--lease-ms', String(LEASE_MS)];
      for (let i = 0; i < WORKERS; i++) workers.push(startCrawlWorker(CLI, `worker ${i}`, flags, [TAKEOVER]));
      let victimPages: number | undefined;
      if (killAfterPages !== undefined) {
        const victim = workers[0]!;
        const reached = await Promise.race([victim.whenFetched(killAfterPages), new Promise<boolean>((r) => setTimeout(() => r(false), FINISH_MS))]);
        if (!reached) throw new Error(`the victim never fetched ${killAfterPages} pages (it fetched ${victim.fetched()}): ${victim.stderrTail()}`);
        if (stop) {
          victim.child.kill('SIGSTOP');
          await new Promise((r) => setTimeout(r, LEASE_MS + 1500));
          victimPages = victim.fetched();
          victim.child.kill('SIGCONT');
        } else {
          victim.child.kill('SIGKILL');
          const r = await victim.exited;
          expect(r.signal).toBe('SIGKILL');
          victimPages = victim.fetched();
        }
      }
      for (const w of workers.slice(killAfterPages === undefined || stop ? 0 : 1)) {
        const r = await finishWithin(w, FINISH_MS);
        if (r.code !== 0) throw new Error(`${w.label} exited ${r.code ?? r.signal}: ${w.stderrTail()}`);
      }
      const takeovers = workers.slice(killAfterPages === undefined || stop ? 0 : 1).reduce((n, w) => n + w.logged(TAKEOVER), 0);
      return { summary: summarizeCrawl(site, site.requests), maxInFlight: site.maxInFlight(), takeovers, ...(victimPages === undefined ? {} : { victimPages, victimStopped: stop }) };
    } finally {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await destroyRedisStore(cluster.seeds, name);
    }
  }

  /** What broke the promises, against the LevelDB reference. */
  function verdict(run: FleetRun, reference: FleetRun, killed: boolean): string[] {
    const s = run.summary;
    const problems: string[] = [];
    if (s.missing.length > 0) problems.push(`${s.missing.length} documents never fetched: ${s.missing.slice(0, 10).join(' ')}`);
    const bound = killed ? CONCURRENCY : 0;
    if (s.repeatedFetches > bound) problems.push(`${s.repeatedFetches} repeated fetches > ${bound}: ${JSON.stringify(s.repeated)}`);
    if (s.robotsRequests > HOSTS * WORKERS) problems.push(`${s.robotsRequests} robots.txt requests > ${HOSTS} hosts × ${WORKERS} workers`);
    const over = Object.entries(run.maxInFlight).filter(([, n]) => n > PER_HOST);
    if (over.length > 0) problems.push(`more than ${PER_HOST} requests in flight on ${JSON.stringify(Object.fromEntries(over))}`);
    const ratio = s.requestsPerDocument / reference.summary.requestsPerDocument;
    if (Math.abs(ratio - 1) > 0.05) problems.push(`requests per document ${s.requestsPerDocument} vs ${reference.summary.requestsPerDocument} for one LevelDB worker (${ratio.toFixed(3)}×)`);
    return problems;
  }

  function describeRun(label: string, run: FleetRun): string {
    const s = run.summary;
    const most = Math.max(...Object.values(run.maxInFlight));
    return (
      `${label}: ${s.documentsFetched} documents, ${s.requests} requests (${s.robotsRequests} robots.txt), ` +
      `${s.requestsPerDocument} requests/document, ${s.repeatedFetches} repeated fetches, most in flight per host ${most}, ` +
      `${s.pagesPerSecond} pages/s over ${s.seconds} s${run.victimPages === undefined ? '' : `; victim ${run.victimStopped === true ? 'stopped' : 'killed'} after ${run.victimPages} pages`}`
    );
  }

  describe('fleet/worker-kill: three workers on a Redis Cluster, one killed with SIGKILL', () => {
    if (!existsSync(CLI)) {
      it('needs the build (npm test runs it; or npm run build)', () => {
        throw new Error(`${CLI} is missing: build first`);
      });
      return;
    }

    const seed = freshSeed();
    const rnd = seededRandom(seed);
    const killAfterPages = rnd.int(10, 60);
    let site: MultiHostSite;
    let reference: FleetRun;
    beforeAll(async () => {
      console.log(`fleet-kill seed=${seed} (rerun: URLDEDUP_SEED=${seed})`);
      site = await startMultiHostSite({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, latencyMs: LATENCY_MS, seed });
      reference = await crawlWithLevelDb(site);
      console.log(describeRun('one LevelDB worker', reference));
    }, 60_000);
    afterAll(() => site?.close());

    it('the reference: one LevelDB worker fetches every document, once, within --per-host', () => {
      expect(reference.summary.missing).toEqual([]);
      expect(reference.summary.repeatedFetches).toBe(0);
      expect(Math.max(...Object.values(reference.maxInFlight))).toBeLessThanOrEqual(PER_HOST);
    });

    it(`${WORKERS} workers without a kill: every document once, --per-host held fleet-wide, requests per document as one worker's`, async () => {
      const run = await crawlWithFleet(site);
      console.log(describeRun(`${WORKERS} fleet workers`, run));
      expect(verdict(run, reference, false)).toEqual([]);
    }, 60_000);

    const kept = regressions<FleetKillEntry>('kill-schedules', 'fleet-kill');
    it.each(kept.map((e) => [e.siteSeed, e] as const))('replays kill-schedules.json fleet-kill entry site seed %s', async (_s, entry) => {
      const own = await startMultiHostSite({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, latencyMs: LATENCY_MS, seed: entry.siteSeed });
      try {
        const ref = await crawlWithLevelDb(own);
        const run = await crawlWithFleet(own, entry.killAfterPages);
        console.log(describeRun(`replay ${entry.siteSeed}`, run));
        expect(verdict(run, ref, true)).toEqual([]);
      } finally {
        await own.close();
      }
    }, 90_000);

    it(`${WORKERS} workers, one SIGSTOPped past its lease and resumed: it fetches nothing of the hosts it lost; --per-host held fleet-wide, repeats ≤ its in-flight fetches`, async () => {
      const run = await crawlWithFleet(site, killAfterPages, true);
      console.log(describeRun(`${WORKERS} fleet workers, one stopped past its lease`, run));
      expect(verdict(run, reference, true)).toEqual([]);
    }, 60_000);

    it(`${WORKERS} workers, one SIGKILLed mid-crawl: the others finish; nothing lost, repeats ≤ its in-flight fetches`, async () => {
      const run = await crawlWithFleet(site, killAfterPages);
      console.log(describeRun(`${WORKERS} fleet workers, one killed`, run));
      const problems = verdict(run, reference, true);
      if (problems.length > 0) {
        const entry: FleetKillEntry = { test: 'fleet-kill', siteSeed: seed, killAfterPages, note: problems[0]!.slice(0, 200) };
        printRegression('kill-schedules', entry);
      }
      expect(problems).toEqual([]);
      expect(run.victimPages).toBeGreaterThanOrEqual(killAfterPages);
      // the survivors say so when they take over the killed worker's hosts
      expect(run.takeovers).toBeGreaterThan(0);
    }, 60_000);
  });
});
