/**
 * A 200 MB page in a real crawl (docs/reliability.md `body/huge-html`), generated as it is sent:
 *
 * - under the default caps it ends at the 10 MiB wire cap (`ERR_BODY_TOO_LARGE`), in both of its
 *   shapes: a link every 24 bytes (8.4 million links), and one endless attribute value; the server
 *   is stopped near the cap, and a failed page's links are not admitted;
 * - with the wire cap raised it streams through the link extractor whole, and the outlinks
 *   admitted equal the outlink cap (`maxOutlinks`, 5,000).
 *
 * Measured: the peak RSS of this process over the baseline taken after a warm-up crawl and a full
 * GC (every case against the first baseline, since RSS does not shrink back), under 100 MB.
 */
import { pipeline, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, runCrawl } from '../../src/crawler/crawl.js';
import { defaultExtractOptions } from '../../src/crawler/html/extract.js';
import { defaultFetchOptions } from '../../src/crawler/http/fetch.js';
import { measureRss, mib, MiB } from '../support/rss-sampler.js';
import { auditStore, describeAudit } from '../support/store-audit.js';
import { countWrites, html, httpServer, rssBaselineAfterWarmUp, tempDir, type TestServer } from './support.js';

const RSS_LIMIT = 100 * MiB;
const HUGE_PAGE = 200 * 1000 * 1000;

let site: TestServer;
const sent = new Map<string, number>();
/** RSS after the warm-up and a GC: every case is measured against it. */
let baseline = 0;

/** `HUGE_PAGE` bytes of `<a href="/l/N">x</a>` (about 24 bytes each), every N distinct. */
function linksPage(): Readable {
  let n = 0;
  let bytes = 0;
  return new Readable({
    read() {
      if (bytes >= HUGE_PAGE) return void this.push(null);
      let s = '';
      for (let i = 0; i < 3000; i++) s += `<a href="/l/${(n++).toString(36)}">x</a>`;
      bytes += s.length;
      this.push(s);
    },
  });
}

/** `<a href="/` and then `HUGE_PAGE` bytes of one attribute value that never ends. */
function endlessAttribute(): Readable {
  const block = Buffer.alloc(64 * 1024, 0x78);
  let bytes = 0;
  let first = true;
  return new Readable({
    read() {
      if (first) {
        first = false;
        return void this.push('<!doctype html><a href="/');
      }
      if (bytes >= HUGE_PAGE) return void this.push(null);
      bytes += block.length;
      this.push(block);
    },
  });
}

beforeAll(async () => {
  site = await httpServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/robots.txt') return void res.writeHead(404).end();
    if (p === '/huge-links' || p === '/endless-attribute') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void pipeline(p === '/huge-links' ? linksPage() : endlessAttribute(), countWrites(res, p, sent), () => undefined);
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/a">a</a><a href="/b">b</a>'));
  });
  baseline = await rssBaselineAfterWarmUp(site);
});

afterAll(async () => site.close());

describe('a 200 MB page', () => {
  it('with the wire cap raised: streamed whole through the extractor; outlinks admitted = the outlink cap; RSS delta < 100 MB', async () => {
    const db = tempDir();
    try {
      let admitted = -1;
      const { value: report, rss } = await measureRss(() =>
        crawl({
          store: db.path,
          seeds: [`${site.origin}/huge-links`],
          allow: site.allow,
          maxPages: 1,
          fetch: { maxWireBytes: 256 * MiB, maxDecodedBytes: 256 * MiB, deadlineMs: 60_000 },
          onPage: (p) => void (admitted = p.admitted),
        }).done,
      );
      const audit = await auditStore(db.path);
      const delta = rss.peakBytes - baseline;
      console.log(
        `200 MB page, wire cap raised: RSS peak ${mib(delta)} over the baseline ${mib(baseline)}; wire ${mib(report.bytes.wire)}; links found ${report.links.found}, admitted ${admitted}, dropped ${report.links.refused['dropped'] ?? 0}; ${describeAudit(audit)}`,
      );
      expect(report.bytes.wire).toBeGreaterThanOrEqual(HUGE_PAGE);
      expect(report.links.found).toBeGreaterThan(8_000_000);
      expect(admitted).toBe(defaultExtractOptions.maxOutlinks);
      expect(audit.stats.urls.queued).toBe(defaultExtractOptions.maxOutlinks);
      expect(delta).toBeLessThan(RSS_LIMIT);
      expect(audit.problems).toEqual([]);
      expect(audit.conservationGap).toBe(0);
    } finally {
      db.remove();
    }
  }, 120_000);

  it('under the default caps: ended at the 10 MiB wire cap whatever its shape; the server stopped; RSS delta < 100 MB', async () => {
    const db = tempDir();
    try {
      sent.clear();
      const { value: report, rss } = await measureRss(() =>
        runCrawl({ store: db.path, seeds: [`${site.origin}/huge-links`, `${site.origin}/endless-attribute`], allow: site.allow, concurrency: 2, perHost: 2 }),
      );
      const audit = await auditStore(db.path);
      const delta = rss.peakBytes - baseline;
      console.log(
        `200 MB page, default caps: RSS peak ${mib(delta)} over the baseline; wire ${mib(report.bytes.wire)}; server sent ${mib(sent.get('/huge-links') ?? 0)} and ${mib(sent.get('/endless-attribute') ?? 0)}; ${describeAudit(audit)}`,
      );
      expect(audit.byError['ERR_BODY_TOO_LARGE']).toBe(2);
      expect(audit.stats.urls.admitted).toBe(2); // a failed page's links are not admitted
      for (const p of ['/huge-links', '/endless-attribute']) expect(sent.get(p) ?? 0, p).toBeLessThan(defaultFetchOptions.maxWireBytes + 8 * MiB);
      expect(delta).toBeLessThan(RSS_LIMIT);
      expect(audit.open).toEqual([]);
      expect(audit.conservationGap).toBe(0);
    } finally {
      db.remove();
    }
  }, 60_000);
});
