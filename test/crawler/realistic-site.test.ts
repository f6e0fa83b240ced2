/**
 * The learner's proof on a realistic site: Debian's sqlite3-doc manual served on loopback by
 * sites/realistic-site.ts beside the parts real servers have (a shared 404 body, soft 404s, an app
 * shell, extension-less files beside folders, token pages, a login wall, a moved archive, www
 * hosts, parameters that matter, tracking and session parameters, an empty query, documents
 * reachable only through link rel=next, rel=alternate and rel=search), with names drawn from a
 * seed and a ground truth of documents. docs/design.md, "Learning equivalences safely": urldedup must
 * reach every document and merge no two of them, with and without presets.
 *
 * Needs the tree: `apt-get install -y sqlite3-doc` (`npm test` installs it). Without it these tests
 * are skipped with the reason (test/support/requirements.ts), or fail under `npm test`, which
 * installs it, and in CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causeOf, crawlRealisticWithUrldedup, formatMerges, formatTable, type RealisticRun } from '../../sites/realistic-runs.js';
import { startRealisticSite, type RealisticSite } from '../../sites/realistic-site.js';
import { describeWith, SQLITE_TREE } from '../support/requirements.js';

describeWith([SQLITE_TREE], 'realistic-site', () => {
  const SEEDS = [1, 2];
  /** Manual pages served (of 766): the site then holds about 500 documents. */
  const MANUAL_PAGES = 300;

  /** Documents merged onto something else, by the preset or rule that mapped them first: a count and two examples. */
  function mergedByCause(run: RealisticRun): Record<string, string> {
    const out: Record<string, Set<string>> = {};
    for (const m of run.merges ?? []) (out[causeOf(m)] ??= new Set()).add(`${m.document} → ${m.onto}`);
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, `${v.size} documents, e.g. ${[...v].slice(0, 2).join('; ')}`]));
  }

  describe.each(SEEDS)('the realistic site, seed %i', (seed) => {
    let site: RealisticSite;
    const runs: RealisticRun[] = [];
    beforeAll(async () => {
      site = await startRealisticSite({ seed, manualPages: MANUAL_PAGES });
    });
    afterAll(async () => {
      if (site === undefined) return;
      await site.close();
      process.stdout.write(`\nrealistic site, seed ${seed}: ${site.documents.length} documents\n${formatTable(site, runs)}${runs.map((r) => formatMerges(site, r)).join('')}`);
    });

    for (const presets of [[], ['session-ids', 'tracking']] as const) {
      it(`${presets.length === 0 ? 'no preset' : `--preset ${presets.join(',')}`}: every document reached, no two merged, robots.txt obeyed`, { timeout: 60_000 }, async () => {
        const run = await crawlRealisticWithUrldedup(site, presets);
        runs.push(run);
        expect(site.documents.length).toBeGreaterThan(300);
        expect(run.disallowedFetched).toBe(0);
        expect(mergedByCause(run)).toEqual({});
        expect(run.falseMerges).toBe(0);
        expect(run.documentsMissed.slice(0, 10)).toEqual([]);
        expect(run.documentsReached / site.documents.length).toBe(1);
      });
    }
  });
});
