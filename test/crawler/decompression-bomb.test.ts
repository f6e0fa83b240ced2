/**
 * Decompression bombs in a real crawl (docs/reliability.md `body/decompression-bomb`): bombs compressed
 * on the fly from an endless stream of zeros (up to 10 GiB; the server stops when the crawler hangs
 * up) — gzip, deflate, br, three stacked gzip layers, br inside gzip — all fetched at once; six
 * stacked codings are refused before decoding.
 *
 * Brotli's window is the stream's choice (RFC 7932 §9.1: up to 2^24 bytes), and the decoder holds
 * it whole: about 30 MiB of RSS per response at 24 window bits, against about 8 MiB at the
 * library's default of 22. Eight such bombs at once took the RSS up by about 240 MiB before the
 * fetcher got `maxBrotliWindowBits` (default 22): a larger declared window is now refused from the
 * stream header, before the decoder allocates it. With the limit raised to 24 the cost is
 * measured and printed, not asserted.
 *
 * Measured: the peak RSS of this process (crawler and server) over the baseline taken after a
 * warm-up crawl and a full GC, which must stay under 100 MB; bytes decoded; server bytes sent;
 * each URL's terminal state and code.
 */
import { pipeline, Readable, type Transform } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliWindowBits } from '../../src/crawler/http/content-coding.js';
import { runCrawl } from '../../src/crawler/crawl.js';
import { defaultFetchOptions } from '../../src/crawler/http/fetch.js';
import { measureRss, mib, MiB } from '../support/rss-sampler.js';
import { auditStore, describeAudit } from '../support/store-audit.js';
import { countWrites, html, httpServer, rssBaselineAfterWarmUp, tempDir, type TestServer } from './support.js';

const RSS_LIMIT = 100 * MiB;
const ZEROS = Buffer.alloc(MiB);

/** Up to `limit` zero bytes, generated as read; stops early when destroyed. */
function zeros(limit: number): Readable {
  let left = limit;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const n = Math.min(left, ZEROS.length);
      left -= n;
      this.push(n === ZEROS.length ? ZEROS : ZEROS.subarray(0, n));
    },
  });
}

// every layer flushes each write, so a stacked bomb sends its first bytes at once instead of after
// gigabytes of input (each 1 MiB of zeros still costs about a kilobyte on the wire)
const br = (): Transform => createBrotliCompress({ flush: constants.BROTLI_OPERATION_FLUSH, params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
const gz = (): Transform => createGzip({ level: 9, flush: constants.Z_SYNC_FLUSH });
const deflate = (): Transform => createDeflate({ level: 9, flush: constants.Z_SYNC_FLUSH });

/** Bomb paths → [Content-Encoding, the compressors, in the order applied]. */
const BOMBS: Readonly<Record<string, readonly [string, () => Transform[]]>> = {
  '/gzip-bomb': ['gzip', () => [gz()]],
  '/deflate-bomb': ['deflate', () => [deflate()]],
  '/br-bomb': ['br', () => [br()]],
  '/nested-gzip-bomb': ['gzip, gzip, gzip', () => [gz(), gz(), gz()]],
  '/br-in-gzip-bomb': ['br, gzip', () => [br(), gz()]],
  '/six-stacked': ['gzip, gzip, gzip, gzip, gzip, gzip', () => [gz(), gz(), gz(), gz(), gz(), gz()]],
};

/** A br bomb at the largest window RFC 7932 allows (24 bits): 64 MiB of zeros, compressed once. */
const BR_24 = brotliCompressSync(Buffer.alloc(64 * MiB), { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_LGWIN]: 24 } });

let site: TestServer;
/** Body bytes written per path (on the wire, after compression). */
const sent = new Map<string, number>();
/** RSS after the warm-up and a full GC: every case is measured against it (RSS does not shrink back). */
let baseline = 0;

beforeAll(async () => {
  site = await httpServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/robots.txt') return void res.writeHead(404).end();
    if (p === '/bombs' || p === '/warm-up') {
      const links = p === '/bombs' ? Object.keys(BOMBS) : ['/gzip-small', '/br-small'];
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((b) => `<a href="${b}">${b}</a>`).join('')));
    }
    if (p.startsWith('/br-24?')) return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' }).end(BR_24);
    if (p.startsWith('/br-24-bombs?')) {
      const links = Array.from({ length: Number(p.slice('/br-24-bombs?'.length)) }, (_, i) => `<a href="/br-24?${i}">x</a>`);
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.join('')));
    }
    if (p === '/gzip-small' || p === '/br-small') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': p === '/br-small' ? 'br' : 'gzip' });
      return void pipeline([zeros(MiB), p === '/br-small' ? br() : gz(), res], () => undefined);
    }
    const bomb = BOMBS[p.split('?')[0]!];
    if (bomb === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': bomb[0] });
    pipeline([zeros(10 * 1024 * MiB), ...bomb[1](), countWrites(res, p, sent)], () => undefined);
  });
  baseline = await rssBaselineAfterWarmUp(site);
});

afterAll(async () => site.close());

describe('decompression bombs, fetched at once', () => {
  it('br bombs declaring a 16 MiB window, eight at once: refused from the stream header, nothing decoded, RSS delta < 100 MB', async () => {
    const db = tempDir();
    try {
      const { value: report, rss } = await measureRss(() =>
        runCrawl({ store: db.path, seeds: [`${site.origin}/br-24-bombs?8`], allow: site.allow, concurrency: 8, perHost: 8 }),
      );
      const audit = await auditStore(db.path);
      console.log(`br bombs, 24-bit window, 8 at once: RSS peak ${mib(rss.peakBytes - baseline)} over the baseline ${mib(baseline)}; decoded ${report.bytes.decoded} bytes; ${describeAudit(audit)}`);
      expect(audit.byError['ERR_BODY_TOO_LARGE']).toBe(8);
      expect(report.bytes.decoded).toBeLessThan(4096); // the page linking them, no bomb byte
      expect(rss.peakBytes - baseline).toBeLessThan(RSS_LIMIT);
      expect(audit.open).toEqual([]);
      expect(audit.conservationGap).toBe(0);
    } finally {
      db.remove();
    }
  }, 60_000);

  it('each stops at the 10 MiB decoded cap (ERR_BODY_TOO_LARGE), six stacked codings are refused, RSS delta < 100 MB', async () => {
    const db = tempDir();
    try {
      const { value: report, rss } = await measureRss(() =>
        runCrawl({ store: db.path, seeds: [`${site.origin}/bombs`], allow: site.allow, concurrency: 6, perHost: 6 }),
      );
      const audit = await auditStore(db.path);
      const wire = Object.fromEntries([...sent].map(([p, n]) => [p, `${(n / 1024).toFixed(1)} KiB`]));
      console.log(
        `bombs: RSS peak ${mib(rss.peakBytes - baseline)} over the baseline ${mib(baseline)} (${rss.samples} samples); decoded ${mib(report.bytes.decoded)} in all; server sent ${JSON.stringify(wire)}; ${describeAudit(audit)}`,
      );
      expect(report.stoppedBecause).toBe('done');
      const codes = new Map(audit.entries.map((e) => [e.key.slice(e.key.lastIndexOf('/')), e.entry.e ?? e.entry.s]));
      for (const p of Object.keys(BOMBS)) expect(codes.get(p), p).toBe(p === '/six-stacked' ? 'ERR_TOO_MANY_ENCODINGS' : 'ERR_BODY_TOO_LARGE');
      // each bomb decoded at most to the cap, plus the small page that links them
      expect(report.bytes.decoded).toBeLessThanOrEqual((Object.keys(BOMBS).length - 1) * defaultFetchOptions.maxDecodedBytes + 4096);
      expect(sent.get('/six-stacked') ?? 0).toBeLessThan(64 * 1024);
      expect(rss.peakBytes - baseline).toBeLessThan(RSS_LIMIT);
      expect(audit.open).toEqual([]);
      expect(audit.problems).toEqual([]);
      expect(audit.conservationGap).toBe(0);
    } finally {
      db.remove();
    }
  }, 60_000);


  it('with maxBrotliWindowBits 24 (every window RFC 7932 allows), one host at the default 2 per host: each stops at the decoded cap (RSS printed)', async () => {
    const db = tempDir();
    try {
      const { value: report, rss } = await measureRss(() =>
        runCrawl({ store: db.path, seeds: [`${site.origin}/br-24-bombs?4`], allow: site.allow, fetch: { maxBrotliWindowBits: 24 } }),
      );
      const audit = await auditStore(db.path);
      console.log(`br bombs, 24-bit window allowed, perHost 2: RSS peak ${mib(rss.peakBytes - baseline)} over the baseline ${mib(baseline)}; decoded ${mib(report.bytes.decoded)}; ${describeAudit(audit)}`);
      expect(audit.byError['ERR_BODY_TOO_LARGE']).toBe(4);
      expect(report.bytes.decoded).toBeGreaterThanOrEqual(4 * (defaultFetchOptions.maxDecodedBytes - 64 * 1024));
      expect(audit.open).toEqual([]);
    } finally {
      db.remove();
    }
  }, 60_000);
});

describe('the brotli window a stream declares (RFC 7932 §9.1)', () => {
  it('is read from the first byte, for every window size 10–24', () => {
    for (let w = 10; w <= 24; w++) {
      const b = brotliCompressSync(Buffer.alloc(4096, 'ab'), { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: w } });
      expect(brotliWindowBits(b[0]!), `lgwin ${w}`).toBe(w);
    }
  });
});
