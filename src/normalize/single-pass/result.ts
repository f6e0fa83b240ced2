/**
 * What one scan of the single pass found, as a record the caller owns (the scan writes into it and
 * keeps nothing of it), and the answers written from it: the normal form and the key (key.ts,
 * format 1), and the key's fingerprint (fingerprint.ts). The record holds positions in the input
 * rather than slices where the path and query stand as written, so a scan of a URL already normal
 * makes no string; the answer that needs one cuts it.
 */
import { fingerprintFrom } from '../fingerprint.js';
import { NO_AUTHORITY, type Authority, type AuthorityFailure } from './authority.js';

/** One scan's results; reused from scan to scan by its owner (the store's admit loop has one per batch). */
export class SinglePassResult {
  /** Scheme, host and port, as the scheme rung leaves them (a remembered authority, shared). */
  auth: Authority = NO_AUTHORITY;
  /** The input's prefix is `auth.prefix` as written (false: the same in another ASCII case). */
  prefixSame = true;
  /**
   * Where the normalized path and query stand in the input, [restStart, restEnd), or `restStart`
   * -1 when they were rewritten: then they are `rest`. `restEnd` is where the fragment (dropped)
   * or the input ends.
   */
  restStart = 0;
  restEnd = 0;
  rest = '';
  /** The normal form is the input up to `restEnd`, unchanged. */
  same = false;
  /** The scan read the input as a browser does beyond RFC 3986 (strict mode declines). */
  lenient = false;
  /**
   * After a scan that declined: the ladder's error for the URL's authority, when the scan found it
   * remembered (authority-failures.ts), so the caller rebuilds it without another lookup.
   */
  failure: AuthorityFailure | undefined = undefined;
}

/** Path and query of the URL `r` was scanned from, normalized; `url` is that input. */
export function restOf(r: SinglePassResult, url: string): string {
  return r.restStart >= 0 ? url.slice(r.restStart, r.restEnd) : r.rest;
}

/** The normal form of the URL `r` was scanned from (§6.2.2, §6.2.3). */
export function normalOf(r: SinglePassResult, url: string): string {
  if (r.same) return r.restEnd === url.length ? url : url.slice(0, r.restEnd);
  return r.auth.normalHead + restOf(r, url);
}

/** The key (key.ts, format 1) of that URL: `r.auth.keyHead` then `restOf(r, url)`. */
export function keyOf(r: SinglePassResult, url: string): string {
  return r.auth.keyHead + restOf(r, url);
}

/**
 * The fingerprint words of that URL's key into `out` (as `fingerprintInto(key, out)`), from the
 * lanes its authority left: only `rest` (its `restOf`) is read, and the key is not flattened.
 */
export function keyFingerprintOf(r: SinglePassResult, rest: string, out: Int32Array): void {
  fingerprintFrom(r.auth.keyLane1, r.auth.keyLane2, rest, out);
}
