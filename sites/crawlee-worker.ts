/**
 * A Crawlee crawl with urldedup/crawlee as a process of its own, for the Crawlee kill test: its
 * CheerioCrawler crawls a site through the site itself as its proxy, on a LevelDB store in
 * `STORE`, with a fresh (purged, in-memory) Crawlee queue each run, and prints one line per page
 * it handled (`page URL`), so the parent can kill it mid-crawl.
 *
 *   node dist/sites/crawlee-worker.js STORE SEED PROXY_PORT
 */
import { CheerioCrawler, Configuration, log, ProxyConfiguration, RequestQueue, type CheerioCrawlingContext } from 'crawlee';
import { CrawleeDedup } from '../src/integrations/crawlee.js';
import { openStore } from '../src/store/index.js';

const [dir, seed, port] = process.argv.slice(2) as [string, string, string];
log.setLevel(log.LEVELS.OFF);
const store = await openStore(dir);
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
const dedup = new CrawleeDedup(store);
const queue = await dedup.attach(await RequestQueue.open(null, { config }));
const handle = async (ctx: CheerioCrawlingContext): Promise<void> => {
  await ctx.enqueueLinks({ strategy: 'same-domain' });
  process.stdout.write(`page ${ctx.request.url}\n`);
};
const crawler = new CheerioCrawler(
  {
    requestQueue: queue,
    proxyConfiguration: new ProxyConfiguration({ proxyUrls: [`http://127.0.0.1:${port}`] }),
    maxConcurrency: 4,
    maxRequestRetries: 0,
    preNavigationHooks: [dedup.preNavigationHook],
    requestHandler: dedup.handler(handle),
    failedRequestHandler: dedup.failed(),
    onSkippedRequest: dedup.skipped,
  },
  config,
);
await crawler.run([seed]);
await store.close();
process.stdout.write(`done ${JSON.stringify(dedup.stats())}\n`);
