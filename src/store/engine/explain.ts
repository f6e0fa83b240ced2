/**
 * Explain: the chain that takes a URL to its canonical key, step by step, for an operator asking
 * why two URLs merged (or did not): the RFC rungs (normal form, identity key), each policy preset
 * that changed it, each host rule that rewrote it with the rule's scope and its evidence, and the
 * alias that took it further. The answer of `canonical` closes it, so the chain and the store agree.
 */
import { applyPolicy, keyFromRecord, recompose, urlFromKey, type UriRecord } from '../../normalize/index.js';
import { decodeJson, evidenceKeys, prefixRange } from '../keys.js';
import { applyRules, type Observation, type RuleRecord } from '../rules.js';
import type { Explanation, ExplainStep } from '../seen-store.js';
import { getAlias } from './batch.js';
import { identity } from './canonicalize.js';
import * as lookup from './lookup.js';
import type { EngineParts } from './parts.js';

/** Observations shown per rule. */
export const EXPLAIN_OBSERVATIONS = 16;

async function observationsOf(s: Pick<EngineParts, 'kv'>, id: string): Promise<Observation[]> {
  const out: Observation[] = [];
  for await (const [, v] of s.kv.entries('evidence', { ...prefixRange(evidenceKeys.observationPrefix(id)), limit: EXPLAIN_OBSERVATIONS })) out.push(decodeJson<Observation>(v));
  return out;
}

async function ruleRecord(s: Pick<EngineParts, 'kv' | 'rules'>, id: string): Promise<RuleRecord | undefined> {
  const live = s.rules.get(id);
  if (live !== undefined) return live;
  const v = await s.kv.get('rule', id);
  return v === undefined ? undefined : decodeJson<RuleRecord>(v);
}

export async function explain(s: EngineParts, url: string): Promise<Explanation> {
  const id = identity(s, url);
  const steps: ExplainStep[] = [];
  let cur: UriRecord = id.rec;
  // presets, one at a time in their order (canonicalize.ts applies them together, to the same end)
  for (const name of s.o.presets) {
    const r = applyPolicy(cur, [name]);
    if (r.applied.length === 0) continue;
    cur = r.record;
    steps.push({ via: `preset:${name}`, url: recompose(cur), key: keyFromRecord(cur) });
  }
  // active host rules, as applyRules applies them
  const applied: { id: string; rec: UriRecord }[] = [];
  const r = applyRules(cur, s.rules.activeOf, undefined, (ruleId, rec) => applied.push({ id: ruleId, rec }));
  if (r.first !== undefined) {
    for (const a of applied) {
      const rule = await ruleRecord(s, a.id);
      steps.push({ via: `rule:${a.id}`, url: recompose(a.rec), key: keyFromRecord(a.rec), ...(rule === undefined ? {} : { rule }), observations: await observationsOf(s, a.id) });
    }
    cur = r.record;
  }
  const alias = await getAlias(s, undefined, keyFromRecord(cur));
  if (alias !== undefined) steps.push({ via: 'alias', url: urlFromKey(alias.to), key: alias.to });
  return { input: url, normal: recompose(id.rec), key: id.key, steps, canonical: await lookup.canonical(s, url) };
}
