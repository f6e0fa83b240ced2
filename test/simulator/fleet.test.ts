/**
 * The learner's property test in a fleet (issue 26, "the fleet learns the same"): simulated sites
 * (sites/sim/), each crawled by one LevelDB worker and by a fleet of three workers (each its own fleet
 * store and Redis connections, in this process) through one fleet store on a real Redis Cluster,
 * with and without presets. On every seed the fleet reaches every document, merges none onto
 * anything else and obeys robots.txt; over the seeds, its requests stay within 5 % of one worker's
 * (each partition, a host with its `www.` name, learns alone: docs/scale-out.md).
 *
 * The opt-in mirror rule is not learned in a fleet (a host and its mirror are two partitions), so
 * it is not asked here. Seeds 301 and up: none of the single-worker property test's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PresetName } from '../../src/normalize/index.js';
import { crawlSimWithFleet, crawlSimWithUrldedup, type SimRun } from '../../sites/sim/crawl.js';
import { failuresOf } from '../../sites/sim/shrink.js';
import { startSimSite } from '../../sites/sim/site.js';
import { availableTrees, TREE_PACKAGES } from '../../sites/sim/tree.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS, type Requirement } from '../support/requirements.js';

const FROM = 301;
const TO = 320;
const PRESET_RUNS: readonly (readonly PresetName[])[] = [[], ['session-ids', 'tracking']];
const TREES: Requirement = { missing: availableTrees().length > 0 ? undefined : `needs a documentation tree (apt-get install ${TREE_PACKAGES})` };

describeWith([REDIS, TREES], `simulated sites in a fleet of three, seeds ${FROM}–${TO}`, () => {
  let cluster: TestCluster;
  const totals = { single: 0, fleet: 0, floor: 0 };
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(() => {
    cluster?.stop();
    if (totals.floor === 0) return;
    process.stdout.write(`\nsimulator seeds ${FROM}–${TO} in a fleet of 3: ${totals.fleet} requests against ${totals.single} for one LevelDB worker (floor ${totals.floor}): ${(totals.fleet / totals.single).toFixed(3)}×\n`);
  });

  for (let seed = FROM; seed <= TO; seed++) {
    it(`seed ${seed}: every document, no merge, robots.txt obeyed`, { timeout: 120_000 }, async () => {
      const site = await startSimSite({ seed, pages: 16 + (seed % 25) });
      const failed: string[] = [];
      try {
        for (const presets of PRESET_RUNS) {
          const single: SimRun = await crawlSimWithUrldedup(site, presets);
          const fleet: SimRun = await crawlSimWithFleet(site, cluster.seeds, 3, presets);
          totals.single += single.requests;
          totals.fleet += fleet.requests;
          totals.floor += site.floor;
          const f = failuresOf(fleet);
          if (f.length > 0) failed.push(`presets [${presets.join(',')}] [${site.behaviours.join(',')}]: ${f.join('; ')}`);
        }
      } finally {
        await site.close();
      }
      expect(failed).toEqual([]);
    });
  }

  it('requests over the seeds within 5 % of one LevelDB worker', () => {
    expect(totals.single).toBeGreaterThan(0);
    expect(totals.fleet).toBeLessThanOrEqual(totals.single * 1.05);
  });
});
