// bench/simulator: urldedup (with and without presets) and `wget --recursive` on large simulated
// sites (sites/sim/: real server behaviours composed at random over Debian documentation trees), scored
// against each site's ground truth: recall, false merges (documents whose URL urldedup maps onto
// something else), requests per document, and requests over the site's floor (each document once,
// plus the redirects and failures no crawler can skip, plus one robots.txt per host).
//
//   apt-get install -y python-flask-doc python-requests-doc python-click-doc python-jinja2-doc wget
//   npm run bench:simulator -- [--seeds 1-8] [--pages 150] [--tree DIR] [--behaviours 10] [--mirrors] [--no-wget] [--json]
//   (--mirrors: urldedup with the opt-in mirror rule too)
//   (--fleet N: a fleet of N workers too, with and without presets, on the Redis Cluster whose seed
//    nodes URLDEDUP_REDIS_CLUSTER names: scripts/redis-cluster.sh start /tmp/rc 7101 7102 7103)
//   (--tree: one documentation tree for every seed, e.g. /usr/share/doc/postgresql-doc-15/html)
//
// Benchmarks print; they assert nothing.

import { cpus } from 'node:os';
import type { PresetName } from '../src/normalize/index.js';
import { crawlSimWithFleet, crawlSimWithUrldedup, crawlSimWithWget, type SimRun } from '../sites/sim/crawl.js';
import { startSimSite } from '../sites/sim/site.js';

interface Row {
  readonly seed: number;
  readonly tree: string;
  readonly behaviours: readonly string[];
  readonly documents: number;
  readonly floor: number;
  readonly runs: readonly SimRun[];
}

function arg(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const [lo, hi] = (arg(args, '--seeds') ?? '1001-1008').split('-').map(Number) as [number, number | undefined];
  const pages = Number(arg(args, '--pages') ?? 150);
  const count = arg(args, '--behaviours') === undefined ? undefined : Number(arg(args, '--behaviours'));
  const fleet = arg(args, '--fleet') === undefined ? undefined : Number(arg(args, '--fleet'));
  const redis = process.env['URLDEDUP_REDIS_CLUSTER'];
  if (fleet !== undefined && redis === undefined) throw new Error('--fleet needs URLDEDUP_REDIS_CLUSTER (the cluster\'s seed nodes)');
  const rows: Row[] = [];
  for (let seed = lo; seed <= (hi ?? lo); seed++) {
    const tree = arg(args, '--tree');
    const site = await startSimSite({ seed, pages, ...(count === undefined ? {} : { count }), ...(tree === undefined ? {} : { tree }) });
    const runs: SimRun[] = [];
    try {
      for (const presets of [[], ['session-ids', 'tracking']] as PresetName[][]) runs.push(await crawlSimWithUrldedup(site, presets, 8));
      if (args.includes('--mirrors')) runs.push(await crawlSimWithUrldedup(site, [], 8, true));
      if (fleet !== undefined) for (const presets of [[], ['session-ids', 'tracking']] as PresetName[][]) runs.push(await crawlSimWithFleet(site, redis!, fleet, presets, 8));
      if (!args.includes('--no-wget')) runs.push(await crawlSimWithWget(site));
    } finally {
      await site.close();
    }
    rows.push({ seed, tree: site.tree.split('/')[4] ?? site.tree, behaviours: site.behaviours, documents: site.documents.length, floor: site.floor, runs: runs.map(({ report: _r, ...r }) => r) });
    if (!args.includes('--json')) process.stderr.write(`seed ${seed} done\n`);
  }
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, pages, rows }, null, 2) + '\n');
    return;
  }
  process.stdout.write(`simulated sites: seeds ${lo}–${hi ?? lo}, ${pages} tree pages each; node ${process.version}, ${cpus().length} CPUs\n\n`);
  process.stdout.write('| seed | tree | behaviours | documents | floor | crawler | recall | false merges (lost) | requests | per document | over floor |\n');
  process.stdout.write('|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n');
  for (const r of rows) {
    for (const run of r.runs) {
      const merges = run.client.startsWith('wget') ? '—' : `${run.falseMerges} (${run.lostToMerges})`;
      process.stdout.write(`| ${r.seed} | ${r.tree} | ${r.behaviours.length} | ${r.documents} | ${r.floor} | ${run.client} | ${(run.reached / Math.max(1, run.documents)).toFixed(3)} | ${merges} | ${run.requests} | ${run.requestsPerDocument} | ${run.overFloor} |\n`);
    }
  }
  const byClient = new Map<string, number[]>();
  for (const r of rows) for (const run of r.runs) byClient.set(run.client, [...(byClient.get(run.client) ?? []), run.overFloor]);
  process.stdout.write('\nover floor, median and worst per crawler: ');
  process.stdout.write(
    [...byClient]
      .map(([c, xs]) => {
        const s = [...xs].sort((a, b) => a - b);
        return `${c} ${s[s.length >> 1]!.toFixed(2)} / ${s[s.length - 1]!.toFixed(2)}`;
      })
      .join('; ') + '\n',
  );
  for (const r of rows) process.stdout.write(`seed ${r.seed}: ${r.behaviours.join(', ')}\n`);
}

await main();
