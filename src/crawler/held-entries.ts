/**
 * Frontier entries the crawl holds back without a fetch slot: those of a paused host (its
 * robots.txt unreachable until a retry, or its page budget spent: traps.ts) and those waiting for
 * another fetch after a transient failure (retry.ts). A timer hands them back to the loop; a stop
 * cancels the timers, and the loop gives the entries back to the store's frontier.
 */
import type { Logger } from 'pino';
import type { FrontierEntry } from '../store/index.js';
import type { FetchResult } from './http/fetch.js';
import { backoffMs, defaultRetryOptions, parseRetryAfter, type RetryOptions } from './http/retry.js';

/** A host whose frontier entries wait: an unreachable robots.txt (until a retry) or a spent budget. */
export interface PausedHost {
  readonly reason: string;
  readonly entries: FrontierEntry[];
  timer?: NodeJS.Timeout;
}

/** What the held entries need of the crawl loop. */
export interface HoldingLoop {
  readonly log: Logger;
  /** Hold back `host` until `t` (a Retry-After: politeness.ts). */
  holdUntil(host: string, t: number): void;
  /** The crawl takes no new work. */
  stopping(): boolean;
  /** Take `entry` up again (its retry is due, or its host resumed). */
  dispatch(entry: FrontierEntry): void;
  /** Take entries from the frontier again (a host resumed). */
  pump(): void;
  /** The crawl may have nothing left to do. */
  checkIdle(): void;
}

export class HeldEntries {
  readonly retry: Required<RetryOptions>;
  private readonly paused = new Map<string, PausedHost>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Entries waiting for their retry, by timer. */
  private readonly retryWaiting = new Map<NodeJS.Timeout, FrontierEntry>();
  /** Fetches of a key retried in this run. */
  private readonly attempts = new Map<string, number>();

  constructor(
    options: RetryOptions,
    private readonly loop: HoldingLoop,
  ) {
    this.retry = { ...defaultRetryOptions, ...Object.fromEntries(Object.entries(options).filter(([k, v]) => k in defaultRetryOptions && v !== undefined)) };
    if (!Number.isInteger(this.retry.maxRetries) || this.retry.maxRetries < 0) throw new TypeError('crawl: maxRetries must be an integer >= 0');
    if (!(this.retry.retryCooldownMs >= 0)) throw new TypeError('crawl: retryCooldownMs must be >= 0');
  }

  /** A timer will hand entries back: the crawl is not idle yet. */
  get timing(): boolean {
    return this.timers.size > 0;
  }

  isPaused(host: string): boolean {
    return this.paused.has(host);
  }

  /** `entry`'s key was fetched again after a transient failure in this run. */
  retried(key: string): boolean {
    return this.attempts.has(key);
  }

  /** The paused hosts with their entries (for the report and the give-back at the end). */
  pausedHosts(): PausedHost[] {
    return [...this.paused.values()];
  }

  /** Park `entry` with its host's entries if the host is paused; false when it is not. */
  joinPaused(entry: FrontierEntry): boolean {
    const p = this.paused.get(entry.host);
    if (p === undefined) return false;
    p.entries.push(entry);
    return true;
  }

  /** Park `entry` with its host's paused entries; `retryAt` brings them all back then. */
  pause(entry: FrontierEntry, reason: string, retryAt?: number): void {
    let p = this.paused.get(entry.host);
    if (p === undefined) {
      p = { reason, entries: [] };
      this.paused.set(entry.host, p);
      if (retryAt !== undefined && !this.loop.stopping()) {
        const timer = setTimeout(() => this.resume(entry.host), Math.max(0, retryAt - Date.now()));
        p.timer = timer;
        this.timers.add(timer);
      }
      this.loop.log.info({ host: entry.host, reason, retryAt }, 'host paused');
    }
    p.entries.push(entry);
  }

  private resume(host: string): void {
    const p = this.paused.get(host);
    if (p === undefined) return;
    if (p.timer !== undefined) this.timers.delete(p.timer);
    this.paused.delete(host);
    if (this.loop.stopping()) {
      this.paused.set(host, { reason: p.reason, entries: p.entries });
      return this.loop.checkIdle();
    }
    for (const e of p.entries) this.loop.dispatch(e);
    this.loop.pump();
  }

  /**
   * A transient failure (retry.ts): schedule another fetch of `entry` after Retry-After or a
   * backoff, unless its retries are used up or the Retry-After is too long for this run. The entry
   * stays in flight in the store and waits on a timer, holding no slot; a Retry-After, or a 429 or
   * 503 without one (the backoff then), also holds back its host. Returns false when the failure
   * is to be recorded.
   */
  retryLater(entry: FrontierEntry, res: FetchResult): boolean {
    const n = this.attempts.get(entry.key) ?? 0;
    if (n >= this.retry.maxRetries || this.loop.stopping()) return false;
    const now = Date.now();
    const after = res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers['retry-after'], now) : undefined;
    if (after !== undefined && after > this.retry.maxRetryAfterMs) return false;
    const wait = after ?? backoffMs(n + 1, this.retry.retryBaseMs, this.retry.retryMaxMs);
    // a 429 or 503 says the host is overloaded (RFC 6585 §4, RFC 9110 §15.6.4; nginx limit_req
    // answers 503 without Retry-After): the whole host waits, not this URL alone, or the other
    // URLs sent meanwhile are refused in turn and use up their retries
    if (after !== undefined || res.status === 429 || res.status === 503) this.loop.holdUntil(entry.host, now + wait);
    this.attempts.set(entry.key, n + 1);
    this.loop.log.info({ url: entry.url, status: res.status, error: res.error?.code, attempt: n + 1, waitMs: wait }, 'retry later');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.retryWaiting.delete(timer);
      this.loop.dispatch(entry);
    }, wait);
    this.timers.add(timer);
    this.retryWaiting.set(timer, entry);
    return true;
  }

  /** The crawl stops: no timer fires any more; returns the entries that waited for a retry. */
  stop(): FrontierEntry[] {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const waiting = [...this.retryWaiting.values()];
    this.retryWaiting.clear();
    return waiting;
  }
}
