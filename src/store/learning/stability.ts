/**
 * Page stability: what a second fetch of one page shows about its directory (learner.ts,
 * safeguard 4). Where a page's bytes change between two fetches (a CSRF token, a timestamp),
 * equal content shows nowhere, and content that differs shows nothing either, unless the pages'
 * words differ by far more than a token does. Where only the bytes change and the stable hash
 * (the text with digit runs read as one, `FetchRecord.stableHash`) does not, pages are compared
 * on that hash.
 */

/** A directory's stability (`evidenceKeys.stability`): learned by fetching one of its pages again. */
export const STABLE = 'stable';
export const UNSTABLE = 'unstable';
/** Pages whose bytes change between fetches but whose stable hash (`FetchRecord.stableHash`) does not. */
export const TEXT_STABLE = 'text';
/** Followed by the key being fetched again. */
export const PENDING = 'pending ';
/** Comparisons kept waiting on one recheck at most. */
export const MAX_WAITING = 64;

/** A comparison waiting for a recheck. */
export interface Waiting {
  readonly id: string;
  readonly variant: string;
  readonly other: string;
}

/**
 * Below this share of equal word-sketch positions (an estimate of the Jaccard similarity of their
 * words), two pages of a directory whose pages carry a per-response token are two documents.
 */
export const LARGE_DIFFERENCE = 0.5;

/** The share of equal positions of two word sketches (8 hex digits each); 1 when either is missing. */
export function sketchSimilarity(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined || a.length !== b.length || a.length === 0) return 1;
  let same = 0;
  const n = a.length / 8;
  for (let i = 0; i < a.length; i += 8) if (a.slice(i, i + 8) === b.slice(i, i + 8)) same++;
  return same / n;
}
