// bench/crawl-realistic-site: urldedup (with and without presets) and `wget --recursive` on the
// realistic site of sites/realistic-site.ts (Debian's sqlite3-doc manual beside 404s, soft 404s,
// an app shell, extension-less files, token pages, a login wall, a moved archive, www hosts, real
// parameters, tracking and session parameters), scored against its ground truth: recall, false
// merges (documents whose URL urldedup mapped onto another document or onto no document), the
// documents those merges lost, requests per document, documents fetched more than once, robots.txt.
//
//   apt-get install -y sqlite3-doc      # the tree, in /usr/share/doc/sqlite3
//   npx tsc -p tsconfig.build.json && node dist/bench/crawl-realistic-site.js [--seed N] [--pages N] [--no-wget] [--mirrors] [--json]
//
// Benchmarks print; they assert nothing.

import { cpus } from 'node:os';
import { startRealisticSite } from '../sites/realistic-site.js';
import { RealisticRun, crawlRealisticWithUrldedup, crawlRealisticWithWget, formatTable, formatMerges } from '../sites/realistic-runs.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string): number | undefined => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : Number(args[i + 1]);
  };
  const site = await startRealisticSite({ seed: opt('--seed') ?? 1, manualPages: opt('--pages') ?? Infinity });
  const runs: RealisticRun[] = [];
  try {
    runs.push(await crawlRealisticWithUrldedup(site));
    runs.push(await crawlRealisticWithUrldedup(site, ['session-ids', 'tracking']));
    if (args.includes('--mirrors')) runs.push(await crawlRealisticWithUrldedup(site, [], true));
    if (!args.includes('--no-wget')) runs.push(await crawlRealisticWithWget(site));
  } finally {
    await site.close();
  }
  if (args.includes('--json')) {
    const out = runs.map(({ report, ...r }) => ({ ...r, rules: report?.rules }));
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, seed: site.seed, documents: site.documents.length, floor: site.floor, aliasLinks: site.aliasLinks, runs: out }, null, 2) + '\n');
    return;
  }
  const aliases = Object.values(site.aliasLinks).reduce((x, y) => x + y, 0);
  process.stdout.write(
    `realistic site (sqlite3-doc, seed ${site.seed}) on loopback: ${site.documents.length} documents reachable (${site.onlyViaRelSearch.length} only through link rel=search), ${site.linkCount} link references on them; of the ${site.manualLinks} links between manual pages ${aliases} (${Math.round((aliases * 100) / Math.max(1, site.manualLinks))} %) rewritten into aliases ${JSON.stringify(site.aliasLinks)}; floor ${site.floor} requests (${(site.floor / site.documents.length).toFixed(3)} per document)\nnode ${process.version}, ${cpus().length} CPUs\n\n`,
  );
  const n = site.names;
  process.stdout.write(
    `drawn names: hosts ${n['hostA']} (manual; www.${n['hostA']} redirects) and ${n['hostB']} (www.${n['hostB']} has its own /${n['blog']}/); parameters page=${n['page']} sort=${n['sort']} lang=${n['lang']} soft-404 id=${n['id']} release version=${n['version']} session=${n['visit']}; prefixes manual=/${n['manual']}/ app shell=/${n['app']}/ soft 404=/${n['soft']}/ archive=/${n['old']}/ search=/${n['search']} login=/${n['login']}\n\n`,
  );
  process.stdout.write(formatTable(site, runs));
  for (const r of runs) {
    const text = formatMerges(site, r);
    if (text !== '') process.stdout.write('\n' + text);
    if (r.report !== undefined) process.stdout.write(`  rules learned: ${r.report.rules.map((x) => x.id.replace(/:\d+\//, ':PORT/')).join(', ') || 'none'}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
