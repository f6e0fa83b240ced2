// node dist/sites/sim/sweep.js [--seeds 1-200] [--mirrors]: the test suite's sites (sim/, 16–40 tree pages), each
// crawled with and without presets; prints the failing seeds and the totals (before/after figures).
import type { PresetName } from '../../src/normalize/index.js';
import { failuresOf, runCase } from './shrink.js';
import { startSimSite } from './site.js';

const args = process.argv.slice(2);
const i = args.indexOf('--seeds');
const [lo, hi] = (i === -1 ? '1-200' : args[i + 1]!).split('-').map(Number) as [number, number];
let crawls = 0;
let failed = 0;
let merged = 0;
let lost = 0;
let missed = 0;
const ratios: number[] = [];
const bad = new Set<number>();
for (let seed = lo; seed <= hi; seed++) {
  const site = await startSimSite({ seed, pages: 16 + (seed % 25) });
  const start = { seed, behaviours: site.behaviours, pages: site.pages, tree: site.tree };
  await site.close();
  for (const presets of [[], ['session-ids', 'tracking']] as PresetName[][]) {
    const r = await runCase({ ...start, presets, learnMirrors: args.includes('--mirrors') }).catch((e: unknown) => {
      process.stdout.write(`seed ${seed} [${presets.join(',')}]: error ${String(e)}\n`);
      return undefined;
    });
    crawls++;
    if (r === undefined) {
      failed++;
      bad.add(seed);
      continue;
    }
    ratios.push(r.run.requests / Math.max(1, r.floor));
    const f = failuresOf(r.run);
    if (f.length === 0) continue;
    failed++;
    bad.add(seed);
    merged += r.run.falseMerges;
    lost += r.run.lostToMerges;
    missed += r.run.missed.length;
    process.stdout.write(`seed ${seed} [${presets.join(',')}] ${site.behaviours.join(',')}: ${f.join('; ').slice(0, 300)}\n`);
  }
}
ratios.sort((a, b) => a - b);
process.stdout.write(`\nseeds ${lo}-${hi}: ${crawls} crawls, ${failed} failing (${bad.size} seeds), documents merged ${merged} (lost ${lost}), documents missed ${missed}; requests over floor median ${ratios[ratios.length >> 1]?.toFixed(2)}, mean ${(ratios.reduce((a, b) => a + b, 0) / Math.max(1, ratios.length)).toFixed(2)}\n`);
