/**
 * Checks after a rule acts (docs/rules.md, "Checks after a rule acts"; DUSTBuster's validation
 * step, Bar-Yossef et al., WWW 2007): which rewrites of a rule are fetched as themselves too, the
 * `v` check, and compared with their rewrite by the learner. The samples themselves are counted in
 * learning/rewrite-samples.ts; this module says what they read of a rule and records the entry.
 */
import type { UrlEntry } from '../keys.js';
import { foldCase } from '../learning/path-variants.js';
import type { SampledRule } from '../learning/rewrite-samples.js';
import { checksEveryPlace, readsAsCopy } from '../learning/rule-scope.js';
import { isMirrorRuleId, isParameterRule, parseSpec, type RuleRecord } from '../rules.js';
import { transform } from './canonicalize.js';
import type { EngineParts } from './parts.js';
import { recordOfKey } from './url-state.js';

/**
 * The entry of `k0`, which `via` maps onto `key`: pruned, so that a give-back finds it. A rule's
 * rewrites are checked after it acts (DUSTBuster's validation step, Bar-Yossef et al., WWW 2007):
 * a rewritten URL the rule's samples pick (learning/rewrite-samples.ts: by count and by new
 * place) is queued to be fetched as itself too (the `v` check), and the learner compares it with
 * its rewrite.
 */
export function rewritten(s: Pick<EngineParts, 'o' | 'rules'>, k0: string, key: string, via: string, depth: number, now: number, src: string | undefined, titled = false): UrlEntry {
  // (onto a page under the not-found title, titled-images.ts: always a check)
  const entry: UrlEntry = via.startsWith('rule:') && (titled || checksRewrite(s, via, k0)) ? { s: 'queued', d: depth, t: now, k: 'v', by: via, to: key } : { s: 'pruned', d: depth, t: now, by: via, to: key };
  if (src !== undefined) entry.src = src;
  return entry;
}

/**
 * Count one more rewrite by rule `via` (`rule:<id>`) of the URL `k0`; true when it is one the
 * learner checks (`RewriteSamples`). For the case rule a place is its folded spelling:
 * `/liBrary/` is `/library/`, where the rule's evidence may lie, not a new place (links in random
 * case would make every one new).
 */
export function checksRewrite(s: Pick<EngineParts, 'o' | 'rules'>, via: string, k0: string): boolean {
  // each rule of a chain counts its rewrite, and any of them may ask for the check (the rule a
  // pruned URL is recorded under is the chain's first; a rule after it rewrote the URL too)
  let checked = false;
  for (const r of rulesOnChain(s, k0, via)) if (s.rules.samples.take(r, () => recordOfKey(k0).path, sampledRule(s, r))) checked = true;
  return checked;
}

/**
 * The rules (`rule:<id>`) that rewrite `k0` on its way to its canonical key, in order; `via` alone
 * when the rules of now send it nowhere (it was rewritten under rules since changed).
 */
export function rulesOnChain(s: Pick<EngineParts, 'o' | 'rules'>, k0: string, via: string): string[] {
  const chain: string[] = [];
  transform(s, recordOfKey(k0), k0, undefined, undefined, chain);
  if (!chain.includes(via)) chain.unshift(via);
  return chain;
}

/** Count the rewrite of `k0` by rule `via` as checked already (a sample taken when the rule gained scope). */
export function countChecked(s: Pick<EngineParts, 'rules'>, via: string, k0: string): void {
  s.rules.samples.counted(via, recordOfKey(k0).path, sampledRule(s, via));
}

/** The evidence a copy rule's pace starts from, whatever its support (see `sampledRule`). */
const COPY_PACE_DOCS = 3;
/**
 * A copy rule's first rewrites (rule-scope.ts `readsAsCopy`), all checked before its pace takes
 * over: a copy with one page in ten edited shows one among them but one time in twelve (0.9²⁴),
 * where the pace alone, on a small site, checks a dozen of forty.
 */
const COPY_FIRST_CHECKS = 24;

/**
 * What the samples read of rule `via`: its support's paths, how it spells a place (the case rule
 * folds it), and, for a parameter rule whose values recur (a scope holds for some values only) or
 * a mirror rule, the distinct documents of its support, which pace its checks (rewrite-samples.ts).
 * A mirror's pages may differ one by one (a staging copy edited since, where nothing in a URL
 * tells an edited page), so its place says nothing and its count is what checks.
 */
export function sampledRule(s: Pick<EngineParts, 'rules'>, via: string): SampledRule {
  const rule = (): RuleRecord | undefined => s.rules.get(via.slice(5));
  const copy = (r: RuleRecord | undefined): boolean => r !== undefined && readsAsCopy(r.spec, r.support ?? []);
  return {
    evidence: () => (rule()?.support ?? []).map((x) => x.p),
    ...(via.endsWith('/case-insensitive') ? { place: foldCase } : {}),
    ...(isMirrorRuleId(via.slice(5)) || copy(rule()) ? { first: COPY_FIRST_CHECKS } : {}),
    everyPlace: () => {
      const r = rule();
      return r !== undefined && checksEveryPlace(r.spec, r.support ?? []);
    },
    paced: () => {
      const r = rule();
      const spec = r === undefined ? undefined : parseSpec(r.spec);
      if (r === undefined || spec === undefined) return undefined;
      const docs = new Set((r.support ?? []).map((x) => x.d)).size;
      // a copy's support is pages read alike under both names (for a mirror, those linked into it):
      // no sample of the pages it prunes, which may differ one by one (a staging copy's edited
      // pages, a language prefix's translated ones), so its checks alone pace it
      if (copy(r)) return Math.min(docs, COPY_PACE_DOCS);
      if (!isParameterRule(spec) || !(r.scopes ?? []).some((x) => x.values !== undefined)) return undefined;
      return docs;
    },
  };
}
