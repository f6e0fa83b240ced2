/**
 * A hostile robots.txt (docs/reliability.md promise 7, bounded work per input): 240 rules of 2 KiB
 * `/*aaaa…b` wildcard patterns, inside the 500 KiB and 2,048-character caps, against 16 KiB paths.
 * A backtracking matcher is O(pattern × path) per rule: 77 s of blocked event loop for one URL,
 * which would stall every host of the crawl. The matcher must stay linear.
 *
 * Measured: one `isAllowed` under a generous hang guard; a crawl of a site serving that robots.txt
 * and linking 20 such URLs finishes (the other host of the crawl too); and a property test of
 * `patternMatches` against an independent oracle (the pattern as an anchored regular expression)
 * on small inputs, time-boxed, seed printed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import { parseRobots, patternMatches, policyFor } from '../../src/crawler/policy/robots.js';
import { freshSeed, printRegression, propertyBudgetMs, regressions, type SeedEntry } from '../support/regressions.js';
import { auditStore } from '../support/store-audit.js';
import { html, httpServer, tempDir } from './support.js';

const HOSTILE_ROBOTS = 'User-agent: *\n' + Array.from({ length: 240 }, (_, i) => `Disallow: /*${'a'.repeat(2030)}${i}b\n`).join('');
const LONG_PATH = '/' + 'a'.repeat(16_000);
const HANG_GUARD_MS = 2000;

describe('a robots.txt of long wildcard patterns', () => {
  it(`one isAllowed on a 16 KiB path finishes under the ${HANG_GUARD_MS} ms hang guard`, () => {
    expect(HOSTILE_ROBOTS.length).toBeLessThan(500 * 1024);
    const policy = policyFor(parseRobots(HOSTILE_ROBOTS));
    const t = performance.now();
    expect(policy.isAllowed(LONG_PATH)).toBe(true);
    expect(policy.isAllowed(LONG_PATH + '0b')).toBe(false);
    const ms = performance.now() - t;
    console.log(`hostile robots.txt: ${HOSTILE_ROBOTS.length} bytes, 2 checks of a 16 KiB path in ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(HANG_GUARD_MS);
  });

  it('a crawl of a site serving it, linking 20 such URLs, ends; the other host drains too', async () => {
    const site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(HOSTILE_ROBOTS);
      if (req.url === '/') {
        const links = Array.from({ length: 20 }, (_, i) => `<a href="${LONG_PATH.slice(0, 15_000)}${i}">x</a>`);
        return res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.join('')));
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('leaf'));
    });
    const other = await httpServer((req, res) => res.writeHead(req.url === '/robots.txt' ? 404 : 200, { 'content-type': 'text/html' }).end(html('other')));
    const db = tempDir();
    try {
      const t = performance.now();
      const report = await runCrawl({ store: db.path, seeds: [`${site.origin}/`, `${other.origin}/`], allow: [...site.allow, ...other.allow] });
      const ms = performance.now() - t;
      const audit = await auditStore(db.path);
      console.log(`hostile robots.txt crawl: ${Math.round(ms)} ms, ${site.requests.length} requests to the site, fetched ${audit.stats.urls.fetched}, failed ${audit.stats.urls.failed}`);
      expect(report.stoppedBecause).toBe('done');
      expect(site.requests.filter((r) => r.length > 1000)).toHaveLength(20);
      expect(other.requests).toContain('/');
      expect(ms).toBeLessThan(15_000);
      expect(audit.problems).toEqual([]);
    } finally {
      db.remove();
      await site.close();
      await other.close();
    }
  }, 30_000);
});

/** The oracle: the pattern as a regular expression (`*` → `.*`, final `$` → end), matched from the start. */
function oracle(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`, 's').test(path);
}

describe('patternMatches against a regular-expression oracle', () => {
  const alphabet = fc.constantFrom('a', 'b', '/', '*', '$', '.', '?', '%2F');
  const pattern = fc.array(alphabet, { maxLength: 10 }).map((t) => '/' + t.join(''));
  const path = fc.array(fc.constantFrom('a', 'b', '/', '$', '.', '?', '%2F'), { maxLength: 14 }).map((t) => '/' + t.join(''));
  const property = fc.property(pattern, path, (p, s) => {
    expect(patternMatches(p, s), `${p} on ${s}`).toBe(oracle(p, s));
  });

  for (const entry of regressions<SeedEntry>('property-seeds', 'robots-pattern')) {
    it(`replays property-seeds.json entry seed=${entry.seed}`, () => {
      fc.assert(property, { seed: entry.seed, ...(entry.path === undefined ? { numRuns: 10_000 } : { path: entry.path, numRuns: 1 }) });
    });
  }

  it('agrees on random patterns and paths', () => {
    const seed = freshSeed();
    const budget = propertyBudgetMs(3_000);
    console.log(`robots-pattern seed=${seed} budget=${budget} ms`);
    const details = fc.check(property, { seed, numRuns: 10_000_000, plugins: [fc.interruptAfterTimeLimit(budget)] });
    console.log(`robots-pattern seed=${seed}: ${details.numRuns} pairs`);
    if (details.failed) {
      printRegression('property-seeds', { test: 'robots-pattern', seed: details.seed, path: details.counterexamplePath ?? undefined, note: 'failed' } as SeedEntry);
      throw new Error(fc.defaultReportMessage(details) ?? 'failed');
    }
    expect(details.numRuns).toBeGreaterThan(1000);
  }, 90_000);
});
