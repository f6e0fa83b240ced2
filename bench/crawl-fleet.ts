// bench/crawl-fleet: a crawl fleet on Redis Cluster against one LevelDB worker, on the multi-host
// loopback site (sites/multi-host-site.ts) with slow answers: 1, 2 and 3 `urldedup crawl
// --redis` workers (the built CLI, one process each, a fresh store name per run), then one
// `urldedup crawl --db` worker, each crawling the whole site. Reports pages/s and requests per
// document per worker count, as a markdown table. Benchmarks print; they assert nothing.
//
//   scripts/redis-cluster.sh start /tmp/rc 7001 7002 7003
//   URLDEDUP_REDIS_CLUSTER=redis://127.0.0.1:7001,redis://127.0.0.1:7002,redis://127.0.0.1:7003 npm run bench:fleet
//   npm run bench:fleet -- --hosts 24 --pages-per-host 60 --latency-ms 50 --concurrency 4 --per-host 2 --runs 3
//
// What bounds a worker must be waiting, not CPU (the project's machine has 2 cores for the server,
// Redis and every worker): a worker has `concurrency` requests in flight, each waiting `latency`
// for its answer, so its ceiling is concurrency / latency pages/s (4 / 50 ms = 80), and k workers
// reach k times that only when the fleet has k × concurrency / per-host hosts with work at once.
// So the site has many more hosts than that (24 by default, 9 are busy at once with 3 workers of
// 3 hosts each) and enough pages per host that hosts rarely run dry mid-crawl. pages/s is counted
// by the server, documents answered between the first request and the last answer (process
// start-up and the fleet's end-of-work check apart); the wall column is spawn to last exit.
// Whether waiting bounded the workers is measured, not assumed: /proc/PID/schedstat gives the time
// each worker ran on a CPU and the time it was runnable but waited for one (a machine shared with
// other work starves them: then the fleet's speed-up says nothing about the fleet). "longest idle"
// is the longest time with no request in flight on the whole site (a stall of the fleet would
// show there, for instance a host left under an expired lease).
//
// What Redis costs, per fleet run (issue: a fleet at one worker's cost): the masters' memory
// (`INFO memory` used_memory after the run less before it) over the URLs the store holds
// (`urls.admitted`, evidence and rules included in the memory), the round trips the workers made
// (counted in each worker by bench/redis-round-trips.ts: a write to a Redis socket, one per
// command sent alone or per pipeline), the commands the masters ran (`INFO commandstats`, those a
// script calls included) and the masters' CPU (`INFO cpu`, user + sys), each per page fetched.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectCluster, destroyRedisStore, parseSeeds } from '../src/store/backends/redis/cluster.js';
import { openFleetStore } from '../src/store/fleet/fleet-store.js';
import { finishWithin, startCrawlWorker, type CrawlWorker } from '../sites/crawl-worker.js';
import { startMultiHostSite, summarizeCrawl, type MultiHostSite, type SiteCrawlSummary } from '../sites/multi-host-site.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const ROUND_TRIPS_HOOK = fileURLToPath(new URL('./redis-round-trips.js', import.meta.url));

interface Config {
  readonly redis: string;
  readonly hosts: number;
  readonly pagesPerHost: number;
  readonly latencyMs: number;
  readonly concurrency: number;
  readonly perHost: number;
  readonly leaseMs: number;
  readonly workers: readonly number[];
  readonly runs: number;
  readonly seed: number;
}

interface Run {
  readonly subject: string;
  readonly workers: number;
  readonly summary: SiteCrawlSummary;
  readonly wallSeconds: number;
  readonly mostInFlightPerHost: number;
  /** Time the workers ran on a CPU, summed: undefined off Linux. */
  readonly cpuSeconds: number | undefined;
  /** Time the workers were runnable but waited for a CPU (run queue), summed. */
  readonly runQueueSeconds: number | undefined;
  /** A fleet run's cost in Redis (undefined for the LevelDB worker). */
  readonly redis?: RedisCost;
}

/** What a fleet run cost Redis: see the head of this file. */
interface RedisCost {
  readonly urls: number;
  readonly bytesPerUrl: number;
  readonly roundTripsPerPage: number;
  readonly commandsPerPage: number;
  readonly cpuMsPerPage: number;
}

/** The masters' used memory (bytes), CPU (seconds, user + sys) and commands run, summed. */
interface RedisReading {
  readonly memory: number;
  readonly cpu: number;
  readonly commands: number;
}

async function readRedis(seeds: string): Promise<RedisReading> {
  const cluster = connectCluster(seeds);
  try {
    let memory = 0;
    let cpu = 0;
    let commands = 0;
    await cluster.ping();
    for (const m of cluster.nodes('master')) {
      const info = await m.info('memory');
      memory += Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
      const c = await m.info('cpu');
      cpu += Number(/^used_cpu_user:([\d.]+)/m.exec(c)?.[1] ?? 0) + Number(/^used_cpu_sys:([\d.]+)/m.exec(c)?.[1] ?? 0);
      for (const line of (await m.info('commandstats')).matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) commands += Number(line[1]);
    }
    return { memory, cpu, commands };
  } finally {
    cluster.disconnect();
  }
}

interface Sched {
  readonly run: number;
  readonly wait: number;
}

/** Seconds process `pid` ran on a CPU and waited for one so far (/proc/PID/schedstat, Linux). */
function schedOf(pid: number | undefined): Sched | undefined {
  if (pid === undefined) return undefined;
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { run: run! / 1e9, wait: wait! / 1e9 };
  } catch {
    return undefined;
  }
}

function argValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

function numberArg(args: readonly string[], name: string, fallback: number): number {
  const v = argValue(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, not ${JSON.stringify(v)}`);
  return n;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Crawl the whole site with `n` workers on `store` flags; the server's log says what they did. */
async function crawlWith(site: MultiHostSite, c: Config, subject: string, n: number, store: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  site.reset();
  const flags = [...site.seeds, '--allow-private', '--preset', 'tracking', '--concurrency', String(c.concurrency), '--per-host', String(c.perHost), '--report', 'json', '--log-level', 'silent', ...store];
  const t = performance.now();
  const workers: CrawlWorker[] = [];
  // each worker's CPU, sampled until it exits (its last sample is at most 100 ms short)
  const cpu = new Map<CrawlWorker, Sched | undefined>();
  const sampler = setInterval(() => {
    for (const w of workers) if (w.child.exitCode === null) cpu.set(w, schedOf(w.child.pid) ?? cpu.get(w));
  }, 100);
  try {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, env);
      for (let i = 0; i < n; i++) workers.push(startCrawlWorker(CLI, `${subject} #${i}`, flags));
    } finally {
      for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
    }
    for (const w of workers) {
      const r = await finishWithin(w, 600_000);
      if (r.code !== 0) throw new Error(`${w.label} exited ${r.code ?? r.signal}: ${w.stderrTail()}`);
    }
  } finally {
    clearInterval(sampler);
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  }
  const sched = workers.map((w) => cpu.get(w));
  const known = sched.every((x) => x !== undefined);
  const cpuSeconds = known ? sched.reduce((a, b) => a + b!.run, 0) : undefined;
  const runQueueSeconds = known ? sched.reduce((a, b) => a + b!.wait, 0) : undefined;
  const wallSeconds = (performance.now() - t) / 1000;
  const summary = summarizeCrawl(site, site.requests);
  if (summary.missing.length > 0) process.stderr.write(`${subject}: ${summary.missing.length} documents missed: ${summary.missing.slice(0, 10).join(' ')}\n`);
  return { subject, workers: n, summary, wallSeconds, mostInFlightPerHost: Math.max(...Object.values(site.maxInFlight())), cpuSeconds, runQueueSeconds };
}

async function fleetRun(site: MultiHostSite, c: Config, n: number): Promise<Run> {
  const name = `bench-fleet-${randomBytes(6).toString('hex')}`;
  const counts = join(tmpdir(), `urldedup-bench-round-trips-${name}.jsonl`);
  try {
    const before = await readRedis(c.redis);
    const env = {
      NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${ROUND_TRIPS_HOOK}`.trim(),
      URLDEDUP_BENCH_REDIS_PORTS: parseSeeds(c.redis).map((s) => s.port).join(','),
      URLDEDUP_BENCH_ROUND_TRIPS_FILE: counts,
    };
    const run = await crawlWith(site, c, `fleet (--redis), ${n} worker${n === 1 ? '' : 's'}`, n, ['--redis', c.redis, '--redis-name', name, '--lease-ms', String(c.leaseMs)], env);
    const after = await readRedis(c.redis);
    const store = await openFleetStore(c.redis, { presets: ['tracking'], fleet: { name } });
    const urls = await store.stats({ hosts: false }).then((st) => st.urls.admitted).finally(() => store.close());
    const roundTrips = existsSync(counts) ? readFileSync(counts, 'utf8').trim().split('\n').reduce((a, l) => a + (JSON.parse(l) as { writes: number }).writes, 0) : NaN;
    const pages = Math.max(1, run.summary.documentsFetched);
    return {
      ...run,
      redis: {
        urls,
        bytesPerUrl: (after.memory - before.memory) / Math.max(1, urls),
        roundTripsPerPage: roundTrips / pages,
        commandsPerPage: (after.commands - before.commands) / pages,
        cpuMsPerPage: ((after.cpu - before.cpu) * 1000) / pages,
      },
    };
  } finally {
    rmSync(counts, { force: true });
    await destroyRedisStore(c.redis, name);
  }
}

async function levelRun(site: MultiHostSite, c: Config): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-fleet-'));
  try {
    return await crawlWith(site, c, 'one LevelDB worker (--db)', 1, ['--db', dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function cpuPerPage(runs: readonly Run[]): string {
  const xs = runs.filter((r) => r.cpuSeconds !== undefined).map((r) => (r.cpuSeconds! * 1000) / Math.max(1, r.summary.documentsFetched));
  return xs.length === 0 ? 'n/a' : median(xs).toFixed(1);
}

/** The median share of the workers' wall time spent on (`cpuSeconds`) or waiting for (`runQueueSeconds`) a CPU. */
function share(runs: readonly Run[], of: 'cpuSeconds' | 'runQueueSeconds'): string {
  const xs = runs.filter((r) => r[of] !== undefined).map((r) => r[of]! / (r.workers * r.wallSeconds));
  return xs.length === 0 ? 'n/a' : `${Math.round(median(xs) * 100)} %`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const redis = argValue(args, '--redis') ?? process.env['URLDEDUP_REDIS_CLUSTER'];
  if (redis === undefined || redis === '') {
    throw new Error('give the cluster: --redis redis://127.0.0.1:7001,… or URLDEDUP_REDIS_CLUSTER (scripts/redis-cluster.sh start DIR 7001 7002 7003 starts one)');
  }
  const c: Config = {
    redis,
    hosts: numberArg(args, '--hosts', 24),
    pagesPerHost: numberArg(args, '--pages-per-host', 60),
    latencyMs: numberArg(args, '--latency-ms', 50),
    concurrency: numberArg(args, '--concurrency', 4),
    perHost: numberArg(args, '--per-host', 2),
    leaseMs: numberArg(args, '--lease-ms', 15_000),
    workers: (argValue(args, '--workers') ?? '1,2,3').split(',').map(Number),
    runs: numberArg(args, '--runs', 1),
    seed: numberArg(args, '--seed', 1),
  };
  const site = await startMultiHostSite({ hosts: c.hosts, pagesPerHost: c.pagesPerHost, latencyMs: c.latencyMs, seed: c.seed });
  const byWorkers = new Map<number, Run[]>();
  const level: Run[] = [];
  const load = loadavg()[0]!;
  try {
    for (let r = 0; r < c.runs; r++) {
      // interleaved, so slow drift of the machine spreads over every subject
      for (const n of c.workers) {
        const run = await fleetRun(site, c, n);
        (byWorkers.get(n) ?? byWorkers.set(n, []).get(n)!).push(run);
        process.stderr.write(`run ${r + 1}: ${run.subject}: ${run.summary.pagesPerSecond} pages/s\n`);
      }
      const run = await levelRun(site, c);
      level.push(run);
      process.stderr.write(`run ${r + 1}: ${run.subject}: ${run.summary.pagesPerSecond} pages/s\n`);
    }
  } finally {
    await site.close();
  }
  const rows = [...[...byWorkers.values()].map((runs) => runs), level];
  const one = byWorkers.get(1);
  const base = one === undefined ? undefined : median(one.map((r) => r.summary.pagesPerSecond));
  const ceiling = (c.concurrency * 1000) / c.latencyMs;
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, loadavg: load, config: { ...c, redis: undefined }, documents: site.documents.size, runs: rows.flat() }, null, 2) + '\n');
    return;
  }
  const busyHosts = Math.ceil(c.concurrency / c.perHost);
  process.stdout.write(
    `multi-host site on loopback: ${c.hosts} hosts × ${c.pagesPerHost} pages = ${site.documents.size} documents, answers after ${c.latencyMs} ms (seed ${c.seed})\n` +
      `each worker: --concurrency ${c.concurrency} --per-host ${c.perHost} (--max-hosts default ${busyHosts + 1}), fleet --lease-ms ${c.leaseMs}; ${c.runs} run(s) per subject, medians\n` +
      `node ${process.version}, ${cpus().length} CPUs, load average ${load.toFixed(2)} at the start\n` +
      `a worker waits, it does not compute: its ceiling is ${c.concurrency} in flight / ${c.latencyMs} ms = ${ceiling} pages/s, and k workers need ` +
      `k × ${busyHosts} hosts with work at once (${c.hosts} hosts here), so k workers can reach k × ${ceiling} pages/s on ${cpus().length} cores\n\n`,
  );
  process.stdout.write('| crawler | workers | pages/s (server) | vs 1 fleet worker | of the waiting ceiling | requests per document | repeated fetches | robots.txt | most in flight per host | worker CPU ms per page | worker on a CPU | worker waiting for a CPU | longest idle s | seconds (server) | seconds (wall) |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  for (const runs of rows) {
    const r0 = runs[0]!;
    const pps = median(runs.map((r) => r.summary.pagesPerSecond));
    const vs = base === undefined ? '' : `${(pps / base).toFixed(2)}×`;
    process.stdout.write(
      `| ${r0.subject} | ${r0.workers} | ${pps.toFixed(1)} | ${vs} | ${Math.round((pps / (r0.workers * ceiling)) * 100)} % | ${median(runs.map((r) => r.summary.requestsPerDocument)).toFixed(3)} | ${Math.max(...runs.map((r) => r.summary.repeatedFetches))} | ${median(runs.map((r) => r.summary.robotsRequests))} | ${Math.max(...runs.map((r) => r.mostInFlightPerHost))} | ${cpuPerPage(runs)} | ${share(runs, 'cpuSeconds')} | ${share(runs, 'runQueueSeconds')} | ${Math.max(...runs.map((r) => r.summary.longestIdleSeconds)).toFixed(2)} | ${median(runs.map((r) => r.summary.seconds)).toFixed(2)} | ${median(runs.map((r) => r.wallSeconds)).toFixed(2)} |\n`,
    );
  }
  // what Redis cost each fleet row, beside the LevelDB worker's requests per document
  process.stdout.write('\n| crawler | requests per document | vs the LevelDB worker | URLs stored | Redis bytes per URL | round trips per page | Redis commands per page | Redis CPU ms per page |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|---:|\n');
  const levelRpd = median(level.map((r) => r.summary.requestsPerDocument));
  for (const runs of rows) {
    const r0 = runs[0]!;
    const rpd = median(runs.map((r) => r.summary.requestsPerDocument));
    const costs = runs.map((r) => r.redis).filter((x): x is RedisCost => x !== undefined);
    const m = (f: (x: RedisCost) => number, digits: number): string => (costs.length === 0 ? '—' : median(costs.map(f)).toFixed(digits));
    process.stdout.write(`| ${r0.subject} | ${rpd.toFixed(3)} | ${level.length === 0 ? '' : `${(((rpd - levelRpd) / levelRpd) * 100).toFixed(1)} %`} | ${m((x) => x.urls, 0)} | ${m((x) => x.bytesPerUrl, 0)} | ${m((x) => x.roundTripsPerPage, 1)} | ${m((x) => x.commandsPerPage, 1)} | ${m((x) => x.cpuMsPerPage, 2)} |\n`);
  }
  process.stdout.write(`\nload average at the end ${loadavg()[0]!.toFixed(2)}; "on a CPU" and "waiting for a CPU" are shares of the workers' wall time (/proc/PID/schedstat): the rest they waited for answers, Redis or work; waiting for a CPU means the machine, not the fleet, bound them\n`);
  if (c.runs > 1) {
    process.stdout.write('\npages/s of each run:\n');
    for (const runs of rows) process.stdout.write(`- ${runs[0]!.subject}: ${runs.map((r) => `${r.summary.pagesPerSecond} (longest idle ${r.summary.longestIdleSeconds} s)`).join(', ')}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
