/**
 * At-least-once output for `urldedup filter`: the URLs the store admitted with `{ deliver: true }`
 * count as delivered (`markDelivered`) only after their line was written, and only when either
 *   - at least `window` more bytes were written after it (what a pipe and its reader can still hold
 *     unread when the reader goes away: a Linux pipe holds 64 KiB, 1 MiB at most unprivileged,
 *     and `head` reads ahead one buffer), or
 *   - the run ended normally (all input read, every write completed).
 * An interrupted run (a signal, or the reader gone: EPIPE) leaves the rest undelivered, and the next
 * run over the same input writes them again.
 */
import type { Writable } from 'node:stream';
import type { SeenStore } from '../store/index.js';

/** Bytes written after a line before it counts as delivered (see above). @default 2 MiB */
export const DELIVERY_WINDOW = 2 * 1024 * 1024;

export class DeliveredOutput {
  /** Batches written and not yet marked: the byte count at their end, and their store keys. */
  private readonly unconfirmed: { end: number; keys: readonly string[] }[] = [];
  private written = 0;
  private marking: Promise<void> = Promise.resolve();
  /** Lines written and keys marked delivered, for the log. */
  lines = 0;
  marked = 0;

  constructor(
    private readonly out: Writable,
    private readonly store: SeenStore,
    private readonly window = DELIVERY_WINDOW,
  ) {}

  /**
   * Write one batch's lines (`text`, newline-terminated); resolves when the write completed,
   * rejects with the stream's error (EPIPE when the reader went away). `keys`: the store keys the
   * lines deliver.
   */
  async write(text: string, lines: number, keys: readonly string[]): Promise<void> {
    if (text.length > 0) {
      await new Promise<void>((resolve, reject) => {
        this.out.write(text, (error) => (error ? reject(error) : resolve()));
      });
      this.written += Buffer.byteLength(text);
      this.lines += lines;
    }
    if (keys.length > 0) this.unconfirmed.push({ end: this.written, keys });
    const confirmed: string[] = [];
    while (this.unconfirmed.length > 0 && this.written - this.unconfirmed[0]!.end >= this.window) confirmed.push(...this.unconfirmed.shift()!.keys);
    if (confirmed.length > 0) this.mark(confirmed);
  }

  private mark(keys: string[]): void {
    this.marking = this.marking.then(async () => {
      await this.store.markDelivered(keys);
      this.marked += keys.length;
    });
    this.marking.catch(() => undefined); // awaited by finish/abandon; this only keeps it from being unhandled
  }

  /** The run ended normally: everything written counts as delivered. Rejects when a mark failed. */
  async finish(): Promise<void> {
    const rest = this.unconfirmed.splice(0).flatMap((b) => b.keys);
    if (rest.length > 0) this.mark(rest);
    await this.marking;
  }

  /** The run was cut short: what is not yet confirmed stays undelivered. Rejects when a mark failed. */
  async abandon(): Promise<void> {
    this.unconfirmed.length = 0;
    await this.marking;
  }
}
