/**
 * Redirect loops and long chains in a real crawl (docs/reliability.md `redirect/loop`,
 * `redirect/long-chain`): A → B → A, A → A, three-cycles, loops through case, slash, percent-
 * encoding, dot-segment and port variants (where the target is the source's own normal form),
 * loops that cross origins (each hop left to the frontier), and a 50-hop chain.
 *
 * Measured: server hits per path (each hop requested once), the loop evidence, the store's
 * `verify()` (aliases acyclic and compressed), conservation, and every URL in a terminal state with
 * a code (`ERR_TOO_MANY_REDIRECTS` on the URL that broke the cap).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { auditStore, describeAudit, type Audit } from '../support/store-audit.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

let a: TestServer;
let b: TestServer;

/** Redirects of origin a: path → Location (relative unless it names another origin). */
function redirectsOfA(): Record<string, readonly [number, string]> {
  return {
    // A → B → A, and A → A
    '/A': [301, '/B'],
    '/B': [301, '/A'],
    '/self': [301, '/self'],
    // a three-cycle of permanent redirects
    '/r1': [301, '/r2'],
    '/r2': [308, '/r3'],
    '/r3': [301, '/r1'],
    // a three-cycle with a temporary hop: 302 is evidence, not an alias, so no alias cycle forms
    '/t1': [301, '/t2'],
    '/t2': [302, '/t3'],
    '/t3': [308, '/t1'],
    // path case: /Case and /case are distinct URLs that point at each other
    '/Case': [301, '/case'],
    '/case': [301, '/Case'],
    // slash variants
    '/dir': [301, '/dir/'],
    '/dir/': [301, '/dir'],
    // the target is the source's own normal form (servers that "canonicalize" into a loop)
    '/~tilde': [301, '/%7Etilde'],
    '/dots': [301, '/./x/../dots'],
    '/port': [301, `http://127.0.0.1:0${a.port}/port`],
    '/host-case': [301, `HTTP://127.0.0.1:${a.port}/host-case`],
    // crosses origins: a/cross → b/back → a/cross (never followed in one chain: another origin)
    '/cross': [301, `${b.origin}/back`],
  };
}

const CHAIN = 50;

beforeAll(async () => {
  b = await httpServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/back') return res.writeHead(301, { location: `${a.origin}/cross` }).end();
    res.writeHead(404).end();
  });
  a = await httpServer((req, res) => {
    const p = req.url ?? '/';
    if (p === '/robots.txt') return res.writeHead(404).end();
    const chain = /^\/chain\/(\d+)$/.exec(p);
    if (chain !== null) {
      const n = Number(chain[1]);
      if (n < CHAIN) return res.writeHead(301, { location: `/chain/${n + 1}` }).end();
      return res.writeHead(200, { 'content-type': 'text/html' }).end(html('end of the chain'));
    }
    if (p === '/') {
      const links = [...Object.keys(redirectsOfA()), '/chain/0'];
      return res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">${l}</a>`).join('')));
    }
    const r = redirectsOfA()[p];
    if (r !== undefined) return res.writeHead(r[0], { location: r[1] }).end();
    res.writeHead(404).end();
  });
});

afterAll(async () => {
  await a.close();
  await b.close();
});

function hits(server: TestServer): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of server.requests) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

describe('redirect loops and chains in a crawl', () => {
  let report: CrawlReport;
  let audit: Audit;
  const db = tempDir();

  beforeAll(async () => {
    report = await runCrawl({
      store: db.path,
      seeds: [`${a.origin}/`],
      allow: [...a.allow, ...b.allow],
      concurrency: 4,
      perHost: 2,
    });
    audit = await auditStore(db.path);
    console.log(`redirect loops: ${describeAudit(audit)}; loops ${audit.stats.loops}, aliases ${audit.stats.aliases}; requests a ${a.requests.length}, b ${b.requests.length}`);
  }, 30_000);
  afterAll(() => db.remove());

  it('terminates, with no URL left queued', () => {
    expect(report.stoppedBecause).toBe('done');
    expect(audit.stats.urls.queued).toBe(0);
  });

  it('each hop of every loop is requested exactly once', () => {
    const h = hits(a);
    for (const p of Object.keys(redirectsOfA())) expect(h.get(p), p).toBe(1);
    expect(hits(b).get('/back')).toBe(1);
    // the equivalent forms were never requested under another spelling
    for (const p of ['/%7Etilde', '/./x/../dots', '/x/../dots']) expect(h.get(p) ?? 0, p).toBe(0);
  });

  it('the loops are recorded as loops; the alias graph stays acyclic (verify)', () => {
    expect(audit.problems).toEqual([]);
    // A/B, self, r1-r3, Case/case, dir, ~tilde, dots, port, host-case, cross/back; not t1-t3
    expect(audit.stats.loops).toBe(10);
    expect(audit.stats.temporaryRedirects).toBe(1);
  });

  it('a 50-hop chain stops at the cap: cap + 1 requests, ERR_TOO_MANY_REDIRECTS stored on the URL that broke it', () => {
    const chainHits = a.requests.filter((r) => r.startsWith('/chain/'));
    expect(chainHits).toHaveLength(11); // maxRedirects 10
    expect(new Set(chainHits).size).toBe(11);
    const broke = audit.entries.filter((e) => e.key.includes('/chain/'));
    const failed = broke.filter((e) => e.entry.s === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.key).toMatch(/\/chain\/10$/);
    expect(failed[0]!.entry.e).toBe('ERR_TOO_MANY_REDIRECTS');
    expect(broke.filter((e) => e.entry.s === 'redirected')).toHaveLength(10);
  });

  it('every URL ends in a terminal state with a code; conservation holds', () => {
    expect(audit.open).toEqual([]);
    expect(audit.conservationGap).toBe(0);
  });
});
