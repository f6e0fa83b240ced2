/**
 * The frontier: a persistent FIFO queue per host, in discovery order.
 *
 * Entries live in the `frontier` sublevel under `host SEP seq`, so one host's entries are one key
 * range in the order they were queued (breadth-first when pages are admitted in crawl order).
 * `next()` hands entries out round-robin over hosts and marks them in flight in memory only;
 * an entry is deleted in the same batch that records its fetch (`recordFetch`, `recordRedirect`).
 * So a crash loses no URL and re-offers only those that were in flight (at most the crawler's
 * concurrency); a URL recorded once is never offered again.
 */
import { parseFrontierValue, prefixRange, SEP } from './keys.js';
import type { Kv } from './kv.js';
import type { FrontierEntry, NextOptions } from './seen-store.js';
import { urlFromKey } from '../normalize/index.js';

export class Frontier {
  /** Entries per host, in flight included (mirrors the `frontier:<host>` counters). */
  private readonly counts = new Map<string, number>();
  /** url key → host, for entries handed out and not yet recorded or released. */
  private readonly flying = new Map<string, string>();
  private readonly flyingByHost = new Map<string, number>();
  /** Hosts with entries, in the order they got their first one; `cursor` walks it round-robin. */
  private ring: string[] = [];
  private readonly inRing = new Set<string>();
  private cursor = 0;
  private total = 0;

  constructor(private readonly kv: Kv) {}

  /** Set at open from the counters. */
  load(counts: ReadonlyMap<string, number>): void {
    for (const [host, n] of counts) if (n > 0) this.adjust(host, n);
  }

  /** Apply a committed change of one host's entry count. */
  adjust(host: string, delta: number): void {
    const n = (this.counts.get(host) ?? 0) + delta;
    this.total += delta;
    if (n <= 0) {
      this.counts.delete(host);
    } else {
      this.counts.set(host, n);
      if (!this.inRing.has(host)) {
        this.inRing.add(host);
        this.ring.push(host);
      }
    }
  }

  get size(): number {
    return this.total;
  }

  get inFlight(): number {
    return this.flying.size;
  }

  hosts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [h, n] of [...this.counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) out[h] = n;
    return out;
  }

  isInFlight(key: string): boolean {
    return this.flying.has(key);
  }

  /** The entry for `key` is no longer in flight (recorded, pruned or released). */
  land(key: string): void {
    const host = this.flying.get(key);
    if (host === undefined) return;
    this.flying.delete(key);
    const n = (this.flyingByHost.get(host) ?? 0) - 1;
    if (n <= 0) this.flyingByHost.delete(host);
    else this.flyingByHost.set(host, n);
  }

  private fly(key: string, host: string): void {
    this.flying.set(key, host);
    this.flyingByHost.set(host, (this.flyingByHost.get(host) ?? 0) + 1);
  }

  /** Oldest entries not in flight, round-robin over hosts. Call with the store's write queue held. */
  async next(options: NextOptions = {}): Promise<FrontierEntry[]> {
    const limit = options.limit ?? 1;
    const perHost = options.perHost ?? 1;
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(perHost) || perHost < 1) {
      throw new TypeError('next: limit and perHost must be integers >= 1');
    }
    const out: FrontierEntry[] = [];
    if (options.host !== undefined) {
      await this.take(options.host, limit, out);
      return out;
    }
    // round-robin: one entry per host per turn, until `limit`, or every host is spent or at `perHost`
    const given = new Map<string, number>();
    let idle = 0;
    while (out.length < limit && this.ring.length > 0 && idle < this.ring.length) {
      if (this.cursor >= this.ring.length) this.cursor = 0;
      const host = this.ring[this.cursor]!;
      if (!this.counts.has(host)) {
        // drop a host without entries from the ring; the walk stays in place
        this.ring.splice(this.cursor, 1);
        this.inRing.delete(host);
        continue;
      }
      this.cursor++;
      const had = given.get(host) ?? 0;
      const before = out.length;
      if (had < perHost) await this.take(host, 1, out);
      const got = out.length - before;
      if (got > 0) given.set(host, had + got);
      idle = got > 0 ? 0 : idle + 1;
    }
    return out;
  }

  private async take(host: string, want: number, out: FrontierEntry[]): Promise<void> {
    const count = this.counts.get(host) ?? 0;
    const flying = this.flyingByHost.get(host) ?? 0;
    if (count - flying <= 0) return;
    // in-flight entries are still stored, so read past them
    const range = prefixRange(host + SEP);
    let taken = 0;
    for await (const [fk, value] of this.kv.entries('frontier', { ...range, limit: flying + want })) {
      const { depth, key } = parseFrontierValue(value);
      if (this.flying.has(key)) continue;
      this.fly(key, host);
      out.push({ url: urlFromKey(key), key, host, depth, seq: parseInt(fk.slice(fk.lastIndexOf(SEP) + 1), 16) });
      if (++taken >= want) break;
    }
  }
}

