/**
 * Shrinking a failing simulator seed: the fewest behaviours and pages that still fail, in the
 * manner of property-testing shrinkers (QuickCheck, fast-check): drop one behaviour at a time while
 * the failure holds, then halve the pages while it holds. The result is a case for
 * test/regressions/simulator-cases.json, replayed on every run.
 *
 *   node dist/sites/sim/shrink.js --seed N [--presets] [--mirrors] [--behaviours a,b,…] [--pages N] [--tree DIR]
 */
import type { PresetName } from '../../src/normalize/index.js';
import { crawlSimWithUrldedup, type SimRun } from './crawl.js';
import { startSimSite, type SimOptions } from './site.js';

/** One case: a site and the presets it is crawled with. */
export interface SimCase {
  readonly seed: number;
  readonly behaviours: readonly string[];
  readonly pages: number;
  readonly presets: readonly PresetName[];
  /** The opt-in mirror rule (store option `learnMirrors`). */
  readonly learnMirrors?: boolean;
  /** The tree's folder (default: drawn from the seed among the trees installed). */
  readonly tree?: string;
  /** What failed, in words (kept with a regression). */
  readonly note?: string;
}

export interface CaseResult {
  readonly ok: boolean;
  readonly run: SimRun;
  readonly documents: number;
  readonly floor: number;
}

/** The failures of one run, in words: empty when it passed. */
export function failuresOf(run: SimRun): string[] {
  const out: string[] = [];
  if (run.falseMerges > 0) out.push(`${run.falseMerges} documents merged (${run.lostToMerges} lost): ${run.merges.slice(0, 3).map((m) => `${m.url} → ${m.onto} via ${m.via}`).join('; ')}`);
  const notMerged = run.missed.filter((d) => !run.merges.some((m) => m.document === d));
  if (notMerged.length > 0) out.push(`${notMerged.length} documents missed: ${notMerged.slice(0, 4).join(' ')}`);
  if (run.disallowedFetched > 0) out.push(`${run.disallowedFetched} robots.txt-disallowed fetches`);
  if (run.leftQueued > 0) out.push(`${run.leftQueued} URLs left queued when the crawl ended`);
  return out;
}

/** Build the site of a case, crawl it, score it. */
export async function runCase(c: Omit<SimCase, 'note'> | (SimOptions & { presets: readonly PresetName[]; learnMirrors?: boolean })): Promise<CaseResult> {
  const site = await startSimSite({
    seed: c.seed,
    ...('behaviours' in c && c.behaviours !== undefined ? { behaviours: c.behaviours } : {}),
    ...('pages' in c && c.pages !== undefined ? { pages: c.pages } : {}),
    ...(c.tree === undefined ? {} : { tree: c.tree }),
  });
  try {
    const run = await crawlSimWithUrldedup(site, c.presets, 4, c.learnMirrors === true);
    return { ok: failuresOf(run).length === 0, run, documents: site.documents.length, floor: site.floor };
  } finally {
    await site.close();
  }
}

/** The smallest case that still fails, within `budgetMs`. */
export async function shrink(start: SimCase, budgetMs = 60_000): Promise<SimCase> {
  const deadline = Date.now() + budgetMs;
  let best = start;
  const fails = async (c: SimCase): Promise<boolean> => !(await runCase(c)).ok;
  // 1. behaviours, one at a time
  for (let i = 0; i < best.behaviours.length && Date.now() < deadline; ) {
    const fewer = { ...best, behaviours: best.behaviours.filter((_, j) => j !== i) };
    if (await fails(fewer)) best = fewer;
    else i++;
  }
  // 2. pages, halved, then one step at a time down
  for (let pages = Math.floor(best.pages / 2); pages >= 4 && Date.now() < deadline; pages = Math.floor(pages / 2)) {
    const fewer = { ...best, pages };
    if (!(await fails(fewer))) break;
    best = fewer;
  }
  return best;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (n: string): string | undefined => {
    const i = args.indexOf(n);
    return i === -1 ? undefined : args[i + 1];
  };
  const seed = Number(arg('--seed') ?? 1);
  const presets: PresetName[] = args.includes('--presets') ? ['session-ids', 'tracking'] : [];
  const site = await startSimSite({ seed, ...(arg('--behaviours') === undefined ? {} : { behaviours: arg('--behaviours')!.split(',') }), ...(arg('--pages') === undefined ? {} : { pages: Number(arg('--pages')) }), ...(arg('--tree') === undefined ? {} : { tree: arg('--tree')! }) });
  const start: SimCase = { seed, behaviours: site.behaviours, pages: site.pages, presets, tree: site.tree, ...(args.includes('--mirrors') ? { learnMirrors: true } : {}) };
  await site.close();
  const first = await runCase(start);
  if (first.ok) {
    process.stdout.write(`seed ${seed} passes: nothing to shrink\n`);
    return;
  }
  const small = await shrink(start, Number(arg('--budget-ms') ?? 120_000));
  const r = await runCase(small);
  process.stdout.write(JSON.stringify({ ...small, note: failuresOf(r.run).join('; ') }) + '\n');
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
