// The Crawlee adapter (urldedup/crawlee, src/integrations/crawlee.ts) with Crawlee from npm: a
// CheerioCrawler crawls the built-in demo site on loopback (through the site itself as its HTTP
// proxy: Node does not resolve *.localhost) once with Crawlee's own uniqueKey and once with the
// adapter on a real LevelDB store. The adapter's run reaches every document, those Crawlee's own
// key merges away too, with about as many requests per document; a run stopped by its budget
// resumes from the store on a purged queue.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheerioCrawler, Configuration, log, ProxyConfiguration, RequestQueue, type CheerioCrawlerOptions, type CheerioCrawlingContext } from 'crawlee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import { CrawleeDedup } from '../../src/integrations/crawlee.js';
import { openStore, type SeenStore } from '../../src/store/index.js';
import { openRedisStore } from '../../src/store/backends/redis-store.js';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';
import { randomBytes } from 'node:crypto';

/** The built worker (npm test builds dist/ first): one Crawlee crawl with the adapter, a process of its own. */
const WORKER = fileURLToPath(new URL('../../dist/sites/crawlee-worker.js', import.meta.url));

/** Run the worker on `db`; with `killAfter`, SIGKILL it once it has handled that many pages. */
function runWorker(site: DemoSite, db: string, killAfter?: number): Promise<{ pages: number; signal: NodeJS.Signals | null; out: string }> {
  const child = spawn(process.execPath, [WORKER, db, site.url, String(site.port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let pages = 0;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    pages = out.split('\n').filter((l) => l.startsWith('page ')).length;
    if (killAfter !== undefined && pages >= killAfter) child.kill('SIGKILL');
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ pages, signal, out })));
}

interface Run {
  readonly requests: number;
  readonly documents: ReadonlySet<string>;
  readonly perDocument: number;
  readonly labels: ReadonlyMap<string, string | undefined>;
}

/** The site's requests since `from` (robots.txt apart) and the documents they were answered with. */
function served(site: DemoSite, from: number): { mine: DemoSite['requests']; documents: Set<string> } {
  const mine = site.requests.slice(from).filter((r) => r.target !== '/robots.txt');
  return { mine, documents: new Set(mine.filter((r) => r.status === 200 && r.document !== undefined).map((r) => r.document!)) };
}

/** A fresh, unpersisted Crawlee storage (its queue purged, as `purgeOnStart` does). */
function freshConfig(): Configuration {
  return new Configuration({ persistStorage: false, purgeOnStart: true });
}

async function crawlDemo(site: DemoSite, options: { store?: SeenStore; maxRequestsPerCrawl?: number } = {}): Promise<Run & { dedup?: CrawleeDedup }> {
  const config = freshConfig();
  const from = site.requests.length;
  const queue = await RequestQueue.open(null, { config });
  const dedup = options.store === undefined ? undefined : new CrawleeDedup(options.store);
  if (dedup !== undefined) await dedup.attach(queue);
  const labels = new Map<string, string | undefined>();
  const handle = async (ctx: CheerioCrawlingContext): Promise<void> => {
    labels.set(ctx.request.loadedUrl ?? ctx.request.url, ctx.request.label);
    await ctx.enqueueLinks({ strategy: 'same-domain', label: 'page' });
  };
  const crawlerOptions: CheerioCrawlerOptions = {
    requestQueue: queue,
    proxyConfiguration: new ProxyConfiguration({ proxyUrls: [`http://127.0.0.1:${site.port}`] }),
    maxConcurrency: 4,
    maxRequestRetries: 0,
    requestHandler: handle,
  };
  if (options.maxRequestsPerCrawl !== undefined) crawlerOptions.maxRequestsPerCrawl = options.maxRequestsPerCrawl;
  if (dedup !== undefined) {
    crawlerOptions.preNavigationHooks = [dedup.preNavigationHook];
    crawlerOptions.requestHandler = dedup.handler(handle);
    crawlerOptions.failedRequestHandler = dedup.failed();
    crawlerOptions.onSkippedRequest = dedup.skipped;
  }
  const crawler = new CheerioCrawler(crawlerOptions, config);
  await crawler.run([site.url]);
  const { mine, documents } = served(site, from);
  return { requests: mine.length, documents, perDocument: mine.length / Math.max(1, documents.size), labels, ...(dedup === undefined ? {} : { dedup }) };
}

/** One whole crawl of the demo site with the adapter on a fresh store in `db`: the reference a resumed crawl is held to. */
async function wholeRun(site: DemoSite, db: string): Promise<Run> {
  const store = await openStore(db);
  try {
    return await crawlDemo(site, { store });
  } finally {
    await store.close();
  }
}

describe('Crawlee with urldedup', () => {
  let site: DemoSite;
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-crawlee-'));
  beforeAll(async () => {
    log.setLevel(log.LEVELS.OFF);
    site = await startDemoSite();
  }, 30_000);
  afterAll(async () => {
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches every document, with about as many requests per document as Crawlee’s own uniqueKey', async () => {
    const own = await crawlDemo(site);
    const store = await openStore(join(dir, 'whole'));
    let ours: Awaited<ReturnType<typeof crawlDemo>>;
    try {
      ours = await crawlDemo(site, { store });
    } finally {
      await store.close();
    }
    // Crawlee robots.txt is not read here (its robots fetch does not use the proxy): the
    // disallowed page is a document to both runs
    for (const d of site.documents) expect(ours.documents, d).toContain(d);
    for (const d of own.documents) expect(ours.documents).toContain(d);
    // Crawlee's normalizeUrl sorts the query: two documents of the demo site are one to it
    expect(own.documents.has('/search.html?b=2&a=1') && own.documents.has('/search.html?a=1&b=2')).toBe(false);
    // about as many: the learner's probes and checks cost on a site this small what its rules save
    expect(ours.perDocument).toBeLessThanOrEqual(own.perDocument * 1.1);
    const stats = ours.dedup!.stats();
    expect(stats.dropped).toBeGreaterThan(100);
    expect(stats.recorded).toBeGreaterThanOrEqual(ours.documents.size);
    // the label enqueueLinks gave survives the store's judgement
    expect([...ours.labels.values()].filter((l) => l === 'page').length).toBeGreaterThan(30);
    console.log(
      `Crawlee uniqueKey: ${own.requests} requests, ${own.documents.size} documents, ${own.perDocument.toFixed(3)}/document; ` +
        `urldedup: ${ours.requests} requests, ${ours.documents.size} documents, ${ours.perDocument.toFixed(3)}/document`,
    );
  }, 90_000);

  it('resumes from the store when a run stopped by its budget is started again on a purged queue', async () => {
    const db = join(dir, 'resumed');
    let store = await openStore(db);
    let first: Run;
    try {
      first = await crawlDemo(site, { store, maxRequestsPerCrawl: 12 });
    } finally {
      await store.close();
    }
    expect(first.documents.size).toBeLessThan(site.documents.length / 2);
    store = await openStore(db);
    let second: Run;
    try {
      second = await crawlDemo(site, { store });
      expect((await store.stats()).urls.queued).toBe(0);
    } finally {
      await store.close();
    }
    const all = new Set([...first.documents, ...second.documents]);
    for (const d of site.documents) expect(all, d).toContain(d);
    const whole = await wholeRun(site, join(dir, 'reference'));
    expect(first.requests + second.requests).toBeLessThanOrEqual(whole.requests * 1.15);
  }, 120_000);

  it('loses no document when its process is killed (SIGKILL) mid-crawl and started again', async () => {
    const db = join(dir, 'killed');
    const from = site.requests.length;
    const killed = await runWorker(site, db, 10);
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await runWorker(site, db);
    expect(resumed.out).toContain('done ');
    const { mine, documents } = served(site, from);
    for (const d of site.documents) expect(documents, d).toContain(d);
    const store = await openStore(db, { readOnly: true });
    try {
      expect((await store.stats()).urls.queued).toBe(0);
    } finally {
      await store.close();
    }
    // a kill costs the pages in flight again, not the crawl: within 20 % of a whole run's requests
    const whole = await wholeRun(site, join(dir, 'reference-kill'));
    console.log(`killed after ${killed.pages} pages, resumed: ${mine.length} requests in all, one whole run ${whole.requests}`);
    expect(mine.length).toBeLessThanOrEqual(whole.requests * 1.2);
  }, 120_000);

  it('refuses a calendar as a trap: its months stop, every document is reached', async () => {
    // a site of three documents and an endless calendar: each month prints its own name and links
    // to the next month and home (the calendar-trap pattern: pages that add no link outside it)
    const served: string[] = [];
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      served.push(path);
      const month = /^\/cal\/(\d+)\/(\d+)\/$/.exec(path);
      let body: string;
      if (path === '/') body = '<a href="/docs/a.html">a</a> <a href="/docs/b.html">b</a> <a href="/docs/c.html">c</a> <a href="/cal/2026/1/">calendar</a>';
      else if (/^\/docs\/[abc]\.html$/.test(path)) body = `<p>The document ${path}, with words of its own: ${path.replace(/\W/g, ' ')} reference manual chapter.</p><a href="/">home</a>`;
      else if (month !== null) {
        const y = Number(month[1]);
        const m = Number(month[2]);
        const next = m === 12 ? `/cal/${y + 1}/1/` : `/cal/${y}/${m + 1}/`;
        body = `<h1>Events of ${y}-${m}</h1><p>No events.</p><a href="${next}">next month</a> <a href="/">home</a>`;
      } else {
        res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not found</p>');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body>${body}</body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const store = await openStore(join(dir, 'calendar'));
    try {
      const config = freshConfig();
      const dedup = new CrawleeDedup(store);
      const queue = await dedup.attach(await RequestQueue.open(null, { config }));
      const handle = async (ctx: CheerioCrawlingContext): Promise<void> => void (await ctx.enqueueLinks({ strategy: 'same-hostname' }));
      await new CheerioCrawler(
        {
          requestQueue: queue,
          maxConcurrency: 2,
          maxRequestRetries: 0,
          maxRequestsPerCrawl: 1000,
          preNavigationHooks: [dedup.preNavigationHook],
          requestHandler: dedup.handler(handle),
          failedRequestHandler: dedup.failed(),
          onSkippedRequest: dedup.skipped,
        },
        config,
      ).run([`http://127.0.0.1:${port}/`]);
      for (const d of ['/docs/a.html', '/docs/b.html', '/docs/c.html']) expect(served).toContain(d);
      const months = served.filter((p) => p.startsWith('/cal/')).length;
      console.log(`calendar: ${months} months fetched, patterns ${JSON.stringify(dedup.stats().trapPatterns)}`);
      expect(months).toBeLessThan(100);
      const stats = dedup.stats();
      expect(stats.trapped).toBeGreaterThan(0);
      expect(stats.trapPatterns.length).toBeGreaterThan(0);
      expect((await store.stats()).pruned).toHaveProperty(['trap:pattern']);
    } finally {
      await store.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('keys what it is given: duplicates dropped, POSTs and invalid URLs left to Crawlee', async () => {
    const store = await openStore(join(dir, 'unit'));
    try {
      const queue = await RequestQueue.open(null, { config: freshConfig() });
      const dedup = new CrawleeDedup(store);
      await dedup.attach(queue);
      const { processedRequests } = await queue.addRequests([
        'http://example.test/a/./b.html',
        { url: 'HTTP://EXAMPLE.test:80/a/b.html#top', label: 'x' },
        'http://example.test/a/b.html?q=2&p=1',
        'http://example.test/a/b.html?p=1&q=2',
        'http://example.test/dir/',
        'http://example.test/dir',
        { url: 'http://example.test/a/b.html', method: 'POST', payload: 'x=1', useExtendedUniqueKey: true },
      ]);
      const byKey = new Map(processedRequests.map((p) => [p.uniqueKey, p]));
      // the ladder merges the first two; the query orders and the slash are kept apart
      expect(processedRequests.filter((p) => !p.wasAlreadyPresent)).toHaveLength(6);
      expect(dedup.stats()).toMatchObject({ admitted: 5, dropped: 1 });
      expect([...byKey.keys()].some((k) => k.startsWith('POST('))).toBe(true);
      const one = await queue.addRequest({ url: 'http://example.test/a/b.html' });
      expect(one.wasAlreadyPresent).toBe(true);
      // a path trap (segments repeated back to back) never reaches Crawlee, one at a time too
      const trap = await queue.addRequest({ url: 'http://example.test/a/b/a/b/a/b/a/b/x.html' });
      expect(trap.wasAlreadyPresent).toBe(true);
      expect(dedup.stats().trapped).toBe(1);
      expect(await queue.fetchNextRequest()).toMatchObject({ url: 'http://example.test/a/b.html', uniqueKey: expect.stringContaining('/a/b.html') });
      expect(() => new CrawleeDedup(store, { window: 0 })).toThrow(/window must be a positive integer/);
      // a store that fails is no silent end of the crawl: recording (and its top-up) rejects
      const failing = await openStore(join(dir, 'failing'));
      const failingDedup = new CrawleeDedup(failing);
      await failingDedup.attach(await RequestQueue.open(null, { config: freshConfig() }));
      await failing.close();
      await expect(failingDedup.record({ request: { url: 'http://example.test/z.html' }, response: { statusCode: 200 }, body: '<p>z</p>' })).rejects.toThrow();
      await expect(dedup.attach(queue)).rejects.toThrow(/already has a queue/);
    } finally {
      await store.close();
    }
  });
});

// The same adapter on a store on Redis Cluster (what a fleet's workers share): nothing in it is
// LevelDB's.
describeWith([REDIS], 'Crawlee with urldedup on Redis Cluster', () => {
  let site: DemoSite;
  let cluster: TestCluster;
  beforeAll(async () => {
    log.setLevel(log.LEVELS.OFF);
    site = await startDemoSite();
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    cluster?.stop();
  });

  it('reaches every document, resuming on a purged queue, on a Redis store', async () => {
    const name = `crawlee-${randomBytes(6).toString('hex')}`;
    let store = await openRedisStore(cluster.seeds, { redis: { name } });
    try {
      const first = await crawlDemo(site, { store, maxRequestsPerCrawl: 12 });
      await store.close();
      store = await openRedisStore(cluster.seeds, { redis: { name } });
      const second = await crawlDemo(site, { store });
      const all = new Set([...first.documents, ...second.documents]);
      for (const d of site.documents) expect(all, d).toContain(d);
      expect((await store.stats()).urls.queued).toBe(0);
      expect((first.requests + second.requests) / all.size).toBeLessThan(2.5);
    } finally {
      await store.close();
      await destroyRedisStore(cluster.seeds, name);
    }
  }, 120_000);
});
