// bench/store: the seen-store's admit throughput beside its ceilings, on one URL stream.
//
//   npx tsc -p tsconfig.build.json && node dist/bench/store.bench.js [options]
//     --urls N        URLs in the stream (default 1000000; the full run is 10000000)
//     --batch N       URLs per admit() call (default 1000)
//     --lookups N     canonical() lookups after the stream (default 200000)
//     --write-buffer M  LevelDB write buffer in MiB for the store (default: the store's default)
//     --no-compression  LevelDB without Snappy for the store
//     --cache-size N  the store's cacheSize (default: the store's default)
//     --bloom-bits N  the store's bloomBitsPerKey (default: the store's default)
//     --inflight N    admit() calls kept in flight by the store feed (default 4; a crawler has one per
//                     page being processed); 1 makes it a plain sequential loop
//     --subject S     store | redis-1 | redis-3 | leveldb | set | keys | all (default all; each runs
//                     in its own process, so peak RSS is its own)
//     --redis-fsync F the Redis subjects' appendfsync: everysec (default) | always | no
//     --clients N     Redis subjects: N client processes, each admitting its own stream (seed + i)
//                     into its own store (bench-<i>) on the one cluster, all at once; URLs/s is
//                     all their URLs over the time from the first start to the last end (default 1:
//                     this process, with the lookups)
//     --semi-space M  run every subject's process with node --max-semi-space-size=M (MiB; default:
//                     Node's own, 16 on 64-bit). Admit keeps about 1 KB per URL alive while its batch
//                     is written, so with the default young generation ~40 % of what it allocates
//                     survives a scavenge; 32 halves the scavenges (see the README's tuning note)
//     --presets P     comma-separated store presets (default none)
//     --seed N        stream seed (default 0x75726c64)
//     --json          print JSON instead of Markdown
//     --hosts H       the growth run instead (bench/store-growth.ts): a broad crawl's stream over H
//                     hosts, reported at checkpoints (1M, 10M, 30M, 100M), `--plot FILE.svg`
//
// The stream: the fixed corpus (bench/corpus/urls.txt: 200k lines, each an extracted URL or an
// alias variant of one) cycled with numbered variants. Every line is grouped by its identity key;
// the i-th new URL of the stream is a line of group G(i) with "/v<i>" put after the authority, and
// half of the stream repeats an earlier i (70 % from the last 10k, 30 % from all) through another
// line of the same group: a different spelling of the same URL (case, port, percent-encoding,
// dot-segments, fragment, …). So about half the stream is duplicates, and most of those are not
// byte-equal to the first occurrence. Without the corpus the same shape is made up from a PRNG.
//
// Subjects, on the same stream:
//   store    urldedup's openStore: admit() = normalize + key + front + LevelDB batch (timed whole)
//   leveldb  classic-level alone on the same keys: getMany(keys) then batch(put new) per batch; the
//            keys are computed outside the timed part (the raw LevelDB ceiling)
//   leveldb+key  the same loop with normalize + key inside the timed part (what admit() also does)
//   set      a JavaScript Set of the same keys (the memory ceiling); keys computed outside the timing
//   keys     normalize + key alone (the part of admit() that is not storage)
//   redis-1, redis-3  urldedup's openRedisStore on a Redis Cluster of 1 or 3 masters that the
//            subject starts on loopback (scripts/redis-cluster.sh, AOF): admit() timed whole as for
//            `store`; memory is INFO used_memory summed over the masters, after minus before, per
//            new key (and the url hashes alone, by MEMORY USAGE)
// Benchmarks print; they assert nothing.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClassicLevel } from 'classic-level';
import { key as keyOf } from '../src/normalize/index.js';
import { openStore, type SeenStore, type StoreStats } from '../src/store/index.js';
import { clusterReady, connectCluster, scanStoreKeys, usedMemory } from '../src/store/backends/redis/cluster.js';
import { openRedisStore } from '../src/store/backends/redis-store.js';
import type { PresetName } from '../src/normalize/index.js';
import { eachFlag, environment, findRepoRoot, folderBytes, peakRssMiB } from './harness.js';
import { parseGrowthArgs, runGrowth } from './store-growth.js';
import { mastersCpuUs, runRedisClient, runRedisClients } from './store-redis.js';
import { mulberry32 } from '../sites/mulberry32.js';

type SubjectName = 'store' | 'redis-1' | 'redis-3' | 'leveldb' | 'leveldb+key' | 'set' | 'keys';
const SUBJECTS: readonly SubjectName[] = ['store', 'redis-1', 'redis-3', 'leveldb', 'leveldb+key', 'set', 'keys'];

export interface Args {
  urls: number;
  batch: number;
  lookups: number;
  inflight: number;
  writeBufferMiB: number | undefined;
  compression: boolean | undefined;
  cacheSize: number | undefined;
  bloomBits: number | undefined;
  subject: SubjectName | 'all';
  presets: PresetName[];
  seed: number;
  json: boolean;
  semiSpaceMiB: number | undefined;
  redisFsync: 'everysec' | 'always' | 'no';
  clients: number;
  /** Set in the client processes of `--clients`: the cluster and the store name to admit into. */
  redisClient: { seeds: string; name: string } | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { urls: 1_000_000, batch: 1000, lookups: 200_000, inflight: 4, writeBufferMiB: undefined, compression: undefined, cacheSize: undefined, bloomBits: undefined, subject: 'all', presets: [], seed: 0x75726c64, json: false, semiSpaceMiB: undefined, redisFsync: 'everysec', clients: 1, redisClient: undefined };
  eachFlag(argv, (flag, value) => {
    if (flag === '--urls') a.urls = Number(value());
    else if (flag === '--batch') a.batch = Number(value());
    else if (flag === '--lookups') a.lookups = Number(value());
    else if (flag === '--inflight') a.inflight = Number(value());
    else if (flag === '--write-buffer') a.writeBufferMiB = Number(value());
    else if (flag === '--no-compression') a.compression = false;
    else if (flag === '--cache-size') a.cacheSize = Number(value());
    else if (flag === '--bloom-bits') a.bloomBits = Number(value());
    else if (flag === '--subject') a.subject = value() as Args['subject'];
    else if (flag === '--redis-fsync') a.redisFsync = value() as Args['redisFsync'];
    else if (flag === '--presets') a.presets = value().split(',').filter(Boolean) as PresetName[];
    else if (flag === '--seed') a.seed = Number(value());
    else if (flag === '--clients') a.clients = Number(value());
    else if (flag === '--redis-client') {
      const [seeds, name] = value().split(' ');
      a.redisClient = { seeds: seeds!, name: name! };
    }
    else if (flag === '--json') a.json = true;
    else if (flag === '--semi-space') a.semiSpaceMiB = Number(value());
    else throw new Error(`unknown option ${flag} (see the header of bench/store.bench.ts)`);
  });
  if (a.semiSpaceMiB !== undefined && !(Number.isInteger(a.semiSpaceMiB) && a.semiSpaceMiB >= 1)) throw new Error('--semi-space: an integer number of MiB, at least 1');
  // the flag sizes the young generation at start-up: it reaches the subjects through the processes
  // this bench starts (--subject all); a single subject runs in this process, already started
  if (a.semiSpaceMiB !== undefined && a.subject !== 'all' && !process.execArgv.includes(`--max-semi-space-size=${a.semiSpaceMiB}`)) {
    throw new Error(`--semi-space with --subject: run node --max-semi-space-size=${a.semiSpaceMiB} dist/bench/store.bench.js … instead`);
  }
  if (a.subject !== 'all' && !SUBJECTS.includes(a.subject)) throw new Error(`--subject: one of ${SUBJECTS.join(', ')}, all`);
  return a;
}

// ---- the stream -------------------------------------------------------------------------------

function hash32(n: number): number {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Put "/v<n>" right after the authority (before the first "/", "\", "?" or "#" after "//"). */
function numbered(url: string, n: number): string {
  const start = url.indexOf('//');
  if (start === -1) return url;
  let i = start + 2;
  while (i < url.length) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23) break;
    i++;
  }
  return url.slice(0, i) + '/v' + n + (i < url.length && url.charCodeAt(i) !== 0x2f && url.charCodeAt(i) !== 0x5c ? '/' : '') + url.slice(i);
}

/**
 * `s` as one flat string, as a reader hands lines to a crawler. `numbered` joins slices of the
 * 13 MB corpus text into a rope; V8 copies a rope into a flat string on its first indexed read
 * (here, outside the timing), which for these ropes costs 0.3–1 µs (their pieces lie anywhere in
 * the corpus text) and would otherwise be billed to the first subject that reads the URL.
 */
function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

export interface Source {
  readonly description: string;
  /** Lines of each group (one identity key per group). */
  readonly groups: readonly (readonly string[])[];
  readonly invalid: readonly string[];
}

function corpusSource(): Source {
  const path = join(findRepoRoot(), 'bench', 'corpus', 'urls.txt');
  if (existsSync(path)) {
    const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');
    const byKey = new Map<string, string[]>();
    const invalid: string[] = [];
    for (const line of lines) {
      let k: string;
      try {
        k = keyOf(line);
      } catch {
        invalid.push(line);
        continue;
      }
      let g = byKey.get(k);
      if (g === undefined) byKey.set(k, (g = []));
      g.push(line);
    }
    return { description: `bench/corpus/urls.txt (${lines.length} lines, ${byKey.size} distinct URLs, ${invalid.length} invalid), cycled with /v<n>`, groups: [...byKey.values()], invalid };
  }
  // no corpus: synthetic hosts and paths, with spellings that normalize alike
  const rnd = mulberry32(7);
  const groups: string[][] = [];
  for (let i = 0; i < 5000; i++) {
    const host = `site${Math.floor(rnd() * 500)}.example`;
    const path = `/section${Math.floor(rnd() * 40)}/page-${i}.html`;
    groups.push([`https://${host}${path}`, `HTTPS://${host.toUpperCase()}${path}`, `https://${host}:443${path}#top`, `https://${host}/x/..${path}`]);
  }
  return { description: 'synthetic (bench/corpus/urls.txt missing)', groups, invalid: ['http://exa mple.com/'] };
}

/** The stream, batch by batch: deterministic for a seed. */
export function* stream(source: Source, total: number, batch: number, seed: number): Generator<string[]> {
  const rnd = mulberry32(seed);
  const G = source.groups.length;
  let fresh = 0;
  let emitted = 0;
  while (emitted < total) {
    const n = Math.min(batch, total - emitted);
    const out: string[] = new Array(n);
    for (let j = 0; j < n; j++) {
      const r = rnd();
      if (r < 0.002 && source.invalid.length > 0) {
        out[j] = source.invalid[Math.floor(rnd() * source.invalid.length)]!;
        continue;
      }
      let id: number;
      if (fresh === 0 || r < 0.5) id = fresh++;
      else if (rnd() < 0.7) id = Math.max(0, fresh - 1 - Math.floor(rnd() * 10_000));
      else id = Math.floor(rnd() * fresh);
      const lines = source.groups[hash32(id) % G]!;
      out[j] = flat(numbered(lines[Math.floor(rnd() * lines.length)]!, id));
    }
    emitted += n;
    yield out;
  }
}

function keysOf(urls: readonly string[]): string[] {
  const out: string[] = [];
  for (const u of urls) {
    try {
      out.push(keyOf(u));
    } catch {
      // invalid: not a key
    }
  }
  return out;
}

// ---- subjects ---------------------------------------------------------------------------------

export interface Result {
  subject: SubjectName;
  urls: number;
  seconds: number;
  urlsPerSecond: number;
  newKeys: number;
  lookups: number;
  lookupsPerSecond: number;
  peakRssMiB: number;
  diskMiB: number | undefined;
  reopenSeconds?: number;
  /** Where the reopened store's Bloom fronts came from: the snapshot its close wrote, or every key. */
  reopenFront?: StoreStats['front']['source'];
  /** The process's peak RSS so far after each phase (admit, lookups, close, reopen). */
  peakRssByPhaseMiB?: Record<string, number>;
  /** `process.memoryUsage()` right after the last admit: V8's heap, and memory outside it that V8 knows of. */
  memoryAfterAdmitMiB?: { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
  heapUsedMiB?: number;
  /** Highest RSS sampled while admitting (the whole-run peak also covers lookups, close and reopen). */
  admitRssMiB?: number;
  /** Linux: the RSS right after the last admit, split into anonymous memory and file pages (LevelDB maps its table files). */
  rssSplitMiB?: { anon: number; file: number };
  /** Process CPU (all threads: JS, LevelDB writes and compaction) per URL in the timed loop. */
  cpuUsPerUrl?: number;
  /** Redis subjects: INFO used_memory growth per new key, and the url hashes' MEMORY USAGE per new key. */
  redisBytesPerUrl?: { all: number; url: number; frontier: number };
  /** Redis subjects: the masters' CPU (INFO used_cpu_user + used_cpu_sys, summed) per URL of the admit phase. */
  redisCpuUsPerUrl?: number;
  note: string;
}


/** RssAnon and RssFile of /proc/self/status (Linux), in MiB; undefined elsewhere. */
function rssSplitMiB(): { anon: number; file: number } | undefined {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const kib = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return m === null ? undefined : Number(m[1]) / 1024;
  };
  const anon = kib('RssAnon');
  const file = kib('RssFile');
  return anon === undefined || file === undefined ? undefined : { anon, file };
}


/** A sample of stream URLs for lookups (half seen, half never seen). */
function lookupSample(source: Source, a: Args): string[] {
  const rnd = mulberry32(a.seed ^ 0x10c0);
  const out: string[] = [];
  const freshTotal = Math.floor(a.urls / 2);
  for (let i = 0; i < a.lookups; i++) {
    const id = rnd() < 0.5 ? Math.floor(rnd() * freshTotal) : freshTotal * 4 + i;
    const lines = source.groups[hash32(id) % source.groups.length]!;
    out.push(numbered(lines[Math.floor(rnd() * lines.length)]!, id));
  }
  return out;
}

/**
 * Admit the bench's stream into `store`, up to `a.inflight` calls outstanding. The clock runs while
 * any is, less the time spent generating batches meanwhile (the bench's, not the store's); the CPU
 * per URL is the process's over the phase, less the generation. `onBatch` sees each batch's size.
 */
async function timedAdmits(store: SeenStore, source: Source, a: Args, onBatch?: (n: number) => void): Promise<{ ns: bigint; admitted: number; cpuUsPerUrl: number; admitRss: number }> {
  let ns = 0n;
  let admitted = 0;
  let admitRss = 0;
  const running = new Set<Promise<void>>();
  const cpu0 = process.cpuUsage();
  let t0 = 0n;
  let genNs = 0n;
  let genAllNs = 0n;
  const gen = stream(source, a.urls, a.batch, a.seed);
  for (;;) {
    const g0 = process.hrtime.bigint();
    const step = gen.next();
    const g = process.hrtime.bigint() - g0;
    genAllNs += g;
    if (running.size > 0) genNs += g;
    if (step.done === true) break;
    const batch = step.value;
    if (running.size === 0) t0 = process.hrtime.bigint();
    const p: Promise<void> = store.admit(batch).then((results) => {
      for (const r of results) if (r.admitted) admitted++;
      const rss = process.memoryUsage.rss();
      if (rss > admitRss) admitRss = rss;
      running.delete(p);
      if (running.size === 0) ns += process.hrtime.bigint() - t0;
    });
    running.add(p);
    if (running.size >= a.inflight) await Promise.race(running);
    onBatch?.(batch.length);
  }
  await Promise.all(running);
  const cpu = process.cpuUsage(cpu0);
  return { ns: ns - genNs, admitted, cpuUsPerUrl: (cpu.user + cpu.system - Number(genAllNs) / 1000) / a.urls, admitRss };
}

/** `canonical()` of each sample URL, 256 at a time: the time it took, in ns. */
async function timedLookups(store: SeenStore, sample: readonly string[]): Promise<number> {
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < sample.length; i += 256) {
    await Promise.all(sample.slice(i, i + 256).map((u) => store.canonical(u).catch(() => undefined)));
  }
  return Number(process.hrtime.bigint() - t1);
}

async function runStore(source: Source, a: Args): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-'));
  try {
    const level = { ...(a.writeBufferMiB === undefined ? {} : { writeBufferSize: a.writeBufferMiB * 2 ** 20 }), ...(a.compression === undefined ? {} : { compression: a.compression }) };
    const options = { presets: a.presets, level, ...(a.cacheSize === undefined ? {} : { cacheSize: a.cacheSize }), ...(a.bloomBits === undefined ? {} : { bloomBitsPerKey: a.bloomBits }) };
    let store = await openStore(dir, options);
    const started = performance.now();
    let done = 0;
    const { ns, admitted, cpuUsPerUrl, admitRss } = await timedAdmits(store, source, a, (n) => {
      done += n;
      if (done % 1_000_000 === 0) process.stderr.write(`store: ${done} URLs, ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    });
    const rssSplit = rssSplitMiB();
    // the process's peak RSS so far, after each phase: where the whole run's peak was reached
    const peaks: Record<string, number> = { admit: peakRssMiB() };
    const m = process.memoryUsage();
    const memoryAfterAdmit = { heapTotal: m.heapTotal / 2 ** 20, heapUsed: m.heapUsed / 2 ** 20, external: m.external / 2 ** 20, arrayBuffers: m.arrayBuffers / 2 ** 20 };
    const sample = lookupSample(source, a);
    const lookupNs = await timedLookups(store, sample);
    peaks['lookups'] = peakRssMiB();
    await store.close();
    peaks['close'] = peakRssMiB();
    const heapUsedMiB = process.memoryUsage().heapUsed / 2 ** 20;
    const r0 = process.hrtime.bigint();
    store = await openStore(dir, options);
    const reopenSeconds = Number(process.hrtime.bigint() - r0) / 1e9;
    const front = (await store.stats()).front;
    await store.close();
    peaks['reopen'] = peakRssMiB();
    const seconds = Number(ns) / 1e9;
    return {
      subject: 'store',
      urls: a.urls,
      seconds,
      urlsPerSecond: a.urls / seconds,
      newKeys: admitted,
      lookups: sample.length,
      lookupsPerSecond: sample.length / (lookupNs / 1e9),
      peakRssMiB: peakRssMiB(),
      diskMiB: folderBytes(dir) / 2 ** 20,
      reopenSeconds,
      reopenFront: front.source,
      peakRssByPhaseMiB: peaks,
      memoryAfterAdmitMiB: memoryAfterAdmit,
      heapUsedMiB,
      admitRssMiB: admitRss / 2 ** 20,
      ...(rssSplit === undefined ? {} : { rssSplitMiB: rssSplit }),
      cpuUsPerUrl,
      note: `openStore(dir${a.presets.length ? `, { presets: [${a.presets.join(', ')}] }` : ''}); admit() timed whole, ${a.inflight} in flight; lookups = canonical(), 256 at a time`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runLevel(source: Source, a: Args, withKeys: boolean): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-'));
  try {
    const db = new ClassicLevel<string, string>(dir);
    await db.open();
    let ns = 0n;
    let added = 0;
    const cpu0 = process.cpuUsage();
    let genAllNs = 0n;
    const gen = stream(source, a.urls, a.batch, a.seed);
    for (;;) {
      const g0 = process.hrtime.bigint();
      const step = gen.next();
      genAllNs += process.hrtime.bigint() - g0;
      if (step.done === true) break;
      const batch = step.value;
      const tk = process.hrtime.bigint();
      const keys = keysOf(batch);
      const t0 = withKeys ? tk : process.hrtime.bigint();
      const values = await db.getMany(keys);
      const ops: { type: 'put'; key: string; value: string }[] = [];
      const inBatch = new Set<string>();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (values[i] === undefined && !inBatch.has(k)) {
          inBatch.add(k);
          ops.push({ type: 'put', key: k, value: '1' });
        }
      }
      if (ops.length > 0) await db.batch(ops);
      ns += process.hrtime.bigint() - t0;
      added += ops.length;
    }
    const cpu = process.cpuUsage(cpu0);
    const sample = keysOf(lookupSample(source, a));
    const t1 = process.hrtime.bigint();
    for (let i = 0; i < sample.length; i += 256) await db.getMany(sample.slice(i, i + 256));
    const lookupNs = Number(process.hrtime.bigint() - t1);
    await db.close();
    const seconds = Number(ns) / 1e9;
    return {
      subject: withKeys ? 'leveldb+key' : 'leveldb',
      urls: a.urls,
      seconds,
      urlsPerSecond: a.urls / seconds,
      newKeys: added,
      lookups: sample.length,
      lookupsPerSecond: sample.length / (lookupNs / 1e9),
      peakRssMiB: peakRssMiB(),
      diskMiB: folderBytes(dir) / 2 ** 20,
      ...(withKeys ? { cpuUsPerUrl: (cpu.user + cpu.system - Number(genAllNs) / 1000) / a.urls } : {}),
      note: withKeys ? 'the same loop, normalize + key() timed too' : 'classic-level getMany(keys) + batch(new); keys made outside the timing',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runSet(source: Source, a: Args): Promise<Result> {
  const set = new Set<string>();
  let ns = 0n;
  for (const batch of stream(source, a.urls, a.batch, a.seed)) {
    const keys = keysOf(batch);
    const t0 = process.hrtime.bigint();
    for (const k of keys) if (!set.has(k)) set.add(k);
    ns += process.hrtime.bigint() - t0;
  }
  const sample = keysOf(lookupSample(source, a));
  let hits = 0;
  const t1 = process.hrtime.bigint();
  for (const k of sample) if (set.has(k)) hits++;
  const lookupNs = Number(process.hrtime.bigint() - t1);
  const seconds = Number(ns) / 1e9;
  return {
    subject: 'set',
    urls: a.urls,
    seconds,
    urlsPerSecond: a.urls / seconds,
    newKeys: set.size,
    lookups: sample.length + (hits & 0),
    lookupsPerSecond: sample.length / (lookupNs / 1e9),
    peakRssMiB: peakRssMiB(),
    diskMiB: undefined,
    note: 'new Set<string>() of the keys; keys made outside the timing; not durable',
  };
}

/** The store on a Redis Cluster of `masters` masters started for this run (and stopped after it). */
async function runRedis(source: Source, a: Args, masters: 1 | 3): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-redis-'));
  const base = 21000 + Math.floor(Math.random() * 20000);
  const ports = Array.from({ length: masters }, (_, i) => String(base + i));
  const script = join(findRepoRoot(), 'scripts', 'redis-cluster.sh');
  const started = spawnSync('bash', [script, 'start', dir, ...ports], { encoding: 'utf8', env: { ...process.env, APPENDFSYNC: a.redisFsync } });
  if (started.status !== 0) throw new Error(`redis-cluster.sh start: ${started.stderr}`);
  const seeds = started.stdout.trim();
  const cluster = connectCluster(seeds);
  try {
    await clusterReady(cluster, seeds);
    const before = await usedMemory(cluster);
    if (a.clients > 1) return await runRedisClients(a, masters, cluster, seeds, before, dir, { script: fileURLToPath(import.meta.url), folderBytes });
    const options = { presets: a.presets, ...(a.cacheSize === undefined ? {} : { cacheSize: a.cacheSize }), ...(a.bloomBits === undefined ? {} : { bloomBitsPerKey: a.bloomBits }), redis: { name: 'bench' } };
    const store = await openRedisStore(seeds, options);
    const redisCpu0 = await mastersCpuUs(cluster);
    const { ns, admitted, cpuUsPerUrl } = await timedAdmits(store, source, a);
    const redisCpuUsPerUrl = ((await mastersCpuUs(cluster)) - redisCpu0) / a.urls;
    const sample = lookupSample(source, a);
    const lookupNs = await timedLookups(store, sample);
    const peak = peakRssMiB();
    await store.close();
    const after = await usedMemory(cluster);
    let urlBytes = 0;
    let frontierBytes = 0;
    for await (const k of scanStoreKeys(cluster, 'bench')) {
      if (/\}u(:|$)/.test(k)) urlBytes += Number(await cluster.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
      else if (/\}f(:o)?$/.test(k)) frontierBytes += Number(await cluster.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
    }
    const seconds = Number(ns) / 1e9;
    return {
      subject: masters === 1 ? 'redis-1' : 'redis-3',
      urls: a.urls,
      seconds,
      urlsPerSecond: a.urls / seconds,
      newKeys: admitted,
      lookups: sample.length,
      lookupsPerSecond: sample.length / (lookupNs / 1e9),
      peakRssMiB: peak,
      diskMiB: folderBytes(dir) / 2 ** 20,
      cpuUsPerUrl,
      redisBytesPerUrl: { all: (after - before) / admitted, url: urlBytes / admitted, frontier: frontierBytes / admitted },
      redisCpuUsPerUrl,
      note: `openRedisStore on ${masters} master${masters === 1 ? '' : 's'} (loopback, AOF appendfsync ${a.redisFsync}); admit() timed whole, ${a.inflight} in flight; lookups = canonical(), 256 at a time; on disk = the AOF files`,
    };
  } finally {
    cluster.disconnect();
    spawnSync('bash', [script, 'stop', dir, ...ports]);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runKeys(source: Source, a: Args): Promise<Result> {
  let ns = 0n;
  let n = 0;
  let cpuUs = 0;
  for (const batch of stream(source, a.urls, a.batch, a.seed)) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    n += keysOf(batch).length;
    ns += process.hrtime.bigint() - t0;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
  }
  const seconds = Number(ns) / 1e9;
  return { subject: 'keys', urls: a.urls, seconds, urlsPerSecond: a.urls / seconds, newKeys: n, lookups: 0, lookupsPerSecond: NaN, peakRssMiB: peakRssMiB(), diskMiB: undefined, cpuUsPerUrl: cpuUs / a.urls, note: 'normalize + key only (no storage): the part of admit() that is not the store' };
}

// ---- output -----------------------------------------------------------------------------------

function fmt(n: number): string {
  if (!Number.isFinite(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

function table(results: readonly Result[], a: Args, source: Source): string {
  const env = environment();
  const lines = [
    `## bench/store: ${fmt(a.urls)} URLs in batches of ${a.batch}`,
    '',
    `Stream: ${source.description}; seed ${a.seed}. Environment: ${Object.entries(env).map(([k, v]) => `${k} ${v}`).join(', ')}; ${a.semiSpaceMiB === undefined ? "Node's default young generation" : `node --max-semi-space-size=${a.semiSpaceMiB} for every subject`}.`,
    '',
    '| subject | URLs/s | CPU µs/URL | new keys | time | lookups/s | peak RSS (admit phase) | on disk | Redis B/URL (url keys) | note |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    const extra =
      (r.reopenSeconds === undefined ? '' : `; reopen ${r.reopenSeconds.toFixed(2)} s (fronts from ${r.reopenFront === 'snapshot' ? 'the snapshot written at close' : r.reopenFront === 'none' ? 'nothing' : 'every key'})`) +
      (r.peakRssByPhaseMiB === undefined ? '' : `; peak RSS after ${Object.entries(r.peakRssByPhaseMiB).map(([phase, mib]) => `${phase} ${fmt(mib)}`).join(', ')} MiB`) +
      (r.rssSplitMiB === undefined ? '' : `; RSS after the last admit ${fmt(r.rssSplitMiB.anon)} MiB anonymous + ${fmt(r.rssSplitMiB.file)} MiB mapped table files`);
    lines.push(
      `| ${r.subject} | ${fmt(r.urlsPerSecond)} | ${r.cpuUsPerUrl === undefined ? '—' : r.cpuUsPerUrl.toFixed(1)} | ${fmt(r.newKeys)} | ${r.seconds.toFixed(1)} s | ${fmt(r.lookupsPerSecond)} | ${fmt(r.peakRssMiB)} MiB${r.admitRssMiB === undefined ? '' : ` (${fmt(r.admitRssMiB)} MiB)`} | ${r.diskMiB === undefined ? '—' : `${r.diskMiB.toFixed(0)} MiB`} | ${r.redisBytesPerUrl === undefined ? '—' : `${fmt(r.redisBytesPerUrl.all)} (${fmt(r.redisBytesPerUrl.url)})`} | ${r.note}${extra} |`,
    );
  }
  return lines.join('\n');
}

async function runOne(subject: SubjectName, a: Args): Promise<Result> {
  const source = corpusSource();
  if (a.redisClient !== undefined) return runRedisClient(source, a, a.redisClient, { stream, peakRssMiB });
  switch (subject) {
    case 'store':
      return runStore(source, a);
    case 'leveldb':
      return runLevel(source, a, false);
    case 'leveldb+key':
      return runLevel(source, a, true);
    case 'redis-1':
      return runRedis(source, a, 1);
    case 'redis-3':
      return runRedis(source, a, 3);
    case 'set':
      return runSet(source, a);
    case 'keys':
      return runKeys(source, a);
  }
}

async function main(): Promise<void> {
  // `--hosts`: the growth run of a broad crawl's stream (bench/store-growth.ts)
  if (process.argv.includes('--hosts')) return void (await runGrowth(parseGrowthArgs(process.argv.slice(2))));
  const a = parseArgs(process.argv.slice(2));
  if (a.subject !== 'all') {
    const r = await runOne(a.subject, a);
    process.stdout.write(JSON.stringify(r) + '\n');
    return;
  }
  const script = fileURLToPath(import.meta.url);
  const results: Result[] = [];
  for (const subject of SUBJECTS) {
    process.stderr.write(`running ${subject} …\n`);
    const args = process.argv.slice(2).filter((x, i, all) => x !== '--json' && x !== '--subject' && all[i - 1] !== '--subject');
    // only the Set needs a large heap (10M keys); the others run with Node's defaults, as a user
    // would, unless --semi-space asks for a larger young generation (for every subject alike)
    const heap = [...(subject === 'set' ? ['--max-old-space-size=8192'] : []), ...(a.semiSpaceMiB === undefined ? [] : [`--max-semi-space-size=${a.semiSpaceMiB}`])];
    const child = spawnSync(process.execPath, [...heap, script, ...args, '--subject', subject], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
    if (child.status !== 0) throw new Error(`subject ${subject} failed (exit ${child.status})`);
    results.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as Result);
  }
  const source = corpusSource();
  process.stdout.write(a.json ? JSON.stringify({ args: a, environment: environment(), results }, null, 2) + '\n' : table(results, a, source) + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error) + '\n');
  process.exit(1);
});
