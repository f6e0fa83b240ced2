/**
 * Failed URLs given another chance (docs/reliability.md `fetch/transient-retry`): a fetch that failed for a
 * reason that may pass (a 5xx, a 429, a timeout, a broken connection, a name that did not resolve)
 * stays `failed` with its error code and the time of the attempt. `requeueFailed` puts those whose
 * code is listed and whose last attempt is older than `before` back on the frontier, so a later run
 * fetches them again; a permanent answer (404, 410, robots, a blocked address) is never listed by
 * the crawler and stays final.
 *
 * There is no index of failed entries: this reads the `url` sublevel once, in chunks, and writes one
 * batch per chunk (a crash between two batches leaves the rest failed, for the next call). It runs
 * only while the `failed` counter is above zero.
 */
import { counterNames, decodeUrlEntry } from '../keys.js';
import type { RequeueFailedOptions } from '../seen-store.js';
import { getUrl } from './batch.js';
import type { EngineParts } from './parts.js';
import { carried, recordOfKey, setUrl } from './url-state.js';
import type { WriteQueue } from './write-queue.js';

/** Check `requeueFailed`'s options (TypeError for misuse). */
export function checkRequeueOptions(o: RequeueFailedOptions): void {
  if (o === null || typeof o !== 'object' || !Array.isArray(o.codes) || o.codes.some((c) => typeof c !== 'string')) {
    throw new TypeError('requeueFailed: codes must be an array of error codes');
  }
  if (o.before !== undefined && typeof o.before !== 'number') throw new TypeError('requeueFailed: before must be ms since the epoch');
}

/** Queue again the failed URLs whose error code is in `codes` and last fetch before `before`. */
export async function requeueFailed(s: Pick<EngineParts, 'counters' | 'frontier' | 'kv' | 'o'>, q: WriteQueue, o: RequeueFailedOptions): Promise<number> {
  if (s.counters.get(counterNames.state('failed')) <= 0) return 0;
  const codes = new Set(o.codes);
  const before = o.before ?? Infinity;
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const chunk: [string, string][] = [];
    for await (const e of s.kv.entries('url', { ...(after === undefined ? {} : { gt: after }), limit: s.o.restoreBatchSize })) chunk.push(e);
    if (chunk.length === 0) return total;
    after = chunk[chunk.length - 1]![0];
    const txn = q.newTxn();
    const now = Date.now();
    for (const [key, value] of chunk) {
      if (value.charCodeAt(0) !== 0x78 /* x: failed */) continue;
      const seen = decodeUrlEntry(value);
      if (seen.e === undefined || !codes.has(seen.e) || !((seen.ft ?? 0) < before)) continue;
      const prev = await getUrl(s.kv, txn, key);
      if (prev?.s !== 'failed') continue;
      setUrl(s, txn, key, prev, { ...carried(prev, prev.d, now), s: 'queued' }, recordOfKey(key));
      total++;
    }
    if (txn.ops.length > 0) await q.commit(txn);
  }
}
