/**
 * Politeness: how hard the crawler presses on the network and on each host.
 *
 * - a global concurrency limit (one p-queue) on requests in flight;
 * - per host (`host[:port]`), a concurrency limit (one p-queue per host with work) and a delay
 *   between the starts of successive requests: the larger of `delayMs` and the host's robots.txt
 *   Crawl-delay (capped at `maxCrawlDelayMs`).
 *
 * The delay is kept here rather than in p-queue's `interval`/`intervalCap`: a host's Crawl-delay is
 * known only once its robots.txt is fetched, and p-queue's interval is fixed when a queue is made.
 * A task waits for its host's next start time before it asks for a global slot, and the start time
 * is taken inside the global slot, so time spent waiting for a global slot never shortens the gap
 * between two requests to one host.
 */
import PQueue from 'p-queue';

export interface PolitenessOptions {
  /** Requests in flight, over all hosts. @default 8 */
  readonly concurrency?: number;
  /** Requests in flight per host. @default 2 */
  readonly perHost?: number;
  /** Least time between the starts of two requests to one host, in ms. @default 0 */
  readonly delayMs?: number;
  /** Largest robots.txt Crawl-delay honoured, in ms (longer ones are capped). @default 30_000 */
  readonly maxCrawlDelayMs?: number;
}

export const defaultPolitenessOptions = {
  concurrency: 8,
  perHost: 2,
  delayMs: 0,
  maxCrawlDelayMs: 30_000,
} as const satisfies Required<PolitenessOptions>;

interface HostState {
  queue: PQueue | undefined;
  /** Epoch ms before which no request to the host starts. */
  nextStart: number;
  delayMs: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class Politeness {
  readonly options: Required<PolitenessOptions>;
  private readonly global: PQueue;
  private readonly hosts = new Map<string, HostState>();

  constructor(options: PolitenessOptions = {}) {
    const o = { ...defaultPolitenessOptions, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as Required<PolitenessOptions>;
    if (!Number.isInteger(o.concurrency) || o.concurrency < 1) throw new TypeError('politeness: concurrency must be an integer >= 1');
    if (!Number.isInteger(o.perHost) || o.perHost < 1) throw new TypeError('politeness: perHost must be an integer >= 1');
    if (!(o.delayMs >= 0) || !(o.maxCrawlDelayMs >= 0)) throw new TypeError('politeness: delays must be >= 0');
    this.options = o;
    this.global = new PQueue({ concurrency: o.concurrency });
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (s === undefined) {
      s = { queue: undefined, nextStart: 0, delayMs: this.options.delayMs };
      this.hosts.set(host, s);
    }
    return s;
  }

  /** The host's robots.txt Crawl-delay, in seconds (capped; never below `delayMs`). */
  setCrawlDelay(host: string, seconds: number | undefined): void {
    const s = this.state(host);
    const ms = seconds === undefined ? 0 : Math.min(seconds * 1000, this.options.maxCrawlDelayMs);
    s.delayMs = Math.max(this.options.delayMs, ms);
  }

  /** No request to `host` starts before `time` (epoch ms): a 429 or 503 with Retry-After (RFC 9110 §10.2.3). */
  holdUntil(host: string, time: number): void {
    const s = this.state(host);
    s.nextStart = Math.max(s.nextStart, time);
  }

  /** When the next request to `host` may start (epoch ms; 0 for a host not seen). */
  nextStartOf(host: string): number {
    return this.hosts.get(host)?.nextStart ?? 0;
  }

  /** The delay in force for `host`, in ms. */
  delayOf(host: string): number {
    return this.hosts.get(host)?.delayMs ?? this.options.delayMs;
  }

  /**
   * Run `task` (one or more requests to `host`) within the global and per-host limits, after the
   * host's delay. `signal` ends a wait early (the task then runs at once, to see the abort).
   */
  run<T>(host: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const s = this.state(host);
    s.queue ??= new PQueue({ concurrency: this.options.perHost });
    const q = s.queue;
    const p = q.add(async () => {
      await sleep(s.nextStart - Date.now(), signal);
      return this.global.add(async () => {
        await this.pace(host, signal);
        return task();
      });
    }) as Promise<T>;
    // an idle host keeps only its timing, not its queue
    void p.finally(() => {
      if (s.queue === q && q.size === 0 && q.pending === 0) s.queue = undefined;
    }).catch(() => undefined);
    return p;
  }

  /**
   * Wait for the host's next start time and take it. `run` does this for its task's first
   * request; call it again before each further request the task sends (a redirect followed).
   */
  async pace(host: string, signal?: AbortSignal): Promise<void> {
    const s = this.state(host);
    for (;;) {
      const wait = s.nextStart - Date.now();
      if (wait <= 0 || signal?.aborted === true) break;
      await sleep(wait, signal);
    }
    s.nextStart = Date.now() + s.delayMs;
  }

  /** Tasks running (holding a global slot). */
  get active(): number {
    return this.global.pending;
  }

  /** Tasks waiting for a global slot. */
  get waiting(): number {
    return this.global.size;
  }
}
