/**
 * The store's counters (`counter` space: admitted, aliases, URLs per state, queued per host, the
 * block sequence), in memory in two versions, as the write queue moves them (write-queue.ts):
 * what the next batch builds on (every submitted batch included) and what is written (what
 * `stats` reports). A failed write takes the first back to the second.
 *
 * The per-host queue counts (`frontier:<host>`) are as many as the hosts: the frontier keeps the
 * only copy of each in memory (frontier.ts `queuedNext`), and these read it, so a broad crawl
 * does not hold a million hosts three times over.
 */
import { counterNames } from '../keys.js';

const PER_HOST = counterNames.frontier('');

/** A counter's new value after a batch: [name, value]. */
export type CounterChange = readonly [string, number];

/** True for a per-host queue count, which the frontier keeps (`Counters`). */
export function isPerHost(name: string): boolean {
  return name.startsWith(PER_HOST);
}

/** Characters beyond one byte: a string with none is copied as Latin-1 (one byte a character). */
const WIDE = /[^\x00-\xff]/;

/**
 * The host of a per-host queue count's name, as a string of its own: V8 makes a slice of a longer
 * string point into it, and a frontier that keeps a million hosts would keep each one's counter
 * name (and the database key it was read from) alive with it.
 */
export function hostOfCounter(name: string): string {
  const host = name.slice(PER_HOST.length);
  return WIDE.test(host) ? Buffer.from(host, 'utf16le').toString('utf16le') : Buffer.from(host, 'latin1').toString('latin1');
}

export class Counters {
  /** Including submitted batches not yet written. */
  private next = new Map<string, number>();
  private readonly written = new Map<string, number>();

  /** `queued`: a host's queue count as the next batch builds on it (the frontier's). */
  constructor(private readonly queued: (host: string) => number) {}

  /** A counter as the next batch builds on it. */
  get(name: string): number {
    return isPerHost(name) ? this.queued(name.slice(PER_HOST.length)) : (this.next.get(name) ?? 0);
  }

  /** The names of the store-wide counters that are not zero, as the next batch builds on them (not the per-host ones). */
  names(): IterableIterator<string> {
    return this.next.keys();
  }

  /** The store-wide counters as written. */
  get asWritten(): ReadonlyMap<string, number> {
    return this.written;
  }

  /** Every store-wide counter at once (at open, or after a rebuild); the per-host ones are skipped. */
  load(counts: Iterable<readonly [string, number]>): void {
    this.next = new Map();
    this.written.clear();
    for (const [name, n] of counts) {
      if (isPerHost(name)) continue;
      this.next.set(name, n);
      this.written.set(name, n);
    }
  }

  /** A batch was submitted: the next batch builds on its values. */
  submitted(changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (isPerHost(name)) continue;
      if (value === 0) this.next.delete(name);
      else this.next.set(name, value);
    }
  }

  /** The batch is written. */
  wrote(changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (isPerHost(name)) continue;
      if (value === 0) this.written.delete(name);
      else this.written.set(name, value);
    }
  }

  /** A write failed: back to what was written. */
  rollback(): void {
    this.next = new Map(this.written);
  }
}
