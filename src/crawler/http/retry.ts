/**
 * The retry policy for failed fetches (docs/reliability.md `fetch/transient-retry`).
 *
 * - transient: a 5xx or 429 answer (RFC 9110 §15.6, RFC 6585 §4), a timeout, a broken or refused
 *   connection, a name that did not resolve. Such a URL is fetched again in the same run, up to
 *   `maxRetries` times, after a wait: `Retry-After` when the answer had one (RFC 9110 §10.2.3,
 *   seconds or an HTTP-date, capped at `maxRetryAfterMs`), else exponential backoff with full
 *   jitter (a uniform draw in [0, min(cap, base · 2^attempt)]). A `Retry-After` also holds back the
 *   whole host for that long.
 * - when the retries of a run are used up the URL is recorded `failed` with its code and stays
 *   retryable: a later run queues it again once `retryCooldownMs` has passed since the last attempt
 *   (`retryFailed` forces it at once);
 * - every other failure (404, 410, robots.txt, a blocked address, too many redirects, …) is final.
 */
import type { CrawlErrorCode } from '../errors.js';

export interface RetryOptions {
  /** Fetches of a URL after its first one, in one run, for transient failures. @default 3 */
  readonly maxRetries?: number;
  /** Backoff before the first retry; doubled for each later one (full jitter). @default 1000 */
  readonly retryBaseMs?: number;
  /** Backoff ceiling. @default 30_000 */
  readonly retryMaxMs?: number;
  /** Longest `Retry-After` honoured within a run, ms; a longer one leaves the URL for a later run. @default 60_000 */
  readonly maxRetryAfterMs?: number;
  /** A URL whose retries of a run were used up is queued again by a run that starts this long after its last attempt. @default 3_600_000 */
  readonly retryCooldownMs?: number;
  /** Queue every transient failure again at the start of the run, whatever the cool-down. @default false */
  readonly retryFailed?: boolean;
}

export const defaultRetryOptions = {
  maxRetries: 3,
  retryBaseMs: 1000,
  retryMaxMs: 30_000,
  maxRetryAfterMs: 60_000,
  retryCooldownMs: 3_600_000,
  retryFailed: false,
} as const satisfies Required<RetryOptions>;

/** The codes of transient failures, as the store keeps them (`requeueFailed({ codes })`). */
export const TRANSIENT_CODES: readonly CrawlErrorCode[] = [
  'ERR_SERVER_ERROR',
  'ERR_TOO_MANY_REQUESTS',
  'ERR_CONNECT_TIMEOUT',
  'ERR_HEADERS_TIMEOUT',
  'ERR_BODY_TIMEOUT',
  'ERR_DEADLINE',
  'ERR_TOO_SLOW',
  'ERR_SOCKET',
  'ERR_DNS',
];
const TRANSIENT: ReadonlySet<string> = new Set(TRANSIENT_CODES);

/**
 * The transient failure code of a fetch's outcome, or undefined when it is a final answer: an error
 * code of the list, or a status 5xx (`ERR_SERVER_ERROR`) or 429 (`ERR_TOO_MANY_REQUESTS`).
 */
export function transientCode(status: number, error: string | undefined): CrawlErrorCode | undefined {
  if (error !== undefined) return TRANSIENT.has(error) ? (error as CrawlErrorCode) : undefined;
  if (status === 429) return 'ERR_TOO_MANY_REQUESTS';
  if (status >= 500 && status <= 599) return 'ERR_SERVER_ERROR';
  return undefined;
}

/** RFC 9110 §10.2.3: `Retry-After: <delay-seconds> | <HTTP-date>` as ms from `now` (undefined if absent or invalid). */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

/** Exponential backoff with full jitter before retry number `attempt` (1 for the first). */
export function backoffMs(attempt: number, base: number, cap: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(cap, base * 2 ** (attempt - 1)));
}
