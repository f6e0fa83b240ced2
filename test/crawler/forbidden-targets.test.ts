/**
 * Default deny in a real crawl (docs/reliability.md `redirect/to-forbidden`, `ssrf/dns-rebinding`,
 * `ssrf/redirect-rebind`): a "public" site (127.0.0.2, allowed by address) whose links and
 * redirects lead to loopback literals in every spelling, loopback names, other schemes, names an
 * injected resolver maps to 127.0.0.1, a name whose answer mixes public and private, and a name
 * that rebinds (public, then private, alternately).
 *
 * A second server listens on 127.0.0.1 on the same port, so any slip would reach it. Measured: its
 * request and connection counts (0), and every URL in a terminal state with a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { Resolver } from '../../src/crawler/http/guard.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { loopbackPair, type LoopbackPair } from '../support/loopback-pair.js';
import { auditStore, describeAudit, type Audit } from '../support/store-audit.js';
import { html, httpServer, tempDir } from './support.js';

let pair: LoopbackPair;
let report: CrawlReport;
let audit: Audit;
let rebindLookups = 0;
const lookups: string[] = [];
const db = tempDir();

/** Redirect sources on the public site → Location. */
function redirects(port: number): Record<string, string> {
  return {
    '/to-literal': `http://127.0.0.1:${port}/secret`,
    '/to-decimal': `http://2130706433:${port}/secret`,
    '/to-hex': `http://0x7f.1:${port}/secret`,
    '/to-octal': `http://0177.0.0.1:${port}/secret`,
    '/to-mapped': `http://[::ffff:127.0.0.1]:${port}/secret`,
    '/to-ipv6-loopback': `http://[::1]:${port}/secret`,
    '/to-unspecified': `http://0.0.0.0:${port}/secret`,
    '/to-localhost': `http://localhost:${port}/secret`,
    '/to-localhost-dot': `http://localhost.:${port}/secret`,
    '/to-sub-localhost': `http://x.localhost:${port}/secret`,
    '/to-metadata': `http://169.254.169.254/latest/meta-data/`,
    '/to-private-name': `http://internal.test:${port}/secret`,
    '/to-mixed-name': `http://mixed.test:${port}/secret`,
    '/to-rebind': `http://rebind.test:${port}/via-redirect`,
    '/to-file': 'file:///etc/passwd',
    '/to-js': 'javascript:alert(1)',
    '/to-ftp': `ftp://127.0.0.1:${port}/x`,
    '/to-data': 'data:text/html,<a href=x>x</a>',
    '/to-gopher': `gopher://127.0.0.1:${port}/_x`,
  };
}

const resolver: Resolver = async (host) => {
  lookups.push(host);
  switch (host) {
    case 'pub.test':
      return ['127.0.0.2'];
    case 'internal.test':
      return ['127.0.0.1'];
    case 'mixed.test':
      return ['127.0.0.2', '127.0.0.1'];
    case 'rebind.test':
      return rebindLookups++ % 2 === 0 ? ['127.0.0.2'] : ['127.0.0.1'];
    default:
      return ['192.0.2.1']; // documentation range: refused too, and never routed anywhere
  }
};

beforeAll(async () => {
  pair = await loopbackPair((req, res) => {
    const p = req.url ?? '/';
    const host = (req.headers.host ?? '').split(':')[0];
    if (p === '/robots.txt') return res.writeHead(404).end();
    if (host === 'pub.test' && p === '/') {
      const links = [
        ...Object.keys(redirects(pair.port)),
        // links straight to the forbidden places, not only redirects
        `http://127.0.0.1:${pair.port}/linked`,
        `http://[::1]:${pair.port}/linked`,
        `http://internal.test:${pair.port}/linked`,
        `http://mixed.test:${pair.port}/linked`,
        ...Array.from({ length: 6 }, (_, i) => `http://rebind.test:${pair.port}/linked-${i}`),
      ];
      return res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">x</a>`).join('')));
    }
    const to = redirects(pair.port)[p];
    if (to !== undefined) return res.writeHead(301, { location: to }).end();
    // rebind.test pages that got through to the public side link back into the rebinding name
    res.writeHead(200, { 'content-type': 'text/html' }).end(html(`<a href="/more${p.length}">more</a>`));
  });
  report = await runCrawl({
    store: db.path,
    seeds: [`http://pub.test:${pair.port}/`],
    scope: 'any',
    resolver,
    allow: [{ address: '127.0.0.2' }],
    concurrency: 4,
    perHost: 2,
    robotsAttempts: 1,
    robotsRetryMs: 10,
    fetch: { connectTimeoutMs: 1000, headersTimeoutMs: 2000, deadlineMs: 4000 },
  });
  audit = await auditStore(db.path);
  console.log(
    `forbidden targets: ${describeAudit(audit)}; public requests ${pair.public.requests.length}, private requests ${pair.private.requests.length} (connections ${pair.private.connections}); rebind.test lookups ${rebindLookups}`,
  );
}, 30_000);

afterAll(async () => {
  await pair.close();
  db.remove();
});

describe('forbidden targets in a crawl', () => {
  it('the private listener gets 0 connections and 0 requests', () => {
    expect(pair.private.connections).toBe(0);
    expect(pair.private.requests).toEqual([]);
  });

  it('every redirect source is requested once and ends failed (blocked or unsupported scheme)', () => {
    const failed = new Map(audit.entries.filter((e) => e.entry.s === 'failed').map((e) => [e.key, e.entry.e]));
    for (const p of Object.keys(redirects(pair.port))) {
      expect(pair.public.requests.filter((r) => r === `pub.test:${pair.port} ${p}`), p).toHaveLength(1);
    }
    const schemes = ['/to-file', '/to-js', '/to-ftp', '/to-data', '/to-gopher'];
    for (const [key, code] of failed) {
      const path = key.slice(key.lastIndexOf('/'));
      if (schemes.includes(path)) expect(code, key).toBe('ERR_UNSUPPORTED_SCHEME');
    }
    expect(audit.byError['ERR_UNSUPPORTED_SCHEME']).toBe(schemes.length);
    expect(audit.byError['ERR_BLOCKED_ADDRESS']).toBeGreaterThanOrEqual(10);
  });

  it('the rebinding name was looked up once per connection, and its private answers were refused', () => {
    expect(rebindLookups).toBeGreaterThan(1);
    expect(lookups).not.toContain('localhost'); // a loopback name, refused without a query (RFC 6761)
    expect(report.errors['ERR_BLOCKED_ADDRESS']).toBeGreaterThan(0);
  });

  it('every URL ends in a terminal state with a code; conservation and verify hold', () => {
    expect(audit.problems).toEqual([]);
    expect(audit.open).toEqual([]);
    expect(audit.conservationGap).toBe(0);
    expect(report.stoppedBecause).toBe('done');
  });
});

describe('a failure a policy caused is retried when the policy lets it through', () => {
  it('a seed refused without --allow-private is fetched by the next run that allows it', async () => {
    const site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<p>here</p>'));
    });
    const db = tempDir();
    try {
      const first = await runCrawl({ store: db.path, seeds: [`${site.origin}/`] });
      expect(first.errors['ERR_BLOCKED_ADDRESS']).toBeGreaterThan(0);
      expect(site.requests).toEqual([]);
      const second = await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow });
      expect(second.retries?.requeued).toBeGreaterThan(0);
      expect(second.pagesOk).toBe(1);
      expect(site.requests).toContain('/');
    } finally {
      await site.close();
      db.remove();
    }
  });
});
