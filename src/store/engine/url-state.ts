/**
 * The URL entry state machine: queued → fetched | redirected | pruned | failed (and back to queued
 * when a give-back restores a pruned URL). Every move keeps the frontier, the `pruned` index and the
 * counters in step in the same batch.
 */
import { fingerprintWords, parseUri, urlFromKey, type UriRecord } from '../../normalize/index.js';
import { counterNames, decodeUrlEntry, encodeUrlEntry, evidenceKeys, frontierKey, prunedKey, type UrlEntry, type UrlState } from '../keys.js';
import { hostOf, isDocumentStatus } from '../rules.js';
import { putEvidence, type Txn } from './batch.js';
import type { EngineParts } from './parts.js';

/** A url entry with the fields its state keeps, in a fixed order. */
export function makeEntry(e: UrlEntry, h: string | undefined, n: number | undefined): UrlEntry {
  const out: UrlEntry = { s: e.s, d: e.d, t: e.t };
  if (h !== undefined && n !== undefined) {
    out.h = h;
    out.n = n;
  }
  if (e.src !== undefined) out.src = e.src;
  if (e.st !== undefined) out.st = e.st;
  const check = e.s === 'queued' ? e.k : undefined;
  if ((e.s === 'redirected' || e.s === 'pruned' || check === 'v') && e.to !== undefined) out.to = e.to;
  if ((e.s === 'pruned' || check === 'v') && e.by !== undefined) out.by = e.by;
  if (e.c !== undefined) out.c = e.c;
  // what the learner compares besides the content hash (learning/stability.ts, not-found.ts)
  if (e.x !== undefined) out.x = e.x;
  if (e.m !== undefined) out.m = e.m;
  if (e.y !== undefined) out.y = e.y;
  if (e.w !== undefined) out.w = e.w;
  if (e.b !== undefined) out.b = e.b;
  if (e.ft !== undefined) out.ft = e.ft;
  if (e.e !== undefined) out.e = e.e;
  if (e.s === 'fetched' && e.z === true) out.z = true;
  if (check !== undefined) out.k = check;
  // an unlinked image stays one only while pruned
  if (e.s === 'pruned' && e.i === true) out.i = true;
  return out;
}

/** A fetched entry's status (` S` field) shows no document (a 404, a 204), or it is a soft 404 (` z`): its summary is `F`. */
function fetchedNoDocument(value: string): boolean {
  const at = value.indexOf(' S');
  if (at === -1) return false;
  return !isDocumentStatus(parseInt(value.slice(at + 2), 10)) || value.endsWith(' z');
}

/** True when `e` was fetched as itself and answered a document: a 2xx with content, not the host's not-found page. */
export function answeredDocument(e: Readonly<UrlEntry> | undefined): boolean {
  return e?.s === 'fetched' && e.st !== undefined && isDocumentStatus(e.st) && e.z !== true;
}

/**
 * What the cache keeps of a `url` value: all that lookups need (`canonical`: the state, whether a
 * fetch answered a document, and for a pruned entry its reason and target). The state letter, one
 * shared string, for every state but pruned (`F`: fetched, no document); the whole value for a
 * pruned entry. `decodeUrlEntry` reads either.
 */
export function entrySummary(value: string): string {
  switch (value.charCodeAt(0)) {
    case 0x71 /* q */: return 'q';
    case 0x66 /* f */: return fetchedNoDocument(value) ? 'F' : 'f';
    case 0x72 /* r */: return 'r';
    case 0x78 /* x */: return 'x';
    default: return value;
  }
}

const SUMMARY_LETTER: Readonly<Record<UrlState, string>> = { queued: 'q', fetched: 'f', redirected: 'r', pruned: 'p', failed: 'x' };

/**
 * Shared read-only entries for lookups, by state letter: all they use of an entry not pruned is its
 * state, and for a fetched one whether it answered a document (a representative status: 200, or 0
 * for none).
 */
const STATE_ONLY: Readonly<Record<string, Readonly<UrlEntry>>> = {
  q: Object.freeze({ s: 'queued', d: 0, t: 0 }),
  f: Object.freeze({ s: 'fetched', d: 0, t: 0, st: 200 }),
  F: Object.freeze({ s: 'fetched', d: 0, t: 0, st: 0 }),
  r: Object.freeze({ s: 'redirected', d: 0, t: 0 }),
  x: Object.freeze({ s: 'failed', d: 0, t: 0 }),
};

/** A `url` value (or its `entrySummary`) as lookups read it: the state, and reason and target when pruned. */
export function lookupEntry(value: string): Readonly<UrlEntry> {
  return value.charCodeAt(0) === 0x70 /* p */ ? decodeUrlEntry(value) : (STATE_ONLY[value.charAt(0)] ?? decodeUrlEntry(value));
}

/** True when `e` (an entry, or a summary as `lookupEntry` reads it) was answered with no document: failed, or fetched with a status that shows none. */
export function answeredNoDocument(e: Readonly<UrlEntry>): boolean {
  return e.s === 'failed' || (e.s === 'fetched' && ((e.st !== undefined && !isDocumentStatus(e.st)) || e.z === true));
}

/** `entrySummary` of the value `e` is written as. */
export function summaryOf(e: UrlEntry): string {
  if (e.s === 'fetched' && ((e.st !== undefined && !isDocumentStatus(e.st)) || e.z === true)) return 'F';
  return e.s === 'pruned' ? encodeUrlEntry(e) : SUMMARY_LETTER[e.s];
}

/** Records of the keys read last: the learner reads the same few keys' records again and again. */
const recordsOfKeys = new Map<string, UriRecord>();
const RECORDS_OF_KEYS = 1024;

/** The record of a key's normal form (records are read-only: one serves every caller). */
export function recordOfKey(key: string): UriRecord {
  let rec = recordsOfKeys.get(key);
  if (rec === undefined) {
    rec = parseUri(urlFromKey(key), { maxLength: Number.MAX_SAFE_INTEGER });
    if (recordsOfKeys.size >= RECORDS_OF_KEYS) recordsOfKeys.delete(recordsOfKeys.keys().next().value!);
    recordsOfKeys.set(key, rec);
  }
  return rec;
}

/**
 * Move `key` from `prev` to `next`, keeping the frontier, the `pruned` index and the counters in
 * step in the same batch. A queued entry gets its frontier host (from `rec`) and sequence number.
 */
export function setUrl(s: Pick<EngineParts, 'frontier'>, txn: Txn, key: string, prev: UrlEntry | undefined, next: UrlEntry, rec?: UriRecord): void {
  if (prev === undefined) {
    txn.count(counterNames.admitted, 1);
    txn.count(counterNames.state(next.s), 1);
    const [h1, h2] = fingerprintWords(key);
    txn.addNew(key, h1, h2);
  } else if (prev.s !== next.s) {
    txn.count(counterNames.state(prev.s), -1);
    txn.count(counterNames.state(next.s), 1);
  }
  // leaving the frontier (a queued entry that stays queued keeps its place)
  const place = prev?.s === 'queued' && prev.h !== undefined && prev.n !== undefined ? { h: prev.h, n: prev.n } : undefined;
  if (place !== undefined && next.s !== 'queued') {
    txn.queue.adjust(place.h, -1);
    txn.queue.landed.push(key);
    // its block loses a live line; a block without one goes
    const block = frontierKey(place.h, place.n);
    const live = txn.queue.blockLive.get(block) ?? s.frontier.liveOf(block);
    if (live !== undefined) {
      txn.queue.blockLive.set(block, live - 1);
      if (live - 1 <= 0) txn.del('frontier', block);
    }
  }
  // leaving the pruned index (or changing reason)
  if (prev?.s === 'pruned' && prev.by !== undefined && !(next.s === 'pruned' && next.by === prev.by)) {
    txn.del('pruned', prunedKey(prev.by, key));
    txn.count(counterNames.pruned(prev.by), -1);
  }
  let h: string | undefined;
  let n: number | undefined;
  if (next.s === 'queued') {
    if (place !== undefined) {
      h = place.h;
      n = place.n;
    } else {
      h = hostOf(rec ?? recordOfKey(key));
      n = txn.queue.place(h, next.d, key);
      txn.queue.adjust(h, 1);
    }
  }
  if (next.s === 'pruned') {
    if (next.by === undefined || next.to === undefined) throw new Error('setUrl: a pruned entry needs by and to');
    if (!(prev?.s === 'pruned' && prev.by === next.by)) txn.count(counterNames.pruned(next.by), 1);
    txn.put('pruned', prunedKey(next.by, key), next.to);
  }
  // the rewrite index (learner.ts): a URL a rule pruned, under the URL it was rewritten onto, so
  // that a rewrite that answers no document contradicts the rule where the URL lies
  const was = prev?.s === 'pruned' && prev.by?.startsWith('rule:') === true && prev.to !== undefined ? prev : undefined;
  const is = next.s === 'pruned' && next.by!.startsWith('rule:') ? next : undefined;
  if (was !== undefined && !(is !== undefined && is.to === was.to && is.by === was.by)) {
    txn.del('evidence', evidenceKeys.rewrite(was.to!, key));
    txn.evidence.set(evidenceKeys.rewrite(was.to!, key), null);
  }
  if (is !== undefined && !(was !== undefined && was.to === is.to && was.by === is.by)) putEvidence(txn, evidenceKeys.rewrite(is.to!, key), is.by!);
  // a check the learner asked for is fetched next: a rule's activation, a not-found signature or
  // a directory's stability waits on it
  if (next.s === 'queued' && next.k !== undefined && h !== undefined && n !== undefined) txn.queue.urge(key, h, n, next.d);
  const entry = makeEntry(next, h, n);
  txn.urls.set(key, entry);
  txn.put('url', key, encodeUrlEntry(entry));
}

/**
 * Forget a pruned entry no link named (`UrlEntry.i`): the entry, its place in the `pruned` and
 * rewrite indexes and its counts go in the same batch, as if it had never been recorded. The
 * Bloom front keeps its bits (a "maybe" that a read then answers).
 */
export function forgetUnlinkedImage(txn: Txn, key: string, prev: UrlEntry): void {
  if (prev.s !== 'pruned' || prev.i !== true || prev.by === undefined) throw new Error('forgetUnlinkedImage: not an unlinked image');
  txn.count(counterNames.admitted, -1);
  txn.count(counterNames.state('pruned'), -1);
  txn.del('pruned', prunedKey(prev.by, key));
  txn.count(counterNames.pruned(prev.by), -1);
  if (prev.by.startsWith('rule:') && prev.to !== undefined) {
    txn.del('evidence', evidenceKeys.rewrite(prev.to, key));
    txn.evidence.set(evidenceKeys.rewrite(prev.to, key), null);
  }
  txn.urls.set(key, null);
  txn.del('url', key);
}

/** The fields of an entry that outlive a change of state. */
export function carried(prev: UrlEntry | undefined, depth: number, now: number): Pick<UrlEntry, 'd' | 't' | 'src'> {
  if (prev === undefined) return { d: depth, t: now };
  return prev.src === undefined ? { d: prev.d, t: prev.t } : { d: prev.d, t: prev.t, src: prev.src };
}
