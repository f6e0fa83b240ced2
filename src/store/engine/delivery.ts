/**
 * At-least-once delivery of admitted URLs (`admit(urls, { deliver: true })` and `markDelivered`),
 * for a caller that hands the new URLs on (`urldedup filter` writes them to a pipe): a URL the
 * store admitted but the caller never delivered (killed, or its reader went away) is offered again.
 *
 * - `admit` with `deliver` writes each new `url` entry with the undelivered mark (`u`, keys.ts) in
 *   the same atomic batch as the admit itself (admit.ts, `queueNew`).
 * - `markDelivered(keys)` clears the mark, in one batch, once the caller's write completed.
 * - An `admit` with `deliver` of a URL whose canonical entry still carries the mark (a run that
 *   stopped before delivering it) reports it again: `undelivered: true`. Keys this store handed out
 *   and has not yet been told are delivered are not reported twice in one session.
 */
import { decodeUrlEntry, encodeUrlEntry } from '../keys.js';
import type { AdmitResult } from '../seen-store.js';
import type { EngineParts } from './parts.js';
import type { WriteQueue } from './write-queue.js';

/** The reasons of an input whose canonical key is stored (so its entry may carry the mark). */
function namesStoredKey(r: AdmitResult): boolean {
  return r.reason === 'seen' || r.reason === 'alias' || r.reason.startsWith('rule:') || r.reason.startsWith('preset:');
}

/** A `url` value with the undelivered mark (keys.ts). */
function isUndelivered(value: string): boolean {
  return decodeUrlEntry(value).u === true;
}

export class Delivery {
  /** Keys handed out (admitted, or reported undelivered) and not yet marked delivered. */
  private readonly handedOut = new Set<string>();

  /**
   * After an `admit` with `deliver` was built (inside the same queue step, before the next build):
   * report the inputs whose stored canonical entry is still undelivered, and remember every key
   * handed out.
   */
  async settle(s: EngineParts, results: AdmitResult[]): Promise<AdmitResult[]> {
    const asked = new Map<string, number>(); // key → its first input
    for (let i = 0; i < results.length; i++) {
      const r = results[i]!;
      if (r.admitted) this.handedOut.add(r.key!);
      else if (r.key !== undefined && namesStoredKey(r) && !this.handedOut.has(r.key) && !asked.has(r.key)) asked.set(r.key, i);
    }
    if (asked.size === 0) return results;
    const keys = [...asked.keys()];
    const values = await s.kv.getMany('url', keys);
    for (let q = 0; q < keys.length; q++) {
      const v = values[q];
      if (v === undefined || !isUndelivered(v)) continue;
      const i = asked.get(keys[q]!)!;
      results[i] = { ...results[i]!, undelivered: true };
      this.handedOut.add(keys[q]!);
    }
    return results;
  }

  /** Clear the undelivered mark of `keys` (canonical keys from `admit` results), in one batch. */
  async markDelivered(s: EngineParts, q: WriteQueue, keys: readonly string[]): Promise<void> {
    const unique = [...new Set(keys)];
    if (unique.length === 0) return;
    const values = await s.kv.getMany('url', unique);
    const txn = q.newTxn();
    for (let i = 0; i < unique.length; i++) {
      const v = values[i];
      if (v === undefined || !isUndelivered(v)) continue;
      const e = decodeUrlEntry(v);
      delete e.u;
      txn.urls.set(unique[i]!, e);
      txn.put('url', unique[i]!, encodeUrlEntry(e));
    }
    if (txn.ops.length > 0) await q.commit(txn);
    for (const k of unique) this.handedOut.delete(k);
  }
}
