// node dist/sites/sim/run.js [--seeds A-B] [--presets] [--mirrors] [--behaviours a,b] [--pages N] [--tree DIR] [--why]
//   [--fleet N]: a fleet of N workers on the Redis Cluster of URLDEDUP_REDIS_CLUSTER instead of one LevelDB worker
//   [--alone]: each behaviour of the library (or of --behaviours) on a site of its own, the first
//   seed's, and a table of requests over the floor, worst first (docs/simulator.md)
import { crawlSimWithFleet, crawlSimWithUrldedup } from './crawl.js';
import { startSimSite } from './site.js';
// after site.js, which the behaviours' modules import back
import { BEHAVIOURS } from './behaviours/index.js';

const args = process.argv.slice(2);
const arg = (n: string): string | undefined => { const i = args.indexOf(n); return i === -1 ? undefined : args[i + 1]; };
const [lo, hi] = (arg('--seeds') ?? '1-5').split('-').map(Number);
if (args.includes('--alone')) {
  const names = arg('--behaviours')?.split(',') ?? BEHAVIOURS.map((k) => k.name);
  const rows: [string, number, number][] = [];
  for (const name of names) {
    const site = await startSimSite({ seed: lo!, behaviours: [name], ...(arg('--pages') ? { pages: Number(arg('--pages')) } : {}), ...(arg('--tree') ? { tree: arg('--tree')! } : {}) });
    try {
      const r = await crawlSimWithUrldedup(site, args.includes('--presets') ? ['session-ids', 'tracking'] : [], 4, args.includes('--mirrors'));
      if (r.falseMerges > 0 || r.reached < r.documents) console.log(`${name}: merges ${r.falseMerges}, reached ${r.reached}/${r.documents}`);
      rows.push([name, r.requests, site.floor]);
    } finally { await site.close(); }
  }
  rows.sort((a, b) => b[1] / b[2] - a[1] / a[2]);
  console.log('| behaviour alone | requests | floor | × floor |\n|---|---:|---:|---:|');
  for (const [name, req, floor] of rows) console.log(`| \`${name}\` | ${req} | ${floor} | ${(req / floor).toFixed(2)} |`);
  process.exit(0);
}
for (let seed = lo!; seed <= (hi ?? lo!); seed++) {
  const bh = arg('--behaviours');
  const site = await startSimSite({ seed, ...(bh ? { behaviours: bh.split(',') } : {}), ...(arg('--pages') ? { pages: Number(arg('--pages')) } : {}), ...(arg('--tree') ? { tree: arg('--tree')! } : {}) });
  try {
    for (const presets of args.includes('--presets') ? [[], ['session-ids', 'tracking']] as const : [[]] as const) {
      const fleet = arg('--fleet');
      const redis = process.env['URLDEDUP_REDIS_CLUSTER'];
      if (fleet !== undefined && redis === undefined) throw new Error('--fleet needs URLDEDUP_REDIS_CLUSTER (seed nodes)');
      const from = site.requests.length;
      const r = fleet !== undefined ? await crawlSimWithFleet(site, redis!, Number(fleet), presets as never) : await crawlSimWithUrldedup(site, presets as never, 4, args.includes('--mirrors'));
      console.log(`seed ${seed} [${site.behaviours.join(',')}] tree ${site.tree.split('/')[4]} docs ${site.documents.length} floor ${site.floor} aliases ${site.aliasLinks}/${site.linkCount} | ${r.client}: reached ${r.reached}/${r.documents} merges ${r.falseMerges} lost ${r.lostToMerges} req ${r.requests} rpd ${r.requestsPerDocument} xfloor ${r.overFloor} ${r.seconds}s`);
      if (args.includes('--why')) {
        const reqs = site.requests.slice(from).filter((q) => q.client === 'urldedup');
        const seen = new Map<string, number>();
        const by: Record<string, number> = {};
        const ex: Record<string, string[]> = {};
        for (const q of reqs) {
          let k: string;
          if (q.document !== undefined) { const n = seen.get(q.document) ?? 0; seen.set(q.document, n + 1); k = n === 0 ? 'doc-first' : 'doc-again'; }
          else k = `status-${q.status}`;
          by[k] = (by[k] ?? 0) + 1;
          (ex[k] ??= []).push(`${q.target}${q.document ? ' =' + q.document : ''}`);
        }
        console.log('   ', JSON.stringify(by));
        for (const k of Object.keys(ex)) if (k !== 'doc-first') console.log(`    ${k}: ${ex[k]!.slice(0, 12).join('  ')}`);
        if (r.report) console.log('    rules:', r.report.rules.map((x) => `${x.id.replace(/^[^/]*\//, '')} ${x.scopes}`).join(' | '));
      }
      for (const m of r.merges.slice(0, 5)) console.log(`   merge ${m.url} -> ${m.canonical} (${m.onto}) via ${m.via}`);
      if (r.missed.length) console.log(`   missed ${r.missed.slice(0, 8).join(' ')}`);
    }
  } finally { await site.close(); }
}
