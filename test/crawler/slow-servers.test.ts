/**
 * Slow and broken servers in a real crawl (docs/reliability.md `slow/*`), beside a good host that must
 * keep draining:
 *
 * - slowloris: the response head one byte per second — ended by `headersTimeoutMs` (set low here);
 * - drip: a body byte every 900 ms, just inside the 1 s idle timeout, so undici's body timeout never
 *   fires — ended by the total deadline (`ERR_DEADLINE`);
 * - accepted, then silent (robots.txt answered, pages never) — `ERR_HEADERS_TIMEOUT`;
 * - RST in the middle of a body, and FIN before the declared Content-Length — `ERR_SOCKET`;
 * - connection refused, and a host silent even for robots.txt: robots.txt is unreachable, so
 *   (RFC 9309 §2.3.1.4) the host's URLs wait for a later run, counted as deferred; with robots.txt
 *   off, a refused connection is `ERR_SOCKET`.
 *
 * Measured: each URL's code and elapsed time (≤ its timeout + ε), the good host's pages all served
 * before the slow ones were through, conservation, and every URL terminal with a code (deferred
 * ones excepted, by count).
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, runCrawl, type CrawledPage } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { rawHttpServer, respond, type RawServer } from '../support/raw-http-server.js';
import { auditStore, describeAudit, type Audit } from '../support/store-audit.js';
import { html, httpServer, tcpListener, tempDir, type TestServer } from './support.js';

const HEADERS_TIMEOUT = 1500;
const BODY_TIMEOUT = 1000;
const DRIP_EVERY = 900;
const DEADLINE = 3000;
const EPSILON = 1500;
const GOOD_PAGES = 30;

let good: TestServer;
let slowloris: RawServer;
let drip: RawServer;
let silentPages: RawServer;
let reset: RawServer;
let silentAll: RawServer;
let refusedPort: number;
const timers = new Set<NodeJS.Timeout>();

/** Call `fn` every `ms` until it returns false (or the suite ends). */
function every(ms: number, fn: () => boolean): void {
  const t = setInterval(() => {
    if (!fn()) {
      clearInterval(t);
      timers.delete(t);
    }
  }, ms);
  timers.add(t);
}

const robots404 = (target: string, socket: Socket): boolean => {
  if (target !== '/robots.txt') return false;
  respond(socket, 404, {});
  return true;
};

beforeAll(async () => {
  slowloris = await rawHttpServer((req, socket) => {
    if (robots404(req.target, socket)) return;
    const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-slow: ' + 'a'.repeat(1000);
    let i = 0;
    every(1000, () => {
      if (socket.destroyed || i >= head.length) return false;
      socket.write(head[i++]!);
      return true;
    });
  });
  drip = await rawHttpServer((req, socket) => {
    if (robots404(req.target, socket)) return;
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 1000000\r\n\r\n<p>');
    every(DRIP_EVERY, () => {
      if (socket.destroyed) return false;
      socket.write('x');
      return true;
    });
  });
  silentPages = await rawHttpServer((req, socket) => {
    if (robots404(req.target, socket)) return;
    // accepted, request read, then nothing
  });
  reset = await rawHttpServer((req, socket) => {
    if (robots404(req.target, socket)) return;
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 100000\r\n\r\n' + '<a href="/x">x</a>'.repeat(50));
    if (req.target.startsWith('/rst')) setTimeout(() => socket.resetAndDestroy(), 50);
    else setTimeout(() => socket.end(), 50); // FIN long before the declared length
  });
  silentAll = await rawHttpServer(() => undefined);
  const gone = await tcpListener();
  refusedPort = gone.port;
  await gone.close();

  good = await httpServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/robots.txt') return res.writeHead(404).end();
    const n = Number(/^\/g\/(\d+)$/.exec(p)?.[1] ?? -1);
    if (n < 0) return res.writeHead(404).end();
    const links = [2 * n + 1, 2 * n + 2].filter((k) => k < GOOD_PAGES).map((k) => `/g/${k}`);
    if (n === 0) {
      links.push(
        `${slowloris.origin}/slow/1`,
        `${slowloris.origin}/slow/2`,
        `${drip.origin}/drip`,
        `${silentPages.origin}/silent`,
        `${reset.origin}/rst`,
        `${reset.origin}/fin`,
        `${silentAll.origin}/never`,
        `http://127.0.0.1:${refusedPort}/refused`,
      );
    }
    // a little latency, so the good host is still draining while the slow ones hold their slots
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">x</a>`).join(''))), 30);
  });
});

afterAll(async () => {
  for (const t of timers) clearInterval(t);
  await Promise.all([good, slowloris, drip, silentPages, reset, silentAll].map((s) => s.close()));
});

const allowAll = (): { address: string }[] => [{ address: '127.0.0.1' }];

describe('slow and broken servers beside a good host', () => {
  let report: CrawlReport;
  let audit: Audit;
  const pages: { page: CrawledPage; at: number }[] = [];
  let started = 0;
  const db = tempDir();

  beforeAll(async () => {
    started = performance.now();
    const c = crawl({
      store: db.path,
      seeds: [`${good.origin}/g/0`],
      allow: allowAll(),
      concurrency: 6,
      perHost: 1,
      robotsAttempts: 1,
      robotsRetryMs: 10,
      // one fetch per URL: the bounds of a single fetch are measured here, retries in transient-retry.test.ts
      maxRetries: 0,
      fetch: { headersTimeoutMs: HEADERS_TIMEOUT, bodyTimeoutMs: BODY_TIMEOUT, deadlineMs: DEADLINE, connectTimeoutMs: 1000 },
      onPage: (page) => void pages.push({ page, at: performance.now() - started }),
    });
    report = await c.done;
    audit = await auditStore(db.path);
    console.log(`slow servers: ${describeAudit(audit)}; deferred ${JSON.stringify(report.deferred)}; ${Math.round(performance.now() - started)} ms`);
  }, 60_000);
  afterAll(() => db.remove());

  const codeOf = (origin: string, path: string): string | undefined => {
    const port = new URL(origin).port;
    const e = audit.entries.find((x) => x.key.endsWith(`:${port}${path}`));
    return e === undefined ? undefined : (e.entry.e ?? e.entry.s);
  };
  const elapsedOf = (url: string): number => pages.find((p) => p.page.url === url)?.page.elapsedMs ?? NaN;

  it('each hostile URL fails with its code within its bound', () => {
    expect(codeOf(slowloris.origin, '/slow/1')).toBe('ERR_HEADERS_TIMEOUT');
    expect(codeOf(slowloris.origin, '/slow/2')).toBe('ERR_HEADERS_TIMEOUT');
    expect(codeOf(drip.origin, '/drip')).toBe('ERR_DEADLINE');
    expect(codeOf(silentPages.origin, '/silent')).toBe('ERR_HEADERS_TIMEOUT');
    expect(codeOf(reset.origin, '/rst')).toBe('ERR_SOCKET');
    expect(codeOf(reset.origin, '/fin')).toBe('ERR_SOCKET');
    for (const n of [1, 2]) expect(elapsedOf(`${slowloris.origin}/slow/${n}`)).toBeLessThanOrEqual(HEADERS_TIMEOUT + EPSILON);
    expect(elapsedOf(`${silentPages.origin}/silent`)).toBeLessThanOrEqual(HEADERS_TIMEOUT + EPSILON);
    const dripMs = elapsedOf(`${drip.origin}/drip`);
    expect(dripMs).toBeGreaterThanOrEqual(DEADLINE - 100);
    expect(dripMs).toBeLessThanOrEqual(DEADLINE + EPSILON);
    expect(drip.requests.filter((r) => r === '/drip')).toHaveLength(1);
  });

  it('the good host drained while the slow ones held their slots', () => {
    const goodPages = pages.filter((p) => p.page.url.startsWith(good.origin));
    expect(new Set(goodPages.map((p) => p.page.url)).size).toBe(GOOD_PAGES);
    expect(goodPages.every((p) => p.page.status === 200)).toBe(true);
    const goodDone = Math.max(...goodPages.map((p) => p.at));
    const slowDone = Math.max(...pages.filter((p) => p.page.url.startsWith(slowloris.origin)).map((p) => p.at));
    console.log(`good host done at ${Math.round(goodDone)} ms; slowloris done at ${Math.round(slowDone)} ms`);
    expect(goodDone).toBeLessThan(slowDone);
  });

  it('unreachable robots.txt (refused, silent): the host waits for a later run, counted as deferred', () => {
    expect(report.stoppedBecause).toBe('deferred');
    expect(report.deferred['robots-unreachable']).toBe(2);
    expect(silentAll.requests).toEqual(['/robots.txt']);
    expect(audit.stats.urls.queued).toBe(2);
  });

  it('every other URL ends in a terminal state with a code; conservation and verify hold', () => {
    expect(audit.open.filter((o) => !o.endsWith(': queued'))).toEqual([]);
    expect(audit.conservationGap).toBe(0);
    expect(audit.problems).toEqual([]);
  });
});

describe('without robots.txt', () => {
  it('connection refused and RST mid-body are ERR_SOCKET; the crawl completes', async () => {
    const db = tempDir();
    try {
      const seeds = [`http://127.0.0.1:${refusedPort}/refused`, `${reset.origin}/rst`, `${silentAll.origin}/nothing`];
      const report = await runCrawl({ store: db.path, seeds, allow: allowAll(), robots: false, fetch: { headersTimeoutMs: HEADERS_TIMEOUT } });
      const audit = await auditStore(db.path);
      console.log(`without robots.txt: ${describeAudit(audit)}`);
      expect(report.stoppedBecause).toBe('done');
      expect(audit.byError).toEqual({ ERR_SOCKET: 2, ERR_HEADERS_TIMEOUT: 1 });
      expect(audit.open).toEqual([]);
      expect(audit.conservationGap).toBe(0);
      expect(audit.problems).toEqual([]);
    } finally {
      db.remove();
    }
  }, 30_000);
});
