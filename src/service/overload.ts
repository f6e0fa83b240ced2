/**
 * Bounded in-flight work. Past a limit the service answers at once with
 * `503 Service Unavailable` and `Retry-After` (RFC 9110 §15.6.4, §10.2.3) instead of queueing
 * without bound: memory stays bounded, latency of the work it does take stays low, and a client
 * knows to back off. Three budgets, each taken before the work and given back after it:
 *
 * - requests being handled (reading a body, waiting on the store), `maxInFlight`;
 * - URLs being normalized or looked up, `maxPendingUrls` (a 10,000-URL batch weighs 10,000 single
 *   lookups);
 * - request body bytes buffered, `maxBufferedBytes` (so `maxInFlight` large bodies cannot exhaust
 *   memory).
 *
 * `/healthz` and `/metrics` take no budget: an overloaded service still says so.
 *
 * Store lookups of all batch requests also share one `LookupQueue`: node:http accepts one new
 * connection per event-loop iteration (libuv), and an iteration handles every lookup that has
 * completed since the last one, so unbounded lookups make iterations long and new connections
 * (health checks included) wait in the kernel's accept queue. A bounded number keeps iterations
 * short while still keeping LevelDB's threads busy.
 */
import { ServiceError } from './response.js';

/** A counting budget: `take(n)` succeeds while the total taken stays within `capacity`. */
export class Budget {
  private used = 0;
  /** Times `take` was refused. */
  refused = 0;
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError('Budget: capacity must be an integer >= 1');
  }

  get inUse(): number {
    return this.used;
  }

  take(n: number): boolean {
    if (this.used + n > this.capacity) {
      this.refused++;
      return false;
    }
    this.used += n;
    return true;
  }

  /** Count `n` in use that is already spent (a response built): never refused, it may pass the capacity. */
  hold(n: number): void {
    this.used += n;
  }

  give(n: number): void {
    this.used -= n;
    if (this.used < 0) throw new Error('Budget: gave back more than was taken');
  }
}

/** The 503 answer to work over a budget. */
export function overloaded(what: string, retryAfterSeconds: number): ServiceError {
  return new ServiceError(503, 'ERR_OVERLOADED', `too much work in flight (${what}); retry after ${retryAfterSeconds} s`, undefined, {
    'retry-after': String(retryAfterSeconds),
  });
}

/** At most `concurrency` calls running at once, over all callers; the rest wait in FIFO order. */
export class LookupQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError('LookupQueue: concurrency must be an integer >= 1');
  }

  /** `fn` over `items` through the queue; results in input order. */
  async map<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    await Promise.all(items.map(async (item, i) => (out[i] = await this.run(() => fn(item)))));
    return out;
  }

  async run<R>(fn: () => Promise<R>): Promise<R> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next(); // the slot passes on: `running` stays the same
      else this.running--;
    }
  }
}
