/** Crawl limits and scope in a real crawl of the demo site: --max-depth, --include, --exclude, --scope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl, type CrawlOptions } from '../../src/crawler/crawl.js';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { tempDir } from './support.js';

let site: DemoSite;
beforeAll(async () => {
  site = await startDemoSite();
});
afterAll(async () => site.close());

async function crawlDemo(options: Omit<CrawlOptions, 'store'>): Promise<{ report: CrawlReport; targets: string[] }> {
  const db = tempDir();
  const from = site.requests.length;
  try {
    const report = await runCrawl({
      store: db.path,
      seeds: [site.url],
      allow: [
        { address: '127.0.0.1', port: site.port },
        { address: '::1', port: site.port },
      ],
      ...options,
    });
    return { report, targets: site.requests.slice(from).map((r) => r.target) };
  } finally {
    db.remove();
  }
}

describe('limits and scope in a crawl', () => {
  it('maxDepth 1: the seed and the pages it links to, nothing deeper', async () => {
    const { report, targets } = await crawlDemo({ maxDepth: 1 });
    expect(targets).toContain('/guide/');
    expect(targets).not.toContain('/guide/install.html'); // depth 2
    expect(report.links.refused['depth']).toBeGreaterThan(0);
    expect(report.stoppedBecause).toBe('done');
  });

  it("maxDepth 0: the seed only (and the learner's not-found probe, no link)", async () => {
    const { report, targets } = await crawlDemo({ maxDepth: 0 });
    // the seed's Content-Location names /index.html: a candidate rule, whose first check is a
    // probe of the host's not-found answer (a URL that cannot exist, never a link of the site)
    const probes = targets.filter((t) => t.startsWith('/urldedup-not-found-'));
    expect(probes.length).toBeLessThanOrEqual(1);
    expect(targets.filter((t) => t !== '/robots.txt' && !probes.includes(t))).toEqual(['/']);
    expect(report.pagesFetched).toBe(1 + probes.length);
  });

  it('per-host duplicates add up to the headline, however many pages admit at once', async () => {
    for (const concurrency of [1, 8]) {
      const { report } = await crawlDemo({ concurrency, perHost: concurrency });
      const t = report.timeline!;
      const perHost = t.hosts.reduce((n, h) => n + h.duplicates, 0) + (t.other?.duplicates ?? 0);
      const headline = Object.values(report.links.duplicates).reduce((a, b) => a + b, 0);
      expect(headline).toBeGreaterThan(0);
      expect(perHost, `concurrency ${concurrency}`).toBe(headline);
    }
  });

  it('exclude and include (the seed is crawled whatever they say)', async () => {
    const ex = await crawlDemo({ exclude: [/\/blog\//] });
    expect(ex.targets.some((t) => t.startsWith('/blog/'))).toBe(false);
    expect(ex.report.links.refused['excluded']).toBeGreaterThan(0);
    const inc = await crawlDemo({ include: ['/api'] });
    expect(inc.targets.filter((t) => t !== '/robots.txt' && t !== '/').every((t) => t.startsWith('/api'))).toBe(true);
    expect(inc.targets).toContain('/api/key.html');
    expect(inc.report.links.refused['not-included']).toBeGreaterThan(0);
  });

  it('scope any: other hosts are tried, but the guard refuses what resolves to a refused address', async () => {
    // every name but *.localhost resolves to a documentation address here: nothing leaves loopback
    const { report } = await crawlDemo({ scope: 'any', maxDepth: 1, resolver: async () => ['192.0.2.1'] });
    expect(report.errors['ERR_BLOCKED_ADDRESS']).toBe(1); // https://example.com/
    expect(report.links.refused['out-of-scope'] ?? 0).toBe(0);
    expect(report.links.refused['other-scheme']).toBeGreaterThan(0);
    expect(report.stoppedBecause).toBe('done');
  });
});
