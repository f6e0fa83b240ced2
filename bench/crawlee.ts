// bench/crawlee: Crawlee's CheerioCrawler on simulator sites (sites/sim/), once with Crawlee's own
// uniqueKey and once with urldedup/crawlee on a fresh LevelDB store, side by side per seed:
// requests, documents missed, requests over the site's floor. Crawlee reads no robots.txt here
// (its robots fetch does not go through the site's proxy), so both fetch what robots.txt disallows.
//
//   npm run build && node dist/bench/crawlee.js [--seeds 17001-17006]
//
// Benchmarks print; they assert nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, log, ProxyConfiguration, RequestQueue, type CheerioCrawlerOptions, type CheerioCrawlingContext } from 'crawlee';
import { startSimSite, type SimSite } from '../sites/sim/site.js';
import { CrawleeDedup } from '../src/integrations/crawlee.js';
import { openStore } from '../src/store/index.js';

const args = process.argv.slice(2);
const [lo, hi] = (args[args.indexOf('--seeds') + 1] ?? '17001-17006').split('-').map(Number) as [number, number];
log.setLevel(log.LEVELS.OFF);

interface Row {
  readonly requests: number;
  readonly missed: number;
}

async function crawlSite(site: SimSite, withStore: boolean): Promise<Row> {
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  const from = site.requests.length;
  const queue = await RequestQueue.open(null, { config });
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-crawlee-'));
  const store = withStore ? await openStore(dir) : undefined;
  try {
    const dedup = store === undefined ? undefined : new CrawleeDedup(store);
    if (dedup !== undefined) await dedup.attach(queue);
    const handle = async (ctx: CheerioCrawlingContext): Promise<void> => {
      await ctx.enqueueLinks({ strategy: 'same-domain' });
    };
    const options: CheerioCrawlerOptions = {
      requestQueue: queue,
      proxyConfiguration: new ProxyConfiguration({ proxyUrls: [`http://127.0.0.1:${site.port}`] }),
      maxConcurrency: 4,
      maxRequestRetries: 0,
      maxRequestsPerCrawl: 20 * site.floor,
      requestHandler: handle,
    };
    if (dedup !== undefined) {
      options.preNavigationHooks = [dedup.preNavigationHook];
      options.requestHandler = dedup.handler(handle);
      options.failedRequestHandler = dedup.failed();
      options.onSkippedRequest = dedup.skipped;
    }
    await new CheerioCrawler(options, config).run([...site.seeds]);
  } finally {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const mine = site.requests.slice(from).filter((r) => r.target !== '/robots.txt');
  const served = new Set(mine.filter((r) => r.document !== undefined).map((r) => r.document!));
  return { requests: mine.length, missed: site.documents.filter((d) => !served.has(d)).length };
}

console.log('| seed | documents | floor | Crawlee uniqueKey | over floor | urldedup/crawlee | over floor | missed (Crawlee, urldedup) |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---|');
const sums = { own: 0, ours: 0, floor: 0 };
for (let seed = lo; seed <= hi; seed++) {
  const site = await startSimSite({ seed, pages: 16 + (seed % 25) * 4 });
  try {
    const own = await crawlSite(site, false);
    const ours = await crawlSite(site, true);
    sums.own += own.requests;
    sums.ours += ours.requests;
    sums.floor += site.floor;
    const over = (n: number): string => (n / site.floor).toFixed(2);
    console.log(`| ${seed} | ${site.documents.length} | ${site.floor} | ${own.requests} | ${over(own.requests)} | ${ours.requests} | ${over(ours.requests)} | ${own.missed}, ${ours.missed} |`);
  } finally {
    await site.close();
  }
}
console.log(`\nall seeds: Crawlee ${sums.own} requests (${(sums.own / sums.floor).toFixed(2)}× the floor), urldedup/crawlee ${sums.ours} (${(sums.ours / sums.floor).toFixed(2)}×), ratio ${(sums.ours / sums.own).toFixed(3)}`);
