/**
 * The single pass: an http(s) URL climbs the syntax and scheme rungs (RFC 3986 §6.2.2, §6.2.3) in
 * one scan over its characters, writing the normal form and the key directly, with no records.
 * It covers what crawled links look like, already normal or a few ordinary aliases away:
 *
 *   - scheme and host case: `HTTP://WWW.Example.COM` → `http://www.example.com` (§6.2.2.1);
 *   - a host that is not a plain lowercase domain (IDNA, IPv4 forms, `%41`) goes through the same
 *     host parser as the ladder (UTS #46, §6.2.3), and only the host does;
 *   - port: empty or default removed, leading zeros dropped (§6.2.3, §3.2.3);
 *   - empty path → `/` (§6.2.3); `\` read as `/` in the path, as a browser reads it;
 *   - percent-encoding: hex digits uppercased, unreserved characters decoded (§6.2.2.1, §6.2.2.2),
 *     characters a component may not hold raw encoded as UTF-8 (§2.5), and a `%` that starts no
 *     escape kept as written, as the ladder's lenient mode does;
 *   - dot-segments removed (§6.2.2.3, §5.2.4), including `%2E` forms once decoded;
 *   - fragment dropped (the scheme rung's default, §3.5).
 *
 * It declines — answers "take the full ladder", which then also produces every error — for
 * userinfo, IP literals, control characters and surrounding whitespace (a browser strips them),
 * an escape right after a `%` that starts none, `\` in the authority's slashes, an over-long port,
 * a host the host parser rejects. A differential test checks, on the whole benchmark corpus and on
 * generated input, that whenever it answers, the answer is the ladder's.
 *
 * Default options only (scheme rung, no presets, fragment dropped, not strict); the callers check.
 * The scan writes its results into a record its caller owns (single-pass/result.ts), so the
 * common case allocates only the strings the caller asks for. What it keeps between calls are
 * caches that never change an answer: the authorities it met (single-pass/authority.ts).
 *
 * This module picks the authority (remembered or scanned) and hands the path and query to
 * single-pass/path-query.ts.
 */
import {
  authorities,
  authorityEnd,
  authorityRun,
  declined,
  endsAuthority,
  isDigit,
  memo,
  remember,
  RUN_PREFIX_MAX,
  scanAuthority,
} from './authority.js';
import { isStrictlyValid, scanRest, untouchedRest } from './path-query.js';
import { keyOf, normalOf, SinglePassResult } from './result.js';

export { rememberFailedAuthority, type AuthorityFailure } from './authority.js';
export { keyFingerprintOf, keyOf, normalOf, restOf, SinglePassResult } from './result.js';


/** What a memo entry's run is before its first hit: matches nothing. */
const NO_RUN = /(?!)/y;

/**
 * `u` starts with `prefix`, its ASCII letters in either case (what a memo entry's runs need of the
 * prefix, whichever case they match in).
 */
function startsWithAnyAsciiCase(u: string, prefix: string): boolean {
  const n = prefix.length;
  if (u.length < n) return false;
  for (let k = 0; k < n; k++) {
    const c = u.charCodeAt(k);
    const d = prefix.charCodeAt(k);
    if (c === d) continue;
    const l = c | 0x20;
    if (l !== (d | 0x20) || l < 0x61 || l > 0x7a) return false;
  }
  return true;
}

/**
 * Scan `u` into `r`. True when it is an http(s) URL this pass normalizes; its pieces are then in
 * `r`. False means only "take the full ladder" (with `r.failure` set when the ladder's error for
 * its authority is known).
 *
 * `exactFirst`: the caller wants the normal form, which is the input itself when nothing in it
 * needs rewriting; a remembered authority is then matched as written first, to tell. A key never
 * holds the input's prefix, so for one an ASCII prefix is matched in any case at once (one call,
 * as fast as the exact one), and the normal form, if asked for after all, is built rather than cut
 * from the input (the same string).
 */
function scan(u: string, exactFirst: boolean, r: SinglePassResult): boolean {
  r.failure = undefined;
  const n = u.length;
  if (n < 8) return false; // shorter than "http://a"
  // Surrounding whitespace is stripped by a browser: the ladder's work. Leading, it fails every
  // match below; trailing, in a path or query `scanRest` declines it, and a run that reaches the
  // end of the input ends with a character of its own. A fragment may end with it, unread: the
  // fragment is dropped, as the ladder drops it once stripped (strict mode, which rejects it,
  // reads it in `isStrictlyValid`). So the input is read from its start, where the memory it lies
  // in is read in order, rather than from its end first.
  for (let m = 0; m < memo.length; m++) {
    const a = memo[m]!;
    const i = a.end;
    // cheap checks first: the authority must end where this one does, after the same letter
    if (i > n) continue;
    const c = u.charCodeAt(i - 1);
    const last = a.lastChar;
    if ((c | 0x20) !== (last | 0x20) || (u.charCodeAt(i >> 1) | 0x20) !== a.midChar) continue;
    // where the path starts: at the end of the prefix, or (-1, found below) after the empty or
    // default port a bare prefix's runs take
    let p = i;
    if (i < n) {
      const d = u.charCodeAt(i);
      if (!endsAuthority(d)) {
        if (d !== 0x3a || !a.bare) continue;
        p = -1;
      }
    }
    let run: RegExp;
    if (i > RUN_PREFIX_MAX) {
      // too long for an expression of its own (no DNS name is): compare, then scan the rest
      if (p < 0 || !u.startsWith(a.prefix)) continue;
      r.auth = a;
      r.prefixSame = true;
      return scanRest(r, u, i);
    }
    // a run is built on the first hit, not before: over many hosts most memo entries are met once,
    // and compiling an expression for each candidate cost more than the scan (a third of the speed)
    if (c === last && (exactFirst || !a.asciiPrefix) && (run = a.run ?? (u.startsWith(a.prefix) ? (a.run = authorityRun(a, false)) : NO_RUN)).test(u)) {
      r.prefixSame = p >= 0; // a port, even empty or default, is not the normal form (§6.2.3)
    } else {
      // the same authority in another ASCII case (§3.1, §3.2.2: case-insensitive), if it is one
      // (or, for a key, in any case)
      run = a.anyCaseRun ?? (startsWithAnyAsciiCase(u, a.prefix) ? (a.anyCaseRun = authorityRun(a, true)) : NO_RUN);
      if (!run.test(u)) continue;
      r.prefixSame = false;
    }
    r.auth = a;
    if (m > 0) {
      // one step forward (transposition): the authorities a crawl meets most drift to the front
      memo[m] = memo[m - 1]!;
      memo[m - 1] = a;
    }
    const j = run.lastIndex;
    run.lastIndex = 0;
    // the run took ":" and, if a digit follows, the default port (the run's only port digits)
    if (p < 0) p = i + 1 < n && isDigit(u.charCodeAt(i + 1)) ? (a.https ? i + 4 : i + 3) : i + 1;
    // the run reached the end or a fragment (§3.5, dropped): nothing after the prefix to rewrite
    if (j > p && (j === n || u.charCodeAt(j) === 0x23)) return untouchedRest(r, p, j);
    return scanRest(r, u, p, j);
  }
  // not one of the last few: the table of authorities seen, by their exact text up to the path
  let end = authorityEnd(u);
  const asciiAuthority = end >= 0;
  if (end < -1) end = ~end;
  if (end > 0) {
    const text = u.slice(0, end);
    let a = authorities.get(text);
    r.prefixSame = true;
    if (a === undefined && asciiAuthority) {
      // another ASCII case of an authority: the one its lowercase spelling names
      const lower = text.toLowerCase();
      if (lower !== text) {
        r.prefixSame = false;
        a = authorities.get(lower);
        // not seen in any case: scan the lowercase spelling (into the memo and the table)
        if (a === undefined) {
          a = scanAuthority(lower);
          if (a !== undefined && a.end === end) {
            r.auth = a;
            return scanRest(r, u, end);
          }
          declined(lower);
          return false;
        }
      }
    }
    if (a !== undefined) {
      if (a.end < 0) {
        r.failure = a.failure;
        return false;
      }
      r.auth = a;
      remember(a);
      return scanRest(r, u, end);
    }
    a = scanAuthority(u);
    if (a !== undefined) {
      r.auth = a;
      return scanRest(r, u, a.end);
    }
    declined(text);
    return false;
  }
  r.prefixSame = true;
  const a = scanAuthority(u);
  if (a === undefined) return false;
  r.auth = a;
  return scanRest(r, u, a.end);
}



// ---- the answers --------------------------------------------------------------------------------

/**
 * Scan `url` at default options into `r`; true when the single pass handles it (its answers are
 * then read from `r`: single-pass/result.ts), false for the full ladder. `strict`: also decline
 * input that only a browser's leniency reads (strict mode rejects it). `forNormal`: the caller
 * wants the normal form (see `scan`'s `exactFirst`); either way every answer can be read.
 */
export function singlePassScan(url: string, r: SinglePassResult, strict = false, forNormal = false): boolean {
  return scan(url, forNormal, r) && !(strict && !isStrictlyValid(r, url));
}

/** The scratch record of the value-returning answers below: read only within the call that wrote it. */
const own = new SinglePassResult();

/** The normal form of `url` at default options, or `undefined` when the full ladder must decide. */
export function singlePassNormal(url: string, strict = false): string | undefined {
  return singlePassScan(url, own, strict, true) ? normalOf(own, url) : undefined;
}

/** The key (key.ts, format 1) of `url` at default options, or `undefined` for the full ladder. */
export function singlePassKey(url: string, strict = false): string | undefined {
  return singlePassScan(url, own, strict) ? keyOf(own, url) : undefined;
}

/** Normal form, key, scheme and host[:port] of a URL the single pass handles. */
export interface SinglePassIdentity {
  readonly normal: string;
  readonly key: string;
  readonly scheme: 'http' | 'https';
  /** host[:port], as the store groups its frontier. */
  readonly hostPort: string;
}

/** Normal form, key, scheme and host[:port] of `url` at default options, or `undefined`. */
export function singlePassIdentity(url: string, strict = false): SinglePassIdentity | undefined {
  if (!singlePassScan(url, own, strict, true)) return undefined;
  const auth = own.auth;
  return { normal: normalOf(own, url), key: keyOf(own, url), scheme: auth.https ? 'https' : 'http', hostPort: auth.hostPort };
}
