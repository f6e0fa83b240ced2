/**
 * Content comparison (learner.ts, safeguards 1 and 4): two documents fetched as themselves,
 * `variant` and its image under a rule, `base`. Equal content supports the rule where the variant
 * lies, unless the body is a shell or a not-found page; different content contradicts it there,
 * once the variant proved stable (stability.ts), or at once where their words differ by far more
 * than a per-response token does. Where a token changes the bytes on every fetch, the pages are
 * compared on what stays the same between two fetches of one URL (their text less its digits, or
 * their main content beside a block drawn per response).
 */
import { getEvidence, getUrl, type Txn } from '../engine/batch.js';
import { recordOfKey } from '../engine/url-state.js';
import type { Kv } from '../backends/kv.js';
import type { UrlEntry } from '../keys.js';
import { hasQueryKind, hostOf, isDocumentStatus, isParameterRule, ruleId, type Observation, type RuleRecord, type RuleSpec } from '../rules.js';
import type { ContentPair } from './content-pairs.js';
import type { LearnerReads, LearningPolicy, RuleChanges } from './contract.js';
import type { NotFoundSignatures } from './not-found.js';
import { placeOf, valueOf } from './observation-site.js';
import { parameterDifference } from './parameter-difference.js';
import { judgedRules } from './rewrite-chain.js';
import { dirOf, type ContradictionSite, type Support } from './rule-scope.js';
import { awaitRecheck, LARGE_DIFFERENCE, MAIN_STABLE, PENDING, sketchSimilarity, STABLE, stabilityPlace, TEXT_STABLE, UNSTABLE } from './stability.js';

/** The entry of a URL the host answered with a redirect (to a session form, a login page, …). */
export async function redirectedOf(kv: Pick<Kv, 'get'>, txn: Txn, key: string): Promise<UrlEntry | undefined> {
  const e = await getUrl(kv, txn, key);
  return e?.s === 'redirected' && e.st !== undefined && e.st >= 300 && e.st < 400 ? e : undefined;
}

/**
 * The document `key` answered as itself; with `ownForm`, also the document of its own form where
 * it answered only a redirect there (`/a` → 302 → `/a;jsessionid=Z`, whose document is `/a`'s).
 */
export async function documentOf(kv: Pick<Kv, 'get'>, txn: Txn, key: string, ownForm = false): Promise<UrlEntry | undefined> {
  const e = await getUrl(kv, txn, key);
  if (ownForm && e?.s === 'redirected' && e.to !== undefined && e.to !== key && parameterDifference(recordOfKey(e.to), recordOfKey(key)) !== undefined) return documentOf(kv, txn, e.to);
  if (e?.s !== 'fetched' || e.c === undefined || e.st === undefined || !isDocumentStatus(e.st) || e.z === true) return undefined;
  return e;
}

/** What a comparison reads of the learner, and how it records a verdict. */
export interface ComparisonContext {
  readonly reads: LearnerReads;
  readonly policy: LearningPolicy;
  readonly notFound: NotFoundSignatures;
  ruleOf(txn: Txn, id: string): Promise<RuleRecord | undefined>;
  liveRulesOf(txn: Txn, host: string): RuleRecord[];
  isShell(host: string, hash: string, spec: RuleSpec, variant: string, base: string): Promise<boolean>;
  observe(txn: Txn, host: string, spec: RuleSpec, obs: Observation, site: Support | ContradictionSite, changes: RuleChanges): Promise<void>;
}

/** Two documents compared, and the verdict recorded against the rules the pair is evidence about. */
export class ContentComparison {
  constructor(private readonly l: ComparisonContext) {}

  /**
   * Compare two documents fetched as themselves, `variant` and `spec(variant)` = `base`. Equal
   * content supports `spec` where `variant` lies, unless the body is a shell or a not-found page;
   * different content contradicts it there, once the variant proved stable.
   */
  async compare(txn: Txn, p: ContentPair, changes: RuleChanges, now: number): Promise<void> {
    if (p.variant === p.base) return;
    const ve = await documentOf(this.l.reads.kv, txn, p.variant);
    const be = ve === undefined ? undefined : await documentOf(this.l.reads.kv, txn, p.base, true);
    if (ve === undefined || be === undefined) return;
    const vrec = recordOfKey(p.variant);
    const host = hostOf(vrec);
    if (await this.l.notFound.matches(txn, host, vrec.path, ve.c!, ve.x)) return;
    if (await this.l.notFound.matches(txn, host, recordOfKey(p.base).path, be.c!, be.x)) return;
    if (ve.c !== be.c && ve.w !== undefined && ve.w === be.w) {
      // the bytes differ, the text but for the address each page prints of itself does not (a
      // share widget, an og:url from the request): one document
      await this.compared(txn, p, true, ve, be, changes, now, ve.w);
      return;
    }
    const known = await getEvidence(this.l.reads.kv, txn, stabilityPlace(vrec));
    // what stays the same between two fetches of one URL here (the text but for its digits, or
    // the main content beside a block drawn per response): compared on that, as content elsewhere
    const [vk, bk] = known === TEXT_STABLE ? [ve.y, be.y] : known === MAIN_STABLE ? [ve.b, be.b] : [];
    if (vk !== undefined && bk !== undefined) return this.compared(txn, p, vk === bk, ve, be, changes, now, vk);
    // one page with a main content and one without (no aside or nav): not one template, two documents
    if (known === MAIN_STABLE && (ve.b === undefined) !== (be.b === undefined)) return this.compared(txn, p, false, ve, be, changes, now);
    if (known === UNSTABLE || known === TEXT_STABLE || known === MAIN_STABLE) {
      // a per-response token keeps content hashes apart on every fetch here: equal content shows
      // nowhere, but pages whose words differ by far more than a token does are not one document
      if (ve.c !== be.c && sketchSimilarity(ve.m, be.m) < LARGE_DIFFERENCE) await this.compared(txn, p, false, ve, be, changes, now);
      return;
    }
    if (ve.c === be.c) {
      await this.compared(txn, p, true, ve, be, changes, now);
      return;
    }
    const id = ruleId(host, p.spec);
    const rule = await this.l.ruleOf(txn, id);
    if (rule?.manual === true) return;
    // (a recheck of this place in flight has told nothing yet: as good as unknown)
    const settled = known !== undefined && !known.startsWith(PENDING);
    if (known !== STABLE && sketchSimilarity(ve.m, be.m) < LARGE_DIFFERENCE && (settled || ve.b === undefined || ve.b !== be.b)) {
      // words that differ by far more than a token does: two documents wherever the variant lies,
      // as in an unstable directory (above), so no second fetch can change the verdict (a
      // translation beside its original, `/a.de.html` and `/a.html`). Not where the main
      // content is one and the words differ beside it while nothing is settled here yet: a block
      // drawn per response outweighs a short page's words, and the recheck below tells (taken
      // while another page's recheck was in flight, such a verdict withdrew a case rule from a
      // whole host that folds case: simulator seed 43019, 3 crawls in 18, 2.9 × the requests)
      await this.compared(txn, p, false, ve, be, changes, now);
      return;
    }
    if (known !== STABLE) {
      // unknown: fetch the variant again first; pending: wait for that fetch
      await awaitRecheck(this.l.reads.kv, txn, known, { rec: vrec, key: p.variant }, { id, variant: p.variant, other: p.base }, changes.checks);
      return;
    }
    if (ve.y !== undefined && ve.y === be.y) {
      // pages of a stable directory that differ in digits and markup alone: this page may be one
      // that prints a token there (a section's index page among the directory's own files), or
      // another document that differs only in its numbers. Its own second fetch tells.
      const place = stabilityPlace(vrec, true);
      const own = await getEvidence(this.l.reads.kv, txn, place);
      if (own === TEXT_STABLE) {
        await this.compared(txn, p, true, ve, be, changes, now, ve.y);
        return;
      }
      if (own === undefined || own.startsWith(PENDING)) {
        await awaitRecheck(this.l.reads.kv, txn, own, { rec: vrec, key: p.variant }, { id, variant: p.variant, other: p.base }, changes.checks, place);
        return;
      }
    }
    await this.compared(txn, p, false, ve, be, changes, now);
  }

  /**
   * The verdict of a comparison: equal content supports the rule where the variant lies, different
   * content contradicts it. `doc` names the document shown (its content hash, or where a token
   * changes the bytes on every fetch, its stable hash).
   */
  private async compared(txn: Txn, p: ContentPair, equal: boolean, ve: UrlEntry, be: UrlEntry, changes: RuleChanges, now: number, doc = ve.c!): Promise<void> {
    if (equal && p.against === true) return;
    // the rules this pair is evidence about: its own, a chain's, a group's parts (rewrite-chain.ts)
    const specs = await judgedRules(this.l.reads.rules.activeOf, () => this.l.liveRulesOf(txn, hostOf(recordOfKey(p.variant))), (id) => this.l.ruleOf(txn, id), p, equal);
    for (const spec of specs) await this.comparedFor(txn, { ...p, spec }, equal, ve, be, changes, now, doc);
  }

  private async comparedFor(txn: Txn, p: ContentPair, equal: boolean, ve: UrlEntry, be: UrlEntry, changes: RuleChanges, now: number, doc: string): Promise<void> {
    const vrec = recordOfKey(p.variant);
    const host = hostOf(vrec);
    const how = p.sample === true ? 'sample' : 'content';
    if (equal) {
      if (await this.l.isShell(host, ve.c!, p.spec, p.variant, p.base)) return;
      const obs: Observation = { v: 'for', how, source: p.variant, to: p.base, hash: ve.c!, t: now };
      const site: Support = { p: placeOf(vrec), d: doc, q: hasQueryKind(p.spec, vrec), s: p.variant, t: p.base, ...valueOf(p.spec, vrec) };
      await this.l.observe(txn, host, p.spec, obs, site, changes);
      // unknown ids answered with one page (a soft 404) are found where parameters are: probe the
      // host's root and the directory there, once each
      if (this.l.policy.probeNotFound && isParameterRule(p.spec)) {
        const at = { rec: vrec, key: p.variant };
        await this.l.notFound.ask(txn, at, '/', changes.checks);
        await this.l.notFound.ask(txn, at, dirOf(vrec.path), changes.checks);
      }
      return;
    }
    // (a rule withdrawn by hand learns nothing: `observe` drops it)
    const obs: Observation = { v: 'against', how, source: p.variant, to: p.base, hash: ve.c!, otherHash: be.c!, t: now };
    await this.l.observe(txn, host, p.spec, obs, { p: placeOf(vrec), s: p.variant }, changes);
  }
}
