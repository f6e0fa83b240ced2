/**
 * Resume: the frontier lives in the store. A crawl stopped by --max-pages, or by stop(), then run
 * again on the same folder, completes the site and fetches nothing twice that was recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, runCrawl } from '../../src/crawler/crawl.js';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import type { AllowedEndpoint } from '../../src/crawler/http/guard.js';
import { openStore } from '../../src/store/index.js';
import { expectOnlyRechecksRepeated, html, httpServer, loopbackAllow, tempDir } from './support.js';

let site: DemoSite;
beforeAll(async () => {
  site = await startDemoSite();
});
afterAll(async () => site.close());

const allow = (): AllowedEndpoint[] => loopbackAllow(site.port);

describe('resume', () => {
  it('max-pages, then a second run without seeds: the site completes, no request repeated', async () => {
    const db = tempDir();
    const from = site.requests.length;
    try {
      const first = await runCrawl({ store: db.path, seeds: [site.url], allow: allow(), maxPages: 12 });
      expect(first.stoppedBecause).toBe('max-pages');
      expect(first.pagesFetched).toBeLessThanOrEqual(12);
      expect(first.store.urls.queued).toBeGreaterThan(0);
      const firstRequests = site.requests.slice(from).filter((r) => r.target !== '/robots.txt');
      const mid = site.requests.length;

      const second = await runCrawl({ store: db.path, allow: allow() });
      expect(second.stoppedBecause).toBe('done');
      expect(second.store.urls.queued).toBe(0);
      const secondRequests = site.requests.slice(mid).filter((r) => r.target !== '/robots.txt');

      const firstTargets = new Set(firstRequests.map((r) => `${r.host} ${r.target}`));
      const again = secondRequests.filter((r) => firstTargets.has(`${r.host} ${r.target}`));
      expect(again).toEqual([]);
      const all = [...firstRequests, ...secondRequests];
      for (const d of site.documents) expect(all.some((r) => r.document === d), d).toBe(true);
      expectOnlyRechecksRepeated(all);
      const store = await openStore(db.path);
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    } finally {
      db.remove();
    }
  });

  it('an open store passed in (embedding): left open, nothing left in flight, reusable for the rest', async () => {
    const db = tempDir();
    const store = await openStore(db.path);
    try {
      const first = await runCrawl({ store, seeds: [site.url], allow: allow(), maxPages: 5 });
      expect(first.stoppedBecause).toBe('max-pages');
      const mid = await store.stats();
      expect(mid.frontier.inFlight).toBe(0);
      expect(mid.frontier.size).toBeGreaterThan(0);
      const second = await runCrawl({ store, seeds: [site.url], allow: allow() });
      expect(second.stoppedBecause).toBe('done');
      expect((await store.stats()).frontier.size).toBe(0);
      expect((await store.verify()).problems).toEqual([]);
    } finally {
      await store.close();
      db.remove();
    }
  });

  it('stop() finishes and records in-flight pages; the next run picks up the rest', async () => {
    let served = 0;
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      const n = Number(/^\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      served++;
      const links = [1, 2, 3].map((k) => `<a href="/p${n * 3 + k}">x</a>`).join('');
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html(n < 40 ? links : '')), 15);
    });
    const db = tempDir();
    try {
      const c = crawl({ store: db.path, seeds: [`${server.origin}/p0`], allow: server.allow, concurrency: 4, perHost: 4 });
      let pages = 0;
      for await (const p of c) {
        expect(p.status).toBe(200);
        if (++pages === 10) c.stop();
      }
      const first = await c.done;
      expect(first.stoppedBecause).toBe('stopped');
      // in-flight pages were finished and recorded, none was lost or left in flight
      expect(first.pagesFetched).toBe(served);
      expect(first.store.urls.fetched).toBe(served);
      const before = [...server.requests];
      const second = await runCrawl({ store: db.path, allow: server.allow, concurrency: 4, perHost: 4 });
      expect(second.stoppedBecause).toBe('done');
      const repeated = server.requests.slice(before.length).filter((r) => r !== '/robots.txt' && before.includes(r));
      expect(repeated).toEqual([]);
      expect(new Set(server.requests.filter((r) => r !== '/robots.txt')).size).toBe(121);
    } finally {
      db.remove();
      await server.close();
    }
  });

  it('a second run without seeds hands the store its frontier hosts as scope: new links there admitted, a redirect elsewhere not queued', async () => {
    const server = await httpServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0];
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      if (host !== 'a.localhost') return res.writeHead(200, { 'content-type': 'text/html' }).end(html('elsewhere'));
      if (req.url === '/go') return res.writeHead(301, { location: `${server.origin}/x` }).end();
      const links = [...['/p1', '/p2', '/p3', '/go'], ...(req.url === '/p1' ? ['/p1/more'] : [])].map((p) => `<a href="${p}">${p} words about a page here</a>`).join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(html(`page ${req.url} ${links}`));
    });
    const db = tempDir();
    const seed = `http://a.localhost:${server.origin.split(':')[2]}/`;
    try {
      const port = Number(server.origin.split(':')[2]);
      const first = await runCrawl({ store: db.path, seeds: [seed], allow: loopbackAllow(port), maxPages: 1 });
      expect(first.stoppedBecause).toBe('max-pages');
      const before = server.requests.length;
      const second = await runCrawl({ store: db.path, allow: loopbackAllow(port) });
      expect(second.stoppedBecause).toBe('done');
      const targets = server.requests.slice(before);
      // a link first found in this run is admitted by the frontier's host; the redirect's target
      // on another host is neither followed nor queued
      expect(targets).toContain('/p1/more');
      expect(targets).toContain('/go');
      expect(targets).not.toContain('/x');
      const store = await openStore(db.path);
      try {
        const x = await store.canonical(`${server.origin}/x`);
        // recorded as the refused end of the redirect, never queued
        expect('code' in x ? x.code : x.state).toBe('failed');
        expect((await store.verify()).problems).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      db.remove();
      await server.close();
    }
  });
});
