/**
 * What the crawl loop reports as it goes, as typed events on a synchronous channel. The loop
 * emits; the report and the timeline (crawl-observers.ts) subscribe. Delivery is synchronous and
 * in subscription order, so a figure is up to date the moment the loop goes on, as when the loop
 * updated the report itself (progress and timeline samples read it between two awaits).
 */
import type { RuleRecord } from '../store/index.js';
import type { InvalidSeed } from './crawl-options.js';
import type { CrawlErrorCode } from './errors.js';
import type { LinkTally } from './link-intake.js';

/** The events of a crawl, by name, with their payloads. */
export interface CrawlEventMap {
  /** A robots.txt fetch ended (any outcome). */
  readonly robots: { readonly origin: string; readonly requests: number; readonly redirects: number; readonly status: number; readonly error?: string | undefined };
  /** Failed URLs queued again at the start (retry.ts, or a widened address policy). */
  readonly requeued: { readonly urls: number };
  /** The seeds went through the store's gate. */
  readonly seeded: { readonly admitted: number; readonly invalid: readonly InvalidSeed[] };
  /** A fetch of a frontier entry ended, whatever came of it: what it cost. */
  readonly transferred: { readonly host: string; readonly requests: number; readonly wireBytes: number; readonly decodedBytes: number };
  /** A redirect response was received (a hop offered to the redirect gate, or one that stopped the chain). */
  readonly redirected: { readonly from: string; readonly to: string; readonly status: number };
  /** An entry is fetched again after a transient failure (retry.ts). */
  readonly retried: { readonly url: string; readonly host: string };
  /** An entry was not fetched: scope, the network guard, robots.txt. */
  readonly refused: { readonly url: string; readonly host: string; readonly code: CrawlErrorCode };
  /**
   * A fetched entry failed. `status` is the final status to count (absent for a redirect loop,
   * recorded as a redirect); `pending`: a transient failure left for a later run.
   */
  readonly failed: { readonly url: string; readonly host: string; readonly code: CrawlErrorCode; readonly status?: number; readonly pending: boolean };
  /** A fetched entry answered (any status, no error): its evidence, not merged. */
  readonly fetched: {
    readonly url: string;
    readonly host: string;
    readonly status: number;
    /** Fetched on a retry of this run. */
    readonly retried: boolean;
    readonly contentHash?: string;
    /** The page's `rel=canonical`, when its links were read. */
    readonly canonical?: string;
    /** The response's Content-Location, resolved against `url`. */
    readonly contentLocation?: string;
  };
  /** A fetched page's links went through scope, traps, depth and the store's gate (link-intake.ts). */
  readonly links: { readonly host: string; readonly tally: LinkTally };
  /** A URL pattern without new content, refused from now on (traps.ts). */
  readonly trap: { readonly host: string; readonly pattern: string };
  /** Entries of a paused host left queued for a later run. */
  readonly deferred: { readonly reason: string; readonly urls: number };
  /** A stored rule, read at the end of the run. */
  readonly rule: { readonly rule: RuleRecord };
  /** A moment to sample the running totals (after each fetch, and at the end). */
  readonly sample: { readonly now: number };
}

export type CrawlEventName = keyof CrawlEventMap;
export type CrawlListener<K extends CrawlEventName> = (event: CrawlEventMap[K]) => void;
/** A subscriber: a listener for some of the events. */
export type CrawlObserver = { readonly [K in CrawlEventName]?: CrawlListener<K> };

/** A typed, synchronous event channel. A listener that throws stops the emit (and the caller's step). */
export class CrawlEvents {
  private readonly listeners: { [K in CrawlEventName]?: CrawlListener<K>[] } = {};

  /** Call `listener` on each `name` event; returns the unsubscribe function. */
  on<K extends CrawlEventName>(name: K, listener: CrawlListener<K>): () => void {
    const list: CrawlListener<K>[] = (this.listeners[name] ??= []);
    list.push(listener);
    return () => {
      const i = list.indexOf(listener);
      if (i !== -1) list.splice(i, 1);
    };
  }

  /** Subscribe each listener of `observer`; returns one function that unsubscribes them all. */
  subscribe(observer: CrawlObserver): () => void {
    const offs = (Object.keys(observer) as CrawlEventName[]).map(<K extends CrawlEventName>(name: K) => this.on(name, observer[name] as CrawlListener<K>));
    return () => {
      for (const off of offs) off();
    };
  }

  emit<K extends CrawlEventName>(name: K, event: CrawlEventMap[K]): void {
    const list = this.listeners[name];
    if (list === undefined) return;
    for (const listener of list) listener(event);
  }
}
