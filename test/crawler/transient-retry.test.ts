/**
 * docs/reliability.md `fetch/transient-retry`: a 503 (with Retry-After), a 429, a connection reset, a
 * timeout and a DNS failure, each once and then a success, are fetched again within the run; a 404
 * and a 410 are final. A URL that keeps failing is left failed after `maxRetries` retries, and stays
 * retryable: a run before its cool-down does not fetch it, `retryFailed` does. The oracle is the
 * server log (every request target, in order).
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { Resolver } from '../../src/crawler/http/guard.js';
import { backoffMs, parseRetryAfter } from '../../src/crawler/http/retry.js';
import { openStore } from '../../src/store/index.js';
import { html, httpServer, tempDir } from './support.js';

const links = (hrefs: readonly string[]): string => html(hrefs.map((h) => `<a href="${h}">x</a>`).join(''));
const hits = (log: readonly string[], path: string): number => log.filter((p) => p === path).length;

async function states(db: string): Promise<Map<string, { state: string; status: number | undefined }>> {
  const store = await openStore(db);
  try {
    const out = new Map<string, { state: string; status: number | undefined }>();
    for await (const u of store.canonicalUrls()) out.set(new URL(u.url).pathname, { state: u.state, status: u.status });
    return out;
  } finally {
    await store.close();
  }
}

describe('transient failures are retried within the run', () => {
  it('503 + Retry-After, 429, reset, timeout and DNS failure once: fetched again; 404 and 410 once', async () => {
    const seen = new Map<string, number>();
    const times: Record<string, number[]> = {};
    const once = (path: string): boolean => {
      const n = (seen.get(path) ?? 0) + 1;
      seen.set(path, n);
      (times[path] ??= []).push(Date.now());
      return n === 1;
    };
    const ok = (res: ServerResponse, body: string): void => void res.writeHead(200, { 'content-type': 'text/html' }).end(html(body));
    const site = await httpServer((req, res) => {
      const path = req.url ?? '';
      const first = once(path);
      switch (path) {
        case '/':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end(links(['/s503', '/s429', '/reset', '/slow', '/s404', '/s410']));
        case '/s503':
          return first ? void res.writeHead(503, { 'retry-after': '1' }).end('busy') : ok(res, 'p503');
        case '/s429':
          return first ? void res.writeHead(429).end('slow down') : ok(res, 'p429');
        case '/reset':
          return first ? void req.socket.destroy() : ok(res, 'reset');
        case '/slow':
          return first ? undefined : ok(res, 'slow'); // the first answer never comes: headersTimeout
        case '/dns':
          return ok(res, 'dns');
        case '/s404':
          return void res.writeHead(404).end('no');
        case '/s410':
          return void res.writeHead(410).end('gone');
        default:
          return void res.writeHead(404).end();
      }
    });
    let lookups = 0;
    const resolver: Resolver = async (h) => {
      if (h === 'flaky.test' && lookups++ === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
      return ['127.0.0.1'];
    };
    const db = tempDir();
    try {
      const report = await runCrawl({
        store: db.path,
        seeds: [`${site.origin}/`, `http://flaky.test:${site.port}/dns`],
        allow: site.allow,
        resolver,
        robots: false,
        fetch: { headersTimeoutMs: 400 },
        retryBaseMs: 50,
        retryMaxMs: 200,
      });
      const log = site.requests;
      for (const p of ['/s503', '/s429', '/reset', '/slow']) expect(hits(log, p), p).toBe(2);
      expect(hits(log, '/dns')).toBe(1); // the failed attempt never reached the server
      expect(lookups).toBeGreaterThanOrEqual(2);
      expect(hits(log, '/s404')).toBe(1);
      expect(hits(log, '/s410')).toBe(1);
      // Retry-After: 1 was honoured (RFC 9110 §10.2.3)
      expect(times['/s503']![1]! - times['/s503']![0]!).toBeGreaterThanOrEqual(950);
      expect(report.retries).toEqual({ made: 5, succeeded: 5, pending: 0, requeued: 0 });
      expect(report.statuses['429']).toBeUndefined();
      const st = await states(db.path);
      for (const p of ['/s503', '/s429', '/reset', '/slow', '/dns']) expect(st.get(p), p).toEqual({ state: 'fetched', status: 200 });
      expect(report.store.urls.failed).toBe(0);
    } finally {
      await site.close();
      db.remove();
    }
  }, 30_000);

  it('a 503 without Retry-After (nginx limit_req) holds back the whole host for its backoff', async () => {
    const started: { path: string; t: number }[] = [];
    let refused = 0;
    const site = await httpServer((req, res) => {
      started.push({ path: req.url ?? '', t: Date.now() });
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(links(Array.from({ length: 12 }, (_, i) => `/p${i}`)));
      // the first page asked for after the home page is refused: the host is over its rate
      if (refused === 0 && req.url !== '/') {
        refused++;
        return void res.writeHead(503).end('busy');
      }
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(html(req.url ?? ''));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow, robots: false, concurrency: 4, perHost: 4, retryBaseMs: 400, retryMaxMs: 400 });
      expect(report.store.urls.failed).toBe(0);
      const at503 = started.findIndex((r, i) => i > 0 && r.path !== '/');
      const t503 = started[at503]!.t;
      const retried = started.filter((r) => r.path === started[at503]!.path);
      expect(retried.length).toBe(2);
      // between the 503 and its retry (a backoff drawn in [0, 400 ms]; the host's hold and the
      // retry's timer end together, give or take the timers' slack) no request to the host
      // starts but the 3 others of its 4 slots that may have been on their way when it came
      const during = started.filter((r) => r.t > t503 && r.t < retried[1]!.t - 30);
      expect(during.length).toBeLessThanOrEqual(3);
      expect(started.length).toBe(13 + 1);
    } finally {
      await site.close();
      db.remove();
    }
  }, 30_000);

  it('after maxRetries the URL is pending: a run before the cool-down skips it, retryFailed fetches it', async () => {
    const site = await httpServer((req, res) => {
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(links(['/down', '/limited', '/fine']));
      if (req.url === '/down') return void res.writeHead(503).end();
      if (req.url === '/limited') return void res.writeHead(429, { 'retry-after': '0' }).end();
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('fine'));
    });
    const db = tempDir();
    const base = { store: db.path, allow: site.allow, robots: false, maxRetries: 2, retryBaseMs: 20, retryMaxMs: 50 } as const;
    try {
      const first = await runCrawl({ ...base, seeds: [`${site.origin}/`] });
      expect(hits(site.requests, '/down')).toBe(3);
      expect(hits(site.requests, '/limited')).toBe(3);
      expect(first.retries).toEqual({ made: 4, succeeded: 0, pending: 2, requeued: 0 });
      expect(first.errors).toMatchObject({ ERR_SERVER_ERROR: 1, ERR_TOO_MANY_REQUESTS: 1 });
      expect(first.store.urls.failed).toBe(2);
      let st = await states(db.path);
      // a 429 is never recorded as fetched
      expect(st.get('/limited')).toEqual({ state: 'failed', status: 429 });
      expect(st.get('/down')).toEqual({ state: 'failed', status: 503 });

      // before the cool-down (default 1 h): nothing fetched again, nothing lost
      const second = await runCrawl({ ...base });
      expect(site.requests.length).toBe(1 + 3 + 3 + 1);
      expect(second.retries?.requeued).toBe(0);
      expect(second.store.urls.failed).toBe(2);

      // forced: queued again and retried, and still pending afterwards (the server is still down)
      const third = await runCrawl({ ...base, retryFailed: true });
      expect(third.retries).toEqual({ made: 4, succeeded: 0, pending: 2, requeued: 2 });
      expect(hits(site.requests, '/down')).toBe(6);
      expect(hits(site.requests, '/fine')).toBe(1);

      // a cool-down that has passed requeues them as well
      const fourth = await runCrawl({ ...base, retryCooldownMs: 0, maxRetries: 0 });
      expect(fourth.retries?.requeued).toBe(2);
      expect(hits(site.requests, '/down')).toBe(7);
      st = await states(db.path);
      expect(st.get('/down')?.state).toBe('failed');
      expect(fourth.store.urls.admitted).toBe(first.store.urls.admitted);
    } finally {
      await site.close();
      db.remove();
    }
  }, 30_000);

  it('Retry-After in seconds and as an HTTP-date; backoff with full jitter stays under its cap', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(backoffMs(1, 1000, 30_000, () => 0.999)).toBeLessThan(1000);
    expect(backoffMs(10, 1000, 30_000, () => 0.999)).toBeLessThan(30_000);
    expect(backoffMs(3, 1000, 30_000, () => 0)).toBe(0);
  });
});
