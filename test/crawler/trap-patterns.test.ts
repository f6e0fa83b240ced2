/**
 * Pattern traps (traps.ts `trap:pattern`), crawled for real with the default limits (50,000 pages
 * per host, 64 fetches to judge a pattern, 10 % of them bringing something new):
 *
 * - relative links `a/` and `b/` on a page served for every path: the repeated-segment and depth
 *   rules alone let 16,875 requests through; the patterns `/a/**` and `/b/**` stop it;
 * - a 60,000-date calendar whose pages link only the previous and next date: `/cal?d=*`;
 * - a real paginated listing (every page shows other items, every item its own text) is crawled
 *   whole: nothing refused, recall kept.
 *
 * The bound asserted for the a/b trap, 1,000 requests, is generous: a pattern is judged after 64
 * HTML pages; after that only what was already queued under it is fetched (each page of these
 * traps queues at most 2 new URLs, so at most 2 × 64 more per pattern, whose own links are
 * refused): with two patterns at most 2 × (64 + 128) + the root = 385 (about 200 in practice).
 * A calendar is refused sooner, by its empty runs: 6 pages in a row on one chain that add nothing
 * (`patternEmptyRun`), so about 6 pages either side of the start, or of the last month that added
 * a link. A chain whose pages each link something new goes on. The server log is the oracle.
 */
import { describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import { defaultTrapOptions, urlPatterns } from '../../src/crawler/policy/traps.js';
import { openStore } from '../../src/store/index.js';
import { auditStore, describeAudit } from '../support/store-audit.js';
import { html, httpServer, tempDir } from './support.js';

const page = (body: string, hrefs: readonly string[]): string => html(body + hrefs.map((h) => `<a href="${h}">x</a>`).join(''));

describe('URL patterns', () => {
  it('come from the structure: one segment, one parameter value, the first segment and below', () => {
    expect(urlPatterns('http://h:1/cal?d=17&v=m#x')).toEqual(['h:1/*?d=17&v=m', 'h:1/cal?d=*&v=m', 'h:1/cal?d=17&v=*']);
    expect(urlPatterns('http://h/a/b/')).toEqual(['h/*/b/', 'h/a/*/', 'h/a/**']);
  });
});

describe('pattern traps', () => {
  it('a/ and b/ on every path: stopped far below 16,875 requests, the rest pruned as trap:pattern', async () => {
    const site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('the same page', ['a/', 'b/']));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow });
      const pages = site.requests.filter((r) => r !== '/robots.txt');
      const audit = await auditStore(db.path);
      console.log(`a/b trap: ${pages.length} requests; patterns ${JSON.stringify(report.trapPatterns)}; refused ${JSON.stringify(report.links.refused)}; ${describeAudit(audit)}`);
      expect(pages.length).toBeLessThanOrEqual(1000);
      expect(report.trapPatterns).toEqual(expect.arrayContaining([`127.0.0.1:${site.port}/a/**`, `127.0.0.1:${site.port}/b/**`]));
      expect(report.stoppedBecause).toBe('done');
      expect(audit.stats.pruned['trap:pattern']).toBeGreaterThan(0);
      expect(audit.stats.urls.queued).toBe(0);
      expect(audit.problems).toEqual([]);
      expect(audit.conservationGap).toBe(0);
      // pruned, not lost: restore gives them back to the frontier
      const store = await openStore(db.path);
      try {
        expect(await store.restore('trap:pattern')).toBe(audit.stats.pruned['trap:pattern']);
      } finally {
        await store.close();
      }
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a 60,000-date calendar: stopped far below the 50,000-page budget', async () => {
    const DATES = 60_000;
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      const d = Number(u.searchParams.get('d') ?? 0);
      const hrefs = [d - 1, d + 1].filter((k) => k >= 0 && k < DATES).map((k) => `/cal?d=${k}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('calendar', hrefs));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/cal?d=30000`], allow: site.allow });
      const hits = site.requests.filter((r) => r.startsWith('/cal'));
      console.log(`calendar: ${hits.length} requests; patterns ${JSON.stringify(report.trapPatterns)}`);
      // 6 empty pages either side of the seed, and what was queued before the verdict
      expect(hits.length).toBeLessThanOrEqual(2 * (defaultTrapOptions.patternEmptyRun + 2) + 1);
      expect(new Set(hits).size).toBe(hits.length);
      expect(report.trapPatterns).toContain(`127.0.0.1:${site.port}/cal?d=*`);
      expect(report.links.refused['trap:pattern']).toBeGreaterThan(0);
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a calendar goes on past months that link a new event, and stops 6 empty months after the last', async () => {
    // months 0..40 from the seed at 0; an event page (only linked from its month) every 5 months
    // up to month 20, each page with the site's navigation, which adds nothing after the first
    const nav = ['/', '/about', '/contact'];
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      const ev = /^\/event\/(\d+)$/.exec(u.pathname);
      if (ev !== null) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<h1>Event of month ${ev[1]}</h1>`, nav));
      if (u.pathname !== '/cal') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('home', ['/cal?m=0', ...nav]));
      const m = Number(u.searchParams.get('m') ?? 0);
      const event = m % 5 === 0 && m <= 20 ? [`/event/${m}`] : [];
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`Month ${m}`, [...nav, ...event, `/cal?m=${m + 1}`]));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow });
      const months = site.requests.filter((r) => r.startsWith('/cal')).map((r) => Number(/m=(\d+)/.exec(r)![1]));
      console.log(`calendar with events: months ${Math.min(...months)}..${Math.max(...months)}; patterns ${JSON.stringify(report.trapPatterns)}`);
      for (let m = 0; m <= 20; m += 5) expect(site.requests, `event ${m}`).toContain(`/event/${m}`);
      expect(Math.max(...months)).toBeLessThanOrEqual(20 + defaultTrapOptions.patternEmptyRun + 1);
      expect(report.trapPatterns).toEqual([`127.0.0.1:${site.port}/cal?m=*`]);
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a calendar by path, whose pages print their own month, stops after its empty runs', async () => {
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      const m = /^\/events\/(\d{4})-(\d{2})\/$/.exec(u.pathname);
      if (m === null) return void res.writeHead(404).end();
      const i = Number(m[1]) * 12 + Number(m[2]) - 1;
      const month = (k: number): string => `/events/${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, '0')}/`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<h1>Events of ${month(i)}</h1><p>No events.</p>`, [month(i - 1), month(i + 1)]));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/events/2026-11/`], allow: site.allow });
      const hits = site.requests.filter((r) => r.startsWith('/events/'));
      console.log(`calendar by path: ${hits.length} requests; patterns ${JSON.stringify(report.trapPatterns)}`);
      expect(hits.length).toBeLessThanOrEqual(2 * (defaultTrapOptions.patternEmptyRun + 2) + 1);
      expect(report.trapPatterns).toContain(`127.0.0.1:${site.port}/events/*/`);
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a graph of thin numbered pages (no words but numbers, every link inside /*) is crawled whole', async () => {
    // as test/support/generated-site.ts serves: each page links a few others, no page links back
    const N = 400;
    const out = (i: number): number[] => [(i * 7 + 1) % N, (i * 13 + 5) % N, (i + 1) % N];
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      const i = Number(/^\/p(\d+)$/.exec(u.pathname)?.[1] ?? -1);
      if (i < 0 || i >= N) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<h1>page ${i}</h1>`, out(i).map((k) => `/p${k}`)));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/p0`], allow: site.allow });
      const served = new Set(site.requests);
      for (let i = 0; i < N; i++) expect(served.has(`/p${i}`), `page ${i}`).toBe(true);
      expect(report.trapPatterns).toEqual([]);
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a chain of thin pages, each linking one new item, is crawled whole', async () => {
    // `?after=N` pages of a feed, each with one new item and the next page: no new words, but a
    // link outside the pattern its parent lacked
    const N = 60;
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      if (u.pathname.startsWith('/item/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('item', []));
      const n = Number(u.searchParams.get('after') ?? 0);
      res.writeHead(200, { 'content-type': 'text/html' }).end(page('feed', [`/item/${n}`, ...(n + 1 < N ? [`/feed?after=${n + 1}`] : [])]));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/feed?after=0`], allow: site.allow });
      for (let n = 0; n < N; n++) expect(site.requests, `item ${n}`).toContain(`/item/${n}`);
      expect(report.trapPatterns).toEqual([]);
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);

  it('a paginated listing whose pages all differ is crawled whole', async () => {
    const PAGES = 150;
    const PER_PAGE = 5;
    const site = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return void res.writeHead(404).end();
      const item = /^\/item\/(\d+)$/.exec(u.pathname);
      if (item !== null) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<h1>Item ${item[1]}</h1>`, ['/list?page=0']));
      const p = Number(u.searchParams.get('page') ?? 0);
      const items = Array.from({ length: PER_PAGE }, (_, k) => `/item/${p * PER_PAGE + k}`);
      const next = p + 1 < PAGES ? [`/list?page=${p + 1}`] : [];
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<p>Page ${p}: ${items.join(', ')}</p>`, [...items, ...next]));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/list?page=0`], allow: site.allow });
      const served = new Set(site.requests);
      console.log(`listing: ${site.requests.length} requests; patterns ${JSON.stringify(report.trapPatterns)}`);
      for (let p = 0; p < PAGES; p++) expect(served.has(`/list?page=${p}`), `page ${p}`).toBe(true);
      for (let i = 0; i < PAGES * PER_PAGE; i++) expect(served.has(`/item/${i}`), `item ${i}`).toBe(true);
      expect(report.trapPatterns).toEqual([]);
      expect(report.links.refused['trap:pattern']).toBeUndefined();
      expect(report.stoppedBecause).toBe('done');
    } finally {
      await site.close();
      db.remove();
    }
  }, 60_000);
});
