/**
 * The host-rule learner (RFC 3986 §6.2.4; DESIGN "Learning equivalences safely"): evidence from
 * redirects and fetches becomes observations of host rules; a candidate becomes active after
 * `ruleThreshold` distinct observations for it, and is withdrawn by the first against it (the
 * algebra of specs and transitions is rules.ts, pure).
 *
 * Its interface, so the learning policy can change here alone:
 * - it reads `LearnerReads`: the live rules as written, and the database (`rule` records of
 *   withdrawn rules, `evidence`, and `url` entries for content hashes), always through the batch;
 * - it writes only through the `Txn` it is given: `rule` records, `evidence` observations and
 *   content hashes, and the `rules:<state>` counters;
 * - it returns the `RuleChanges` of the call: the caller prunes the frontier for rules activated
 *   and gives back what a withdrawn active rule pruned (give-back.ts), after the commit.
 */
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { counterNames, decodeJson, encodeJson, evidenceKeys, prefixRange, SEP, splitPair } from '../keys.js';
import type { Kv } from '../kv.js';
import {
  applies,
  apply,
  explainRedirect,
  hostOf,
  isParameterRule,
  judgeRedirect,
  newCandidate,
  observe,
  parseRuleId,
  pathParameterNames,
  ruleId,
  type Observation,
  type RuleRecord,
  type RuleSpec,
} from '../rules.js';
import { getEvidence, getUrl, putEvidence, type Txn } from './batch.js';
import type { LiveRules } from './state.js';
import { recordOfKey } from './url-state.js';

/** A URL as the learner sees it: its record and identity key. */
export interface LearnedUrl {
  readonly rec: UriRecord;
  readonly key: string;
}

/** What the learner reads. */
export interface LearnerReads {
  readonly kv: Pick<Kv, 'get' | 'entries'>;
  readonly rules: LiveRules;
}

/** The options that shape learning (the store's `ResolvedOptions` has them). */
export interface LearningPolicy {
  /** Distinct observations for a candidate that make it active. */
  readonly ruleThreshold: number;
  /** Observations for a rule kept as evidence at most (against ones are always kept). */
  readonly maxEvidencePerRule: number;
  readonly defaultDocuments: readonly string[];
}

/** The rule changes of one call, as ids. */
export interface RuleChanges {
  /** Candidates that became active: the frontier of their host is pruned after the commit. */
  readonly activated: string[];
  /** Rules withdrawn (from candidate or active). */
  readonly withdrawn: string[];
  /** Of those, the ones that were active: what they pruned comes back after the commit. */
  readonly givesBack: string[];
}

export function noRuleChanges(): RuleChanges {
  return { activated: [], withdrawn: [], givesBack: [] };
}

/** A pair of URLs whose content hashes, when both are known, are evidence about `spec`. */
interface ContentPair {
  readonly variant: string;
  readonly base: string;
  readonly spec: RuleSpec;
  readonly variantHash?: string;
  readonly baseHash?: string;
}

export class RuleLearner {
  constructor(
    private readonly reads: LearnerReads,
    private readonly policy: LearningPolicy,
  ) {}

  /** The live (not withdrawn) rules of `host`, this batch's changes included. */
  liveRulesOf(txn: Txn, host: string): RuleRecord[] {
    const out = new Map<string, RuleRecord>();
    for (const id of this.reads.rules.idsOf(host)) {
      const r = txn.rules.get(id) ?? this.reads.rules.get(id);
      if (r !== undefined) out.set(id, r);
    }
    for (const r of txn.rules.values()) if (r.host === host) out.set(r.id, r);
    return [...out.values()].filter((r) => r.state !== 'withdrawn');
  }

  /** Record one observation of `spec` on `host`, once per distinct source URL and verdict. */
  async observeRule(txn: Txn, host: string, spec: RuleSpec, obs: Observation, changes: RuleChanges): Promise<void> {
    const id = ruleId(host, spec);
    let rule = txn.rules.get(id) ?? this.reads.rules.get(id);
    if (rule === undefined && this.reads.rules.isWithdrawn(id)) {
      const v = await this.reads.kv.get('rule', id);
      if (v !== undefined) rule = decodeJson<RuleRecord>(v);
    }
    if (rule === undefined) {
      if (obs.v !== 'for') return; // no candidate from a contradiction alone
      rule = newCandidate(host, spec, obs.t);
      txn.count(counterNames.rules('candidate'), 1);
    }
    const ek = evidenceKeys.observation(id, obs.source);
    const existing = await getEvidence(this.reads.kv, txn, ek);
    if (existing !== undefined && decodeJson<Observation>(existing).v === obs.v) return;
    if (obs.v === 'against' || rule.for < this.policy.maxEvidencePerRule) putEvidence(txn, ek, encodeJson(obs));
    const tr = observe(rule, obs, this.policy.ruleThreshold);
    if (tr.rule.state !== rule.state) {
      txn.count(counterNames.rules(rule.state), -1);
      txn.count(counterNames.rules(tr.rule.state), 1);
    }
    if (tr.change === 'activated') changes.activated.push(id);
    if (tr.change === 'withdrawn') {
      changes.withdrawn.push(id);
      if (rule.state === 'active') changes.givesBack.push(id);
    }
    txn.rules.set(id, tr.rule);
    txn.put('rule', id, encodeJson(tr.rule));
  }

  /**
   * A redirect `from` → `to`: for every rule that explains it (when it merges), and against every
   * live rule of either host that it contradicts.
   */
  async fromRedirect(txn: Txn, from: LearnedUrl, to: LearnedUrl, status: number, merge: boolean, now: number): Promise<RuleChanges> {
    const changes = noRuleChanges();
    const explained = explainRedirect(from.rec, to.rec, this.policy.defaultDocuments);
    const host = hostOf(from.rec);
    if (merge && explained !== undefined) {
      for (const spec of explained) {
        await this.observeRule(txn, host, spec, { v: 'for', how: 'redirect', source: from.key, to: to.key, status, t: now }, changes);
      }
    }
    for (const h of new Set([host, hostOf(to.rec)])) {
      for (const rule of this.liveRulesOf(txn, h)) {
        const parsed = parseRuleId(rule.id);
        if (parsed === undefined) continue;
        const verdict = judgeRedirect(parsed.spec, h, from.rec, to.rec, explained);
        if (verdict !== 'against') continue;
        const how = h === host && applies(parsed.spec, from.rec) ? 'redirect' : 'inverse-redirect';
        await this.observeRule(txn, h, parsed.spec, { v: 'against', how, source: from.key, to: to.key, status, t: now }, changes);
      }
    }
    return changes;
  }

  /** The content hash of `key` when it was fetched (through the batch). */
  private async contentOf(txn: Txn, key: string): Promise<string | undefined> {
    const e = await getUrl(this.reads.kv, txn, key);
    return e?.s === 'fetched' ? e.c : undefined;
  }

  /** A final 2xx/3xx answer for `u` itself, with its content hash when the fetcher gave one. */
  async fromFetch(txn: Txn, u: LearnedUrl, hash: string | undefined, status: number, now: number): Promise<RuleChanges> {
    const changes = noRuleChanges();
    const host = hostOf(u.rec);
    // 1. the host served `u` itself: against every rule that maps it elsewhere, unless the content
    //    shows the two URLs equal
    for (const rule of this.liveRulesOf(txn, host)) {
      const parsed = parseRuleId(rule.id);
      if (parsed === undefined || isParameterRule(parsed.spec) || !applies(parsed.spec, u.rec)) continue;
      const other = keyFromRecord(apply(parsed.spec, u.rec));
      const otherHash = hash === undefined ? undefined : await this.contentOf(txn, other);
      if (otherHash !== undefined) {
        await this.observeRule(txn, host, parsed.spec, { v: otherHash === hash ? 'for' : 'against', how: 'content', source: u.key, to: other, status, t: now }, changes);
      } else {
        await this.observeRule(txn, host, parsed.spec, { v: 'against', how: 'fetch', source: u.key, status, t: now }, changes);
      }
    }
    if (hash === undefined) return changes;
    const pairs: ContentPair[] = [];
    this.defaultDocumentPairs(u, hash, pairs);
    await this.parameterPairs(txn, u, hash, pairs);
    for (const p of pairs) {
      const vh = p.variantHash ?? (await this.contentOf(txn, p.variant));
      const bh = p.baseHash ?? (await this.contentOf(txn, p.base));
      if (vh === undefined || bh === undefined) continue;
      const vrec = p.variant === u.key ? u.rec : recordOfKey(p.variant);
      await this.observeRule(txn, hostOf(vrec), p.spec, { v: vh === bh ? 'for' : 'against', how: 'content', source: p.variant, to: p.base, status, t: now }, changes);
    }
    return changes;
  }

  /** 2. content pairs: a default document and its directory. */
  private defaultDocumentPairs(u: LearnedUrl, hash: string, pairs: ContentPair[]): void {
    const path = u.rec.path;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const documents = this.policy.defaultDocuments;
    if (documents.includes(last)) {
      const spec: RuleSpec = { kind: 'default-document', name: last };
      pairs.push({ variant: u.key, base: keyFromRecord(apply(spec, u.rec)), spec, variantHash: hash });
    }
    if (path.endsWith('/')) {
      for (const name of documents) {
        pairs.push({ variant: keyFromRecord({ ...u.rec, path: path + name }), base: u.key, spec: { kind: 'default-document', name }, baseHash: hash });
      }
    }
  }

  /** 3. content pairs: a query or path parameter and the URL without it, or with another value of it. */
  private async parameterPairs(txn: Txn, u: LearnedUrl, hash: string, pairs: ContentPair[]): Promise<void> {
    const kv = this.reads.kv;
    const queryNames = new Set((u.rec.query ?? '').split('&').filter((f) => f !== '').map((f) => (f.indexOf('=') === -1 ? f : f.slice(0, f.indexOf('=')))));
    const parameters: { kind: 'query-parameter' | 'path-parameter'; names: Iterable<string>; content: typeof evidenceKeys.content; prefix: typeof evidenceKeys.contentPrefix }[] = [
      { kind: 'query-parameter', names: queryNames, content: evidenceKeys.content, prefix: evidenceKeys.contentPrefix },
      { kind: 'path-parameter', names: pathParameterNames(u.rec.path), content: evidenceKeys.pathContent, prefix: evidenceKeys.pathContentPrefix },
    ];
    for (const { kind, names, content, prefix } of parameters) {
      for (const name of names) {
        const spec: RuleSpec = { kind, name };
        const base = keyFromRecord(apply(spec, u.rec));
        putEvidence(txn, content(base, name, u.key), hash);
        pairs.push({ variant: u.key, base, spec, variantHash: hash });
        let n = 0;
        for await (const [k, h] of kv.entries('evidence', { ...prefixRange(prefix(base, name)), limit: 16 })) {
          const other = k.slice(k.lastIndexOf(SEP) + 1);
          if (other === u.key) continue;
          pairs.push({ variant: u.key, base: other, spec, variantHash: hash, baseHash: h });
          if (++n >= 8) break;
        }
      }
      // `u` as the base of variants fetched before it
      let n = 0;
      for await (const [k, h] of kv.entries('evidence', { ...prefixRange(prefix(u.key)), limit: 64 })) {
        const [name, variant] = splitPair(k.slice(prefix(u.key).length));
        pairs.push({ variant, base: u.key, spec: { kind, name }, variantHash: h, baseHash: hash });
        if (++n >= 64) break;
      }
    }
  }
}
