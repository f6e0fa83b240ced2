/**
 * The engine's parts, each the owner of its state: the counters (counters.ts), the seen set in
 * memory (seen-set.ts), the frontier (../frontier.ts) and the rule book (../learning/rule-book.ts),
 * beside the database (`kv`), the options and the fleet's outbox. The database is the truth; the
 * parts follow it in two steps (write-queue.ts):
 * - at submission (`submitted`), what the next batch builds on: counters, the frontier's per-host
 *   counts, the seen set's keys in flight and its Bloom front;
 * - when the write returned (`written`), the rest: written counters (for `stats`), the entry
 *   cache, the frontier, the rules and the learner's caches.
 * A failed write rolls the first part back to what was written (`rollback`).
 */
import type { NormalizeOptions } from '../../normalize/index.js';
import type { Kv } from '../backends/kv.js';
import { Frontier } from '../frontier.js';
import { RuleBook } from '../learning/rule-book.js';
import { heldForCandidate, type Held } from '../learning/candidate-order.js';
import type { Txn } from './batch.js';
import { Counters, hostOfCounter, isPerHost, type CounterChange } from './counters.js';
import { customNormalizeOptions, type ResolvedOptions } from './options.js';
import { SeenSet } from './seen-set.js';

export class EngineParts {
  readonly kv: Kv;
  readonly location: string;
  o: ResolvedOptions;
  /** The normalize options, or `undefined` when they are the defaults (normalize's fastest path). */
  readonly normalizeOptions: NormalizeOptions | undefined;
  /** The store's salt for redacting passwords (userinfo.ts), read or made at open. */
  salt = '';
  readonly counters = new Counters((host) => this.frontier.queuedNext(host));
  readonly seen: SeenSet;
  /** Replaced when the counters are loaded (`loadCounters`): it starts from their per-host counts. */
  frontier: Frontier;
  readonly rules: RuleBook;
  /**
   * In a fleet partition: URLs another host's partition must queue (a redirect target, a give-back
   * mapped by an alias onto another host), taken by the fleet after each call (`takeOutbox`).
   */
  readonly outbox: { readonly url: string; readonly depth: number; readonly src?: string }[] = [];

  /** The frontier's order: a URL a rule being learned would rewrite waits for the host's other URLs. */
  private readonly heldForCandidate = (key: string): Held => heldForCandidate(this.rules, key);

  constructor(kv: Kv, options: ResolvedOptions) {
    this.kv = kv;
    this.location = kv.location;
    this.o = options;
    this.normalizeOptions = customNormalizeOptions(options.normalize);
    this.seen = new SeenSet(options.cacheSize);
    this.frontier = new Frontier(kv, this.heldForCandidate);
    this.rules = new RuleBook(kv);
  }

  /**
   * Set every counter (at open, or after a rebuild): the store-wide ones, and a frontier loaded
   * with the per-host ones (one entry per host: read once, into the frontier's own map), from
   * `counts` or, read from the snapshot of the last clean close, `hostCounts`.
   */
  loadCounters(counts: Iterable<readonly [string, number]>, hostCounts = new Map<string, number>()): void {
    const storeWide: (readonly [string, number])[] = [];
    for (const c of counts) {
      if (isPerHost(c[0])) {
        if (c[1] > 0) hostCounts.set(hostOfCounter(c[0]), c[1]);
      } else storeWide.push(c);
    }
    this.counters.load(storeWide);
    this.frontier = new Frontier(this.kv, this.heldForCandidate);
    this.frontier.load(hostCounts);
  }

  /** A batch was submitted: what the next batch builds on follows it. */
  submitted(txn: Txn, changed: readonly CounterChange[]): void {
    this.counters.submitted(changed);
    this.frontier.submitted(txn.queue);
    this.seen.submitted(txn);
  }

  /** The batch is written: the rest of the in-memory state follows. */
  written(txn: Txn, changed: readonly CounterChange[]): void {
    this.counters.wrote(changed);
    this.seen.wrote(txn);
    this.frontier.written(txn.queue, txn.urls);
    this.rules.wrote(txn.rules.values(), txn.ops);
  }

  /** A write failed: back to what was written (the batches built on it are refused by the queue). */
  rollback(): void {
    this.counters.rollback();
    this.frontier.rollback();
    this.seen.rollback();
  }
}
