/**
 * The rules of a chain that a check judges (docs/rules.md, "A rule is checked after it acts").
 *
 * A pruned URL records the first rule of its chain. A failed rewrite blames the last step: where
 * a chain of rules sent it to the URL that failed (`/Guide.de.html`, folded by the case rule to
 * `/guide.de.html`, then cut by a suffix rule to `/guide.de`), the failure shows only that the last
 * step led nowhere; the steps before it answer for themselves when their own result is fetched.
 * Blaming the first would withdraw a case rule, which one contradiction withdraws host-wide, for
 * a suffix rule's mistake. A content comparison across the chain judges every step of it
 * (`chainBeside`).
 */
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { decodeJson, type AliasEntry } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { looksMinted } from '../../normalize/index.js';
import { applyRules, formatSpec, hostOf, isParameterRule, parameterNames, parameterSpec, parseRuleId, parseSpec, ruleId, scopeValue, type ActiveRule, type RuleRecord, type RuleSpec } from '../rules.js';
import { parameterDifference } from './parameter-difference.js';
import { recordOfKey } from '../engine/url-state.js';

/** A host's active rules with their scopes' exceptions left out. */
function withoutExceptions(rules: readonly ActiveRule[] | undefined): readonly ActiveRule[] | undefined {
  if (rules === undefined || !rules.some((r) => r.scopes.some((x) => x.except !== undefined))) return rules;
  return rules.map((r) => ({ ...r, scopes: r.scopes.map(({ except: _, ...rest }) => rest) }));
}

/**
 * The rule a failed rewrite of `original` onto `failed` contradicts, and the URL it rewrote.
 *
 * The chain is replayed under the rules of now, their exceptions aside (a step excepted since,
 * by an earlier failure of the same kind, is still the step to blame). Where that no longer
 * ends at `failed` (a step of it lost its scope there), the failure is explained already and
 * blames none: the caller has the URL evaluated again, and its new target answers for itself.
 */
export async function failedStep(
  activeOf: (host: string) => readonly ActiveRule[] | undefined,
  kv: Pick<Kv, 'get'>,
  original: string,
  failed: string,
): Promise<{ id: string; at: UriRecord } | undefined> {
  const rec = recordOfKey(original);
  const steps: [string, UriRecord][] = [];
  const r = applyRules(rec, (host) => withoutExceptions(activeOf(host)), undefined, (id, after) => void steps.push([id, after]));
  if (steps.length === 0) return undefined;
  const last = { id: steps[steps.length - 1]![0], at: steps.length === 1 ? rec : steps[steps.length - 2]![1] };
  const end = keyFromRecord(r.record);
  if (end === failed) return last;
  // the chain's end merged with the failed URL by a redirect (the alias table)
  const alias = await kv.get('alias', end);
  return alias !== undefined && decodeJson<AliasEntry>(alias).to === failed ? last : undefined;
}

/**
 * The other rules of the host that, beside `spec`, send `variant` to `base` under the rules of
 * now: a chain (`/a?lang=de&sid=1` sent to `/a` by the session rule, then the language rule), or
 * the rules that each remove one parameter of a group a parameter-difference pair is about. Their
 * pair is evidence about each of them: equal content shows that none of their removals changed
 * the page there, and a difference, that one of them did, which the pair cannot tell. Each is
 * judged by it. Blamed on the rule the pruned URL records (the chain's first) alone, a difference
 * a later rule made (a translation behind `lang=de`) would leave that rule to prune every other
 * translation.
 */
export function chainBeside(activeOf: (host: string) => readonly ActiveRule[] | undefined, variant: string, base: string, spec: RuleSpec): RuleSpec[] {
  const rec = recordOfKey(variant);
  const host = hostOf(rec);
  const own = ruleId(host, spec);
  const ids = new Set<string>();
  const end = applyRules(rec, activeOf, undefined, (id) => void ids.add(id));
  ids.delete(own);
  if (ids.size === 0 || keyFromRecord(end.record) !== base) return [];
  const out: RuleSpec[] = [];
  for (const id of ids) {
    const parsed = parseRuleId(id);
    if (parsed !== undefined && parsed.host === host) out.push(parsed.spec);
  }
  return out;
}

/**
 * The rules among `rules` that remove part of the parameter group `spec` names (`query-parameter:
 * fuka` of `query-parameter:emquilem&fuka`): a difference over the group is a difference one of
 * its parts made, and the pair cannot tell which, so it contradicts each. (Equal content says
 * nothing of a part alone, whose rewrite keeps the others' query: no support goes to them.)
 */
export function groupParts(spec: RuleSpec, rules: readonly RuleRecord[]): RuleSpec[] {
  const names = parameterNames(spec);
  if (names.length < 2) return [];
  const out: RuleSpec[] = [];
  for (const r of rules) {
    const part = parseSpec(r.spec);
    if (part === undefined || part.kind !== spec.kind) continue;
    const own = parameterNames(part);
    if (own.length < names.length && own.every((n) => names.includes(n))) out.push(part);
  }
  return out;
}

/**
 * Of the parameter rules `specs` (a chain's or a group's, judged by one difference), those with a
 * contradiction for the value `rec` carries, a value that recurs: a difference one of them is
 * known to make (a language that changed a document before) is blamed on it alone. A session id
 * beside it, whose removal never changed a page, is not contradicted by every translation met
 * behind one. None known: each is blamed, as the pair cannot tell which made it.
 */
export async function knownToDiffer(ruleOf: (id: string) => Promise<RuleRecord | undefined>, rec: UriRecord, specs: readonly RuleSpec[]): Promise<RuleSpec[]> {
  const out: RuleSpec[] = [];
  for (const spec of specs) {
    const v = isParameterRule(spec) ? scopeValue(spec, rec) : undefined;
    if (v === undefined || looksMinted(v)) continue;
    const rule = await ruleOf(ruleId(hostOf(rec), spec));
    if (rule?.contra?.some((c) => c.v === v) === true) out.push(spec);
  }
  return out;
}

/**
 * The rules a content pair (`variant`, `base`, about `spec`) is evidence about: its own, the other
 * rules of a chain that send the variant to the base (`chainBeside`), and, where the two differ, the
 * group of parameters they differ by and the live rules of its parts (`groupParts`; the group read
 * from the URLs, whatever rule the pair is about: a check recorded onto the end of a chain the rules
 * of now no longer make). A difference one of them is known to make is blamed on those alone
 * (`knownToDiffer`, each name of the group asked on its own too: its rule may be withdrawn already,
 * by pages where that parameter alone changed the document).
 */
export async function judgedRules(
  activeOf: (host: string) => readonly ActiveRule[] | undefined,
  liveRules: () => readonly RuleRecord[],
  ruleOf: (id: string) => Promise<RuleRecord | undefined>,
  pair: { readonly variant: string; readonly base: string; readonly spec: RuleSpec },
  equal: boolean,
): Promise<RuleSpec[]> {
  const add = (to: RuleSpec[], x: RuleSpec): void => {
    if (!to.some((b) => formatSpec(b) === formatSpec(x))) to.push(x);
  };
  const parts = [pair.spec, ...chainBeside(activeOf, pair.variant, pair.base, pair.spec)];
  if (equal) return parts;
  const rec = recordOfKey(pair.variant);
  const diff = parameterDifference(rec, recordOfKey(pair.base));
  const asked = [...parts];
  if (diff !== undefined) {
    const kind = diff.place === 'query' ? 'query-parameter' : 'path-parameter';
    const group = parameterSpec(kind, diff.names);
    for (const x of [group, ...groupParts(group, liveRules())]) add(parts, x);
    for (const x of parts) add(asked, x);
    for (const n of diff.names) add(asked, parameterSpec(kind, [n]));
  }
  const known = await knownToDiffer(ruleOf, rec, asked);
  return known.length > 0 ? known : parts;
}
