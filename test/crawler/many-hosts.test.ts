/**
 * A broad crawl: hundreds of hosts (`*.localhost` names of one loopback server), a few pages each,
 * at a concurrency past Node's listener warning. Every page is fetched once; the frontier pump
 * never lists the hosts (at 200,000 hosts a list cost 400 ms a take): `stats()` is asked with its
 * per-host list only for the final report, and progress without it; a host's next pages go on
 * the connection its first left open; and no MaxListenersExceededWarning is printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { openStore, type SeenStore, type StatsOptions } from '../../src/store/index.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

const HOSTS = 300;

describe('a crawl over many hosts', () => {
  let site: TestServer;
  let report: CrawlReport;
  const db = tempDir();
  const statsCalls: (StatsOptions | undefined)[] = [];
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);

  beforeAll(async () => {
    site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html(`<a href="/a">a</a> <a href="/b">b</a> of ${req.headers.host}`));
      if (req.url === '/a' || req.url === '/b') return res.writeHead(200, { 'content-type': 'text/html' }).end(html(`${req.url} of ${req.headers.host}`));
      res.writeHead(404).end();
    });
    const store = await openStore(db.path);
    // the real store, its stats calls counted
    const counted = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'stats') return (o?: StatsOptions) => (statsCalls.push(o), target.stats(o));
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as SeenStore;
    process.on('warning', onWarning);
    try {
      const seeds = Array.from({ length: HOSTS }, (_, i) => `http://h${i}.localhost:${site.port}/`);
      report = await runCrawl({ store: counted, seeds, scope: 'any', allow: [...site.allow, { address: '::1', port: site.port }], concurrency: 32, perHost: 1, onProgress: () => undefined, progressIntervalMs: 50 });
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
  }, 120_000);
  afterAll(async () => {
    await site.close();
    db.remove();
  });

  it('fetches every page of every host once', () => {
    expect(report.stoppedBecause).toBe('done');
    expect(site.requests.filter((r) => r !== '/robots.txt')).toHaveLength(3 * HOSTS);
    expect(report.pagesFetched).toBe(3 * HOSTS);
  });

  it('asks the store for its per-host list only for the report, never per take', () => {
    expect(statsCalls.filter((o) => o?.hosts !== false).length).toBeLessThanOrEqual(2);
    expect(statsCalls.some((o) => o?.hosts === false)).toBe(true);
  });

  it('sends a host\'s next pages on the connection its last page left open', () => {
    // three pages and robots.txt per host: without reuse, four connections a host
    expect(site.connections).toBeLessThan(1.5 * HOSTS);
  });

  it('prints no MaxListenersExceededWarning at a concurrency of 32', () => {
    expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
  });
});
