/**
 * RFC 3986 §2: characters, and §6.2.2.1–2 percent-encoding normalization.
 *
 * One pass per component over char codes, with a lookup table per component saying which ASCII
 * characters may stand raw. A component that needs no change is returned as the same string.
 */
import { UrlError, type UrlErrorCode } from './errors.js';

const UNRESERVED = 1; // ALPHA / DIGIT / "-" / "." / "_" / "~"   (§2.3)
const SUB_DELIM = 2; //  "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="   (§2.2)

const classes = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) classes[c] = UNRESERVED;
for (let c = 0x41; c <= 0x5a; c++) classes[c] = UNRESERVED;
for (let c = 0x61; c <= 0x7a; c++) classes[c] = UNRESERVED;
for (const ch of '-._~') classes[ch.charCodeAt(0)] = UNRESERVED;
for (const ch of "!$&'()*+,;=") classes[ch.charCodeAt(0)] = SUB_DELIM;

/** §2.3 unreserved. */
export function isUnreserved(c: number): boolean {
  return c < 128 && classes[c] === UNRESERVED;
}

/** §2.2 sub-delims. */
export function isSubDelim(c: number): boolean {
  return c < 128 && classes[c] === SUB_DELIM;
}

/** A table of the ASCII characters a component may hold raw (1) or must percent-encode (0). */
export type ComponentTable = Uint8Array;

function table(extra: string): ComponentTable {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) if (classes[c] !== 0) t[c] = 1;
  for (const ch of extra) t[ch.charCodeAt(0)] = 1;
  return t;
}

/** §3.2.1 userinfo = *( unreserved / pct-encoded / sub-delims / ":" ) */
export const USERINFO = table(':');
/** §3.2.2 reg-name = *( unreserved / pct-encoded / sub-delims ) */
export const REG_NAME = table('');
/** §3.3 path: segments of pchar = unreserved / pct-encoded / sub-delims / ":" / "@", joined by "/" */
export const PATH = table(':@/');
/** §3.4 query = *( pchar / "/" / "?" ) */
export const QUERY = table(':@/?');
/** §3.5 fragment = *( pchar / "/" / "?" ) */
export const FRAGMENT = QUERY;

export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

const HEX = '0123456789ABCDEF';
const encoded: string[] = [];
for (let b = 0; b < 256; b++) encoded.push('%' + HEX[b >> 4]! + HEX[b & 15]!);

/** `%XX`, uppercase (§6.2.2.1). */
export function percentByte(b: number): string {
  return encoded[b]!;
}

/** UTF-8 percent-encoding of one code point (§2.5). */
export function percentEncodeCodePoint(cp: number): string {
  if (cp < 0x80) return encoded[cp]!;
  if (cp < 0x800) return encoded[0xc0 | (cp >> 6)]! + encoded[0x80 | (cp & 63)]!;
  if (cp < 0x10000) {
    return encoded[0xe0 | (cp >> 12)]! + encoded[0x80 | ((cp >> 6) & 63)]! + encoded[0x80 | (cp & 63)]!;
  }
  return (
    encoded[0xf0 | (cp >> 18)]! +
    encoded[0x80 | ((cp >> 12) & 63)]! +
    encoded[0x80 | ((cp >> 6) & 63)]! +
    encoded[0x80 | (cp & 63)]!
  );
}

/**
 * Would a hex digit written at the current output position make a `%XX` with a `%` kept raw
 * before it? That is when the raw `%` is the last output character, or the one before a hex digit.
 * (`out` plus the pending run `s[copied..i)` is the output so far.)
 */
function wouldCompleteTriplet(s: string, out: string, i: number, copied: number, lonePercentAt: number): boolean {
  const distance = out.length + (i - copied) - lonePercentAt;
  if (distance === 1) return true;
  if (distance !== 2) return false;
  const previous = copied < i ? s.charCodeAt(i - 1) : out.charCodeAt(out.length - 1);
  return hexValue(previous) >= 0;
}

/**
 * §6.2.2.1 and §6.2.2.2 on one component:
 * - `%xx` → `%XX` (uppercase hex);
 * - `%XX` of an unreserved character → the character; reserved ones (`%2F`, `%3F`, …) stay encoded;
 * - a character the component may not hold raw → UTF-8 `%XX` (a lone surrogate becomes U+FFFD,
 *   as the WHATWG USVString conversion does);
 * - a `%` not followed by two hex digits stays as it is: a browser sends it so, and `%25` names a
 *   different request line, so encoding it could merge two resources (§6.1). Departure: a decoded
 *   hex digit is kept encoded where it would follow such a `%` and make a new triplet
 *   (`%%32%65` never becomes `%2e`), so a second pass changes nothing.
 *
 * `strict` throws `ERR_INVALID_PERCENT` or the component's `invalidCharacter` code instead;
 * `lowercase` lowercases raw ASCII letters (hosts, §6.2.2.1); `input` is the whole URL, for errors.
 * (Positional parameters: this runs once per component on the hot path, with no options object.)
 */
export function normalizePercentEncoding(
  s: string,
  allowed: ComponentTable,
  strict: boolean,
  lowercase: boolean,
  invalidCharacter: UrlErrorCode,
  input: string,
): string {
  const n = s.length;
  let i = 0;
  // Fast scan: the prefix that needs no change.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 || c >= 128 || allowed[c] === 0 || (lowercase && c >= 0x41 && c <= 0x5a)) break;
  }
  if (i === n) return s;

  // From here on, unchanged runs are copied as slices; `copied` is where the pending run starts.
  let out = '';
  let copied = 0;
  let lonePercentAt = -3; // output index of the last `%` kept raw
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < 128 && allowed[c] === 1 && !(lowercase && c >= 0x41 && c <= 0x5a)) {
      i++;
      continue;
    }
    let replacement: string;
    let width = 1;
    if (c === 0x25) {
      const h1 = i + 2 < n ? hexValue(s.charCodeAt(i + 1)) : -1;
      const h2 = h1 >= 0 ? hexValue(s.charCodeAt(i + 2)) : -1;
      if (h2 < 0) {
        if (strict) throw new UrlError('ERR_INVALID_PERCENT', input);
        out += s.slice(copied, i);
        lonePercentAt = out.length;
        out += '%';
        copied = i + 1;
        i++;
        continue;
      }
      width = 3;
      const b = (h1 << 4) | h2;
      if (b < 128 && classes[b] === UNRESERVED && !(hexValue(b) >= 0 && wouldCompleteTriplet(s, out, i, copied, lonePercentAt))) {
        replacement = lowercase && b >= 0x41 && b <= 0x5a ? String.fromCharCode(b + 32) : String.fromCharCode(b);
      } else {
        replacement = encoded[b]!;
        if (replacement.charCodeAt(1) === s.charCodeAt(i + 1) && replacement.charCodeAt(2) === s.charCodeAt(i + 2)) {
          i += 3; // already uppercase: part of the unchanged run
          continue;
        }
      }
    } else if (c < 128) {
      if (allowed[c] === 1) {
        replacement = String.fromCharCode(c + 32); // an uppercase letter in a host
      } else {
        if (strict) throw new UrlError(invalidCharacter, input);
        replacement = encoded[c]!;
      }
    } else {
      // Non-ASCII: UTF-8, code point by code point (§2.5).
      if (strict) throw new UrlError('ERR_INVALID_CHARACTER', input);
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) {
          cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          width = 2;
        } else {
          cp = 0xfffd;
        }
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        cp = 0xfffd;
      }
      replacement = percentEncodeCodePoint(cp);
    }
    out += s.slice(copied, i) + replacement;
    i += width;
    copied = i;
  }
  return copied === 0 ? s : out + s.slice(copied);
}
