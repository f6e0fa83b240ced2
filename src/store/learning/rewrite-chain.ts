/**
 * The step of a chain of rules that a failed rewrite blames (docs/rules.md, "A rule is checked
 * after it acts"). A pruned URL records the first rule of its chain; where a chain of rules sent it
 * to the URL that failed (`/Guide.de.html`, folded by the case rule to `/guide.de.html`, then cut
 * by a suffix rule to `/guide.de`), the failure shows only that the last step led nowhere: the
 * steps before it answer for themselves when their own result is fetched. Blaming the first would
 * withdraw a case rule, which one contradiction withdraws host-wide, for a suffix rule's mistake.
 */
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { decodeJson, type AliasEntry } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { applyRules, type ActiveRule } from '../rules.js';
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
