/**
 * The frontier pump: takes entries from the store's frontier, a few at a time, and hands each to
 * the crawl loop as a task, keeping at most `2 × concurrency` tasks out (the politeness slots and
 * as many waiting) and at most `perHost + 1` per host.
 */
import type { FrontierEntry, SeenStore } from '../store/index.js';
import type { PolitenessOptions } from './policy/politeness.js';

/** What the pump needs of the crawl loop. */
export interface PumpedLoop {
  /** The crawl's store (open before the first pump). */
  store(): SeenStore;
  /** Pages the crawl may still start (`maxPages` less those started). */
  pagesLeft(): number;
  /** The crawl takes no new work. */
  stopping(): boolean;
  /** The host's entries are held back (held-entries.ts): its frontier is left in the store. */
  isPaused(host: string): boolean;
  /** The task of one entry; a rejection fails the crawl. */
  process(entry: FrontierEntry): Promise<void>;
  fail(error: unknown): void;
  /** A task ended (the page channel may have room again). */
  taskEnded(): void;
  /** The crawl may have nothing left to do. */
  checkIdle(): void;
}

export class FrontierPump {
  /** Tasks handed out and not finished. */
  outstanding = 0;
  /** Taking entries from the store now. */
  pumping = false;
  /** Asked to take entries while taking them: go round once more. */
  private pumpAgain = false;
  /** Tasks out, per host. */
  private readonly inHand = new Map<string, number>();

  constructor(
    private readonly options: Required<Pick<PolitenessOptions, 'concurrency' | 'perHost'>>,
    private readonly loop: PumpedLoop,
  ) {}

  /** Take entries until there is no room or no entry (asked again meanwhile: once more). */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    const loop = this.loop;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          while (!loop.stopping()) {
            const room = Math.min(this.options.concurrency * 2 - this.outstanding, loop.pagesLeft() - this.outstanding);
            if (room <= 0) break;
            const entries = await this.nextEntries(room);
            if (entries.length === 0) break;
            for (const e of entries) this.dispatch(e);
          }
        } while (this.pumpAgain && !loop.stopping());
      } catch (error) {
        loop.fail(error);
      } finally {
        this.pumping = false;
        loop.checkIdle();
      }
    })();
  }

  /** Run `entry`'s task; when it ends, take more entries (unless stopping). */
  dispatch(entry: FrontierEntry): void {
    const loop = this.loop;
    this.outstanding++;
    this.inHand.set(entry.host, (this.inHand.get(entry.host) ?? 0) + 1);
    loop
      .process(entry)
      .catch((error: unknown) => loop.fail(error))
      .finally(() => {
        this.outstanding--;
        const n = (this.inHand.get(entry.host) ?? 1) - 1;
        if (n <= 0) this.inHand.delete(entry.host);
        else this.inHand.set(entry.host, n);
        loop.taskEnded();
        if (!loop.stopping()) this.pump();
        loop.checkIdle();
      });
  }

  /**
   * Up to `room` entries, round-robin over the store's hosts from a start that moves one host a
   * call (frontier.ts), each host topped up to `perHost + 1` entries in hand (those running and
   * one waiting). Taking entries late, a few at a time, keeps them queued in the store as long as
   * possible: a rule that becomes active prunes queued entries, not those already handed out.
   * Paused hosts are given no room, so their frontier is not drained into memory. The crawler
   * never lists the hosts: with a million of them, a list per call cost more than the fetches.
   */
  private async nextEntries(room: number): Promise<FrontierEntry[]> {
    const window = this.options.perHost + 1;
    const store = this.loop.store();
    const perHost = (host: string): number => (this.loop.isPaused(host) ? 0 : Math.max(0, window - (this.inHand.get(host) ?? 0)));
    return store.next({ limit: room, perHost });
  }
}
