/**
 * The store's counters (`counter` space: admitted, aliases, URLs per state, queued per host, the
 * block sequence), in memory in two versions, as the write queue moves them (write-queue.ts):
 * what the next batch builds on (every submitted batch included) and what is written (what
 * `stats` reports). A failed write takes the first back to the second.
 */

/** A counter's new value after a batch: [name, value]. */
export type CounterChange = readonly [string, number];

export class Counters {
  /** Including submitted batches not yet written. */
  private next = new Map<string, number>();
  private readonly written = new Map<string, number>();

  /** A counter as the next batch builds on it. */
  get(name: string): number {
    return this.next.get(name) ?? 0;
  }

  /** The names of the counters that are not zero, as the next batch builds on them. */
  names(): IterableIterator<string> {
    return this.next.keys();
  }

  /** The counters as written. */
  get asWritten(): ReadonlyMap<string, number> {
    return this.written;
  }

  /** Every counter at once (at open, or after a rebuild). */
  load(counts: Iterable<readonly [string, number]>): void {
    this.next = new Map();
    this.written.clear();
    for (const [name, n] of counts) {
      this.next.set(name, n);
      this.written.set(name, n);
    }
  }

  /** A batch was submitted: the next batch builds on its values. */
  submitted(changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (value === 0) this.next.delete(name);
      else this.next.set(name, value);
    }
  }

  /** The batch is written. */
  wrote(changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (value === 0) this.written.delete(name);
      else this.written.set(name, value);
    }
  }

  /** A write failed: back to what was written. */
  rollback(): void {
    this.next = new Map(this.written);
  }
}
