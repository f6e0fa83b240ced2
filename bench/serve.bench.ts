// Load benchmark of `urldedup serve` (not a test: it prints and asserts nothing).
//
//   npx tsc -p tsconfig.build.json && node dist/bench/serve.bench.js [--duration S] [--only NAME]…
//        [--batch N,N…] [--connections N] [--batch-connections N] [--overload-connections N]
//        [--profile DIR] [--service-flags='NODE FLAGS']
//
// Starts the service in a child process on 127.0.0.1 with a fresh store in a temp folder, admits
// the corpus (bench/corpus/urls.txt, 1,000 URLs per POST /v1/admit, so lookups meet a populated
// store), then drives it with autocannon's programmatic API:
//   single   GET /v1/key?url=…, one corpus URL per request, in corpus order over all connections
//   batch    POST /v1/key, N corpus URLs per request for each N of --batch (default 1000,10000)
//   overload POST /v1/key batches from many more connections than --max-inflight: 503s expected,
//            then a health check and a lookup show the service still answers
// and prints requests/s, keys/s and p50/p99 latency as a Markdown table. autocannon runs in this
// process, on the same machine, and competes with the service for the cores; the table also gives
// the CPU time each side spent per key (Linux /proc), which other load on the machine disturbs
// much less than keys/s: the service's main thread (node:http, JSON, canonicalMany's JavaScript),
// the whole service process (with LevelDB's threads and the kernel's socket work), and autocannon.
// --profile DIR runs the service with --cpu-prof and writes its profile there; --service-flags
// passes node flags to the service (--service-flags=--max-semi-space-size=32).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { environment, readCorpus } from './harness.js';

// ---- autocannon (CommonJS, no bundled types): the part of its API used here -------------------

interface Histogram {
  readonly average: number;
  readonly p50: number;
  readonly p99: number;
}
interface AutocannonResult {
  readonly duration: number;
  readonly latency: Histogram;
  readonly requests: Histogram & { readonly total: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly '2xx': number;
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
}
interface RawRequest {
  method?: string;
  path?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}
interface AutocannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly duration: number;
  readonly pipelining?: number;
  readonly timeout?: number;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly requests?: readonly { readonly setupRequest?: (req: RawRequest) => RawRequest }[];
}
type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// ---- the service ------------------------------------------------------------------------------

interface Running {
  readonly url: string;
  readonly child: ChildProcess;
  readonly dir: string;
  stop(): Promise<number | null>;
}

/** `--cpu-prof` the service process into this folder (set by `--profile DIR`). */
let profileDir: string | undefined;
/** More node flags for the service process (`--service-flags=--max-semi-space-size=32`). */
let serviceFlags: string[] = [];

async function startService(extra: readonly string[]): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-serve-'));
  const entry = fileURLToPath(new URL('./serve-child.js', import.meta.url));
  const node = [...serviceFlags, ...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir])];
  const child = spawn(process.execPath, [...node, entry, '--db', join(dir, 'db'), '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    child,
    dir,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => {
          rmSync(dir, { recursive: true, force: true });
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}

/** CPU seconds of a process, or of one of its threads (`tid`), from /proc; `NaN` where there is no /proc. */
function cpuSeconds(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    // fields after "(comm)": state is field 3, utime 14, stime 15 (proc(5)), in clock ticks (USER_HZ, 100 on Linux)
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU used by the service (main thread, whole process) and by this process (autocannon) while `run` runs. */
async function measured<T>(service: Running, run: () => Promise<T>): Promise<{ result: T; cpu: Cpu }> {
  const pid = service.child.pid!;
  const before = { main: cpuSeconds(pid, pid), process: cpuSeconds(pid), client: process.cpuUsage() };
  const result = await run();
  const client = process.cpuUsage(before.client);
  return {
    result,
    cpu: { main: cpuSeconds(pid, pid) - before.main, process: cpuSeconds(pid) - before.process, client: (client.user + client.system) / 1e6 },
  };
}

async function post(url: string, body: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

/** The whole corpus through POST /v1/admit, one body per request, 2 at a time: lookups then meet a populated store. */
async function populate(service: Running, bodies: readonly string[]): Promise<{ admitted: number; seconds: number }> {
  const t0 = performance.now();
  let admitted = 0;
  let next = 0;
  const admitWorker = async (): Promise<void> => {
    while (next < bodies.length) {
      const res = await post(`${service.url}/v1/admit`, bodies[next++]!);
      const { results } = (await res.json()) as { results: { admitted: boolean }[] };
      admitted += results.filter((r) => r.admitted).length;
    }
  };
  await Promise.all([admitWorker(), admitWorker()]);
  return { admitted, seconds: (performance.now() - t0) / 1000 };
}

// ---- runs -------------------------------------------------------------------------------------

/** CPU seconds spent during a run. */
interface Cpu {
  /** The service's main thread. */
  readonly main: number;
  /** The service process: main thread, LevelDB and libuv threads, GC threads. */
  readonly process: number;
  /** The load generator (this process). */
  readonly client: number;
}

interface Row {
  readonly name: string;
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly keysPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly shed: number;
  /** 4xx answers: corpus lines that are not valid URLs get 400 from GET /v1/key. */
  readonly clientErrors: number;
  readonly errors: number;
  /** CPU µs per answered key: service main thread, service process, client. */
  readonly cpuPerKey?: Cpu;
  readonly note?: string;
}

function row(name: string, connections: number, keysPerRequest: number, r: AutocannonResult, cpu: Cpu, note?: string): Row {
  const ok = r['2xx'];
  const shed = r.statusCodeStats['503']?.count ?? 0;
  let clientErrors = 0;
  for (const [status, { count }] of Object.entries(r.statusCodeStats)) if (status.startsWith('4')) clientErrors += count;
  const keys = (ok + clientErrors) * keysPerRequest;
  return {
    name,
    connections,
    requestsPerSecond: (ok + clientErrors) / r.duration,
    keysPerSecond: ((ok + clientErrors) * keysPerRequest) / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok,
    shed,
    clientErrors,
    errors: r.errors + r.timeouts + (r.non2xx - shed - clientErrors),
    cpuPerKey: { main: (cpu.main * 1e6) / keys, process: (cpu.process * 1e6) / keys, client: (cpu.client * 1e6) / keys },
    ...(note === undefined ? {} : { note }),
  };
}

const fmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** autocannon records latency in whole milliseconds: 0 means under 1 ms. */
const ms = (v: number): string => (Number.isNaN(v) ? '—' : v === 0 ? '<1' : fmt.format(v));

const cpuText = (c: Cpu | undefined): string =>
  c === undefined || Number.isNaN(c.main) ? '—' : `${c.main.toFixed(1)} / ${c.process.toFixed(1)} / ${c.client.toFixed(1)}`;

function table(rows: readonly Row[]): string {
  return [
    '| run | connections | requests/s | keys/s | p50 ms | p99 ms | 2xx | 4xx | 503 | errors | CPU µs/key: main / service / client |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.connections} | ${fmt.format(r.requestsPerSecond)} | ${fmt.format(r.keysPerSecond)} | ${ms(r.p50)} | ${ms(r.p99)} | ${fmt.format(r.ok)} | ${fmt.format(r.clientErrors)} | ${fmt.format(r.shed)} | ${r.errors} | ${cpuText(r.cpuPerKey)} |`,
    ),
    '',
    'requests/s and keys/s count answered requests (2xx, and 4xx for invalid corpus URLs); 503s are shed load. ' +
      'Latency is autocannon\'s, in whole milliseconds (<1: under one), over every answer including 503s. errors: connection errors, timeouts, 5xx other than 503. ' +
      'CPU µs/key: CPU time per answered key of the service\'s main thread, of the whole service process, and of autocannon (10 ms resolution).',
    ...rows.filter((r) => r.note !== undefined).map((r) => `\n- ${r.name}: ${r.note}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      only: { type: 'string', multiple: true },
      connections: { type: 'string', default: '8' },
      'batch-connections': { type: 'string', default: '4' },
      batch: { type: 'string', default: '1000,10000' },
      'overload-connections': { type: 'string', default: '400' },
      profile: { type: 'string' },
      'service-flags': { type: 'string', default: '' },
    },
  });
  profileDir = values.profile;
  serviceFlags = values['service-flags'].split(' ').filter((f) => f !== '');
  const duration = Number(values.duration);
  const only = new Set(values.only ?? ['single', 'batch', 'overload']);
  const corpus = readCorpus('urls.txt');
  const urls = corpus.lines;
  const BATCH = 1000;
  const bodiesOf = (size: number): string[] => {
    const out: string[] = [];
    for (let i = 0; i + size <= urls.length; i += size) out.push(JSON.stringify(urls.slice(i, i + size)));
    return out;
  };
  const bodies = bodiesOf(BATCH);
  const batchSizes = values.batch.split(',').map(Number);
  const paths = urls.map((u) => `/v1/key?url=${encodeURIComponent(u)}`);

  const env = environment();
  const load = loadavg();
  process.stderr.write(`bench: ${JSON.stringify(env)}; load average ${load.map((l) => l.toFixed(2)).join(' ')}\n`);
  const rows: Row[] = [];

  const service = await startService([]);
  try {
    const { admitted, seconds: admitSeconds } = await populate(service, bodies);
    process.stderr.write(`bench: admitted ${admitted} of ${bodies.length * BATCH} corpus URLs in ${admitSeconds.toFixed(1)} s\n`);
    rows.push({
      name: 'POST /v1/admit (populate, 1,000 URLs/request)',
      connections: 2,
      requestsPerSecond: bodies.length / admitSeconds,
      keysPerSecond: (bodies.length * BATCH) / admitSeconds,
      p50: NaN,
      p99: NaN,
      ok: bodies.length,
      shed: 0,
      clientErrors: 0,
      errors: 0,
      note: `one pass over the corpus into an empty store (${fmt.format(admitted)} admitted); latency not sampled`,
    });

    if (only.has('single')) {
      const connections = Number(values.connections);
      let i = 0;
      const { result: r, cpu } = await measured(service, () =>
        autocannon({
          url: service.url,
          connections,
          duration,
          requests: [{ setupRequest: (req) => ({ ...req, method: 'GET', path: paths[i++ % paths.length]! }) }],
        }),
      );
      rows.push(row('GET /v1/key (single key)', connections, 1, r, cpu));
    }
    if (only.has('batch')) {
      const connections = Number(values['batch-connections']);
      for (const size of batchSizes) {
        const batchBodies = bodiesOf(size);
        let j = 0;
        const { result: r, cpu } = await measured(service, () =>
          autocannon({
            url: service.url,
            connections,
            duration,
            timeout: 30,
            requests: [
              {
                setupRequest: (req) => ({ ...req, method: 'POST', path: '/v1/key', headers: { 'content-type': 'application/json' }, body: batchBodies[j++ % batchBodies.length]! }),
              },
            ],
          }),
        );
        rows.push(row(`POST /v1/key (${fmt.format(size)} keys/request)`, connections, size, r, cpu));
      }
    }
  } finally {
    await service.stop();
  }

  if (only.has('overload')) {
    // a small in-flight limit, far more clients than it: the service sheds with 503 + Retry-After.
    // Its store is populated too: against an empty one every lookup is a Bloom miss that finishes
    // without waiting on LevelDB, requests never pile up, and nothing is shed.
    const overloaded = await startService(['--max-inflight', '16']);
    try {
      await populate(overloaded, bodies);
      const connections = Number(values['overload-connections']);
      let j = 0;
      const { result: r, cpu } = await measured(overloaded, () =>
        autocannon({
          url: overloaded.url,
          connections,
          duration,
          timeout: 30,
          requests: [
            {
              setupRequest: (req) => ({ ...req, method: 'POST', path: '/v1/key', headers: { 'content-type': 'application/json' }, body: bodies[j++ % bodies.length]! }),
            },
          ],
        }),
      );
      const health = await fetch(`${overloaded.url}/healthz`);
      const lookup = await fetch(`${overloaded.url}${paths[0]}`);
      const alive = overloaded.child.exitCode === null && health.status === 200 && lookup.status === 200;
      rows.push(
        row('overload: POST /v1/key, --max-inflight 16', connections, BATCH, r, cpu, `after the run: service ${alive ? 'alive' : 'NOT ALIVE'}, /healthz ${health.status}, GET /v1/key ${lookup.status}`),
      );
      const code = await overloaded.stop();
      process.stderr.write(`bench: overloaded service exited ${code} on SIGTERM\n`);
    } catch (error) {
      await overloaded.stop();
      throw error;
    }
  }

  process.stdout.write(
    [
      '### urldedup serve on loopback',
      '',
      `${env.cpu}, ${env.cores} cores, Node ${env.node}; load average at start ${load.map((l) => l.toFixed(2)).join(' ')} (other processes share the machine); ` +
        `autocannon in the same machine; ${duration} s per run; corpus \`bench/corpus/urls.txt\` (${fmt.format(urls.length)} URLs, sha256 \`${corpus.sha256.slice(0, 16)}…\`).`,
      '',
      table(rows),
      '',
    ].join('\n'),
  );
}

await main();
