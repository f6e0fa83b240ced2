/**
 * The learner's property test (issue 26): sites composed at random from real server behaviours
 * over real documentation trees (sites/sim/), each crawled for real on loopback with and without
 * presets. On every seed: recall 1, no document merged onto anything else, robots.txt obeyed.
 * A failing seed is shrunk (sites/sim/shrink.ts) to the fewest behaviours and pages that still fail,
 * and the shrunk case is printed for test/regressions/simulator-cases.json.
 *
 * Needs a documentation tree (`npm test` installs python-flask-doc and others; valgrind's manual is
 * on every machine of this project's kind).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { PresetName } from '../../src/normalize/index.js';
import { failuresOf, runCase, shrink, type SimCase } from '../../sites/sim/shrink.js';
import { startSimSite } from '../../sites/sim/site.js';
import { availableTrees, TREE_PACKAGES } from '../../sites/sim/tree.js';

const PRESET_RUNS: readonly (readonly PresetName[])[] = [[], ['session-ids', 'tracking']];

interface Row {
  readonly seed: number;
  readonly presets: string;
  readonly documents: number;
  readonly requests: number;
  readonly floor: number;
}

/** Sites for seeds `from` to `to`, small (16–40 pages), each crawled with and without presets (every fourth also with `learnMirrors`). */
export function simulatorSeeds(from: number, to: number): void {
  const rows: Row[] = [];
  const trees = availableTrees();
  describe.skipIf(trees.length === 0)(`simulated sites, seeds ${from}–${to}${trees.length === 0 ? ` (no documentation tree: apt-get install ${TREE_PACKAGES})` : ''}`, () => {
    afterAll(() => {
      if (rows.length === 0) return;
      const ratio = rows.map((r) => r.requests / Math.max(1, r.floor)).sort((a, b) => a - b);
      const mean = ratio.reduce((a, b) => a + b, 0) / ratio.length;
      process.stdout.write(`\nsimulator seeds ${from}–${to}: ${rows.length} crawls, requests over floor: mean ${mean.toFixed(2)}, median ${ratio[ratio.length >> 1]!.toFixed(2)}, worst ${ratio[ratio.length - 1]!.toFixed(2)}\n`);
    });
    for (let seed = from; seed <= to; seed++) {
      it(`seed ${seed}`, { timeout: 120_000 }, async () => {
        const site = await startSimSite({ seed, pages: 16 + (seed % 25) });
        const start = { seed, behaviours: site.behaviours, pages: site.pages, tree: site.tree };
        await site.close();
        const failed: string[] = [];
        // every fourth seed also with the opt-in mirror rule (store option learnMirrors)
        const runs = [...PRESET_RUNS.map((presets) => ({ presets, learnMirrors: false })), ...(seed % 4 === 0 ? [{ presets: [] as readonly PresetName[], learnMirrors: true }] : [])];
        for (const { presets, learnMirrors } of runs) {
          const c = { ...start, presets, ...(learnMirrors ? { learnMirrors } : {}) };
          const r = await runCase(c);
          rows.push({ seed, presets: presets.join(',') + (learnMirrors ? ' mirrors' : ''), documents: r.documents, requests: r.run.requests, floor: r.floor });
          const f = failuresOf(r.run);
          if (f.length === 0) continue;
          const small: SimCase = await shrink(c, 45_000);
          const again = await runCase(small);
          failed.push(`presets [${presets.join(',')}]${learnMirrors ? ' learnMirrors' : ''}: ${f.join('; ')}\n  shrunk: ${JSON.stringify({ ...small, note: failuresOf(again.run).join('; ') })}`);
        }
        expect(failed).toEqual([]);
      });
    }
  });
}
