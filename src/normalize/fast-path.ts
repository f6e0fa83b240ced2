/**
 * The fast path: most URLs a crawler sees are already in normal form. One scan over the string
 * tells, with no allocation, whether `normalize` would return it unchanged (at the scheme rung,
 * default options); only the others climb the ladder. A test checks the two agree on every
 * corpus URL.
 */
import { hexValue, isUnreserved, PATH, QUERY } from './percent-encoding.js';

/** Lowercase ASCII letters, digits, "-" and "." — a host that needs no IDNA or case work. */
const PLAIN_HOST = new Uint8Array(128);
for (let c = 0x61; c <= 0x7a; c++) PLAIN_HOST[c] = 1;
for (let c = 0x30; c <= 0x39; c++) PLAIN_HOST[c] = 1;
PLAIN_HOST[0x2d] = 1;
PLAIN_HOST[0x2e] = 1;

/** Length of the scheme with "://" (7 or 8) when `s` starts with "http://" or "https://", else 0. */
function httpPrefix(s: string): number {
  if (s.charCodeAt(0) !== 0x68 || s.charCodeAt(1) !== 0x74 || s.charCodeAt(2) !== 0x74 || s.charCodeAt(3) !== 0x70) return 0;
  let i = 4;
  if (s.charCodeAt(i) === 0x73) i++;
  return s.charCodeAt(i) === 0x3a && s.charCodeAt(i + 1) === 0x2f && s.charCodeAt(i + 2) === 0x2f ? i + 3 : 0;
}

/** A plain domain: non-empty labels, none starting "xn--", the last not starting with a digit (no IPv4 form). */
function isPlainHost(s: string, start: number, end: number): boolean {
  if (end === start) return false;
  let labelStart = start;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (PLAIN_HOST[c] !== 1) return false;
    if (c === 0x2e) {
      if (i === labelStart) return false;
      labelStart = i + 1;
    } else if (i === labelStart && c === 0x78 && s.charCodeAt(i + 1) === 0x6e && s.charCodeAt(i + 2) === 0x2d && s.charCodeAt(i + 3) === 0x2d) {
      return false;
    }
  }
  if (labelStart === end) return false; // trailing "."
  const last = s.charCodeAt(labelStart);
  return !(last >= 0x30 && last <= 0x39);
}

/** A port that stays: digits, no leading zero, not the scheme's default, at most 65535. */
function isKeptPort(s: string, start: number, end: number, https: boolean): boolean {
  const len = end - start;
  if (len === 0 || len > 5 || s.charCodeAt(start) === 0x30) return false;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
    value = value * 10 + (c - 0x30);
  }
  return value <= 65535 && value !== (https ? 443 : 80);
}

/** Characters that stand raw in a normal path or query with nothing to check: unreserved but ".", sub-delims, ":" and "@". */
const PLAIN = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (PATH[c] === 1 && c !== 0x2f && c !== 0x2e) PLAIN[c] = 1;

/** True when the path segment ending before `end` (exclusive) is "." or "..". */
function endsWithDotSegment(s: string, segmentStart: number, end: number): boolean {
  const len = end - segmentStart;
  if (len === 1) return s.charCodeAt(segmentStart) === 0x2e;
  return len === 2 && s.charCodeAt(segmentStart) === 0x2e && s.charCodeAt(segmentStart + 1) === 0x2e;
}

/**
 * True when `url` is an http(s) URL already in normal form: lowercase scheme and plain host, no
 * userinfo, a kept port or none, a path starting with "/" and free of dot-segments, only
 * characters the component may hold raw, `%XX` uppercase and never of an unreserved character,
 * and no fragment.
 */
export function isNormalHttpUrl(url: string): boolean {
  const start = httpPrefix(url);
  if (start === 0) return false;
  const n = url.length;
  let i = start;
  let colon = -1;
  for (; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f) break;
    if (c === 0x3a && colon === -1) colon = i;
  }
  if (i === n) return false; // the path must be "/" at least
  if (colon === -1 ? !isPlainHost(url, start, i) : !(isPlainHost(url, start, colon) && isKeptPort(url, colon + 1, i, start === 8))) {
    return false;
  }
  // The path: plain characters skip; "/" and the end check the segment just closed.
  let segmentStart = i + 1;
  for (i = i + 1; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c < 128 && PLAIN[c] === 1) continue;
    if (c === 0x2e) continue; // judged when its segment closes
    if (c === 0x2f) {
      if (endsWithDotSegment(url, segmentStart, i)) return false;
      segmentStart = i + 1;
    } else if (c === 0x25) {
      if (!isKeptTriplet(url, i)) return false;
      i += 2;
    } else if (c === 0x3f) {
      break;
    } else {
      return false; // includes "#": the fragment is dropped
    }
  }
  if (endsWithDotSegment(url, segmentStart, i)) return false;
  // The query: "/" and "?" stand raw as well.
  for (i = i + 1; i < n; i++) {
    const c = url.charCodeAt(i);
    if (c < 128 && QUERY[c] === 1) continue;
    if (c === 0x25) {
      if (!isKeptTriplet(url, i)) return false;
      i += 2;
    } else {
      return false;
    }
  }
  return true;
}

/** `%XX` at `i` with uppercase hex, of a character that is not unreserved. */
function isKeptTriplet(s: string, i: number): boolean {
  const h1 = s.charCodeAt(i + 1);
  const h2 = s.charCodeAt(i + 2);
  return isUpperHex(h1) && isUpperHex(h2) && !isUnreserved((hexValue(h1) << 4) | hexValue(h2));
}

function isUpperHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46);
}
