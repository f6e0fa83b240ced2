/**
 * The order of a host's queue while the learner weighs a rule. A rule that is a candidate
 * (evidence short of activation), or active but not yet where a URL lies (a flat directory it may
 * grow out of, a value it was not shown), would rewrite some of the queued URLs: those are offered
 * after the rest of the host's queue (frontier.ts `deferrable`), not in discovery order, and those
 * on a path its evidence already has after them. Only the order changes: every URL is still
 * offered, and a check, a probe or a URL given back is never held.
 *
 * Why: a rule is learned from pairs, a URL and its image both answered with one document
 * (learner.ts). In discovery order an aliased link is often fetched before its image is, and then
 * neither fetch is evidence until the image comes, and the image's fetch is the duplicate. Held
 * back until the host's other URLs are fetched, the URLs a rule would rewrite meet images already
 * answered: each one fetched is a document of evidence (or a contradiction), the rule decides (or
 * grows) after the fewest, and then prunes the rest where they wait. A URL on a path the rule's
 * evidence already has (another session id or cache-buster on a page linked from everywhere) is
 * no new document for it, so it comes last. A wrong rule loses nothing: its URLs are fetched,
 * later. Crawlers order their queues by such costs (Heritrix's cost assignment policies rank a URL
 * with a query, or more path segments, after the others); here the cost is the learner's own open
 * question, not a URL's shape.
 */
import { recordOfKey } from '../engine/url-state.js';
import { applies, hostOf, rewrites } from '../rules.js';
import type { LiveRules } from './rule-book.js';
import { bareParameterPath } from './parameter-difference.js';

/**
 * Where a queued URL comes in its host's order (frontier.ts `deferrable`): `No`, in discovery
 * order; `Back`, after the host's other URLs (a rule being learned would rewrite it, on a path new
 * to its evidence); `Last`, after those (such a rule would rewrite it on a path its evidence
 * already has: another session id or cache-buster on a page linked from everywhere, no new
 * document for it).
 */
export const Held = { No: 0, Back: 1, Last: 2 } as const;
export type Held = (typeof Held)[keyof typeof Held];

/** Where `key` comes in its host's order while the learner weighs the host's rules. */
export function heldForCandidate(rules: LiveRules, key: string): Held {
  if (!rules.anyLive) return Held.No;
  const rec = recordOfKey(key);
  const reach = rules.reachOf(hostOf(rec));
  if (reach === undefined) return Held.No;
  let held: Held = Held.No;
  for (const c of reach) {
    if (!applies(c.spec, rec)) continue;
    // an active rule that rewrites it and left it queued (give-back.ts `pruneCandidates`: the name
    // it sends it to was not known) prunes it when it is handed out if that name is known by then
    // (`pruneHandedOut`): it waits for the link to that name
    if (c.active !== undefined && rewrites(c.active, rec)) {
      held = Held.Last;
      continue;
    }
    if (!c.paths.has(bareParameterPath(rec.path || '/'))) return Held.Back;
    held = Held.Last;
  }
  return held;
}
