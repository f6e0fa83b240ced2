/**
 * A multi-host site on loopback for the fleet's tests and bench (docs/reliability.md `fleet/worker-kill`,
 * oracle O2): one HTTP server on 127.0.0.1 answering N virtual hosts `s1.localhost … sN.localhost`
 * on one port, told apart by the Host header (the guard resolves `*.localhost` to loopback,
 * RFC 6761 §6.3). Pages come from a seeded PRNG, so the parent and every worker agree on them.
 *
 * Each host has a home page `/` and pages `/p1 … /p<M-1>`:
 * - a spanning tree from the home page reaches most pages of the host (one parent link each, so a
 *   lost page's links stay lost and nothing masks it); a page's parent is any earlier page, so the
 *   tree is shallow and each host's frontier wide, as on real sites (a parent among the last ten
 *   pages made a deep, narrow tree: a worker holding three hosts then found one or two pages
 *   ready among them and waited on the site's link structure, not on its answers);
 * - about one page in eight is an *orphan*: linked only from pages of other hosts, so it is found
 *   only when a link crosses workers (a fleet routes it through the host's inbox);
 * - a few extra links per page, within the host and across hosts, most of them to pages already
 *   known (deduplication, not reach);
 * - links are written now and then in duplicate forms: `./pJ`, `/x/../pJ`, `pJ#top`, the host in
 *   capitals (the ladder folds these), `?utm_source=feed` (the `tracking` preset folds it), and
 *   `/index.html` for the home page (a second URL of one document, folded by nothing: fetched once
 *   per host on top of the documents);
 * - robots.txt: 404 on odd hosts, allow-all on even ones.
 *
 * The server answers after `latencyMs`, records every request (host, target, start, end, status,
 * the document answered) and the most requests it had in flight per host at once, and knows its
 * ground truth: the set of documents (`host/path`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { seededRandom } from './seeded-random.js';

export interface MultiHostSiteOptions {
  /** Virtual hosts `s1.localhost … sN.localhost`. @default 8 */
  readonly hosts?: number;
  /** Documents per host (the home page included). @default 40 */
  readonly pagesPerHost?: number;
  /** Time before each answer, robots.txt included. @default 0 */
  readonly latencyMs?: number;
  /** The PRNG seed of the pages and links. @default 1 */
  readonly seed?: number;
  /** Share of the extra links that go to another host; 0 also makes no orphans. @default 0.3 */
  readonly crossHostLinks?: number;
}

export interface SiteRequest {
  /** The host name, without the port (`s3.localhost`). */
  readonly host: string;
  /** The request target (path and query). */
  readonly target: string;
  /** `performance.now()` when the request arrived. */
  readonly start: number;
  /** When the answer was finished (or the connection closed). */
  end: number | undefined;
  readonly status: number;
  /** `host/path` of the document answered (200 pages only, robots.txt excluded). */
  readonly document: string | undefined;
}

export interface MultiHostSite {
  readonly port: number;
  /** Host names, `s1.localhost` … */
  readonly hosts: readonly string[];
  /** The home page of each host: crawl seeds. */
  readonly seeds: readonly string[];
  /** The ground truth: every document, as `host/path`. */
  readonly documents: ReadonlySet<string>;
  /** Every request, in arrival order. */
  readonly requests: SiteRequest[];
  /** The most requests in flight at once, per host (robots.txt included). */
  maxInFlight(): Record<string, number>;
  /** Forget the requests and the maxima (between two crawls of one server). */
  reset(): void;
  close(): Promise<void>;
}

interface Page {
  /** Hrefs in document order. */
  readonly links: string[];
}

/** The pages of host `h` (index 0 is the home page `/`) of a site of `hosts` hosts. */
function generatePages(seed: number, hosts: number, perHost: number, port: number, cross: number): Page[][] {
  const rnd = seededRandom(seed);
  const site: Page[][] = Array.from({ length: hosts }, () => Array.from({ length: perHost }, () => ({ links: [] as string[] })));
  const pathOf = (j: number): string => (j === 0 ? '/' : `/p${j}`);
  const origin = (h: number, capitals = false): string => {
    const host = `s${h + 1}.localhost:${port}`;
    return `http://${capitals ? host.toUpperCase() : host}`;
  };
  let n = 0;
  /** A link from host `from` to page `j` of host `to`, now and then in a duplicate form. */
  const href = (from: number, to: number, j: number): string => {
    const form = n++ % 13;
    const path = pathOf(j);
    if (from !== to) return form === 4 ? `${origin(to, true)}${path}` : form === 8 ? `${origin(to)}${path}?utm_source=feed` : `${origin(to)}${path}`;
    if (j === 0) return form % 3 === 0 ? '/index.html' : '/';
    switch (form) {
      case 2:
        return `.${path}`;
      case 5:
        return `/x/..${path}`;
      case 7:
        return `${path}#top`;
      case 9:
        return `${origin(to, true)}${path}`;
      case 11:
        return `${path}?utm_source=feed&utm_medium=link`;
      default:
        return path;
    }
  };
  for (let h = 0; h < hosts; h++) {
    for (let j = 1; j < perHost; j++) {
      if (hosts > 1 && cross > 0 && rnd.next() < 0.125) {
        // an orphan: its one parent is on another host
        let other = rnd.int(0, hosts - 2);
        if (other >= h) other++;
        site[other]![rnd.int(0, perHost - 1)]!.links.push(href(other, h, j));
      } else {
        site[h]![rnd.int(0, j - 1)]!.links.push(href(h, h, j));
      }
    }
  }
  for (let h = 0; h < hosts; h++) {
    for (let j = 0; j < perHost; j++) {
      const extra = rnd.int(1, 4);
      for (let k = 0; k < extra; k++) {
        const to = hosts > 1 && rnd.next() < cross ? rnd.int(0, hosts - 1) : h;
        site[h]![j]!.links.push(href(h, to, rnd.next() < 0.8 ? rnd.int(0, Math.min(j + 5, perHost - 1)) : rnd.int(0, perHost - 1)));
      }
    }
  }
  return site;
}

/** Which page `/`, `/index.html` or `/pJ` (any query) names, or undefined. */
function pageIndex(path: string, perHost: number): number | undefined {
  if (path === '/' || path === '/index.html') return 0;
  const m = /^\/p(\d+)$/.exec(path);
  if (m === null) return undefined;
  const j = Number(m[1]);
  return j >= 1 && j < perHost ? j : undefined;
}

export async function startMultiHostSite(options: MultiHostSiteOptions = {}): Promise<MultiHostSite> {
  const hostCount = options.hosts ?? 8;
  const perHost = options.pagesPerHost ?? 40;
  const latencyMs = options.latencyMs ?? 0;
  const seed = options.seed ?? 1;
  if (!Number.isInteger(hostCount) || hostCount < 1 || !Number.isInteger(perHost) || perHost < 1) throw new TypeError('multi-host site: hosts and pagesPerHost must be integers >= 1');
  const hosts = Array.from({ length: hostCount }, (_, i) => `s${i + 1}.localhost`);
  const hostIndex = new Map(hosts.map((h, i) => [h, i]));
  const requests: SiteRequest[] = [];
  const inFlight = new Map<string, number>();
  const max = new Map<string, number>();
  let pages: Page[][] = [];

  const answer = (req: IncomingMessage, res: ServerResponse, host: string, target: string): SiteRequest => {
    const h = hostIndex.get(host);
    const path = target.split('?')[0]!.split('#')[0]!;
    if (h === undefined) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected');
      return { host, target, start: 0, end: undefined, status: 421, document: undefined };
    }
    if (path === '/robots.txt') {
      if (h % 2 === 0) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return { host, target, start: 0, end: undefined, status: h % 2 === 0 ? 404 : 200, document: undefined };
    }
    const j = pageIndex(path, perHost);
    if (j === undefined || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><p>no such page');
      return { host, target, start: 0, end: undefined, status: 404, document: undefined };
    }
    const doc = j === 0 ? '/' : `/p${j}`;
    const body = pages[h]![j]!.links.map((l, k) => `<li><a href="${l}">link ${k}</a>`).join('\n');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>${host}${doc}</title></head><body><h1>${host}${doc}</h1><ul>\n${body}\n</ul></body></html>\n`);
    return { host, target, start: 0, end: undefined, status: 200, document: `${host}${doc}` };
  };

  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const start = performance.now();
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const target = req.url ?? '/';
    const n = (inFlight.get(host) ?? 0) + 1;
    inFlight.set(host, n);
    if (n > (max.get(host) ?? 0)) max.set(host, n);
    let record: SiteRequest | undefined;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      inFlight.set(host, (inFlight.get(host) ?? 1) - 1);
      if (record !== undefined) record.end = performance.now();
    };
    res.on('finish', end);
    res.on('close', end);
    const go = (): void => {
      if (res.destroyed) {
        record = { host, target, start, end: undefined, status: 0, document: undefined };
        requests.push(record);
        return end();
      }
      record = { ...answer(req, res, host, target), start };
      requests.push(record);
      if (res.writableFinished) end();
    };
    if (latencyMs > 0) setTimeout(go, latencyMs);
    else go();
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  pages = generatePages(seed, hostCount, perHost, port, options.crossHostLinks ?? 0.3);
  const documents = new Set<string>();
  for (const h of hosts) for (let j = 0; j < perHost; j++) documents.add(`${h}${j === 0 ? '/' : `/p${j}`}`);
  return {
    port,
    hosts,
    seeds: hosts.map((h) => `http://${h}:${port}/`),
    documents,
    requests,
    maxInFlight: () => Object.fromEntries([...max].sort()),
    reset: () => {
      requests.length = 0;
      max.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a crawl's requests (a slice of `site.requests`) did against the site's ground truth. */
export interface SiteCrawlSummary {
  readonly requests: number;
  readonly robotsRequests: number;
  /** Documents answered at least once, of `site.documents.size`. */
  readonly documentsFetched: number;
  readonly missing: readonly string[];
  /** Requests for a (host, target) asked before, robots.txt apart: fetches repeated. */
  readonly repeatedFetches: number;
  /** The repeated (host, target) pairs, with how often each was asked. */
  readonly repeated: Readonly<Record<string, number>>;
  /** robots.txt requests beyond one per host. */
  readonly robotsRefetches: number;
  /** Requests (robots.txt included) per document of the ground truth. */
  readonly requestsPerDocument: number;
  /** Page requests (robots.txt apart) per document. */
  readonly pageRequestsPerDocument: number;
  /** Documents answered per second, between the first request and the last answer. */
  readonly pagesPerSecond: number;
  readonly seconds: number;
  /** The longest time in that window with no request in flight on the whole site (a stall). */
  readonly longestIdleSeconds: number;
}

export function summarizeCrawl(site: Pick<MultiHostSite, 'documents' | 'hosts'>, requests: readonly SiteRequest[]): SiteCrawlSummary {
  const seen = new Map<string, number>();
  const docs = new Set<string>();
  let robots = 0;
  let first = Infinity;
  let last = -Infinity;
  let pageAnswers = 0;
  for (const r of requests) {
    first = Math.min(first, r.start);
    last = Math.max(last, r.end ?? r.start);
    if (r.target === '/robots.txt') {
      robots++;
      continue;
    }
    const k = `${r.host}${r.target}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
    if (r.document !== undefined) {
      docs.add(r.document);
      pageAnswers++;
    }
  }
  const repeated: Record<string, number> = {};
  let repeatedFetches = 0;
  for (const [k, n] of seen) {
    if (n > 1) {
      repeated[k] = n;
      repeatedFetches += n - 1;
    }
  }
  const seconds = requests.length === 0 ? 0 : (last - first) / 1000;
  // sweep the requests by start: a gap is a start after every earlier request had ended
  let idle = 0;
  let reach = -Infinity;
  for (const r of [...requests].sort((a, b) => a.start - b.start)) {
    if (reach !== -Infinity && r.start > reach) idle = Math.max(idle, r.start - reach);
    reach = Math.max(reach, r.end ?? r.start);
  }
  const round = (x: number, d = 1000): number => Math.round(x * d) / d;
  return {
    requests: requests.length,
    robotsRequests: robots,
    documentsFetched: docs.size,
    missing: [...site.documents].filter((d) => !docs.has(d)).sort(),
    repeatedFetches,
    repeated,
    robotsRefetches: Math.max(0, robots - site.hosts.length),
    requestsPerDocument: round(requests.length / site.documents.size),
    pageRequestsPerDocument: round((requests.length - robots) / site.documents.size),
    pagesPerSecond: seconds > 0 ? round(pageAnswers / seconds, 10) : 0,
    seconds: round(seconds, 100),
    longestIdleSeconds: round(idle / 1000, 100),
  };
}
