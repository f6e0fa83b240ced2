// bench/store-growth: how the LevelDB store grows with a broad crawl's stream, one store, one
// process, reported at checkpoints (default 1 M, 10 M, 30 M, 100 M URLs, the ones within --urls):
// admits/s over the last interval, the lookup latency of a URL already seen (p50, p99), peak RSS,
// bytes on disk per stored URL, and the time to close and reopen the store. `--plot FILE.svg`
// draws the four curves from the run's own figures.
//
//   npx tsc -p tsconfig.build.json && node dist/bench/store-growth.js --urls 100000000 --hosts 1000000
//   node dist/bench/store.bench.js --urls N --hosts H     (the same, through bench/store)
//     --urls N          URLs in the stream (default 10,000,000)
//     --hosts H         hosts the URLs are spread over (default 1,000,000)
//     --batch N         URLs per admit() call (default 1000)
//     --checkpoints L   comma-separated URL counts to report at (default 1e6,1e7,3e7,1e8)
//     --lookups N       seen URLs looked up one at a time at each checkpoint (default 2000)
//     --plot FILE       write the curves as an SVG
//     --seed N          stream seed
//     --heap-growth P   V8's old-generation growth past the live heap, in percent, as the CLI's
//                       long-running commands ask for it (src/cli/heap-growth.ts; default 30);
//                       0 leaves V8's own sizing (up to about 4× the live heap)
//
// The stream (a broad crawl's shape): batches of 1,000 links; half are new URLs, the other half
// repeat an earlier one (70 % from the last 10,000, 30 % from all), most of them in another
// spelling (host case, default port, a fragment, a dot-segment), so they are aliases the ladder
// folds, not byte-equal repeats. Each URL id has its host (id hashed over --hosts) and a path of
// its own. Benchmarks print; they assert nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type SeenStore } from '../src/store/index.js';
import { mulberry32 } from '../sites/mulberry32.js';
import { setFlagsFromString } from 'node:v8';
import { HEAP_GROWING_PERCENT } from '../src/cli/heap-growth.js';
import { eachFlag, folderBytes, peakRssMiB } from './harness.js';

export interface GrowthArgs {
  urls: number;
  hosts: number;
  batch: number;
  checkpoints: number[];
  lookups: number;
  plot: string | undefined;
  seed: number;
  heapGrowth: number;
}

export interface Checkpoint {
  readonly urls: number;
  readonly stored: number;
  readonly admitsPerSecond: number;
  readonly lookupP50Ms: number;
  readonly lookupP99Ms: number;
  readonly peakRssMiB: number;
  readonly diskBytesPerUrl: number;
  readonly reopenSeconds: number;
}

export function parseGrowthArgs(argv: readonly string[]): GrowthArgs {
  const a: GrowthArgs = { urls: 10_000_000, hosts: 1_000_000, batch: 1000, checkpoints: [1e6, 1e7, 3e7, 1e8], lookups: 2000, plot: undefined, seed: 0x75726c64, heapGrowth: HEAP_GROWING_PERCENT };
  eachFlag(argv, (flag, value) => {
    if (flag === '--urls') a.urls = Number(value());
    else if (flag === '--hosts') a.hosts = Number(value());
    else if (flag === '--batch') a.batch = Number(value());
    else if (flag === '--checkpoints') a.checkpoints = value().split(',').map(Number);
    else if (flag === '--lookups') a.lookups = Number(value());
    else if (flag === '--plot') a.plot = value();
    else if (flag === '--seed') a.seed = Number(value());
    else if (flag === '--heap-growth') a.heapGrowth = Number(value());
    else throw new Error(`unknown option ${flag} (see the header of bench/store-growth.ts)`);
  });
  for (const [name, n] of [['--urls', a.urls], ['--hosts', a.hosts], ['--batch', a.batch], ['--lookups', a.lookups]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: a positive integer`);
  }
  a.checkpoints = [...new Set(a.checkpoints.filter((c) => Number.isInteger(c) && c > 0 && c < a.urls)), a.urls].sort((x, y) => x - y);
  return a;
}

function mix(n: number): number {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The URL of id `id`, in spelling `s` (0: as first written; 1–4: aliases the ladder folds). */
export function urlOf(id: number, hosts: number, s: number): string {
  const h = mix(id) % hosts;
  const host = `h${h.toString(36)}.site${h % 97}.example`;
  const path = `/s${mix(id + 1) % 40}/page-${id.toString(36)}.html`;
  switch (s) {
    case 1:
      return `http://${host.toUpperCase()}${path}`;
    case 2:
      return `http://${host}:80${path}`;
    case 3:
      return `http://${host}${path}#top`;
    case 4:
      return `http://${host}/x/..${path}`;
    default:
      return `http://${host}${path}`;
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export async function runGrowth(a: GrowthArgs, log: (line: string) => void = console.log): Promise<Checkpoint[]> {
  if (a.heapGrowth > 0) setFlagsFromString(`--heap-growing-percent=${a.heapGrowth}`);
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-growth-'));
  const rnd = mulberry32(a.seed);
  let store: SeenStore = await openStore(join(dir, 'db'));
  const out: Checkpoint[] = [];
  try {
    let fresh = 0;
    let emitted = 0;
    let stored = 0;
    let next = 0;
    let intervalStart = process.hrtime.bigint();
    let intervalUrls = 0;
    log(`| URLs | stored | admits/s (last interval) | lookup p50 ms | lookup p99 ms | peak RSS MiB | disk B/stored URL | reopen s |`);
    log(`|---:|---:|---:|---:|---:|---:|---:|---:|`);
    while (emitted < a.urls) {
      const n = Math.min(a.batch, a.urls - emitted);
      const batch: string[] = new Array(n);
      for (let j = 0; j < n; j++) {
        const r = rnd();
        let id: number;
        if (fresh === 0 || r < 0.5) id = fresh++;
        else if (rnd() < 0.7) id = Math.max(0, fresh - 1 - Math.floor(rnd() * 10_000));
        else id = Math.floor(rnd() * fresh);
        batch[j] = urlOf(id, a.hosts, id === fresh - 1 && r < 0.5 ? 0 : Math.floor(rnd() * 5));
      }
      const results = await store.admit(batch);
      for (const x of results) if (x.admitted) stored++;
      emitted += n;
      intervalUrls += n;
      if (emitted < a.checkpoints[next]!) continue;
      const seconds = Number(process.hrtime.bigint() - intervalStart) / 1e9;
      // a seen URL's lookup, one at a time (what a crawler asks of a link it met before)
      const times: number[] = [];
      for (let i = 0; i < a.lookups; i++) {
        const id = Math.floor(rnd() * fresh);
        const t = process.hrtime.bigint();
        await store.canonical(urlOf(id, a.hosts, 0));
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      times.sort((x, y) => x - y);
      const t0 = process.hrtime.bigint();
      await store.close();
      store = await openStore(join(dir, 'db'));
      await store.canonical(urlOf(0, a.hosts, 0));
      const reopen = Number(process.hrtime.bigint() - t0) / 1e9;
      const c: Checkpoint = {
        urls: emitted,
        stored,
        admitsPerSecond: Math.round(intervalUrls / seconds),
        lookupP50Ms: percentile(times, 0.5),
        lookupP99Ms: percentile(times, 0.99),
        peakRssMiB: Math.round(peakRssMiB()),
        diskBytesPerUrl: Math.round(folderBytes(join(dir, 'db')) / Math.max(1, stored)),
        reopenSeconds: Math.round(reopen * 100) / 100,
      };
      out.push(c);
      log(`| ${c.urls.toLocaleString('en')} | ${c.stored.toLocaleString('en')} | ${c.admitsPerSecond.toLocaleString('en')} | ${c.lookupP50Ms.toFixed(3)} | ${c.lookupP99Ms.toFixed(3)} | ${c.peakRssMiB} | ${c.diskBytesPerUrl} | ${c.reopenSeconds} |`);
      next++;
      intervalStart = process.hrtime.bigint();
      intervalUrls = 0;
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (a.plot !== undefined) writeFileSync(a.plot, plot(out, a));
  return out;
}

/** Four small line charts (admits/s, lookup p99, peak RSS, disk per URL) against URLs, log scale. */
export function plot(points: readonly Checkpoint[], a: GrowthArgs): string {
  const series: [string, (c: Checkpoint) => number][] = [
    ['admits/s (last interval)', (c) => c.admitsPerSecond],
    ['lookup p99, ms', (c) => c.lookupP99Ms],
    ['peak RSS, MiB', (c) => c.peakRssMiB],
    ['disk, bytes per stored URL', (c) => c.diskBytesPerUrl],
  ];
  const W = 320;
  const H = 200;
  const pad = 40;
  const lx = (n: number): number => Math.log10(n);
  const x0 = lx(points[0]?.urls ?? 1);
  const x1 = Math.max(x0 + 1, lx(points.at(-1)?.urls ?? 10));
  const charts = series.map(([title, get], i) => {
    const ys = points.map(get);
    const yMax = Math.max(1e-9, ...ys) * 1.1;
    const ox = (i % 2) * (W + 20);
    const oy = Math.floor(i / 2) * (H + 30);
    const px = (n: number): number => ox + pad + ((lx(n) - x0) / (x1 - x0)) * (W - pad - 10);
    const py = (v: number): number => oy + H - 25 - (v / yMax) * (H - 50);
    const line = points.map((c, k) => `${k === 0 ? 'M' : 'L'}${px(c.urls).toFixed(1)},${py(get(c)).toFixed(1)}`).join(' ');
    const dots = points.map((c) => `<circle cx="${px(c.urls).toFixed(1)}" cy="${py(get(c)).toFixed(1)}" r="3"/><text x="${px(c.urls).toFixed(1)}" y="${(py(get(c)) - 6).toFixed(1)}" font-size="9" text-anchor="middle">${get(c) < 10 ? get(c).toFixed(2) : Math.round(get(c)).toLocaleString('en')}</text>`).join('');
    const ticks = points.map((c) => `<text x="${px(c.urls).toFixed(1)}" y="${oy + H - 10}" font-size="9" text-anchor="middle">${c.urls >= 1e6 ? `${c.urls / 1e6}M` : c.urls.toLocaleString('en')}</text>`).join('');
    return `<g><text x="${ox + pad}" y="${oy + 14}" font-size="12" font-weight="bold">${title}</text><line x1="${ox + pad}" y1="${oy + H - 25}" x2="${ox + W - 10}" y2="${oy + H - 25}" stroke="#999"/><path d="${line}" fill="none" stroke="#2a6fdb" stroke-width="2"/><g fill="#2a6fdb">${dots}</g>${ticks}</g>`;
  });
  const growth = a.heapGrowth > 0 ? `, heap growth ${a.heapGrowth} %` : '';
  const title = `urldedup store growth: ${a.urls.toLocaleString('en')} URLs over ${a.hosts.toLocaleString('en')} hosts, batches of ${a.batch}${growth} (bench/store-growth.ts)`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W + 20}" height="${2 * (H + 30) + 20}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="8" y="${2 * (H + 30) + 12}" font-size="10">${title}</text>${charts.join('')}</svg>\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runGrowth(parseGrowthArgs(process.argv.slice(2)));
}
