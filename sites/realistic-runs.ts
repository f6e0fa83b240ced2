// The realistic site's crawl runs, scored against its ground truth (sites/realistic-site.ts):
// recall, false merges (documents whose URL urldedup mapped onto another document or onto no
// document), the documents those merges lost, requests per document. Used by
// bench/crawl-realistic-site.ts, the simulator (sites/sim/) and the tests.

import { normalize, parseUriReference, recompose, type PresetName } from '../src/normalize/index.js';
import { openStore, type CanonicalResult, type SeenStore } from '../src/store/index.js';
import { apply, applies, hostOf, parseRuleId } from '../src/store/rules.js';
import { crawlWithUrldedup, crawlWithWget, type ClientRun } from './real-site-runs.js';
import type { RealisticSite } from './realistic-site.js';

/** One document's URL that urldedup treated as a URL of something else. */
export interface FalseMerge {
  /** The document the URL names (ground truth). */
  readonly document: string;
  readonly url: string;
  /** Where urldedup put it (the store's canonical URL). */
  readonly canonical: string;
  /** What the canonical URL names: another document's id, or `(not-found)`, `(shell)`, … */
  readonly onto: string;
  /** The preset, learned rule or alias that mapped it (`rule:<host>/<spec>`, `preset:<name>`, `alias`). */
  readonly via: string;
}

export interface RealisticRun extends ClientRun {
  /** Documents with at least one URL merged onto something else (undefined: no store to ask, wget). */
  readonly falseMerges?: number;
  /** Of those, documents never fetched. */
  readonly lostToMerges?: number;
  readonly merges?: readonly FalseMerge[];
  /** Documents never fetched and not merged (not linked from any fetched page, or not extracted). */
  readonly missedOther: readonly string[];
}

/** What a URL names, as a site with a ground truth says: a document's id, or why it names none. */
type TruthLike = { readonly kind: 'document'; readonly id: string } | { readonly kind: 'none'; readonly why: string };

/** A site with a ground truth: this realistic site, or a simulated one (sites/sim/site.ts). */
export interface TruthSite {
  /** Every link URL met from the seeds, with its truth. */
  readonly links: ReadonlyMap<string, TruthLike>;
  truth(url: string): TruthLike;
}

const describe = (t: TruthLike): string => (t.kind === 'document' ? t.id : `(${t.why})`);

/** Ask the store after a crawl where it puts every link URL of the site, and compare with the truth. */
export async function findFalseMerges(site: TruthSite, store: string | SeenStore): Promise<FalseMerge[]> {
  const urls = [...site.links].filter(([, t]) => t.kind === 'document').map(([u]) => u);
  const db = typeof store === 'string' ? await openStore(store, { readOnly: true }) : store;
  const out: FalseMerge[] = [];
  try {
    for (let i = 0; i < urls.length; i += 500) {
      const chunk = urls.slice(i, i + 500);
      const results = await db.canonicalMany(chunk);
      results.forEach((r, j) => {
        if (!('canonicalKey' in r)) return;
        const c = r as CanonicalResult;
        if (c.canonicalKey === c.key) return;
        const url = chunk[j]!;
        const own = site.links.get(url)!;
        const onto = site.truth(c.canonicalUrl);
        if (onto.kind === 'document' && own.kind === 'document' && onto.id === own.id) return;
        out.push({ document: describe(own), url, canonical: c.canonicalUrl, onto: describe(onto), via: c.via ?? '(unknown)' });
      });
    }
  } finally {
    if (typeof store === 'string') await db.close();
  }
  return out;
}

export function score(run: ClientRun, merges?: readonly FalseMerge[]): RealisticRun {
  const missed = new Set(run.documentsMissed);
  const merged = new Set((merges ?? []).map((m) => m.document));
  return {
    ...run,
    ...(merges === undefined ? {} : { falseMerges: merged.size, lostToMerges: [...merged].filter((d) => missed.has(d)).length, merges }),
    missedOther: run.documentsMissed.filter((d) => !merged.has(d)),
  };
}

/** urldedup on the site, scored. */
export async function crawlRealisticWithUrldedup(site: RealisticSite, presets: readonly PresetName[] = [], learnMirrors = false): Promise<RealisticRun> {
  let merges: FalseMerge[] = [];
  const run = await crawlWithUrldedup(site, presets, 8, {
    inspect: async (dir) => {
      merges = await findFalseMerges(site, dir);
    },
    learnMirrors,
  });
  return score(learnMirrors ? { ...run, client: `${run.client} --learn-mirrors` } : run, merges);
}

/** wget on the site, scored (it keeps no store: false merges are not asked). */
export async function crawlRealisticWithWget(site: RealisticSite): Promise<RealisticRun> {
  return score(await crawlWithWget(site));
}

/** The rule or preset behind a merge (the first that mapped the URL), without the port. */
export function causeOf(m: FalseMerge): string {
  return m.via.replace(/:\d+\//, ':PORT/');
}

/**
 * The active rules that, each alone, map a merged URL onto something else than its document:
 * `via` names only the first rule of a chain, this names every rule that would lose it.
 */
export function rulesAlone(site: RealisticSite, m: FalseMerge, active: readonly string[]): string[] {
  let rec;
  try {
    rec = parseUriReference(normalize(m.url));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const id of active) {
    const parsed = parseRuleId(id);
    if (parsed === undefined || parsed.host !== hostOf(rec) || !applies(parsed.spec, rec)) continue;
    const onto = site.truth(recompose(apply(parsed.spec, rec)));
    if (onto.kind !== 'document' || onto.id !== m.document) out.push(`rule:${id.replace(/:\d+\//, ':PORT/')}`);
  }
  return out;
}

/** The results as a Markdown table. */
export function formatTable(site: RealisticSite, runs: readonly RealisticRun[]): string {
  const n = site.documents.length;
  const lines = [
    '| crawler | requests | documents reached | recall | false merges (documents) | lost to them | requests per document | over floor | extra fetches of a document | robots.txt-disallowed fetched | seconds |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of runs) {
    lines.push(
      `| ${r.client} | ${r.requests} | ${r.documentsReached} / ${n} | ${(r.documentsReached / n).toFixed(3)} | ${r.falseMerges ?? '—'} | ${r.lostToMerges ?? '—'} | ${r.requestsPerDocument} | ${(r.requests / site.floor).toFixed(3)} | ${r.extraFetches} | ${r.disallowedFetched} | ${r.seconds} |`,
    );
  }
  return lines.join('\n') + '\n';
}

/** False merges by cause, with a few examples; the other misses. */
export function formatMerges(site: RealisticSite, r: RealisticRun, examples = 2): string {
  const out: string[] = [];
  const by = new Map<string, FalseMerge[]>();
  for (const m of r.merges ?? []) by.set(causeOf(m), [...(by.get(causeOf(m)) ?? []), m]);
  const missed = new Set(r.documentsMissed);
  const active = (r.report?.rules ?? []).map((x) => x.id);
  const alone = new Map<string, Set<string>>();
  for (const m of r.merges ?? []) for (const rule of rulesAlone(site, m, active)) alone.set(rule, (alone.get(rule) ?? new Set()).add(m.document));
  for (const [cause, ms] of [...by].sort((x, y) => y[1].length - x[1].length)) {
    const docs = new Set(ms.map((m) => m.document));
    out.push(`  via ${cause}: ${docs.size} documents (${[...docs].filter((d) => missed.has(d)).length} lost), e.g. ${ms.slice(0, examples).map((m) => `${m.url.replace(/^http:\/\//, '')} → ${m.onto}`).join('; ')}`);
  }
  if (alone.size > 0) out.push(`  merged by each rule alone: ${[...alone].sort((x, y) => y[1].size - x[1].size).map(([k, v]) => `${k.replace(/^rule:/, '')} ${v.size}`).join(', ')}`);
  if (r.missedOther.length > 0) {
    const search = r.missedOther.filter((d) => site.onlyViaRelSearch.includes(d));
    out.push(`  missed, not merged: ${r.missedOther.length} (${search.length} reachable only through link rel=search): ${r.missedOther.slice(0, 6).join(' ')}${r.missedOther.length > 6 ? ' …' : ''}`);
  }
  return out.length === 0 ? '' : `${r.client}:\n${out.join('\n')}\n`;
}

