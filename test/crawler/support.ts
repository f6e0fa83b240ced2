/** Loopback servers and temp stores for the crawler tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { expect } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { GateDeps } from '../../src/crawler/policy/fetch-gates.js';
import { NetworkGuard, type AllowedEndpoint } from '../../src/crawler/http/guard.js';
import { Politeness } from '../../src/crawler/policy/politeness.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';
import { HostBudget } from '../../src/crawler/policy/traps.js';
import { collectGarbage } from '../support/rss-sampler.js';

export interface TestServer {
  readonly port: number;
  readonly origin: string;
  /** Request targets, in order. */
  readonly requests: string[];
  /** TCP connections accepted. */
  connections: number;
  /** The guard allowance for this server only. */
  readonly allow: AllowedEndpoint[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 that records every request and connection. */
export async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  const state = { connections: 0 };
  server.on('connection', (s: Socket) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return state.connections;
    },
    set connections(v: number) {
      state.connections = v;
    },
    allow: [{ address: '127.0.0.1', port }],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A raw TCP listener on 127.0.0.1 that counts connections (and answers nothing unless told). */
export async function tcpListener(onSocket?: (s: Socket) => void): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((s) => {
    n++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    onSocket?.(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A temp folder removed by the returned function. */
export function tempDir(prefix = 'urldedup-crawl-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function html(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
}

/** Counts the body bytes written to `res` into `sent` under `path` (what went on the wire, after any compression). */
export function countWrites(res: ServerResponse, path: string, sent: Map<string, number>): ServerResponse {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    const n = Buffer.isBuffer(chunk) ? chunk.length : typeof chunk === 'string' ? Buffer.byteLength(chunk) : 0;
    sent.set(path, (sent.get(path) ?? 0) + n);
    return write(chunk, ...rest);
  }) as typeof res.write;
  return res;
}

/**
 * The RSS the memory tests measure against: a crawl of `site`'s `/warm-up` in a throwaway store
 * first (the first LevelDB open, module loads, zlib and undici set-up are not the case's), then a
 * full GC. RSS does not shrink back, so every case is measured against this.
 */
export async function rssBaselineAfterWarmUp(site: TestServer): Promise<number> {
  const db = tempDir();
  try {
    await runCrawl({ store: db.path, seeds: [`${site.origin}/warm-up`], allow: site.allow });
  } finally {
    db.remove();
  }
  collectGarbage();
  return process.memoryUsage.rss();
}

/** The guard allowance for a loopback site on `port` (both address families, that port only). */
export function loopbackAllow(port: number): AllowedEndpoint[] {
  return [
    { address: '127.0.0.1', port },
    { address: '::1', port },
  ];
}

/** Requests sent more than once (robots.txt aside: the www origin's one redirects to the bare one's). */
export function repeatedTargets(requests: readonly { readonly host: string; readonly target: string }[]): string[] {
  const seen = new Map<string, number>();
  for (const r of requests) if (r.target !== '/robots.txt') seen.set(`${r.host} ${r.target}`, (seen.get(`${r.host} ${r.target}`) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/**
 * Nothing is requested twice, but for the learner's rechecks: before differing content counts
 * against a rule, one page of its directory is fetched again, to learn whether pages there keep
 * their content (a page with a fresh token on every fetch says nothing). At most one per
 * directory, each fetched twice in all.
 */
export function expectOnlyRechecksRepeated(requests: readonly { readonly host: string; readonly target: string }[]): void {
  const repeated = repeatedTargets(requests);
  const dirs = repeated.map((t) => t.slice(0, t.lastIndexOf('/') + 1));
  expect(new Set(dirs).size, repeated.join(' ')).toBe(dirs.length);
  for (const t of repeated) expect(requests.filter((r) => `${r.host} ${r.target}` === t)).toHaveLength(2);
}

/**
 * What the fetch gates read of a crawl (src/crawler/policy/fetch-gates.ts), built from real parts: a scope
 * of `http://a.example/`, `http://seed.example/` as a seed form, two pages a host, no robots.txt.
 */
export function gateDeps(over: Partial<GateDeps> = {}): GateDeps {
  return {
    scope: () => new CrawlScope({ seeds: ['http://a.example/'] }),
    seedForms: new Set(['http://seed.example/']),
    budget: new HostBudget(2),
    guard: new NetworkGuard(),
    robots: undefined,
    politeness: new Politeness(),
    robotsAttempts: 3,
    stopping: () => false,
    aborted: () => false,
    pages: { started: 0, max: 10 },
    ...over,
  };
}
