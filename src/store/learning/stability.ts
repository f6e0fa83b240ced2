/**
 * Page stability: what a second fetch of one page shows about its directory (learner.ts,
 * safeguard 4). Where a page's bytes change between two fetches (a CSRF token, a timestamp),
 * equal content shows nowhere, and content that differs shows nothing either, unless the pages'
 * words differ by far more than a token does. Where only the bytes change and the stable hash
 * (the text with digit runs read as one, `FetchRecord.stableHash`) does not, pages are compared
 * on that hash.
 */
import { hostOf } from '../rules.js';
import { decodeJson, encodeJson, evidenceKeys, type UrlEntry } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { getEvidence, putEvidence, type Txn } from '../engine/batch.js';
import type { CheckRequest, LearnedUrl } from './contract.js';
import type { UriRecord } from '../../normalize/index.js';
import { bareDirOf, bareParameterPath } from './parameter-difference.js';

/** A directory's stability (`evidenceKeys.stability`): learned by fetching one of its pages again. */
export const STABLE = 'stable';
export const UNSTABLE = 'unstable';
/** Pages whose bytes change between fetches but whose stable hash (`FetchRecord.stableHash`) does not. */
export const TEXT_STABLE = 'text';
/**
 * Pages whose text changes between fetches only in their `aside` and `nav` regions (a block drawn
 * per response: random posts, a rotating advert): compared on their main content
 * (`FetchRecord.mainHash`).
 */
export const MAIN_STABLE = 'main';
/** Followed by the key being fetched again. */
export const PENDING = 'pending ';
/** Comparisons kept waiting on one recheck at most. */
export const MAX_WAITING = 64;

/**
 * Where the stability of `rec`'s page is kept: its directory's (`own`: the page's own), read from
 * its path without segment parameters, as its evidence's place is. A session segment is no
 * directory of the server's (`/(S(id))/a.html` lies in `/`): read with it, each session id was a
 * directory whose stability nobody had learned, and a page beside a block drawn per response was
 * taken for another document under every new id (simulator seed 91042).
 */
export function stabilityPlace(rec: UriRecord, own = false): string {
  return evidenceKeys.stability(hostOf(rec), own ? `=${bareParameterPath(rec.path)}` : bareDirOf(rec.path));
}

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

/**
 * Differing content counts against a rule only where pages are stable. A page template that
 * embeds a fresh token (a CSRF field, a timestamp) changes on every fetch, so a directory's
 * stability is learned once, by fetching one variant there again (a page's own, `=path`, where
 * its directory's does not hold for it: content-comparison.ts `compare`); the comparisons made in the
 * meantime wait for that fetch (`pendingRecheck` of the URL being fetched again).
 */
export async function awaitRecheck(kv: Pick<Kv, 'get'>, txn: Txn, stability: string | undefined, u: LearnedUrl, waiting: Waiting, checks: CheckRequest[], place = stabilityPlace(u.rec)): Promise<void> {
  const fetchedAgain = stability !== undefined && stability.startsWith(PENDING) ? stability.slice(PENDING.length) : u.key;
  const pk = evidenceKeys.pendingRecheck(fetchedAgain);
  const pending = await getEvidence(kv, txn, pk);
  const list = pending === undefined ? [] : decodeJson<Waiting[]>(pending);
  if (list.length < MAX_WAITING && !list.some((w) => w.id === waiting.id && w.variant === waiting.variant)) list.push(waiting);
  putEvidence(txn, pk, encodeJson(list));
  if (stability === undefined) {
    putEvidence(txn, place, PENDING + u.key);
    checks.push({ kind: 'recheck', key: u.key, rec: u.rec });
  }
}

/** The hashes of a page's second fetch (undefined where it answered no document). */
export interface RecheckHashes {
  readonly hash?: string;
  readonly stableHash?: string;
  readonly mainHash?: string;
}

/**
 * The second fetch of a URL whose content differed from an equivalent's. The same content marks
 * its place (its directory, or itself where its own fetch was asked) stable; changed bytes with
 * the same stable hash mark it text-stable (pages there are compared on their stable hashes), and
 * changed text with the same main content main-stable (compared on their main hashes); each
 * returns the comparisons that waited, to be made again. Anything else marks it unstable (no
 * content evidence there, but a large difference of words) and returns none.
 */
export async function settleRecheck(kv: Pick<Kv, 'get'>, txn: Txn, u: LearnedUrl, { hash, stableHash, mainHash }: RecheckHashes, prev: UrlEntry): Promise<Waiting[]> {
  const pk = evidenceKeys.pendingRecheck(u.key);
  const pending = await getEvidence(kv, txn, pk);
  txn.del('evidence', pk);
  txn.evidence.set(pk, null);
  const stable = hash !== undefined && hash === prev.c;
  // the bytes changed, the text but for its digits did not: a template token or time
  const textStable = !stable && hash !== undefined && stableHash !== undefined && stableHash === prev.y;
  // the text changed in the regions beside the page's own alone: a block drawn per response
  const mainStable = !stable && !textStable && hash !== undefined && mainHash !== undefined && mainHash === prev.b;
  const verdict = stable ? STABLE : textStable ? TEXT_STABLE : mainStable ? MAIN_STABLE : UNSTABLE;
  const own = stabilityPlace(u.rec, true);
  const dir = stabilityPlace(u.rec);
  const ownAsked = (await getEvidence(kv, txn, own)) === PENDING + u.key;
  if (ownAsked) putEvidence(txn, own, verdict);
  if (!ownAsked || (await getEvidence(kv, txn, dir)) === PENDING + u.key) putEvidence(txn, dir, verdict);
  if (verdict === UNSTABLE) return [];
  return pending === undefined ? [] : decodeJson<Waiting[]>(pending);
}
