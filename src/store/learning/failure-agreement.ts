/**
 * A failed rewrite judged against what its original answers (docs/rules.md, "A rule is checked
 * after it acts"). A rule sent `/a` to `/b`, and `/b` answered no document: that contradicts the
 * rule only if `/a` answers otherwise. A dead link is dead under both names; a page that redirects
 * to its own directory form (`/p.html` → 301 → `/p.html/`) does so on a mirror as on its origin.
 * The same failure under both names is agreement, not contradiction.
 *
 * Where the original's answer is not known yet, the failure waits for it (`RewriteFailure.w`): the
 * original is queued as itself, a check offered before its host's other URLs, and its answer
 * settles the failure. Until then the rule keeps its scope; what it prunes meanwhile comes back
 * if the answer contradicts it, as anything a rule prunes does. A server error (5xx, no answer)
 * agrees with nothing and is judged at once.
 */
import type { UriRecord } from '../../normalize/index.js';
import type { UrlEntry } from '../keys.js';
import { answeredDocument, recordOfKey } from '../engine/url-state.js';
import { sameRedirect } from './content-pairs.js';
import type { LearnedUrl } from './contract.js';
import { parameterDifference } from './parameter-difference.js';
import { isMirrorRuleId } from '../rules.js';
import { explainRedirect } from './redirect-explanation.js';

/** How a URL answered without a document: its status, its body's hash, the target of its redirect. */
export interface FailedAnswer {
  readonly st: number;
  readonly c?: string;
  readonly to?: string;
}

/** A rewrite's failure as kept for its original (`evidenceKeys.rewriteFailure`). */
export interface RewriteFailure extends FailedAnswer {
  /** The rewrite that failed. */
  readonly r?: string;
  /** Where the step blamed rewrote (a chain's last step may rewrite another path than the original's). */
  readonly p?: string;
  /** Waiting for the original's answer: no contradiction was counted yet. */
  readonly w?: 1;
}

/**
 * True when a rule's rewrite `from`, redirected to `to`, answered no document of its own: no rule
 * kind explains the redirect (`/a` → 301 → `/`, a host that sends unknown paths home; not `/a` →
 * `/a/`) and `to` is not `from`'s own form with parameters added (a session id, a cookie check).
 * The learner counts such a redirect a failed rewrite when it sees it (`fromRedirect`); a URL a
 * rule sends there afterwards is fetched as itself, not pruned onto the redirect's end, which
 * names another document as far as anything shows. (`to` is the alias table's end, which may be
 * several hops on: a chain no single rule explains is judged so too, the cautious side.)
 */
export function redirectLeavesRewrite(from: UriRecord, to: UriRecord, documents: readonly string[]): boolean {
  return explainRedirect(from, to, documents) === undefined && parameterDifference(to, from) === undefined;
}

/**
 * True when a loop's hop can agree with the original's answer under rule `id`: a mirror's rewrite
 * is the host's own URL under the same path, so a loop there (`/a.html/` ↔ `/a.html`) is the
 * host's, which its copy answers alike; under another rule a loop's hop agrees with nothing.
 */
export function loopMayAgree(id: string): boolean {
  return isMirrorRuleId(id);
}

/**
 * True when a failure with this status can agree with another: a client error, a redirect, a soft
 * 404, and a server error or no answer (a timeout, a URL robots.txt closes), which show nothing
 * about the names unless the original answered a document.
 */
export function mayAgree(status: number): boolean {
  return status === 0 || (status >= 200 && status < 600);
}

/**
 * An entry's answer, when its URL answered: `document`, or how it failed (a redirect, an error,
 * the not-found page); undefined while it has not answered.
 */
export function answerOf(e: Readonly<UrlEntry> | undefined): FailedAnswer | 'document' | undefined {
  if (e === undefined || e.st === undefined || (e.s !== 'fetched' && e.s !== 'failed' && e.s !== 'redirected')) return undefined;
  if (answeredDocument(e)) return 'document';
  return { st: e.st, ...(e.c === undefined ? {} : { c: e.c }), ...(e.s === 'redirected' && e.to !== undefined ? { to: e.to } : {}) };
}

/** A 2xx with a body that is no document: the host's not-found page (a body too large to read has no hash). */
function softNotFound(a: FailedAnswer): boolean {
  return a.st >= 200 && a.st < 300 && a.c !== undefined;
}

/**
 * True when the original answered as its rewrite did, under rule `id`: the same client-error
 * status, no answer or a server error both, the host's not-found page both, the same body, or a
 * redirect of the same status to the same place (or to the place the rule sends there:
 * `sameRedirect`).
 */
export function failuresAlike(id: string, original: FailedAnswer, rewrite: FailedAnswer): boolean {
  if (original.st >= 400 && original.st < 500 && original.st === rewrite.st) return true;
  // no answer under either name, or a server error under both: the names were not told apart
  if ((original.st === 0 && rewrite.st === 0) || (original.st >= 500 && rewrite.st >= 500)) return true;
  // a 2xx that failed is the host's not-found page (its signature, by shape as well as hash):
  // both names answered it, however each page echoes its own request
  if (softNotFound(original) && softNotFound(rewrite)) return true;
  if (original.c !== undefined && original.c === rewrite.c) return true;
  if (original.to === undefined || rewrite.to === undefined || original.st !== rewrite.st) return false;
  const to: LearnedUrl = { key: original.to, rec: recordOfKey(original.to) };
  return sameRedirect(id, to, rewrite.to);
}
