/**
 * The host-rule learner (RFC 3986 §6.2.4; docs/design.md, "Learning equivalences safely"). Evidence from
 * redirects and fetches becomes support for, or contradictions of, host rules (rules.ts), and a
 * rule holds in the scopes its evidence spans (rule-scope.ts). Four safeguards keep a rule from
 * merging distinct documents:
 *
 * 1. **Only documents are evidence.** Content counts only between 2xx answers with a body that is
 *    not the host's not-found signature (not-found.ts) and not a shell (one body served under URLs
 *    that differ by more than the rule's component); both URLs fetched as themselves.
 * 2. **A rule has a scope**, the part of the path tree its distinct documents span.
 * 3. **A rule is checked after it acts.** A rewrite that answers anything but a document
 *    contradicts the rule where the original URL lies (the original comes back through give-back);
 *    a sample of rewritten URLs is fetched as themselves and compared (the rewrite index and the
 *    `v` check, admit.ts).
 * 4. **Unstable pages give no support.** Before content that differs counts against a rule, a
 *    page of its directory is fetched again (stability.ts `awaitRecheck`): where a page's own content changed
 *    between two fetches (a CSRF token, a timestamp), equal content shows nowhere, so nothing
 *    there supports a rule. A second fetch, not a fingerprint that ignores such tokens: one that
 *    drops numbers or long tokens would make two listings that differ only in dates or ids look
 *    equal, a false merge. A token does not silence the check, though: two pages whose words
 *    differ by far more than a token does (their word sketches, `LARGE_DIFFERENCE`) contradict
 *    the rule there too, and at once where the directory's stability is not known yet: no second
 *    fetch could make them one document.
 *
 * Its interface: it reads the store through `LearnerReads` and the batch, writes only through the
 * `Txn`, and returns the `RuleChanges` of the call (rules that gained scopes prune the frontier,
 * rules that lost scopes give back, and the URLs it asks to fetch: probes and rechecks).
 */
import { keyFromRecord, looksMinted } from '../../normalize/index.js';
import { counterNames, decodeJson, encodeJson, evidenceKeys, prefixRange, SEP, startsWithRange, type UrlEntry } from '../keys.js';
import { outsidePartition } from '../host-tag.js';
import { bareParameterPath, ownPageOffered, parameterDifference, withoutAddedParameters } from './parameter-difference.js';
import { dirOf, type ContradictionSite, type Support } from './rule-scope.js';
import { CASE_FOLDED, caseShape, isCaseProbe } from './path-variants.js';
import { CaseProbes } from './case-probe.js';
import { imageEnd, takeWaiting, type ImageEnd } from './image-redirects.js';
import { placeOf, readPrefix, redirectSupport, valueOf } from './observation-site.js';
import {
  applies,
  apply,
  contradict,
  discount,
  hasQueryKind,
  hostOf,
  isDocumentStatus,
  isParameterRule,
  newCandidate,
  parseRuleId,
  parseSpec,
  retract,
  ruleId,
  support,
  type LearningLimits,
  type Observation,
  type RuleRecord,
  type RuleSpec,
  type Transition,
  withdrawByHand,
} from '../rules.js';
import { explainRedirect, judgeRedirect } from './redirect-explanation.js';
import { getEvidence, getUrl, putEvidence, type Txn } from '../engine/batch.js';
import { contentPairs, imageKey, mirrorPairs, prefixPairs, preimages, representationPairs, tailsAlike, type RepresentationClaim } from './content-pairs.js';
import { NotFoundSignatures, rewrittenBeyondEvidence } from './not-found.js';
import { PathDocuments } from './path-documents.js';
import { settleRecheck, type RecheckHashes } from './stability.js';
import { recordOfKey } from '../engine/url-state.js';
import { failedStep } from './rewrite-chain.js';
import { answerOf, failuresAlike, loopMayAgree, mayAgree, type FailedAnswer, type RewriteFailure } from './failure-agreement.js';
import { servedAsShell } from './shells.js';
import { ContentComparison, documentOf, redirectedOf } from './content-comparison.js';
import { noRuleChanges, type LearnedUrl, type LearnerReads, type LearningPolicy, type RuleChanges } from './contract.js';

/** Documents with one body read for moved-prefix pairs (content-pairs.ts `prefixPairs`). */
const SAME_BODY_SAMPLE = 8;
/** Rewrite failures waiting for one URL's answer, read at most. */
const FAILURES_READ = 16;
/** Rewrites onto one URL read to tell whether a rule acted beyond its evidence. */
const REWRITES_READ = 4;

/** Fetched documents of a host judged when a candidate appears. */
const EXISTING_SAMPLE = 64;

export class RuleLearner {
  private readonly limits: LearningLimits;
  readonly notFound: NotFoundSignatures;
  private readonly caseProbes: CaseProbes;
  private readonly pathDocuments: PathDocuments;
  private readonly comparison: ContentComparison;

  constructor(
    private readonly reads: LearnerReads,
    private readonly policy: LearningPolicy,
  ) {
    this.limits = { threshold: policy.ruleThreshold, maxSupport: policy.maxEvidencePerRule };
    this.notFound = new NotFoundSignatures(reads.kv, reads.notFound);
    this.caseProbes = new CaseProbes(reads.kv);
    this.pathDocuments = reads.pathDocuments ?? new PathDocuments(reads.kv, false);
    this.comparison = new ContentComparison({
      reads,
      policy,
      notFound: this.notFound,
      ruleOf: (txn, id) => this.ruleOf(txn, id),
      liveRulesOf: (txn, host) => this.liveRulesOf(txn, host),
      isShell: (host, hash, spec, variant, base) => this.isShell(host, hash, spec, variant, base),
      observe: (txn, host, spec, obs, site, changes) => this.observe(txn, host, spec, obs, site, changes),
    });
  }

  /** The live (candidate or active) rules of `host`, this batch's changes included. */
  liveRulesOf(txn: Txn, host: string): RuleRecord[] {
    const out = new Map<string, RuleRecord>();
    for (const id of this.reads.rules.idsOf(host)) {
      const r = txn.rules.get(id) ?? this.reads.rules.get(id);
      if (r !== undefined) out.set(id, r);
    }
    for (const r of txn.rules.values()) if (r.host === host) out.set(r.id, r);
    return [...out.values()].filter((r) => r.state !== 'withdrawn');
  }

  private async ruleOf(txn: Txn, id: string): Promise<RuleRecord | undefined> {
    const r = txn.rules.get(id) ?? this.reads.rules.get(id);
    if (r !== undefined || !this.reads.rules.isWithdrawn(id)) return r;
    const v = await this.reads.kv.get('rule', id);
    return v === undefined ? undefined : decodeJson<RuleRecord>(v);
  }

  private write(txn: Txn, before: RuleRecord | undefined, tr: Transition, changes: RuleChanges): void {
    const rule = tr.rule;
    if (before === undefined) txn.count(counterNames.rules(rule.state), 1);
    else if (before.state !== rule.state) {
      txn.count(counterNames.rules(before.state), -1);
      txn.count(counterNames.rules(rule.state), 1);
    }
    if (tr.change === 'activated' || tr.change === 'widened') changes.activated.push(rule.id);
    if (tr.change === 'narrowed' || tr.change === 'withdrawn') changes.givesBack.push(rule.id);
    if (tr.change === 'withdrawn') changes.withdrawn.push(rule.id);
    txn.rules.set(rule.id, rule);
    txn.put('rule', rule.id, encodeJson(rule));
  }

  /**
   * One observation of `spec` on `host`, once per distinct source URL and verdict: support (with
   * where it lies and which document it shows) or a contradiction (where it lies). A candidate
   * appears with its first observation; the documents of its host fetched before then are judged
   * at once (evidence seen before a candidate exists counts too).
   */
  private async observe(txn: Txn, host: string, spec: RuleSpec, obs: Observation, site: Support | ContradictionSite, changes: RuleChanges): Promise<void> {
    const id = ruleId(host, spec);
    const before = await this.ruleOf(txn, id);
    if (before?.manual === true) return;
    const ek = evidenceKeys.observation(id, obs.source);
    const existing = await getEvidence(this.reads.kv, txn, ek);
    if (existing !== undefined && decodeJson<Observation>(existing).v === obs.v) return;
    putEvidence(txn, ek, encodeJson(obs));
    const rule = before ?? newCandidate(host, spec, obs.t);
    // a parameter rule's contradiction with the value it was about (rule-scope.ts: a recurring
    // value contradicted anywhere is a choice)
    const at = obs.v === 'against' && isParameterRule(spec) && site.v === undefined ? { ...site, ...valueOf(spec, recordOfKey(site.s)) } : site;
    // a recurring value first linked from its own page: a choice that page offers (rule-scope.ts)
    const offered = obs.v === 'for' && isParameterRule(spec) && at.v !== undefined && !looksMinted(at.v) && ownPageOffered(recordOfKey(at.s), (await getUrl(this.reads.kv, txn, at.s))?.src);
    const tr = obs.v === 'for' ? support(rule, { ...(at as Support), ...(offered ? { o: true as const } : {}) }, obs, this.limits) : contradict(rule, at, obs, this.limits);
    this.write(txn, before, tr, changes);
    if (before !== undefined && before.state !== 'active' && tr.rule.state === 'active') await this.judgePairs(txn, host, spec, changes, obs.t);
    if (obs.v === 'for' && 'd' in site && obs.how === 'redirect') putEvidence(txn, evidenceKeys.redirectSupport(site.d, id), '');
    if (before === undefined) {
      // the host's not-found answer is learned before a rule can act on it: with its first
      // candidate, a probe at its root (a rule needs several observations to hold anywhere)
      if (this.policy.probeNotFound) await this.notFound.ask(txn, { rec: recordOfKey(obs.source), key: obs.source }, '/', changes.checks);
      await this.judgeExisting(txn, host, spec, changes, obs.t);
    }
  }

  /** A new candidate: the documents of its host fetched before it existed are compared too. */
  private async judgeExisting(txn: Txn, host: string, spec: RuleSpec, changes: RuleChanges, now: number): Promise<void> {
    let n = 0;
    for await (const [k] of this.reads.kv.entries('evidence', { ...prefixRange(evidenceKeys.documentPrefix(host)), limit: EXISTING_SAMPLE })) {
      const key = k.slice(k.lastIndexOf(SEP) + 1);
      const rec = recordOfKey(key);
      if (applies(spec, rec)) await this.comparison.compare(txn, { variant: key, base: keyFromRecord(apply(spec, rec)), spec }, changes, now);
      if (++n >= EXISTING_SAMPLE) break;
    }
    await this.judgePairs(txn, host, spec, changes, now);
  }

  /**
   * A suffix rule, new or now active: each pair of its host's documents it sends one onto the
   * other. Content supports it in one direction only (content-pairs.ts), so a pair fetched while it
   * was not live is judged now, or the rule would send a page onto another it differs from.
   */
  private async judgePairs(txn: Txn, host: string, spec: RuleSpec, changes: RuleChanges, now: number): Promise<void> {
    if (spec.kind !== 'suffix') return;
    const image = (key: string): string | undefined => (applies(spec, recordOfKey(key)) ? keyFromRecord(apply(spec, recordOfKey(key))) : undefined);
    for (const [variant, base] of await this.pathDocuments.pairs(host, (p) => p.endsWith(spec.from), image, EXISTING_SAMPLE)) await this.comparison.compare(txn, { variant, base, spec, against: true }, changes, now);
  }

  // ---- redirects -------------------------------------------------------------------------------

  /**
   * A case probe's redirect (case-probe.ts). Folded to its lower-case name, it is the case rule's
   * evidence that the host redirects every capitalized name at the probe's place.
   */
  async fromCaseProbe(txn: Txn, probe: LearnedUrl, to: LearnedUrl, status: number, merge: boolean, now: number): Promise<RuleChanges> {
    const changes = noRuleChanges();
    if (!this.caseProbes.answered(txn, probe, to, merge)) return changes;
    const site: Support = { p: placeOf(probe.rec), d: to.key, s: probe.key, v: CASE_FOLDED };
    await this.observe(txn, hostOf(probe.rec), { kind: 'case-insensitive' }, { v: 'for', how: 'redirect', source: probe.key, to: to.key, status, t: now }, site, changes);
    return changes;
  }

  /**
   * A redirect `from` → `to`. A permanent one (or any, with `merge`) supports every rule that
   * explains it; a permanent one contradicts every live rule of either host it disagrees with.
   * A temporary redirect is no evidence against: login walls and A/B tests answer 302 to URLs that
   * are documents. A rewrite target that redirects elsewhere failed as a rewrite.
   */
  async fromRedirect(txn: Txn, from: LearnedUrl, to: LearnedUrl, status: number, merge: boolean, now: number, loop = false, image?: { original: string; id: string }): Promise<RuleChanges> {
    const changes = noRuleChanges();
    // an image check that redirected (`image`), or the target one waited for that redirected on (image-redirects.ts)
    if (image !== undefined) await this.settleImage(txn, loop ? { ...image, at: to.key, failed: { st: status, to: to.key } } : await imageEnd(this.reads.kv, txn, image.original, image.id, to.key), changes, now);
    await this.imagesAnswered(txn, from, changes, now);
    if (loop) {
      // a redirect loop: no document lies behind either URL, so what a hop of it supported is taken back
      await this.redirectTargetFailed(txn, from, changes);
      await this.redirectTargetFailed(txn, to, changes);
    }
    const explained = explainRedirect(from.rec, to.rec, this.policy.defaultDocuments);
    const host = hostOf(from.rec);
    // a fleet partition holds one host: another host's rules and their checks are not in it
    const otherPartition = outsidePartition(this.policy.partition, hostOf(to.rec));
    if (merge && explained !== undefined && !otherPartition) {
      for (const spec of explained) {
        const site = redirectSupport(spec, explained, from, to.rec, to.key);
        if (site !== undefined) await this.observe(txn, host, spec, { v: 'for', how: 'redirect', source: from.key, to: to.key, status, t: now }, site, changes);
      }
      // a capitalized name sent to its lower-case form: does the host fold every name there? (case-probe.ts)
      if (this.policy.probeNotFound && explained.some((t) => t.kind === 'case-insensitive') && caseShape(placeOf(from.rec)) === 'word') await this.caseProbes.ask(txn, from, changes.checks);
    }
    // a temporary redirect to another URL's session form (`/A.html` → 302 → `/a.html;jsessionid=…`,
    // where `/a.html` → 302 → that same form): the server names `base` as the resource of `from`,
    // and only the session it adds is temporary. It supports what explains `from` → `base`.
    const base = merge || loop || otherPartition ? undefined : withoutAddedParameters(to.rec, from.rec);
    const baseKey = base === undefined ? undefined : keyFromRecord(base);
    const explainedBase = base === undefined || baseKey === from.key ? undefined : explainRedirect(from.rec, base, this.policy.defaultDocuments);
    if (explainedBase !== undefined) {
      for (const spec of explainedBase) {
        const site = redirectSupport(spec, explainedBase, from, base!, to.key);
        if (site !== undefined) await this.observe(txn, host, spec, { v: 'for', how: 'redirect', source: from.key, to: baseKey!, status, t: now }, site, changes);
      }
    }
    if (status === 301 || status === 308 || merge) {
      for (const h of new Set(otherPartition ? [host] : [host, hostOf(to.rec)])) {
        for (const rule of this.liveRulesOf(txn, h)) {
          const parsed = parseRuleId(rule.id);
          if (parsed === undefined) continue;
          if (judgeRedirect(parsed.spec, h, from.rec, to.rec, explained) !== 'against') continue;
          const how = h === host && applies(parsed.spec, from.rec) ? 'redirect' : 'inverse-redirect';
          const at = how === 'redirect' ? from : to;
          await this.observe(txn, h, parsed.spec, { v: 'against', how, source: from.key, to: to.key, status, t: now }, { p: placeOf(at.rec), s: at.key }, changes);
        }
      }
    }
    // a rewrite onto a URL that redirects elsewhere failed; onto a hop of a loop, whatever the
    // hop's redirect explains (`/a.html/` → `/a.html` is a slash rule, and no document). A URL
    // sent to itself with parameters added (a servlet container's `;jsessionid=`, a cookie check)
    // is not elsewhere: the document at the end of that chain is its own.
    await this.originalAnswered(txn, from, { st: status, to: to.key }, changes, now, loop);
    const toItself = parameterDifference(to.rec, from.rec) !== undefined;
    // (a loop's hop agrees with nothing: judged at once)
    if ((explained === undefined && explainedBase === undefined && !toItself) || loop) await this.rewriteFailed(txn, from, status, undefined, changes, now, to.key, loop);
    if (loop) await this.rewriteFailed(txn, to, status, undefined, changes, now, from.key, true);
    // `from` answered (with a redirect): its image under a live rule that answered no document
    // names something else
    if (!loop) await this.imageFailed(txn, from, status, changes, now, true);
    return changes;
  }

  /**
   * The host redirected `from` to `to`, the very URL a live rule maps back onto `from` (`/a` →
   * 302 → `/a;jsessionid=…` under `path-parameter:jsessionid`): the server refuses the rule's
   * rewrite there, a contradiction at `to`, whatever the status (else the target would be taken
   * for its source, a loop, and never fetched). Other rules are judged so already, by the redirect
   * that maps the other way (`judgeRedirect`); parameter rules are judged on content alone.
   */
  async rewriteRefused(txn: Txn, id: string, from: LearnedUrl, to: LearnedUrl, status: number, now: number): Promise<RuleChanges> {
    const changes = noRuleChanges();
    const parsed = parseRuleId(id);
    if (parsed === undefined || !isParameterRule(parsed.spec)) return changes;
    await this.observe(txn, parsed.host, parsed.spec, { v: 'against', how: 'redirect', source: to.key, to: from.key, status, t: now }, { p: placeOf(to.rec), s: to.key }, changes);
    return changes;
  }

  // ---- fetches ---------------------------------------------------------------------------------

  /**
   * The answer for `u` fetched as itself (`prev`: its entry before this fetch, which says whether
   * it was a probe, a recheck or a sampled rewrite).
   */
  async fromFetch(txn: Txn, u: LearnedUrl, hash: string | undefined, status: number, prev: UrlEntry | undefined, now: number, shape?: string, stable?: string, claims: readonly RepresentationClaim[] = [], echoFree?: string, main?: string, title?: string): Promise<RuleChanges> {
    const changes = noRuleChanges();
    const host = hostOf(u.rec);
    if (prev?.k === 'p' && isCaseProbe(u.rec.path)) {
      this.caseProbes.answered(txn, u, undefined, false);
      return changes;
    }
    if (prev?.k === 'p') {
      const soft = await this.notFound.record(txn, u, status, hash, shape, title);
      if (soft !== undefined) {
        await this.discountNotFound(txn, host, soft, changes);
        await this.rewritesNotFound(txn, u, soft, changes, now);
      }
      return changes;
    }
    const document = isDocumentStatus(status) && hash !== undefined && !(await this.notFound.matches(txn, host, u.rec.path, hash, shape));
    if (prev?.k === 'r') {
      await this.settleRecheck(txn, u, document ? { hash, stableHash: stable, mainHash: main } : {}, prev, changes, now);
      return changes;
    }
    if (!document) {
      // a 2xx with the host's not-found page: written as no document, so that lookups and rules
      // never take it for one (a chain of rules is not followed onto it)
      if (isDocumentStatus(status) && hash !== undefined) await this.notFound.mark(txn, u.key);
      await this.originalAnswered(txn, u, { st: status, ...(hash === undefined ? {} : { c: hash }) }, changes, now);
      await this.rewriteFailed(txn, u, status, hash, changes, now);
      await this.imageFailed(txn, u, status, changes, now);
      await this.redirectTargetFailed(txn, u, changes);
      await this.imagesAnswered(txn, u, changes, now);
      return changes;
    }
    // the ranges every document's fetch reads, asked at once: on Redis one round trip (the keys
    // share the host's slot, and commands issued together go as one pipeline), not five
    const [failures, same, rewrites, images, sameMain] = await Promise.all([
      readPrefix(this.reads.kv, evidenceKeys.rewriteFailurePrefix(u.key), FAILURES_READ),
      readPrefix(this.reads.kv, evidenceKeys.documentPrefix(host, hash), SAME_BODY_SAMPLE),
      this.policy.probeNotFound ? readPrefix(this.reads.kv, evidenceKeys.rewritePrefix(u.key), REWRITES_READ) : [],
      readPrefix(this.reads.kv, evidenceKeys.imageTargetPrefix(u.key), FAILURES_READ),
      main === undefined ? [] : readPrefix(this.reads.kv, evidenceKeys.mainDocumentPrefix(host, main), SAME_BODY_SAMPLE),
    ]);
    await this.originalAnswered(txn, u, undefined, changes, now, false, failures);
    putEvidence(txn, evidenceKeys.document(host, hash, u.key), '');
    if (main !== undefined) putEvidence(txn, evidenceKeys.mainDocument(host, main, u.key), '');
    putEvidence(txn, evidenceKeys.pathDocument(host, bareParameterPath(u.rec.path), u.key), hash);
    await this.shellAfterFetch(txn, host, hash, u, changes);
    const pairs = await contentPairs(this.pathDocuments, u, this.liveRulesOf(txn, host), this.policy.defaultDocuments);
    pairs.push(...prefixPairs(u, same.map(([k]) => k.slice(k.lastIndexOf(SEP) + 1))));
    if (stable !== undefined) pairs.push(...prefixPairs(u, await tailsAlike(this.pathDocuments, this.reads.kv, txn, u, hash, stable)));
    // pages beside a block drawn per response, whose bytes never match: paired by main content
    if (main !== undefined) pairs.push(...prefixPairs(u, sameMain.map(([k]) => k.slice(k.lastIndexOf(SEP) + 1))));
    if (this.policy.learnMirrors === true && !this.policy.partition) {
      // indexed by the body less the page's own address where it was given: a page that prints
      // its URL prints its host too
      const body = echoFree === undefined ? hash : `w${echoFree}`;
      putEvidence(txn, evidenceKeys.body(body, u.key), '');
      pairs.push(...(await mirrorPairs(this.reads.kv, u, body, this.reads.rules.mirrorsOnto(host), this.reads.rules.isMirror)));
    }
    if (prev?.k === 'v' && prev.to !== undefined && prev.by?.startsWith('rule:') === true) {
      const parsed = parseRuleId(prev.by.slice(5));
      // a rewrite the rule (with others, or after a redirect to its own form: evidence.ts
      // `carryCheck`) sends to `to`, or an image (give-back.ts `pruneImages`): `to` is the
      // document the rule sends here
      const to = recordOfKey(prev.to);
      const image = parsed !== undefined && applies(parsed.spec, to) && keyFromRecord(apply(parsed.spec, to)) === u.key;
      if (parsed !== undefined) pairs.push(image ? { variant: prev.to, base: u.key, spec: parsed.spec, sample: true } : { variant: u.key, base: prev.to, spec: parsed.spec, sample: true });
    }
    for (const p of pairs) await this.comparison.compare(txn, p, changes, now);
    await this.imagesAnswered(txn, u, changes, now, images);
    for (const c of claims) await this.fromClaim(txn, u, c, hash, changes, now);
    await this.imageFailed(txn, u, status, changes, now, true);
    // a rule's rewrite, made where its evidence does not lie, that answered a document: its
    // directory's not-found page is asked for (a soft 404 there would have passed for one), and a
    // probe that finds it fails the rewrite
    if (this.policy.probeNotFound && (await rewrittenBeyondEvidence((id) => this.ruleOf(txn, id), rewrites))) await this.notFound.ask(txn, u, dirOf(u.rec.path), changes.checks);
    changes.checks.push(...(await this.notFound.originalsToCheck(txn, u, title, rewrites)));
    return changes;
  }

  /**
   * A document that named its representation elsewhere (`RepresentationClaim`): the two names give
   * one representation, as a redirect says its source is its target. Support like a redirect's for
   * the rule that maps one name onto the other (content-pairs.ts `representationPairs`: path
   * variants and default documents only), never a merge by itself; the rule is checked like any
   * other once it acts, and a shell (one body under names the rule does not explain) shows nothing.
   */
  private async fromClaim(txn: Txn, u: LearnedUrl, claim: RepresentationClaim, hash: string, changes: RuleChanges, now: number): Promise<void> {
    const at = claim.at;
    for (const p of representationPairs(u, at, this.policy.defaultDocuments)) {
      const host = hostOf(u.rec);
      if (await this.isShell(host, hash, p.spec, p.variant, p.base)) continue;
      const vrec = recordOfKey(p.variant);
      const obs: Observation = { v: 'for', how: claim.how, source: u.key, to: at.key, hash, t: now };
      await this.observe(txn, host, p.spec, obs, { p: placeOf(vrec), d: hash, q: hasQueryKind(p.spec, vrec), s: p.variant, t: p.base, ...valueOf(p.spec, vrec) }, changes);
    }
  }

  /** Image checks that waited for `u` (image-redirects.ts), settled now that it answered. */
  private async imagesAnswered(txn: Txn, u: LearnedUrl, changes: RuleChanges, now: number, read?: readonly (readonly [string, string])[]): Promise<void> {
    const waiting = takeWaiting(txn, u.key, read ?? (await readPrefix(this.reads.kv, evidenceKeys.imageTargetPrefix(u.key), FAILURES_READ)));
    for (const [original, id] of waiting) await this.settleImage(txn, await imageEnd(this.reads.kv, txn, original, id, u.key), changes, now);
  }

  /** An image check's end: compared with its document, or, where it failed, against the rule there. */
  private async settleImage(txn: Txn, end: ImageEnd | undefined, changes: RuleChanges, now: number): Promise<void> {
    const parsed = end === undefined ? undefined : parseRuleId(end.id);
    if (end === undefined || parsed === undefined || (await this.ruleOf(txn, end.id))?.state !== 'active') return;
    if (end.failed === undefined) return this.comparison.compare(txn, { variant: end.original, base: end.at, spec: parsed.spec, sample: true }, changes, now);
    const obs: Observation = { v: 'against', how: 'rewrite', source: end.original, to: end.at, status: end.failed.st, t: now };
    await this.observe(txn, parsed.host, parsed.spec, obs, { p: placeOf(recordOfKey(end.original)), s: end.original }, changes);
  }

  /**
   * A document whose image under a live rule answered no document (or the other way round: a URL
   * that answered none, the image of a document) contradicts the rule at the document: the host
   * answered both names, and they do not name one document (a leaf page `/a/b` beside the
   * directories `slash-add` was learned from, whose `/a/b/` is a 404 or the soft-404 page). `document`: `u` answered,
   * with a document or a redirect; otherwise `u` failed and its preimages (documents, or URLs
   * answered with a redirect) are looked up.
   */
  private async imageFailed(txn: Txn, u: LearnedUrl, status: number, changes: RuleChanges, now: number, document = false): Promise<void> {
    // a server error or no answer may pass: it shows nothing about the names
    if (!document && (status === 0 || status >= 500)) return;
    const host = hostOf(u.rec);
    for (const rule of this.liveRulesOf(txn, host)) {
      const spec = parseSpec(rule.spec);
      if (spec === undefined || isParameterRule(spec)) continue;
      const pairs: [LearnedUrl, string][] = [];
      if (document) {
        if (applies(spec, u.rec)) pairs.push([u, keyFromRecord(apply(spec, u.rec))]);
      } else {
        for (const p of preimages(spec, u.rec)) pairs.push([{ rec: p, key: keyFromRecord(p) }, u.key]);
      }
      for (const [doc, image] of pairs) {
        const other = document ? await getUrl(this.reads.kv, txn, image) : ((await documentOf(this.reads.kv, txn, doc.key)) ?? (await redirectedOf(this.reads.kv, txn, doc.key)));
        if (other === undefined) continue;
        // the image failed: an error status, or a 2xx with the not-found page (a soft 404)
        if (document && (other.s !== 'fetched' || other.st === undefined || other.st >= 500 || (isDocumentStatus(other.st) && !(await this.notFound.answered(txn, host, image, other))))) continue;
        const st = document ? other.st! : status;
        const obs: Observation = { v: 'against', how: 'content', source: doc.key, to: image, status: st, t: now };
        await this.observe(txn, host, spec, obs, { p: placeOf(doc.rec), s: doc.key }, changes);
      }
    }
  }


  // ---- shells --------------------------------------------------------------------------------

  private isShell(host: string, hash: string, spec: RuleSpec, variant: string, base: string, fetching?: string): Promise<boolean> {
    return servedAsShell(this.reads.kv, host, hash, spec, variant, base, fetching);
  }

  /**
   * A document `u` with `hash`: support that this hash gave to a rule that does not map `u` alike
   * is taken back, once the body is served under enough other paths to be a shell (isShell).
   */
  private async shellAfterFetch(txn: Txn, host: string, hash: string, u: LearnedUrl, changes: RuleChanges): Promise<void> {
    for (const rule of this.liveRulesOf(txn, host)) {
      const shown = (rule.support ?? []).filter((s) => s.d === hash && s.t !== undefined);
      if (shown.length === 0) continue;
      const spec = parseSpec(rule.spec);
      if (spec === undefined) continue;
      const img = imageKey(spec, u.rec);
      if (shown.every((s) => s.t === img || s.s === u.key)) continue;
      if (!(await this.isShell(host, hash, spec, shown[0]!.s, shown[0]!.t!, u.key))) continue;
      this.write(txn, rule, discount(rule, (s) => s.d === hash, this.limits), changes);
    }
  }

  /**
   * A probe found the host's not-found page in `dir`: support it gave there is taken back, by its
   * hash or, where the page echoes the request, by the shape of the documents that gave it.
   */
  private async discountNotFound(txn: Txn, host: string, soft: { dir: string; hash: string; shape?: string }, changes: RuleChanges): Promise<void> {
    const shapes = new Map<string, string | undefined>();
    if (soft.shape !== undefined) {
      for (const rule of this.liveRulesOf(txn, host)) {
        for (const s of rule.support ?? []) {
          if (!s.p.startsWith(soft.dir) || shapes.has(s.s)) continue;
          shapes.set(s.s, (await getUrl(this.reads.kv, txn, s.s))?.x);
          if (s.t !== undefined && !shapes.has(s.t)) shapes.set(s.t, (await getUrl(this.reads.kv, txn, s.t))?.x);
        }
      }
    }
    const notFound = (k: string | undefined): boolean => k !== undefined && soft.shape !== undefined && shapes.get(k) === soft.shape;
    await this.discountWhere(txn, host, (s) => s.p.startsWith(soft.dir) && (s.d === soft.hash || notFound(s.s) || notFound(s.t)), changes);
  }


  /**
   * A probe found the not-found page of its directory: rewrites there that were taken for documents
   * before it (a rule's image that answered the same page, echo and all) are failed rewrites.
   */
  private async rewritesNotFound(txn: Txn, probe: LearnedUrl, soft: { hash: string; shape?: string; title?: string }, changes: RuleChanges, now: number): Promise<void> {
    if (probe.rec.query !== undefined) return;
    const dirKey = probe.key.slice(0, probe.key.lastIndexOf('/') + 1);
    const prefix = evidenceKeys.rewritePrefix(dirKey).slice(0, -SEP.length);
    const targetAt = prefix.length - dirKey.length;
    const done = new Set<string>();
    changes.checks.push(...(await this.notFound.titledBefore(txn, dirKey, soft.title, EXISTING_SAMPLE)));
    for await (const [k] of this.reads.kv.entries('evidence', { ...startsWithRange(prefix), limit: EXISTING_SAMPLE })) {
      const target = k.slice(targetAt, k.lastIndexOf(SEP));
      if (done.has(target)) continue;
      done.add(target);
      const e = await documentOf(this.reads.kv, txn, target);
      if (e === undefined || (e.c !== soft.hash && (soft.shape === undefined || e.x !== soft.shape))) continue;
      await this.notFound.mark(txn, target);
      await this.rewriteFailed(txn, { rec: recordOfKey(target), key: target }, e.st!, e.c, changes, now);
    }
  }

  private async discountWhere(txn: Txn, host: string, drop: (s: Support) => boolean, changes: RuleChanges): Promise<void> {
    for (const rule of this.liveRulesOf(txn, host)) {
      const tr = discount(rule, drop, this.limits);
      if (tr.rule !== rule) this.write(txn, rule, tr, changes);
    }
  }

  // ---- checks after a rule acted ---------------------------------------------------------------

  /**
   * `u` answered something other than a document (an error, a redirect elsewhere, the not-found
   * signature). Every rule that rewrote a URL onto `u` is judged against what that URL answers
   * (failure-agreement.ts): answering otherwise, it contradicts the rule where it lies (narrowed or
   * withdrawn, and the URL comes back to be fetched as itself); alike, nothing; not known yet, the
   * URL is queued as itself, a check, and its answer settles the failure (`originalAnswered`).
   */
  private async rewriteFailed(txn: Txn, u: LearnedUrl, status: number, hash: string | undefined, changes: RuleChanges, now: number, to?: string, loop = false): Promise<void> {
    const failure: RewriteFailure = { st: status, ...(hash === undefined ? {} : { c: hash }), ...(to === undefined ? {} : { to }), r: u.key };
    for await (const [k, reason] of this.reads.kv.entries('evidence', { ...prefixRange(evidenceKeys.rewritePrefix(u.key)), limit: 256 })) {
      if (!reason.startsWith('rule:')) continue;
      const original = k.slice(k.lastIndexOf(SEP) + 1);
      const step = await failedStep(this.reads.rules.activeOf, this.reads.kv, original, u.key);
      // pruned under the chain's first rule: a give-back of the rule blamed does not reach it
      if (step?.id !== reason.slice(5)) changes.reconsider.push(original);
      if (step === undefined) continue;
      const { id, at } = step;
      const parsed = parseRuleId(id);
      if (parsed === undefined) continue;
      if ((!loop || loopMayAgree(id)) && mayAgree(status)) {
        const answer = answerOf(await getUrl(this.reads.kv, txn, original));
        if (answer === undefined) {
          putEvidence(txn, evidenceKeys.rewriteFailure(original, id), encodeJson({ ...failure, p: placeOf(at), w: 1 }));
          changes.checks.push({ kind: 'original', key: original, rec: recordOfKey(original) });
          continue;
        }
        if (answer !== 'document' && failuresAlike(id, answer, failure)) continue;
      }
      const obs: Observation = { v: 'against', how: 'rewrite', source: original, to: u.key, status, ...(hash === undefined ? {} : { hash }), t: now };
      await this.observe(txn, parsed.host, parsed.spec, obs, { p: placeOf(at), s: original }, changes);
      putEvidence(txn, evidenceKeys.rewriteFailure(original, id), encodeJson(failure));
    }
  }

  /**
   * `u`, whose rewrite answered no document, answered now: `answer`, its failure, or undefined
   * for a document. A failure waiting for this answer is settled: alike, it shows no
   * difference between the names; otherwise it contradicts the rule where `u` lies. One counted
   * already (the original was not asked first) is taken back when the two failures agree. A
   * loop's hop (`loop`) agrees with nothing.
   */
  private async originalAnswered(txn: Txn, u: LearnedUrl, answer: FailedAnswer | undefined, changes: RuleChanges, now: number, loop = false, read?: readonly (readonly [string, string])[]): Promise<void> {
    const prefix = evidenceKeys.rewriteFailurePrefix(u.key);
    for (const [k, v] of read ?? (await readPrefix(this.reads.kv, prefix, FAILURES_READ))) {
      const id = k.slice(prefix.length);
      const f = decodeJson<RewriteFailure>(v);
      const alike = answer !== undefined && (!loop || loopMayAgree(id)) && failuresAlike(id, answer, f);
      if (f.w !== 1 && loop) continue;
      txn.del('evidence', k);
      txn.evidence.set(k, null);
      const rule = await this.ruleOf(txn, id);
      if (rule === undefined || rule.manual === true) continue;
      if (f.w === 1) {
        if (alike) continue;
        const parsed = parseRuleId(id);
        if (parsed === undefined) continue;
        const obs: Observation = { v: 'against', how: 'rewrite', source: u.key, to: f.r ?? u.key, status: f.st, ...(f.c === undefined ? {} : { hash: f.c }), t: now };
        await this.observe(txn, parsed.host, parsed.spec, obs, { p: f.p ?? placeOf(u.rec), s: u.key }, changes);
        continue;
      }
      if (!alike) continue;
      const tr = retract(rule, u.key, this.limits);
      if (tr.rule !== rule) this.write(txn, rule, tr, changes);
    }
  }

  /** A redirect target that answered no document supports nothing: its redirect support is taken back. */
  private async redirectTargetFailed(txn: Txn, u: LearnedUrl, changes: RuleChanges): Promise<void> {
    for await (const [k] of this.reads.kv.entries('evidence', { ...prefixRange(evidenceKeys.redirectSupportPrefix(u.key)), limit: 64 })) {
      const id = k.slice(k.lastIndexOf(SEP) + 1);
      const rule = await this.ruleOf(txn, id);
      if (rule === undefined) continue;
      const tr = discount(rule, (s) => s.d === u.key, this.limits);
      if (tr.rule !== rule) this.write(txn, rule, tr, changes);
    }
  }

  // ---- stability (stability.ts) -------------------------------------------------------------

  /** The second fetch of a URL whose content differed from an equivalent's: the waiting comparisons, settled. */
  private async settleRecheck(txn: Txn, u: LearnedUrl, hashes: RecheckHashes, prev: UrlEntry, changes: RuleChanges, now: number): Promise<void> {
    for (const w of await settleRecheck(this.reads.kv, txn, u, hashes, prev)) {
      const parsed = parseRuleId(w.id);
      if (parsed !== undefined) await this.comparison.compare(txn, { variant: w.variant, base: w.other, spec: parsed.spec }, changes, now);
    }
  }

  // ---- an operator's steering ----------------------------------------------------------------

  /**
   * Withdraw a rule by hand (`urldedup rules withdraw ID`): it holds nowhere from now on and is
   * never learned again on this host; what it pruned comes back after the commit. A rule that was
   * never seen is blocked before it is learned (`urldedup rules block SPEC`).
   */
  async withdrawByHand(txn: Txn, host: string, spec: RuleSpec, now: number): Promise<{ rule: RuleRecord; changes: RuleChanges }> {
    const changes = noRuleChanges();
    const before = await this.ruleOf(txn, ruleId(host, spec));
    const tr = withdrawByHand(before ?? newCandidate(host, spec, now), now, this.limits);
    this.write(txn, before, tr, changes);
    if (before?.state === 'active' && !changes.givesBack.includes(tr.rule.id)) changes.givesBack.push(tr.rule.id);
    return { rule: tr.rule, changes };
  }
}
