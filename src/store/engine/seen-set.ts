/**
 * The seen set in memory: what keeps most "have we seen this key?" checks off the disk. The
 * database is the truth; this follows it in the write queue's two steps (write-queue.ts):
 * - at submission, the Bloom front and the keys of batches in flight (what the next batch builds
 *   on: a key a batch creates counts as present before its write returns);
 * - once written, the entry cache and the alias front.
 * A failed write forgets the batches in flight (`rollback`); the front keeps their keys, which
 * costs a false "maybe" and never a false "no".
 */
import { EntryCache, KeyTable, type ScalableBloom } from '../front/bloom.js';
import { fingerprintWords } from '../../normalize/index.js';
import type { Txn } from './batch.js';
import { summaryOf } from './url-state.js';

export class SeenSet {
  /** Every `url` key, as a Bloom filter (no false negatives). Set at open (open.ts). */
  front!: ScalableBloom;
  /** Every `alias` source key, likewise. */
  aliasFront!: ScalableBloom;
  /**
   * Where the fronts came from at open: the snapshot of the last clean close, the keys, or
   * nowhere (`none`: a fleet partition without a snapshot, whose fronts answer "maybe").
   */
  source: 'snapshot' | 'database' | 'none' = 'database';
  /** Admit batches submitted and not yet written: their new keys count as present. */
  readonly inflight = new Set<Txn>();
  /** The keys those batches create (each by one batch: a later one finds it here), by fingerprint word. */
  readonly pendingKeys = new KeyTable();
  /** The `url` entries of keys known present, as `entrySummary` keeps them (written state only). */
  readonly cache: EntryCache;
  /** Bumped by every written batch that changed `url` entries: a read overtaken by one is not cached. */
  urlWrites = 0;

  constructor(cacheSize: number) {
    this.cache = new EntryCache(cacheSize);
  }

  /** A batch was submitted: its new keys are in the front and count as present. */
  submitted(txn: Txn): void {
    const words = txn.newWords;
    const n = txn.newKeys.length;
    for (let i = 0; i < n; i++) this.front.addWords(words[2 * i]!, words[2 * i + 1]!);
    if (n > 0) {
      this.inflight.add(txn);
      for (let i = 0; i < n; i++) this.pendingKeys.add(txn.newKeys[i]!, words[2 * i]!);
    }
  }

  /** The batch is written: the cache follows every entry it wrote, the alias front its new sources. */
  wrote(txn: Txn): void {
    if (this.inflight.delete(txn)) for (let i = 0; i < txn.newKeys.length; i++) this.pendingKeys.delete(txn.newKeys[i]!, txn.newWords[2 * i]!);
    if (txn.newKeys.length > 0 || txn.urls.size > 0) {
      // new queued keys first (queueNew, not in `urls`), then every entry `setUrl` wrote
      this.urlWrites++;
      const keys = txn.newKeys;
      const words = txn.newWords;
      const others = txn.urls.size > 0;
      const heads = txn.newHeads;
      const rests = txn.newRests;
      for (let i = 0; i < keys.length; i++) {
        if (others && txn.urls.has(keys[i]!)) continue;
        // a key the single pass made is a rope of its head and a slice of the input URL, which
        // it keeps alive whole: the cache, which keeps keys long enough to be copied twice by the
        // scavenger, gets one flat string instead (a two-part join makes one)
        const head = heads[i]!;
        this.cache.set(head === '' ? keys[i]! : [head, rests[i]!].join(''), words[2 * i]!, 'q');
      }
      for (const [k, e] of txn.urls) {
        const h1 = fingerprintWords(k)[0];
        if (e === null) this.cache.delete(k, h1);
        else this.cache.set(k, h1, summaryOf(e));
      }
    }
    for (const k of txn.newAliasSources) this.aliasFront.add(k);
  }

  /** A write failed: the batches in flight are refused (the queue refuses those built on them). */
  rollback(): void {
    this.inflight.clear();
    this.pendingKeys.clear();
  }

  /** The database was rebuilt under the cache (rebuild.ts): nothing cached holds. */
  forget(): void {
    this.cache.clear();
    this.urlWrites++;
  }
}
