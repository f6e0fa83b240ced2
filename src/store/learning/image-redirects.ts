/**
 * Image checks that redirect (docs/rules.md, "Checks after a rule acts"). A rule that gains scope
 * records the images of the documents fetched before it (give-back.ts `pruneImages`: `/A.htm`
 * fetched, the case rule's `/a.htm`), and some of those images are fetched as checks. An image
 * that answers a document is compared with its document (learner.ts `fromFetch`); one that
 * redirects names the document at the redirect's end, which is what the rule sends the document
 * to: that end is compared with the document, the same check one hop later. A host that
 * redirects every unknown path to its home page ("404 to home page" plugins) makes a failed
 * image look like a page: compared, the home page is another document, and the rule is
 * contradicted where the document lies. Where the end has not answered yet, the check waits for
 * it (`evidenceKeys.imageTarget`), across further hops.
 */
import { evidenceKeys, type UrlEntry } from '../keys.js';
import { getUrl, putEvidence, type Txn } from '../engine/batch.js';
import type { Kv } from '../backends/kv.js';
import { answerOf, type FailedAnswer } from './failure-agreement.js';

/** What an image check's redirect target answered: a document, no document, or not yet. */
export interface ImageEnd {
  /** The document the image stands for. */
  readonly original: string;
  /** The rule's id. */
  readonly id: string;
  /** The URL that answered at the redirects' end. */
  readonly at: string;
  /** How it failed; undefined when it answered a document. */
  readonly failed?: FailedAnswer;
}

/**
 * The original document an image check (`check`, the entry of `image` before its fetch) stands
 * for, with the rule that sends it there now (`imageOf`: where the rules in force send a
 * document, and the first rule of the chain), when `image` is that place; undefined for a check
 * of another kind (a rewrite fetched as itself: its original is the check).
 */
export function imageCheckOf(image: string, check: Readonly<UrlEntry> | undefined, imageOf: (original: string) => { key: string; via?: string }): { original: string; id: string } | undefined {
  if (check?.k !== 'v' || check.to === undefined || check.by?.startsWith('rule:') !== true) return undefined;
  const now = imageOf(check.to);
  return now.key === image && now.via?.startsWith('rule:') === true ? { original: check.to, id: now.via.slice(5) } : undefined;
}

/** Redirects followed from an image check's target, at most. */
const HOPS = 4;

/**
 * The image of `original` under rule `id` redirected to `target`: what the end of the redirects
 * from `target` answered, or undefined when it has not answered yet (the check then waits for it).
 */
export async function imageEnd(kv: Pick<Kv, 'get'>, txn: Txn, original: string, id: string, target: string): Promise<ImageEnd | undefined> {
  let at = target;
  for (let hop = 0; hop <= HOPS; hop++) {
    const answer = answerOf(await getUrl(kv, txn, at));
    if (answer === undefined) {
      putEvidence(txn, evidenceKeys.imageTarget(at, id), original);
      return undefined;
    }
    if (answer === 'document') return { original, id, at };
    if (answer.to === undefined || answer.to === at || hop === HOPS) return { original, id, at, failed: answer };
    at = answer.to;
  }
  return undefined;
}

/** The image checks waiting for `target`, taken (their keys deleted in `txn`): `[original, rule id]`. */
export function takeWaiting(txn: Txn, target: string, read: readonly (readonly [string, string])[]): [string, string][] {
  const prefix = evidenceKeys.imageTargetPrefix(target);
  const out: [string, string][] = [];
  for (const [k, original] of read) {
    txn.del('evidence', k);
    txn.evidence.set(k, null);
    out.push([original, k.slice(prefix.length)]);
  }
  return out;
}
