/**
 * The fetcher against hostile loopback servers (docs/reliability.md `redirect/*`, `body/*`, `slow/*`):
 * every redirect hop returned, loops and long chains stopped, forbidden targets not followed,
 * decompression bombs capped with bounded memory, slow servers ended by timeouts and the deadline.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher, originForm } from '../../src/crawler/http/fetch.js';
import { httpServer, tcpListener, type TestServer } from './support.js';

const PAGE = '<!doctype html><title>x</title><p>hello, decoded world</p>'.repeat(20);

function encodeAll(body: Buffer, codings: string[]): Buffer {
  let b = body;
  for (const c of codings) {
    if (c === 'gzip') b = gzipSync(b);
    else if (c === 'deflate') b = deflateSync(b);
    else if (c === 'br') b = brotliCompressSync(b);
  }
  return b;
}

/** Writes gzip members of 1 MiB of zeros until the client goes away: up to `totalMiB` MiB decoded. */
function gzipBomb(res: ServerResponse, totalMiB: number): void {
  const member = gzipSync(Buffer.alloc(1 << 20), { level: 9 });
  res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
  let sent = 0;
  const pump = (): void => {
    while (sent < totalMiB) {
      sent++;
      if (!res.write(member)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => {
    sent = totalMiB;
  });
  pump();
}

let server: TestServer;
let other: Awaited<ReturnType<typeof tcpListener>>;
let fetcher: Fetcher;
const brBomb = brotliCompressSync(Buffer.alloc(64 << 20), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });

beforeAll(async () => {
  other = await tcpListener((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'));
  server = await httpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const m = /^\/chain\/(\d+)$/.exec(p);
    if (m !== null) {
      const n = Number(m[1]);
      if (n >= 50) return res.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain');
      return res.writeHead(301, { location: `/chain/${n + 1}` }).end();
    }
    switch (p) {
      case '/a':
        return res.writeHead(301, { location: '/b?x=1#frag' }).end();
      case '/b':
        return res.writeHead(302, { location: `${server.origin}/c` }).end('moved');
      case '/c':
        return res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' }).end(PAGE);
      case '/loop1':
        return res.writeHead(301, { location: '/loop2' }).end();
      case '/loop2':
        return res.writeHead(308, { location: '/loop1' }).end();
      case '/self':
        return res.writeHead(301, { location: '/self' }).end();
      case '/to-private':
        return res.writeHead(301, { location: `http://127.0.0.1:${other.port}/secret` }).end();
      case '/to-private-name':
        return res.writeHead(301, { location: `http://localhost:${other.port}/secret` }).end();
      case '/to-file':
        return res.writeHead(301, { location: 'file:///etc/passwd' }).end();
      case '/to-js':
        return res.writeHead(302, { location: 'javascript:alert(1)' }).end();
      case '/to-ftp':
        return res.writeHead(307, { location: 'ftp://127.0.0.1/x' }).end();
      case '/bad-location':
        return res.writeHead(301, { location: 'http://[::1' }).end();
      case '/target':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(String(req.url));
      case '/ua':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(String(req.headers['user-agent']));
      case '/encoded': {
        const codings = (url.searchParams.get('c') ?? '').split(',').filter((c) => c !== '');
        const body = encodeAll(Buffer.from(PAGE), codings);
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': codings.join(', ') }).end(body);
      }
      case '/raw-deflate':
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' }).end(deflateRawSync(Buffer.from(PAGE)));
      case '/unknown-coding':
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'zstd' }).end('opaque');
      case '/corrupt-gzip':
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all, no'));
      case '/gzip-bomb':
        return gzipBomb(res, 10 * 1024);
      case '/br-bomb':
        return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' }).end(brBomb);
      case '/big-declared':
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(20 << 20) });
        return res.write(Buffer.alloc(1024));
      case '/big-chunked': {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let n = 0;
        const pump = (): void => {
          while (n++ < 400) if (!res.write(chunk)) return void res.once('drain', pump);
          res.end();
        };
        res.on('close', () => (n = 400));
        return pump();
      }
      case '/drip': {
        res.writeHead(200, { 'content-type': 'text/html' });
        const t = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(t));
        return;
      }
      default:
        return res.writeHead(404).end();
    }
  });
  fetcher = new Fetcher({ guard: { allow: server.allow }, deadlineMs: 5000 });
});

afterAll(async () => {
  await fetcher.close();
  await server.close();
  await other.close();
});

describe('redirects', () => {
  it('returns every hop and ends where the chain ends', async () => {
    const r = await fetcher.fetch(`${server.origin}/a`, { keepBody: true });
    expect(r.error).toBeUndefined();
    expect(r.hops).toEqual([
      { url: `${server.origin}/a`, status: 301, location: `${server.origin}/b?x=1` },
      { url: `${server.origin}/b?x=1`, status: 302, location: `${server.origin}/c` },
    ]);
    expect(r.finalUrl).toBe(`${server.origin}/c`);
    expect(r.status).toBe(200);
    expect(r.requests).toBe(3);
    expect(r.mediaType).toBe('text/html');
    expect(r.body!.toString()).toBe(PAGE);
    expect(r.contentHash).toBe(createHash('sha256').update(PAGE).digest('hex').slice(0, 32));
  });

  it('detects loops: A → B → A and A → A', async () => {
    const r = await fetcher.fetch(`${server.origin}/loop1`);
    expect(r.error?.code).toBe('ERR_REDIRECT_LOOP');
    expect(r.hops.map((h) => h.status)).toEqual([301, 308]);
    expect(r.unfollowed?.location).toBe(`${server.origin}/loop1`);
    expect(r.requests).toBe(2);
    const s = await fetcher.fetch(`${server.origin}/self`);
    expect(s.error?.code).toBe('ERR_REDIRECT_LOOP');
    expect(s.requests).toBe(1);
  });

  it('a 50-hop chain stops at the cap: ERR_TOO_MANY_REDIRECTS after cap + 1 requests', async () => {
    const before = server.requests.length;
    const r = await fetcher.fetch(`${server.origin}/chain/0`);
    expect(r.error?.code).toBe('ERR_TOO_MANY_REDIRECTS');
    expect(r.requests).toBe(21);
    expect(server.requests.length - before).toBe(21);
    expect(r.hops).toHaveLength(21);
    expect(r.unfollowed?.location).toBe(`${server.origin}/chain/21`);
    const capped = await new Fetcher({ guard: { allow: server.allow }, maxRedirects: 3 }).fetch(`${server.origin}/chain/0`);
    expect(capped.error?.code).toBe('ERR_TOO_MANY_REDIRECTS');
    expect(capped.requests).toBe(4);
  });

  it('a redirect to a forbidden address is not followed: 0 connections to it', async () => {
    for (const path of ['/to-private', '/to-private-name']) {
      const r = await fetcher.fetch(`${server.origin}${path}`);
      expect(r.error?.code, path).toBe('ERR_BLOCKED_ADDRESS');
      expect(r.hops).toHaveLength(1);
    }
    expect(other.connections()).toBe(0);
  });

  it('a redirect to another scheme is not followed', async () => {
    for (const path of ['/to-file', '/to-js', '/to-ftp']) {
      const r = await fetcher.fetch(`${server.origin}${path}`);
      expect(r.error?.code, path).toBe('ERR_UNSUPPORTED_SCHEME');
      expect(r.unfollowed).toBeDefined();
      expect(r.requests).toBe(1);
    }
  });

  it('an unparsable Location is an error; onRedirect may decline a hop', async () => {
    expect((await fetcher.fetch(`${server.origin}/bad-location`)).error?.code).toBe('ERR_INVALID_LOCATION');
    const seen: string[] = [];
    const r = await fetcher.fetch(`${server.origin}/a`, {
      onRedirect: (hop) => {
        seen.push(hop.location);
        return false;
      },
    });
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(301);
    expect(r.unfollowed?.location).toBe(`${server.origin}/b?x=1`);
    expect(seen).toEqual([`${server.origin}/b?x=1`]);
    expect(r.requests).toBe(1);
  });
});

describe('request target (RFC 9112 §3.2.1)', () => {
  it('keeps the "?" of an empty query: /target? is not /target on the wire', async () => {
    for (const [url, wire] of [['/target?', '/target?'], ['/target', '/target'], ['/target?#f', '/target?'], ['/target?a=1', '/target?a=1']] as const) {
      const r = await fetcher.fetch(`${server.origin}${url}`, { keepBody: true });
      expect(r.body!.toString(), url).toBe(wire);
    }
    expect(originForm(new URL('http://a/x%3F'))).toBe('/x%3F');
    expect(originForm(new URL('http://a/x?#y'))).toBe('/x?');
    expect(originForm(new URL('http://u:p@a/x?'))).toBe('/x?');
  });
});

describe('bodies', () => {
  it('names the crawler in User-Agent', async () => {
    const r = await fetcher.fetch(`${server.origin}/ua`, { keepBody: true });
    expect(r.body!.toString()).toMatch(/^urldedup\/\d+\.\d+\.\d+ \(\+https:\/\/.+\)$/);
  });

  it.each([['gzip'], ['deflate'], ['br'], ['gzip,br'], ['br,gzip,deflate']])('decodes %s', async (c) => {
    const r = await fetcher.fetch(`${server.origin}/encoded?c=${c}`, { keepBody: true });
    expect(r.error).toBeUndefined();
    expect(r.body!.toString()).toBe(PAGE);
    expect(r.decodedBytes).toBe(PAGE.length);
  });

  it('decodes raw DEFLATE sent as deflate', async () => {
    const r = await fetcher.fetch(`${server.origin}/raw-deflate`, { keepBody: true });
    expect(r.body?.toString()).toBe(PAGE);
  });

  it('refuses more stacked codings than maxEncodings (3)', async () => {
    for (const c of ['gzip,gzip,gzip,gzip', 'gzip,br,deflate,gzip,br,gzip']) {
      const r = await fetcher.fetch(`${server.origin}/encoded?c=${c}`);
      expect(r.error?.code, c).toBe('ERR_TOO_MANY_ENCODINGS');
    }
  });

  it('an unknown coding makes the body opaque; a corrupt one is ERR_DECODE', async () => {
    let head: unknown;
    const r = await fetcher.fetch(`${server.origin}/unknown-coding`, { onHead: (h) => void (head = h.decodable) });
    expect(r.error).toBeUndefined();
    expect(head).toBe(false);
    expect((await fetcher.fetch(`${server.origin}/corrupt-gzip`)).error?.code).toBe('ERR_DECODE');
  });

  it('a gzip bomb (10 GiB of zeros, streamed) stops at the decoded cap with bounded memory', async () => {
    global.gc?.();
    const rss = process.memoryUsage().rss;
    const t = performance.now();
    const r = await fetcher.fetch(`${server.origin}/gzip-bomb`);
    expect(r.error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(r.decodedBytes).toBeLessThanOrEqual(10 * 1024 * 1024);
    expect(r.wireBytes).toBeLessThan(1024 * 1024);
    expect(performance.now() - t).toBeLessThan(5000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });

  it('a brotli bomb stops at the decoded cap', async () => {
    const small = new Fetcher({ guard: { allow: server.allow }, maxDecodedBytes: 1 << 20 });
    const r = await small.fetch(`${server.origin}/br-bomb`);
    await small.close();
    expect(r.error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(r.decodedBytes).toBeLessThanOrEqual(1 << 20);
  });

  it('the wire cap: a declared length over it fails at once, an undeclared one when crossed', async () => {
    const small = new Fetcher({ guard: { allow: server.allow }, maxWireBytes: 1 << 20 });
    const a = await small.fetch(`${server.origin}/big-declared`);
    expect(a.error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(a.wireBytes).toBe(0);
    const b = await small.fetch(`${server.origin}/big-chunked`);
    expect(b.error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(b.wireBytes).toBeGreaterThan(1 << 20);
    expect(b.wireBytes).toBeLessThan(2 << 20);
    const t = await small.fetch(`${server.origin}/big-chunked`, { truncate: true, maxDecodedBytes: 1000, keepBody: true });
    expect(t.error).toBeUndefined();
    expect(t.truncated).toBe(true);
    expect(t.body).toHaveLength(1000);
    await small.close();
  });
});

describe('slow servers', () => {
  it('headers one byte at a time: ended by headersTimeout', async () => {
    const slow = await tcpListener((s) => {
      const head = 'HTTP/1.1 200 OK\r\nx-slow: ' + 'a'.repeat(100);
      let i = 0;
      const t = setInterval(() => (i < head.length ? s.write(head[i++]!) : clearInterval(t)), 50);
      s.on('close', () => clearInterval(t));
    });
    const f = new Fetcher({ guard: { allow: [{ address: '127.0.0.1', port: slow.port }] }, headersTimeoutMs: 400, deadlineMs: 5000 });
    const t = performance.now();
    const r = await f.fetch(`http://127.0.0.1:${slow.port}/`);
    expect(r.error?.code).toBe('ERR_HEADERS_TIMEOUT');
    expect(performance.now() - t).toBeLessThan(3000);
    // the deadline ends it too when the header timeout is long
    const g = new Fetcher({ guard: { allow: [{ address: '127.0.0.1', port: slow.port }] }, deadlineMs: 500 });
    const t2 = performance.now();
    expect((await g.fetch(`http://127.0.0.1:${slow.port}/`)).error?.code).toBe('ERR_DEADLINE');
    expect(performance.now() - t2).toBeLessThan(3000);
    await Promise.all([f.destroy(), g.destroy()]);
    await slow.close();
  });

  it('accept and silence: ended by headersTimeout', async () => {
    const mute = await tcpListener();
    const f = new Fetcher({ guard: { allow: [{ address: '127.0.0.1', port: mute.port }] }, headersTimeoutMs: 300 });
    expect((await f.fetch(`http://127.0.0.1:${mute.port}/`)).error?.code).toBe('ERR_HEADERS_TIMEOUT');
    await f.destroy();
    await mute.close();
  });

  it('a dripping body (inside bodyTimeout) is ended by the total deadline', async () => {
    const f = new Fetcher({ guard: { allow: server.allow }, bodyTimeoutMs: 1000, deadlineMs: 700, minBytesPerSecond: 0 });
    const t = performance.now();
    const r = await f.fetch(`${server.origin}/drip`);
    expect(r.error?.code).toBe('ERR_DEADLINE');
    expect(performance.now() - t).toBeLessThan(3000);
    expect(r.wireBytes).toBeGreaterThan(0);
    await f.destroy();
  });

  it('a dripping body is ended by the minimum throughput after the grace period', async () => {
    const f = new Fetcher({ guard: { allow: server.allow }, minBytesPerSecond: 100, throughputGraceMs: 300 });
    const t = performance.now();
    const r = await f.fetch(`${server.origin}/drip`);
    expect(r.error?.code).toBe('ERR_TOO_SLOW');
    expect(performance.now() - t).toBeLessThan(3000);
    await f.destroy();
  });

  it('connection refused is ERR_SOCKET', async () => {
    const gone = await tcpListener();
    const port = gone.port;
    await gone.close();
    const f = new Fetcher({ guard: { allow: [{ address: '127.0.0.1', port }] } });
    const r = await f.fetch(`http://127.0.0.1:${port}/`);
    expect(r.error?.code).toBe('ERR_SOCKET');
    expect(r.error?.message).toMatch(/ECONNREFUSED/);
    await f.close();
  });
});
