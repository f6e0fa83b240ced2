// One identity per URL: how many times each URL parser runs over a real crawl of the demo site on
// loopback (src/normalize/parse-count.ts counts them). A link is parsed once (the WHATWG parser,
// resolving it on its page) and scanned once (the single pass, in the store's admit); the store
// cuts the record it needs from that scan instead of parsing the normal form again. A frontier
// entry is parsed once by Node's URL (scope, guard, robots.txt and the first request read that
// parse), and once more as its page's base; the store scans it when its fetch is recorded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import { runCrawl } from '../../src/crawler/crawl.js';
import { parseCount } from '../../src/normalize/parse-count.js';
import { openStore } from '../../src/store/index.js';

function counted(): typeof parseCount {
  return { ...parseCount };
}

function since(before: typeof parseCount): typeof parseCount {
  return {
    whatwg: parseCount.whatwg - before.whatwg,
    rfc: parseCount.rfc - before.rfc,
    scan: parseCount.scan - before.scan,
    node: parseCount.node - before.node,
  };
}

describe('parse counts', () => {
  let site: DemoSite;
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-parse-count-'));
  beforeAll(async () => {
    site = await startDemoSite();
  });
  afterAll(async () => {
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a crawl parses each link once and scans it once, and each frontier entry once with Node’s URL', async () => {
    const before = counted();
    const report = await runCrawl({
      store: join(dir, 'crawl'),
      seeds: [site.url],
      allow: [
        { address: '127.0.0.1', port: site.port },
        { address: '::1', port: site.port },
      ],
    });
    const n = since(before);
    const { found, offered } = report.links;
    console.log(`parses over a crawl: ${JSON.stringify(n)}; links found ${found}, offered ${offered}, requests ${report.requests}, redirects ${report.redirects}`);
    expect(found).toBeGreaterThan(200);
    // each reference once on its page; each page its base once; a redirect's Location and its base
    expect(n.whatwg).toBeLessThanOrEqual(found + 2 * report.requests);
    // each link offered once in admit; each fetch and each redirect hop once where it is recorded,
    // and each page once as the source of its links
    expect(n.scan).toBeLessThanOrEqual(offered + 3 * report.requests);
    // each request once (the guard's parse serves scope, robots.txt and the fetch); a redirect hop
    // is parsed where it is judged
    expect(n.node).toBeLessThanOrEqual(report.requests + 3 * report.redirects);
    // no link through the RFC parser but a duplicate written in another form (its report label)
    // and the learner's records of stored keys: before, 1,197 here (4.4 a link)
    expect(n.rfc).toBeLessThan(0.75 * found);
  }, 60_000);

  it('the store’s admit scans each URL once and parses none again, with presets and a scope filter', async () => {
    let filtered = 0;
    const store = await openStore(join(dir, 'admit'), {
      presets: ['tracking'],
      scope: {
        filter: (rec) => {
          filtered++;
          return rec.path !== '/private/x.html';
        },
      },
    });
    try {
      const urls = Array.from({ length: 500 }, (_, i) => `http://Example.COM:80/a/./p${i}.html?utm_source=x&id=${i}`);
      urls.push('http://example.com/private/x.html');
      const before = counted();
      const results = await store.admit(urls);
      const n = since(before);
      expect(results.filter((r) => r.admitted)).toHaveLength(500);
      expect(results.at(-1)!.reason).toBe('out-of-scope');
      expect(results[0]!.via).toBe('preset:tracking');
      expect(filtered).toBe(501);
      expect(n).toEqual({ whatwg: 0, rfc: 0, scan: 501, node: 0 });
    } finally {
      await store.close();
    }
  });
});
