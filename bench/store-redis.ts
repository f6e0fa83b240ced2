// bench/store's Redis pieces beside the single-client run (store.bench.ts, runRedis): the masters'
// CPU, and `--clients N`, N client processes admitting at once into their own stores on one cluster.
import { spawn } from 'node:child_process';
import type { Cluster } from 'ioredis';
import { openRedisStore } from '../src/store/backends/redis-store.js';
import { usedMemory } from '../src/store/backends/redis/cluster.js';
import type { Args, Result, Source, stream } from './store.bench.js';

/** One of `--clients`' processes: admit its stream into its store; the admit phase's wall-clock span. */
export async function runRedisClient(source: Source, a: Args, target: { seeds: string; name: string }, h: { stream: typeof stream; peakRssMiB: () => number }): Promise<Result> {
  const store = await openRedisStore(target.seeds, { presets: a.presets, redis: { name: target.name } });
  const gen = h.stream(source, a.urls, a.batch, a.seed);
  const batches = [...gen];
  const running = new Set<Promise<void>>();
  let admitted = 0;
  const start = performance.timeOrigin + performance.now();
  const cpu0 = process.cpuUsage();
  for (const batch of batches) {
    const p: Promise<void> = store.admit(batch).then((results) => {
      for (const r of results) if (r.admitted) admitted++;
      running.delete(p);
    });
    running.add(p);
    if (running.size >= a.inflight) await Promise.race(running);
  }
  await Promise.all(running);
  const end = performance.timeOrigin + performance.now();
  const cpu = process.cpuUsage(cpu0);
  await store.close();
  const seconds = (end - start) / 1000;
  return { subject: 'redis-1', urls: a.urls, seconds, urlsPerSecond: a.urls / seconds, newKeys: admitted, lookups: 0, lookupsPerSecond: NaN, peakRssMiB: h.peakRssMiB(), diskMiB: undefined, cpuUsPerUrl: (cpu.user + cpu.system) / a.urls, note: `${start} ${end}` };
}

/** `--clients N`: N client processes at once on the cluster `seeds`, each its own store and stream. */
export async function runRedisClients(
  a: Args,
  masters: 1 | 3,
  cluster: Cluster,
  seeds: string,
  before: number,
  dir: string,
  h: { script: string; folderBytes: (dir: string) => number },
): Promise<Result> {
  const script = h.script;
  const args = process.argv.slice(2).filter((x, i, all) => !['--json', '--subject', '--clients', '--seed'].includes(x) && !['--subject', '--clients', '--seed'].includes(all[i - 1]!));
  const cpu0 = await mastersCpuUs(cluster);
  const results = await Promise.all(
    Array.from({ length: a.clients }, (_, i) =>
      new Promise<Result>((resolve, reject) => {
        const child = spawn(process.execPath, [script, ...args, '--subject', 'redis-1', '--seed', String(a.seed + i), '--redis-client', `${seeds} bench-${i}`], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Result) : reject(new Error(`client ${i} exit ${code}`))));
      }),
    ),
  );
  const redisCpuUs = (await mastersCpuUs(cluster)) - cpu0;
  const spans = results.map((r) => r.note.split(' ').map(Number) as [number, number]);
  const seconds = (Math.max(...spans.map((s) => s[1])) - Math.min(...spans.map((s) => s[0]))) / 1000;
  const urls = a.urls * a.clients;
  const admitted = results.reduce((n, r) => n + r.newKeys, 0);
  const after = await usedMemory(cluster);
  return {
    subject: masters === 1 ? 'redis-1' : 'redis-3',
    urls,
    seconds,
    urlsPerSecond: urls / seconds,
    newKeys: admitted,
    lookups: 0,
    lookupsPerSecond: NaN,
    peakRssMiB: Math.max(...results.map((r) => r.peakRssMiB)),
    diskMiB: h.folderBytes(dir) / 2 ** 20,
    cpuUsPerUrl: results.reduce((n, r) => n + (r.cpuUsPerUrl ?? 0) * r.urls, 0) / urls,
    redisBytesPerUrl: { all: (after - before) / admitted, url: NaN, frontier: NaN },
    redisCpuUsPerUrl: redisCpuUs / urls,
    note: `${a.clients} client processes on ${masters} master${masters === 1 ? '' : 's'}, each its own store and stream (seeds ${a.seed}…${a.seed + a.clients - 1}), ${a.inflight} admit() in flight each; URLs/s over the span from the first start to the last end; no lookups`,
  };
}

/** CPU time the masters used so far, µs (INFO cpu), summed. */
export async function mastersCpuUs(cluster: Cluster): Promise<number> {
  let total = 0;
  for (const m of cluster.nodes('master')) {
    const info = await m.info('cpu');
    for (const f of ['used_cpu_user', 'used_cpu_sys']) total += Number(new RegExp(`^${f}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0) * 1e6;
  }
  return total;
}
