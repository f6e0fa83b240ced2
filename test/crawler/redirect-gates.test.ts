/**
 * Redirect targets pass the gates a frontier entry passes (src/crawler/policy/fetch-gates.ts
 * `redirectGates`): a fetch follows a hop at once only to a target in scope, under robots.txt, with
 * no path trap, queued and unclaimed, on the same origin, and with the host's budget left. Any other
 * target is left to the frontier, where it meets the entry gates: one robots.txt disallows is never
 * requested and is stored as `ERR_ROBOTS_DISALLOWED`, one out of scope as `ERR_OUT_OF_SCOPE`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectGates, passGates, type GateContext, type GateDeps } from '../../src/crawler/policy/fetch-gates.js';
import { runCrawl } from '../../src/crawler/crawl.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';
import { HostBudget } from '../../src/crawler/policy/traps.js';
import { auditStore } from '../support/store-audit.js';
import { gateDeps, html, httpServer, tempDir, type TestServer } from './support.js';

/** The gates' view of a crawl scoped to `http://a.example/` with `/excluded/` left out, and no seed forms. */
function deps(over: Partial<GateDeps> = {}): GateDeps {
  return gateDeps({ scope: () => new CrawlScope({ seeds: ['http://a.example/'], exclude: [/\/excluded\//] }), seedForms: new Set(), ...over });
}

/** A target of a hop from `http://a.example/from`. */
function target(url: string): GateContext {
  return { entry: { url, host: new URL(url).host }, parsed: new URL(url), from: new URL('http://a.example/from'), retry: false };
}

describe('redirect gates', () => {
  const states = new Map<string, string>([['http://a.example/queued', 'queued'], ['http://a.example/held', 'queued'], ['http://a.example/done', 'fetched']]);
  const canonical = async (url: string) => ({ state: states.get(url) ?? 'queued', key: url });

  it('follows a queued, unclaimed target of the same origin, claiming it and taking a page of the host budget', async () => {
    const d = deps();
    const c = target('http://a.example/queued');
    expect(await passGates(redirectGates(d, { traps: undefined, canonical, claimed: new Set() }), c)).toEqual({ kind: 'go' });
    expect(c.entry.key).toBe('http://a.example/queued');
    expect(c.checked?.href).toBe('http://a.example/queued');
    // a followed target is no frontier entry: the crawl's page cap does not count it, the host budget does
    expect(d.pages.started).toBe(0);
    expect(d.budget.spent('a.example')).toBe(false);
    await passGates(redirectGates(d, { traps: undefined, canonical, claimed: new Set() }), target('http://a.example/queued'));
    expect(d.budget.spent('a.example')).toBe(true);
  });

  it('leaves to the frontier a target of another origin, out of scope, in a path trap, not queued, claimed, or past the budget', async () => {
    const gates = (over: Partial<GateDeps> = {}, claimed = new Set<string>()) =>
      redirectGates(deps(over), { traps: { maxPathDepth: 3 }, canonical, claimed });
    expect((await passGates(gates(), target('https://a.example/queued'))).kind).not.toBe('go');
    expect((await passGates(gates(), target('http://b.example/queued'))).kind).not.toBe('go');
    expect((await passGates(gates(), target('http://a.example/excluded/x'))).kind).not.toBe('go');
    expect((await passGates(gates(), target('http://a.example/1/2/3/4/5'))).kind).not.toBe('go');
    expect((await passGates(gates(), target('http://a.example/done'))).kind).not.toBe('go');
    expect((await passGates(gates({}, new Set(['http://a.example/held'])), target('http://a.example/held'))).kind).not.toBe('go');
    expect((await passGates(gates({ budget: new HostBudget(0) }), target('http://a.example/queued'))).kind).not.toBe('go');
    expect((await passGates(gates({ stopping: () => true }), target('http://a.example/queued'))).kind).not.toBe('go');
    expect((await passGates(gates(), target('http://a.example/queued'))).kind).toBe('go');
  });
});

describe('redirect targets in a crawl meet the gates', () => {
  let site: TestServer;
  const db = tempDir();

  beforeAll(async () => {
    site = await httpServer((req, res) => {
      const p = req.url ?? '/';
      if (p === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      if (p === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/to-private">p</a> <a href="/to-excluded">e</a> <a href="/to-open">o</a>'));
      if (p === '/to-private') return res.writeHead(301, { location: '/private/page' }).end();
      if (p === '/to-excluded') return res.writeHead(301, { location: '/excluded/page' }).end();
      if (p === '/to-open') return res.writeHead(301, { location: '/open/page' }).end();
      if (p.startsWith('/private/') || p.startsWith('/excluded/') || p === '/open/page') return res.writeHead(200, { 'content-type': 'text/html' }).end(html(`page ${p}`));
      res.writeHead(404).end();
    });
    await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow, exclude: ['/excluded/'], concurrency: 2, perHost: 1 });
  }, 30_000);
  afterAll(async () => {
    await site.close();
    db.remove();
  });

  it('never requests a target robots.txt disallows or the scope excludes, and records why', async () => {
    expect(site.requests.filter((r) => r.startsWith('/private/') || r.startsWith('/excluded/'))).toEqual([]);
    const audit = await auditStore(db.path);
    const code = (path: string) => audit.entries.find((e) => e.key.endsWith(path))?.entry.e;
    expect(code('/private/page')).toBe('ERR_ROBOTS_DISALLOWED');
    expect(audit.entries.find((e) => e.key.endsWith('/excluded/page'))?.entry.s).not.toBe('fetched');
  });

  it('follows a target the gates pass, once', () => {
    expect(site.requests.filter((r) => r === '/open/page')).toEqual(['/open/page']);
    expect(site.requests.filter((r) => r === '/to-open')).toEqual(['/to-open']);
  });
});
