/**
 * The write queue: calls run one at a time, so no check-then-write race exists across `await`, and
 * batches are written one after another in submission order (docs/reliability.md promises 1 and 3: a call
 * resolves only after its own LevelDB batch, and so every earlier one, returned).
 *
 * `admit` batches are pipelined (the next one is built while this one is written); a failed write
 * refuses every batch built on it (the epoch) and rolls the in-memory parts back (parts.ts). On a
 * fail-stop store (LevelDB: `Kv.failStop`) it refuses every later write too, until the store is
 * reopened: LevelDB goes on appending to a log whose last record may be damaged, and a reopen would
 * drop the damaged block with the acknowledged writes after it (as databases stop after a failed
 * fsync). Reads still answer.
 * Synced markers follow LevelDB's hybrid scheme (promise 2): a `sync: true` write every
 * `everyBatches` batches or `everyMs` milliseconds.
 */
import { counterNames } from '../keys.js';
import { Txn } from './batch.js';
import { StoreError } from '../errors.js';
import type { CounterChange } from './counters.js';
import type { EngineParts } from './parts.js';

/** Admit batches being written at most when the next one is built (`admitQueued`). */
const ADMIT_WRITES_AHEAD = 2;

export class WriteQueue {
  /** The write chain: batches are written one after another, in submission order. */
  private writes: Promise<void> = Promise.resolve();
  /** Bumped when a write fails; batches built in an earlier epoch are refused (they built on it). */
  epoch = 0;
  private failure: unknown;
  /** Set by the first failed write of a fail-stop store: every later write is refused with it. */
  private stopped: StoreError | undefined;
  private tail: Promise<void> = Promise.resolve();
  /** Writes of admit batches not yet returned, oldest first (see `admitQueued`). */
  private readonly admitWrites: Promise<void>[] = [];
  private closed = false;
  private closing: Promise<void> | undefined;
  private unsyncedBatches = 0;
  private lastSync = Date.now();
  private syncTimer: NodeJS.Timeout | undefined;

  constructor(private readonly s: EngineParts) {}

  private refuseClosed(): Promise<never> | undefined {
    if (this.closed || this.closing !== undefined) {
      return Promise.reject(new StoreError('ERR_STORE_IO', this.s.location, { detail: 'the store is closed' }));
    }
    return undefined;
  }

  /** The error that stopped writes (fail-stop), if one did: the store takes none until reopened. */
  get writeFailure(): StoreError | undefined {
    return this.stopped;
  }

  /**
   * Run `fn` alone: after every earlier call, with no write in flight (so the database and the
   * in-memory state agree). `admit` is the exception: see `admitQueued`.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const refused = this.refuseClosed();
    if (refused !== undefined) return refused;
    const run = this.tail.then(async () => {
      await this.writes;
      return fn();
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Admit batches are pipelined: a batch is built alone (after every earlier call), and the queue
   * moves on as soon as its write is submitted, so the next batch is normalized while LevelDB
   * writes this one. Writes still happen one at a time in order, and each call resolves only
   * after its own write (and so every earlier one) returned.
   *
   * A build waits while `ADMIT_WRITES_AHEAD` batches are still being written: one batch built while
   * the last is written is all the overlap there is to gain, and a caller with more calls in flight
   * would otherwise have all of them built, each holding its inputs, results, keys and operations
   * until written. Young objects that outlive a scavenge are copied; at 4 calls in flight that
   * copying was the largest cost admit had over a plain LevelDB loop.
   */
  admitQueued<T>(build: () => Promise<{ value: T; written: Promise<void> }>): Promise<T> {
    const refused = this.refuseClosed();
    if (refused !== undefined) return refused;
    const built = this.tail.then(async () => {
      // (these promises never reject: `pending` below settles them either way)
      while (this.admitWrites.length >= ADMIT_WRITES_AHEAD) await this.admitWrites[0];
      const b = await build();
      const pending: Promise<void> = b.written.then(
        () => this.admitWriteDone(pending),
        () => this.admitWriteDone(pending),
      );
      this.admitWrites.push(pending);
      return b;
    });
    this.tail = built.then(
      () => undefined,
      () => undefined,
    );
    return built.then(({ value, written }) => written.then(() => value));
  }

  private admitWriteDone(write: Promise<void>): void {
    const i = this.admitWrites.indexOf(write);
    if (i >= 0) this.admitWrites.splice(i, 1);
  }

  /** A new batch, numbering its frontier blocks on from the `seq` counter. */
  newTxn(): Txn {
    return new Txn(this.s.counters.get(counterNames.seq));
  }

  private wantSync(): boolean {
    const p = this.s.o.sync;
    if (p === 'always') return true;
    if (p === 'never') return false;
    return this.unsyncedBatches + 1 >= p.everyBatches || Date.now() - this.lastSync >= p.everyMs;
  }

  /** Submit and wait: for calls that run alone (`exclusive`). */
  commit(txn: Txn): Promise<void> {
    return this.submit(txn, this.epoch);
  }

  /**
   * Queue the batch's write behind the writes already submitted. The in-memory state that the next
   * batch builds on follows at once; the rest when the write has returned. A failed write refuses
   * every batch built on it and rolls the in-memory state back to what was written.
   */
  submit(txn: Txn, epoch: number): Promise<void> {
    if (this.stopped !== undefined) return Promise.reject(this.stopped);
    if (epoch !== this.epoch) return Promise.reject(this.failure);
    const s = this.s;
    const ops = txn.ops;
    txn.queue.seal(ops);
    const changed: CounterChange[] = [];
    if (txn.queuedNew > 0) {
      txn.count(counterNames.admitted, txn.queuedNew);
      txn.count(counterNames.state('queued'), txn.queuedNew);
    }
    const seq = s.counters.get(counterNames.seq);
    if (txn.queue.seq !== seq) txn.counters.set(counterNames.seq, txn.queue.seq - seq);
    for (const [host, delta] of txn.queue.deltas) if (delta !== 0) txn.count(counterNames.frontier(host), delta);
    for (const [name, delta] of txn.counters) {
      if (delta === 0) continue;
      const value = s.counters.get(name) + delta;
      changed.push([name, value]);
      ops.push({ space: 'counter', key: name, value: value === 0 ? undefined : String(value) });
    }
    if (ops.length === 0) return this.writes;
    s.submitted(txn, changed);
    const sync = this.wantSync();
    this.unsyncedBatches = sync ? 0 : this.unsyncedBatches + 1;
    const done = this.writes
      .then(() => {
        if (epoch !== this.epoch) throw this.failure;
        return s.kv.write(ops, { sync });
      })
      .then(() => {
        this.noteWrite(sync);
        s.written(txn, changed);
      });
    this.writes = done.catch((error: unknown) => this.writeFailed(error, epoch));
    return done;
  }

  private writeFailed(error: unknown, epoch: number): void {
    if (epoch !== this.epoch) return; // already rolled back by an earlier batch's failure
    this.epoch++;
    this.failure = error;
    this.s.rollback();
    if (this.s.kv.failStop === true && this.stopped === undefined) {
      const code = (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.cause?.code ?? (error as { code?: unknown } | undefined)?.code;
      this.stopped = new StoreError('ERR_STORE_IO', this.s.location, {
        detail: `a write failed${typeof code === 'string' ? ` (${code})` : ''}: the store takes no more writes until it is reopened (what was acknowledged is kept)`,
        cause: error,
      });
    }
  }

  private noteWrite(synced: boolean): void {
    if (synced) {
      this.lastSync = Date.now();
      return;
    }
    const p = this.s.o.sync;
    if (typeof p === 'object' && this.syncTimer === undefined && this.s.kv.durable) {
      // LevelDB's hybrid scheme: a synced marker at most everyMs after an unsynced batch
      this.syncTimer = setTimeout(() => {
        this.syncTimer = undefined;
        if (this.unsyncedBatches > 0 && !this.closed && this.closing === undefined) {
          this.exclusive(() => this.writeSyncMarker()).catch(() => undefined);
        }
      }, p.everyMs);
      this.syncTimer.unref();
    }
  }

  private async writeSyncMarker(): Promise<void> {
    if (this.unsyncedBatches === 0 || this.stopped !== undefined) return;
    await this.s.kv.write([{ space: 'meta', key: 'synced', value: new Date().toISOString() }], { sync: true });
    this.unsyncedBatches = 0;
    this.noteWrite(true);
  }

  /**
   * Close: wait for every call and write, run `beforeClose` (the front snapshot), write a synced
   * marker unless the policy is `never`, then close the database. Later calls are refused.
   */
  close(beforeClose: () => Promise<void>): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    if (this.closed) return Promise.resolve();
    const pending = this.tail;
    const s = this.s;
    this.closing = (async () => {
      await pending;
      await this.writes;
      if (this.syncTimer !== undefined) clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
      try {
        // a stopped store writes nothing more, its snapshot and synced marker included
        if (this.stopped === undefined) await beforeClose();
        if (s.o.sync !== 'never' && s.kv.durable && !s.o.readOnly) await this.writeSyncMarker();
      } finally {
        this.closed = true;
        await s.kv.close();
      }
    })();
    return this.closing;
  }
}
