/**
 * Crawler traps and hostile servers in a real crawl (docs/reliability.md `trap/*`, `redirect/*` in a
 * crawl, `fetch/fuzz-server` as a fixed set of broken answers): every crawl terminates, every URL
 * ends in a terminal state with a code, and the store's invariants hold (`verify()`).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import { hasRepeatedSegments, HostBudget, pathTrap } from '../../src/crawler/policy/traps.js';
import { openStore } from '../../src/store/index.js';
import { html, httpServer, tcpListener, tempDir } from './support.js';

describe('path rules', () => {
  it('repeated segments: a segment or run repeated back to back more than 2 times', () => {
    expect(pathTrap('/a/b/a/b/')).toBeUndefined();
    expect(pathTrap('/a/b/a/b/a/b/')).toBe('trap:repeated-segments');
    expect(pathTrap('/x/a/a/a')).toBe('trap:repeated-segments');
    expect(pathTrap('/x/a/a/y/a')).toBeUndefined();
    expect(pathTrap('/2024/01/01/')).toBeUndefined();
    expect(pathTrap('/a/b/c/a/b/c/a/b/c/d')).toBe('trap:repeated-segments');
    expect(pathTrap('/a/a/a', { maxRepeats: 3 })).toBeUndefined();
    expect(hasRepeatedSegments(['a', '', '', ''], 2)).toBe(false);
  });

  it('path depth: more than 20 segments (a trailing slash does not count)', () => {
    const deep = (n: number): string => '/' + Array.from({ length: n }, (_, i) => `s${i}`).join('/');
    expect(pathTrap(deep(20))).toBeUndefined();
    expect(pathTrap(deep(20) + '/')).toBeUndefined();
    expect(pathTrap(deep(21))).toBe('trap:path-depth');
    expect(pathTrap(deep(5), { maxPathDepth: 4 })).toBe('trap:path-depth');
  });

  it('host budget', () => {
    const b = new HostBudget(2);
    expect([b.take('h'), b.take('h'), b.take('h'), b.take('g')]).toEqual([true, true, false, true]);
    expect(b.spent('h')).toBe(true);
  });
});

async function verifyStore(path: string): Promise<Awaited<ReturnType<Awaited<ReturnType<typeof openStore>>['stats']>>> {
  const store = await openStore(path);
  try {
    const v = await store.verify();
    expect(v.problems).toEqual([]);
    return await store.stats();
  } finally {
    await store.close();
  }
}

describe('traps in a crawl', () => {
  it('deepening relative links (a page for every path, linking a/b/) terminate', async () => {
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="a/b/">deeper</a><a href="x">leaf</a>'));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/`], allow: server.allow, concurrency: 4 });
      expect(report.stoppedBecause).toBe('done');
      expect(report.links.refused['trap:repeated-segments']).toBeGreaterThan(0);
      expect(server.requests.sort()).toEqual(['/', '/a/b/', '/a/b/a/b/', '/a/b/a/b/x', '/a/b/x', '/robots.txt', '/x']);
      expect((await verifyStore(db.path)).urls.queued).toBe(0);
    } finally {
      db.remove();
      await server.close();
    }
  });

  it('an endless calendar stops at the per-host budget; the rest waits for a later run', async () => {
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      const m = Number(new URL(req.url!, 'http://x').searchParams.get('m') ?? '0');
      res.writeHead(200, { 'content-type': 'text/html' }).end(html(`<a href="/cal?m=${m + 1}">next</a><a href="/cal?m=${m - 1}">prev</a>`));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/cal?m=0`], allow: server.allow, traps: { maxPagesPerHost: 25, patternEmptyRun: 1_000 } }); // the budget alone: no empty-run verdict
      expect(server.requests.filter((r) => r.startsWith('/cal')).length).toBe(25);
      expect(report.pagesFetched).toBe(25);
      expect(report.stoppedBecause).toBe('deferred');
      expect(report.deferred['trap:host-budget']).toBeGreaterThan(0);
      expect((await verifyStore(db.path)).urls.queued).toBeGreaterThan(0);
    } finally {
      db.remove();
      await server.close();
    }
  });
});

describe('redirects in a crawl', () => {
  it('a 50-hop chain: cap + 1 requests, the last URL failed with ERR_TOO_MANY_REDIRECTS, every hop kept', async () => {
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      const n = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      if (n >= 0 && n < 50) return res.writeHead(301, { location: `/hop/${n + 1}` }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('end'));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/hop/0`], allow: server.allow });
      expect(server.requests.filter((r) => r.startsWith('/hop/'))).toHaveLength(11);
      expect(report.errors['ERR_TOO_MANY_REDIRECTS']).toBe(1);
      expect(report.redirects).toBe(11);
      const store = await openStore(db.path);
      try {
        expect((await store.canonical(`${server.origin}/hop/10`)).state).toBe('failed');
        expect((await store.canonical(`${server.origin}/hop/11`)).state).toBe('unknown');
        const stats = await store.stats();
        expect(stats.urls.redirected).toBe(10);
        expect(stats.aliases).toBe(10);
        expect((await store.verify()).problems).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      db.remove();
      await server.close();
    }
  });

  it('loops are recorded once each and end; redirects to forbidden targets are never followed', async () => {
    const other = await tcpListener((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
    const server = await httpServer((req, res) => {
      const p = req.url ?? '/';
      if (p === '/robots.txt') return res.writeHead(404).end();
      if (p === '/') {
        const links = ['/A', '/self', '/Slash', '/private', '/file', '/js'];
        return res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">x</a>`).join('')));
      }
      const to: Record<string, string> = {
        '/A': '/B',
        '/B': '/A',
        '/self': '/self',
        '/Slash': '/Slash/',
        '/Slash/': '/Slash',
        '/private': `http://127.0.0.1:${other.port}/x`,
        '/file': 'file:///etc/passwd',
        '/js': 'javascript:alert(1)',
      };
      const t = to[p];
      if (t !== undefined) return res.writeHead(301, { location: t }).end();
      res.writeHead(404).end();
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/`], allow: server.allow });
      const counts = new Map<string, number>();
      for (const r of server.requests) counts.set(r, (counts.get(r) ?? 0) + 1);
      for (const p of ['/A', '/B', '/self', '/Slash', '/Slash/', '/private', '/file', '/js']) expect(counts.get(p), p).toBe(1);
      expect(other.connections()).toBe(0);
      expect(report.errors['ERR_BLOCKED_ADDRESS']).toBe(1);
      expect(report.errors['ERR_UNSUPPORTED_SCHEME']).toBe(2);
      const stats = await verifyStore(db.path);
      expect(stats.urls.queued).toBe(0);
      expect(stats.loops).toBeGreaterThanOrEqual(3);
    } finally {
      db.remove();
      await server.close();
      await other.close();
    }
  });
});

describe('a hostile server', () => {
  it('every broken answer ends in a terminal state; the crawl completes; the store verifies', async () => {
    const mute = await tcpListener();
    const answers: Record<string, (res: import('node:http').ServerResponse) => void> = {
      '/ok': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('ok')),
      '/500': (res) => res.writeHead(500).end(),
      '/404': (res) => res.writeHead(404).end('nope'),
      '/no-location': (res) => res.writeHead(301).end(),
      '/bad-location': (res) => res.writeHead(302, { location: 'http://[zz' }).end(),
      '/bad-gzip': (res) => res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end('garbage'),
      '/truncated-gzip': (res) => res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(html('<a href="/ok">x</a>'.repeat(50))).subarray(0, 60)),
      '/reset': (res) => res.socket?.destroy(),
      '/short': (res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
        res.write('<a href="/ok">');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      '/binary': (res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(100, 0xff)),
      '/no-type': (res) => res.writeHead(200).end('<!DOCTYPE html><a href="/from-sniffed">x</a>'),
      '/from-sniffed': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('<a href="/never">x</a>'),
      '/mute': (res) => res.writeHead(302, { location: `http://127.0.0.1:${mute.port}/` }).end(),
      '/slow': (res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html('late')), 2000),
    };
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      if (req.url === '/') {
        return res.writeHead(200, { 'content-type': 'text/html' }).end(html(Object.keys(answers).map((p) => `<a href="${p}">x</a>`).join('')));
      }
      const a = answers[req.url ?? ''];
      if (a !== undefined) return a(res);
      res.writeHead(404).end();
    });
    const db = tempDir();
    try {
      const report = await runCrawl({
        store: db.path,
        seeds: [`${server.origin}/`],
        allow: [...server.allow, { address: '127.0.0.1', port: mute.port }],
        fetch: { headersTimeoutMs: 500, deadlineMs: 1000 },
        concurrency: 8,
        perHost: 8,
        robotsRetryMs: 50,
        robotsAttempts: 2,
        // one fetch per broken answer, so each ends with its own code (retries: transient-retry.test.ts)
        maxRetries: 0,
      });
      // the silent port's robots.txt never answers: its URL waits for a later run
      expect(report.stoppedBecause).toBe('deferred');
      expect(report.deferred['robots-unreachable']).toBe(1);
      expect(server.requests).not.toContain('/never');
      expect(server.requests).toContain('/from-sniffed');
      for (const code of ['ERR_INVALID_LOCATION', 'ERR_DECODE', 'ERR_SOCKET', 'ERR_HEADERS_TIMEOUT']) expect(report.errors[code], code).toBeGreaterThan(0);
      const stats = await verifyStore(db.path);
      expect(stats.urls.queued).toBe(1);
      expect(stats.urls.admitted).toBe(stats.urls.queued + stats.urls.fetched + stats.urls.failed + stats.urls.redirected + stats.urls.pruned);
    } finally {
      db.remove();
      await server.close();
      await mute.close();
    }
  });
});
