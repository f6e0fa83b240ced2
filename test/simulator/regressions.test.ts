/**
 * Simulator cases that once failed (test/regressions/simulator-cases.json), each shrunk to the
 * fewest behaviours and pages that failed: replayed on every run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failuresOf, runCase, type SimCase } from '../../sites/sim/shrink.js';
import { availableTrees } from '../../sites/sim/tree.js';

const file = new URL('../regressions/simulator-cases.json', import.meta.url);
const cases = (JSON.parse(readFileSync(file, 'utf8')) as { entries: (SimCase & { test: string })[] }).entries.filter((e) => e.test === 'simulator');

describe.skipIf(availableTrees().length === 0)('simulator regressions', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(0));
  for (const c of cases) {
    // a case names its tree: one of the simulator's own, or another (postgresql-doc-15 for 500-page sites)
    if (c.tree !== undefined && !existsSync(join(c.tree, 'index.html'))) {
      it.skip(`seed ${c.seed}: its tree ${c.tree} is not installed`, () => undefined);
      continue;
    }
    it(`seed ${c.seed} [${c.behaviours.join(',')}] presets [${c.presets.join(',')}]${c.learnMirrors === true ? ' learnMirrors' : ''}: ${c.note ?? ''}`.slice(0, 200), { timeout: 60_000 }, async () => {
      const r = await runCase(c);
      expect(failuresOf(r.run)).toEqual([]);
      expect(r.run.reached).toBe(r.documents);
    });
  }
});
