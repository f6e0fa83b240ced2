/**
 * The learner on larger sites (issue 26): simulated sites of 300 pages of the PostgreSQL and the
 * Python manuals (`npm test` installs both), behaviours drawn by the seed, each crawled for real on
 * loopback with and without presets. On every crawl: recall 1, no document merged onto anything
 * else, robots.txt obeyed. Over all of them, the requests over the floor stay near it: a rule
 * learned once pays for itself over a site this size (the small sites of seeds-*.test.ts are
 * dominated by what learning costs before it prunes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PresetName } from '../../src/normalize/index.js';
import { failuresOf, runCase } from '../../sites/sim/shrink.js';
import { startSimSite } from '../../sites/sim/site.js';

const PAGES = 300;

/**
 * Two trees of other shapes: the PostgreSQL manual is one flat directory; the Python manual
 * (python3.11-doc) spreads its pages over a dozen directories, where a rule's scope must grow
 * directory by directory and a chain of rules crosses more of them. The bounds sit above what was
 * measured on these seeds' sites (docs/simulator.md): 1.20 and 1.23 once half of the PostgreSQL
 * seeds drew later behaviours whose pages no rule can merge (a language switcher's untranslated
 * pages, a rate limit's 503s, doubled slashes), 1.14 and 1.24 before.
 */
const TREES = [
  { name: 'postgresql-doc-15', root: '/usr/share/doc/postgresql-doc-15/html', seeds: Array.from({ length: 12 }, (_, i) => 41001 + i), median: 1.3 },
  { name: 'python3.11-doc', root: '/usr/share/doc/python3.11/html', seeds: Array.from({ length: 8 }, (_, i) => 42001 + i), median: 1.35 },
];

for (const tree of TREES) {
  const ratios: number[] = [];

  describe.skipIf(!existsSync(join(tree.root, 'index.html')))(`simulated sites of ${PAGES} pages over ${tree.name}`, () => {
    afterAll(() => {
      if (ratios.length === 0) return;
      const sorted = [...ratios].sort((a, b) => a - b);
      process.stdout.write(`\nlarge simulated sites over ${tree.name}: ${ratios.length} crawls, requests over floor median ${sorted[sorted.length >> 1]!.toFixed(2)}, worst ${sorted[sorted.length - 1]!.toFixed(2)}\n`);
    });

    for (const seed of tree.seeds) {
      it(`seed ${seed}: recall 1, no false merge, with and without presets`, { timeout: 180_000 }, async () => {
        const site = await startSimSite({ seed, pages: PAGES, tree: tree.root });
        const start = { seed, behaviours: site.behaviours, pages: site.pages, tree: site.tree };
        await site.close();
        for (const presets of [[], ['session-ids', 'tracking']] as PresetName[][]) {
          const r = await runCase({ ...start, presets });
          expect(failuresOf(r.run)).toEqual([]);
          expect(r.run.reached).toBe(r.documents);
          ratios.push(r.run.requests / Math.max(1, r.floor));
        }
      });
    }

    it(`spends, over all of them, a median of at most ${tree.median} × the floor`, () => {
      expect(ratios.length).toBe(2 * tree.seeds.length);
      const sorted = [...ratios].sort((a, b) => a - b);
      expect(sorted[sorted.length >> 1]!).toBeLessThanOrEqual(tree.median);
    });
  });
}
