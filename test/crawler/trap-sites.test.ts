/**
 * Crawler traps as whole sites (docs/reliability.md `trap/*`), each crawled for real:
 *
 * - an endless calendar (`/cal?m=YYYY-MM` linking the next and previous month forever) beside an
 *   ordinary host in the same crawl: the calendar stops at the per-host budget, the rest of it
 *   waits in the frontier with its reason (`trap:host-budget`), the other host is crawled whole,
 *   and a second run gets no fresh budget: the budget counts the pages of every run;
 * - fresh session ids on every link (`;jsessionid=` and `?sid=` of 32 hex, new on every answer):
 *   with the `session-ids` preset every variant collapses onto its page (one fetch per page) and
 *   real parameters are not merged (`?id=`, a short numeric `?sid=12`); without the preset the
 *   per-host budget holds;
 * - ever-deepening relative links on a host that serves any path: `a/b/` ends at the
 *   repeated-segment rule (default 2 repeats), `next/` too, and distinct segments `s<n+1>/` end at
 *   `maxPathDepth` (default 20);
 * - a soft-404 wildcard host (200 and one body for every path, linking `a/ b/ c/`): the budget
 *   holds, every page's content hash is recorded (one document), and nothing is merged by it.
 *
 * Measured: server hits, the deepest path fetched, refused and deferred counts by reason, distinct
 * keys, aliases, and the store's verify and conservation.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCrawl, type CrawlOptions } from '../../src/crawler/crawl.js';
import { defaultTrapOptions } from '../../src/crawler/policy/traps.js';
import { auditStore, describeAudit, type Audit, type AuditOptions } from '../support/store-audit.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

const links = (hrefs: readonly string[]): string => html(hrefs.map((h) => `<a href="${h}">x</a>`).join(''));

/**
 * One crawl of `site` into a fresh store: its report and the store's audit, with what every case
 * asserts checked here (no problem in the store, nothing lost); store and site are gone after.
 */
async function crawlSite(
  site: TestServer,
  options: Omit<CrawlOptions, 'store' | 'allow'>,
  auditOptions?: AuditOptions,
): Promise<{ report: Awaited<ReturnType<typeof runCrawl>>; audit: Audit }> {
  const db = tempDir();
  try {
    const report = await runCrawl({ ...options, store: db.path, allow: site.allow });
    const audit = await auditStore(db.path, auditOptions);
    expect(audit.problems).toEqual([]);
    expect(audit.conservationGap).toBe(0);
    return { report, audit };
  } finally {
    db.remove();
    await site.close();
  }
}

/** The report's link refusals by a trap rule (the depth limit is counted, not stored: see below). */
function trapRefusals(refused: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [reason, n] of Object.entries(refused)) {
    if (reason.startsWith('trap:')) out[reason] = n;
  }
  return out;
}

/** The store's pruned counts whose reason starts with `prefix` (or does not, with `not`). */
function prunedBy(pruned: Readonly<Record<string, number>>, keep: (reason: string) => boolean): Record<string, number> {
  return Object.fromEntries(Object.entries(pruned).filter(([reason]) => keep(reason)));
}
const isTrap = (reason: string): boolean => reason.startsWith('trap:');

function month(m: number): string {
  const y = 2000 + Math.floor(m / 12);
  return `${String(y).padStart(4, '0')}-${String((m % 12) + 1).padStart(2, '0')}`;
}
function parseMonth(s: string): number {
  const [y, mm] = s.split('-').map(Number);
  return ((y ?? 2000) - 2000) * 12 + ((mm ?? 1) - 1);
}

describe('an endless calendar beside an ordinary host', () => {
  it('stops at the per-host budget with the rest deferred by reason; the other host is crawled whole; a resume gets no fresh budget', async () => {
    const BUDGET = 25;
    const OTHER = 20;
    const calendar = await httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return res.writeHead(404).end();
      const m = parseMonth(u.searchParams.get('m') ?? '2024-06');
      res.writeHead(200, { 'content-type': 'text/html' }).end(links([`/cal?m=${month(m + 1)}`, `/cal?m=${month(m - 1)}`]));
    });
    const other = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      const n = Number(/^\/o\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
      res.writeHead(200, { 'content-type': 'text/html' }).end(links([n + 1, n + 2].filter((k) => k < OTHER).map((k) => `/o/${k}`)));
    });
    const db = tempDir();
    try {
      const options = {
        store: db.path,
        seeds: [`${calendar.origin}/cal?m=2024-06`, `${other.origin}/o/0`],
        allow: [...calendar.allow, ...other.allow],
        traps: { maxPagesPerHost: BUDGET, patternEmptyRun: 1_000 },
      };
      const first = await runCrawl(options);
      const calHits = calendar.requests.filter((r) => r.startsWith('/cal'));
      const audit = await auditStore(db.path);
      console.log(`calendar run 1: ${calHits.length} calendar hits, other host ${other.requests.length - 1}; deferred ${JSON.stringify(first.deferred)}; ${describeAudit(audit)}`);
      expect(calHits).toHaveLength(BUDGET);
      expect(new Set(calHits).size).toBe(BUDGET);
      expect(first.stoppedBecause).toBe('deferred');
      expect(first.deferred['trap:host-budget']).toBeGreaterThan(0);
      expect(new Set(other.requests.filter((r) => r.startsWith('/o/'))).size).toBe(OTHER);
      expect(audit.stats.frontier.hosts[`127.0.0.1:${calendar.port}`]).toBeGreaterThan(0);
      expect(audit.stats.frontier.hosts[`127.0.0.1:${other.port}`] ?? 0).toBe(0);
      // link refusals are recorded one by one; the host budget only defers (the rest stays queued)
      expect(prunedBy(audit.stats.pruned, isTrap)).toEqual(trapRefusals(first.links.refused));
      expect(audit.stats.pruned['trap:host-budget']).toBeUndefined();
      expect(audit.problems).toEqual([]);
      expect(audit.conservationGap).toBe(0);

      // the budget holds over runs: a resume gets no fresh one (the pages fetched are in the store)
      const second = await runCrawl({ ...options, seeds: [] });
      const calHits2 = calendar.requests.filter((r) => r.startsWith('/cal')).slice(BUDGET);
      console.log(`calendar run 2: ${calHits2.length} more calendar hits; deferred ${JSON.stringify(second.deferred)}`);
      expect(calHits2).toHaveLength(0);
      expect(second.stoppedBecause).toBe('deferred');
      expect(second.deferred['trap:host-budget']).toBeGreaterThan(0);
    } finally {
      db.remove();
      await calendar.close();
      await other.close();
    }
  }, 30_000);
});

describe('fresh session ids on every link', () => {
  const REAL = 10;
  async function sessionSite(): Promise<Awaited<ReturnType<typeof httpServer>>> {
    return httpServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/robots.txt') return res.writeHead(404).end();
      const fresh = (): string => randomBytes(16).toString('hex').toUpperCase();
      const hrefs: string[] = [];
      for (let k = 0; k < REAL; k++) hrefs.push(`/p/${k};jsessionid=${fresh()}`, `/p/${k}?sid=${fresh().toLowerCase()}`);
      // real parameters, which no preset may merge
      hrefs.push('/item?id=1', '/item?id=2', '/item?sid=12', '/item?sid=13', `/item?id=1&sid=${fresh().toLowerCase()}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(links(hrefs));
    });
  }

  it('with the session-ids preset: every variant collapses onto its page; real parameters stay distinct', async () => {
    const site = await sessionSite();
    const { report, audit } = await crawlSite(site, { seeds: [`${site.origin}/p/0`], presets: ['session-ids'] }, { presets: ['session-ids'] });
    const fetched = site.requests.filter((r) => r !== '/robots.txt');
    const canonical = audit.entries.filter((e) => e.entry.s === 'fetched').map((e) => e.key);
    console.log(`session ids, preset on: ${fetched.length} requests, ${canonical.length} distinct pages fetched, pruned ${JSON.stringify(audit.stats.pruned)}; ${describeAudit(audit)}`);
    expect(report.stoppedBecause).toBe('done');
    // one request per real page: /p/0 … /p/9, and the four real /item pages
    expect(fetched.filter((r) => r.startsWith('/p/')).sort()).toEqual(Array.from({ length: REAL }, (_, k) => `/p/${k}`).sort());
    expect(fetched.filter((r) => r.startsWith('/item')).sort()).toEqual(['/item?id=1', '/item?id=2', '/item?sid=12', '/item?sid=13']);
    expect(canonical).toHaveLength(REAL + 4);
    expect(fetched).toHaveLength(REAL + 4);
    expect(audit.stats.pruned['preset:session-ids']).toBeGreaterThan(0);
    expect(audit.open).toEqual([]);
  }, 30_000);

  it('without it: the per-host budget holds', async () => {
    const BUDGET = 40;
    const site = await sessionSite();
    const { report, audit } = await crawlSite(site, { seeds: [`${site.origin}/p/0`], traps: { maxPagesPerHost: BUDGET, patternEmptyRun: 1_000 } });
    const fetched = site.requests.filter((r) => r !== '/robots.txt');
    console.log(`session ids, preset off: ${fetched.length} requests; deferred ${JSON.stringify(report.deferred)}; ${describeAudit(audit)}`);
    expect(fetched).toHaveLength(BUDGET);
    expect(report.stoppedBecause).toBe('deferred');
    expect(report.deferred['trap:host-budget']).toBeGreaterThan(0);
  }, 30_000);
});

describe('ever-deepening relative links', () => {
  it('a/b/ and next/ end at the repeated-segment rule; distinct segments end at maxPathDepth (20)', async () => {
    const site = await httpServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/robots.txt') return res.writeHead(404).end();
      const depth = path.split('/').filter((s) => s !== '').length;
      const hrefs = path.startsWith('/ab') ? ['a/b/'] : path.startsWith('/next') ? ['next/'] : [`s${depth}/`];
      res.writeHead(200, { 'content-type': 'text/html' }).end(links(hrefs));
    });
    const { report, audit } = await crawlSite(site, { seeds: [`${site.origin}/ab/`, `${site.origin}/next/`, `${site.origin}/deep/`], concurrency: 4, traps: { patternEmptyRun: 1_000 } }); // the path rules alone
    const paths = site.requests.filter((r) => r !== '/robots.txt');
    const depthOf = (p: string): number => p.split('/').filter((s) => s !== '').length;
    const deepest = (prefix: string): number => Math.max(...paths.filter((p) => p.startsWith(prefix)).map(depthOf));
    console.log(`deepening: ${paths.length} requests; deepest /ab ${deepest('/ab/')}, /next ${deepest('/next/')}, /deep ${deepest('/deep/')}; refused ${JSON.stringify(report.links.refused)}`);
    expect(report.stoppedBecause).toBe('done');
    expect(paths.filter((p) => p.startsWith('/ab/')).sort()).toEqual(['/ab/', '/ab/a/b/', '/ab/a/b/a/b/']);
    expect(paths.filter((p) => p.startsWith('/next/')).sort()).toEqual(['/next/', '/next/next/']);
    expect(deepest('/deep/')).toBe(defaultTrapOptions.maxPathDepth);
    // the learner's not-found probe (the /next/ pages share one body: a candidate) answers with a
    // page too; its link (s1/) resolves against a path nobody linked and is not followed
    expect(paths.filter((p) => p.startsWith('/s1'))).toEqual([]);
    expect(report.links.refused['trap:repeated-segments']).toBe(2);
    expect(report.links.refused['trap:path-depth']).toBe(1);
    // every refused URL recorded with its reason, as many as the report counts
    expect(audit.stats.pruned).toEqual({ 'trap:path-depth': 1, 'trap:repeated-segments': 2 });
    expect(prunedBy(audit.stats.pruned, isTrap)).toEqual(trapRefusals(report.links.refused));
    expect(audit.stats.urls.pruned).toBe(3);
    expect(audit.open).toEqual([]);
  }, 30_000);

  it('links past --max-depth are counted but not stored, so a shallower page can still admit them', async () => {
    const site = await httpServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/robots.txt') return res.writeHead(404).end();
      const depth = path.split('/').filter((s) => s !== '').length;
      res.writeHead(200, { 'content-type': 'text/html' }).end(links([`s${depth}/`, `t${depth}/`]));
    });
    const { report, audit } = await crawlSite(site, { seeds: [`${site.origin}/deep/`], maxDepth: 2 });
    console.log(`max-depth: refused ${JSON.stringify(report.links.refused)}; pruned ${JSON.stringify(audit.stats.pruned)}`);
    expect(report.stoppedBecause).toBe('done');
    expect(report.links.refused['depth']).toBe(8);
    expect(audit.stats.pruned).toEqual({});
    expect(prunedBy(audit.stats.pruned, isTrap)).toEqual(trapRefusals(report.links.refused));
  }, 30_000);
});

describe('a soft-404 wildcard host', () => {
  it('the budget holds; one document; every page its content hash recorded; nothing merged', async () => {
    const BUDGET = 60;
    const body = links(['a/', 'b/', 'c/', 'missing.html']);
    const site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    });
    const { report, audit } = await crawlSite(site, { seeds: [`${site.origin}/`], traps: { maxPagesPerHost: BUDGET, patternEmptyRun: 1_000 } });
    const fetched = audit.entries.filter((e) => e.entry.s === 'fetched');
    const hashes = new Set(fetched.map((e) => e.entry.c));
    console.log(`soft-404: ${site.requests.length - 1} requests, ${report.pagesOk} ok, ${report.documents} document(s), ${hashes.size} content hash(es) over ${fetched.length} fetched entries, aliases ${audit.stats.aliases}, rules ${JSON.stringify(audit.stats.rules)}`);
    expect(site.requests.filter((r) => r !== '/robots.txt')).toHaveLength(BUDGET);
    expect(report.pagesOk).toBe(BUDGET);
    expect(report.documents).toBe(1);
    expect(fetched).toHaveLength(BUDGET);
    expect(hashes.size).toBe(1);
    expect([...hashes][0]).toMatch(/^[0-9a-f]{32}$/);
    expect(audit.stats.aliases).toBe(0);
    // nothing merged: the only pruned URLs are the trap refusals, recorded once per URL (the
    // report counts links, and `/a/a/` and `/a/a/missing.html` both link `/a/a/a/`)
    expect(prunedBy(audit.stats.pruned, (r) => !isTrap(r))).toEqual({});
    const refusals = trapRefusals(report.links.refused);
    expect(Object.keys(prunedBy(audit.stats.pruned, isTrap)).sort()).toEqual(Object.keys(refusals).sort());
    for (const [reason, n] of Object.entries(refusals)) {
      expect(audit.stats.pruned[reason]).toBeGreaterThan(0);
      expect(audit.stats.pruned[reason]).toBeLessThanOrEqual(n);
    }
    expect(report.deferred['trap:host-budget']).toBeGreaterThan(0);
  }, 30_000);
});
