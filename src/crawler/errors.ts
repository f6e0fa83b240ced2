/**
 * Error codes of the crawler. A failed fetch is data, not an exception: it ends as a `FetchError`
 * (a code, the URL, a message) in the fetch result, in the store (`recordFetch(url, { error })`)
 * and in the report's errors by code. Codes are stable across releases; messages may change.
 */
import type { UrlErrorCode } from '../normalize/index.js';

export type CrawlErrorCode =
  /** The normalizer refused the URL (`ERR_INVALID_HOST`, `ERR_RELATIVE_URL`, …). */
  | UrlErrorCode
  /** A scheme the crawler does not fetch: anything but http and https (guard.ts). */
  | 'ERR_UNSUPPORTED_SCHEME'
  /** A host or resolved address in a refused range (loopback, private, link-local, …), checked at connect time on every hop (guard.ts). */
  | 'ERR_BLOCKED_ADDRESS'
  /** A redirect chain longer than the configured cap. */
  | 'ERR_TOO_MANY_REDIRECTS'
  /** A response body over the wire or decoded byte cap. */
  | 'ERR_BODY_TOO_LARGE'
  /** A redirect's target is a URL already visited in the same chain. */
  | 'ERR_REDIRECT_LOOP'
  /** A 3xx `Location` that does not parse as a URL reference. */
  | 'ERR_INVALID_LOCATION'
  /** More stacked `Content-Encoding`s than `maxEncodings`. */
  | 'ERR_TOO_MANY_ENCODINGS'
  /** A compressed body that does not decode. */
  | 'ERR_DECODE'
  /** Connecting took longer than `connectTimeoutMs`. */
  | 'ERR_CONNECT_TIMEOUT'
  /** The response head took longer than `headersTimeoutMs`. */
  | 'ERR_HEADERS_TIMEOUT'
  /** No body data for `bodyTimeoutMs`. */
  | 'ERR_BODY_TIMEOUT'
  /** The whole fetch (every hop, head and body) took longer than `deadlineMs`. */
  | 'ERR_DEADLINE'
  /** The body arrived slower than `minBytesPerSecond` after the grace period. */
  | 'ERR_TOO_SLOW'
  /** The caller aborted (crawl stopped). */
  | 'ERR_ABORTED'
  /** Too large a response head. */
  | 'ERR_HEADERS_OVERFLOW'
  /** The connection failed or broke (reset, refused, protocol error); the system code is in the message. */
  | 'ERR_SOCKET'
  /** A 5xx answer (RFC 9110 §15.6): transient, retried (retry.ts). */
  | 'ERR_SERVER_ERROR'
  /** A 429 answer (RFC 6585 §4): transient, retried after its Retry-After (retry.ts). */
  | 'ERR_TOO_MANY_REQUESTS'
  /** The name does not resolve. */
  | 'ERR_DNS'
  /** robots.txt disallows the URL for our user agent (RFC 9309). */
  | 'ERR_ROBOTS_DISALLOWED'
  /** The URL is outside the crawl's scope (a store opened by someone else handed it out). */
  | 'ERR_OUT_OF_SCOPE';

/** A fetch or crawl step that failed, with a stable code. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    readonly code: CrawlErrorCode,
    readonly url: string,
    message?: string,
    options?: ErrorOptions,
  ) {
    super(`${code}: ${url}${message ? ` (${message})` : ''}`, options);
  }
}

export function isFetchError(value: unknown): value is FetchError {
  return value instanceof FetchError;
}
