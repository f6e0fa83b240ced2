/**
 * WHATWG URL Standard §3 "Hosts": the host parser (§3.5), IPv4 and IPv6 parsers and serializers,
 * and UTS #46 "domain to ASCII" (through Node's `domainToASCII`). RFC 5952 §4 is the IPv6 text form.
 */
import { domainToASCII } from 'node:url';
import { UrlError } from './errors.js';
import { C0_CONTROL_SET, percentDecodeToString, utf8PercentEncode } from './whatwg/percent-encode-sets.js';

/** What a serialized host is, judged from its form (see {@link hostKind}). */
export type HostKind = 'domain' | 'ipv4' | 'ipv6' | 'opaque' | 'empty';

/** §3.1 forbidden host code point: NUL, TAB, LF, CR, space, #, /, :, <, >, ?, @, [, \, ], ^, |. */
const FORBIDDEN_HOST = new Uint8Array(128);
for (const c of '\0\t\n\r #/:<>?@[\\]^|') FORBIDDEN_HOST[c.charCodeAt(0)] = 1;

/** §3.1 forbidden domain code point: a forbidden host code point, a C0 control, %, or DEL. */
const FORBIDDEN_DOMAIN = new Uint8Array(FORBIDDEN_HOST);
for (let c = 0; c < 0x20; c++) FORBIDDEN_DOMAIN[c] = 1;
FORBIDDEN_DOMAIN[0x25] = 1;
FORBIDDEN_DOMAIN[0x7f] = 1;

/** Slow-path (UTS #46) results, keyed by the percent-decoded domain; '' records a failure. */
const idnaCache = new Map<string, string>();
/** Entries kept before the cache is cleared, so memory stays bounded on hostile input. */
const IDNA_CACHE_LIMIT = 10_000;

/** `host` failed; `source`: the whole input it came from (the URL), reported as the error's input. */
function invalidHost(host: string, detail: string, source?: string): UrlError {
  return source === undefined || source === host
    ? new UrlError('ERR_INVALID_HOST', host, { detail })
    : new UrlError('ERR_INVALID_HOST', source, { detail: `${detail}: ${JSON.stringify(host)}` });
}

// ---------------------------------------------------------------------------------------------
// §3.5 host parser
// ---------------------------------------------------------------------------------------------

/**
 * WHATWG URL Standard "host parser" for special schemes (http, https, ws, wss, ftp, file):
 * percent-decode, UTS #46 domain-to-ASCII, forbidden domain code points, IPv4 number forms
 * (ends-in-a-number + IPv4 parser: 0x/octal/short forms like 127.1, 2130706433), IPv6 literals
 * in [ ]. Returns the serialized host: lowercase ASCII domain, dotted-decimal IPv4, or
 * "[" + RFC 5952 compressed lowercase IPv6 + "]" (WHATWG serialization: no embedded dotted IPv4,
 * so [::ffff:127.0.0.1] -> [::ffff:7f00:1]). Throws UrlError('ERR_INVALID_HOST') on failure, with
 * `source` (the URL the host is from) as its input when given, else the host.
 */
export function parseSpecialHost(input: string, source?: string): string {
  // 1. If input starts with "[": an IPv6 literal.
  if (input.charCodeAt(0) === 0x5b) return parseIPv6Literal(input, source);
  // 3. Assert: input is not the empty string (the URL parser rejects an empty special host).
  if (input.length === 0) throw invalidHost(input, 'empty host', source);
  // 4. domain = UTF-8 decode without BOM of the percent-decoding of input.
  const domain = percentDecodeToString(input);
  // 5-7. asciiDomain = domain to ASCII(domain, false); failure or a forbidden domain code point fails.
  const asciiDomain = domainToAscii(domain);
  if (asciiDomain === null) throw invalidHost(input, 'domain to ASCII failed', source);
  // 8. If asciiDomain ends in a number, return the result of IPv4 parsing asciiDomain.
  if (endsInANumber(asciiDomain)) {
    const address = ipv4Parse(asciiDomain);
    if (address < 0) throw invalidHost(input, 'invalid IPv4 address', source);
    return serializeIPv4(address);
  }
  // 9. Return asciiDomain.
  return asciiDomain;
}

/**
 * WHATWG "opaque-host parser" for non-special schemes; IPv6 literals are parsed and re-serialized.
 * Throws UrlError('ERR_INVALID_HOST').
 */
export function parseOpaqueHost(input: string): string {
  // Host parser step 1: "[" … "]" is an IPv6 literal for every scheme.
  if (input.charCodeAt(0) === 0x5b) return parseIPv6Literal(input);
  // Opaque-host parser 1. A forbidden host code point is a failure.
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c < 0x80 && FORBIDDEN_HOST[c] === 1) throw invalidHost(input, 'forbidden host code point');
  }
  // 4. Return the UTF-8 percent-encoding of input using the C0 control percent-encode set.
  return utf8PercentEncode(input, C0_CONTROL_SET);
}

function parseIPv6Literal(input: string, source?: string): string {
  // Host parser 1.1: if input does not end with "]", failure.
  if (input.length < 2 || input.charCodeAt(input.length - 1) !== 0x5d) {
    throw invalidHost(input, 'unclosed IPv6 literal', source);
  }
  // 1.2: IPv6 parse the input with its brackets removed.
  const pieces = parseIPv6(input.slice(1, -1));
  if (pieces === null) throw invalidHost(input, 'invalid IPv6 address', source);
  return '[' + serializeIPv6(pieces) + ']';
}

// ---------------------------------------------------------------------------------------------
// §3.3 IDNA: domain to ASCII
// ---------------------------------------------------------------------------------------------

/**
 * §3.3 "domain to ASCII" with beStrict false, then §3.5 step 7 (no forbidden domain code point).
 * Returns null on failure.
 *
 * An ASCII domain never needs UTS #46: whatwg/url#914 (tests: web-platform-tests/wpt#60476) made
 * "domain to ASCII" return the ASCII-lowercased domain whenever domain is ASCII and ToASCII fails,
 * and when ToASCII succeeds on an ASCII domain its result is that same lowercased domain. So even
 * "xn--" labels that are not valid Punycode (xn--pokxncvks, xn--) pass through, as in browsers.
 */
function domainToAscii(domain: string): string | null {
  let hasUpper = false;
  const length = domain.length;
  for (let i = 0; i < length; i++) {
    const c = domain.charCodeAt(i);
    if (c >= 0x80) return domainToAsciiSlow(domain);
    if (FORBIDDEN_DOMAIN[c] === 1) return null;
    if (c >= 0x41 && c <= 0x5a) hasUpper = true;
  }
  // §3.3 step 3: an empty result is a failure.
  if (length === 0) return null;
  return hasUpper ? domain.toLowerCase() : domain;
}

/**
 * UTS #46 ToASCII (CheckHyphens=false, CheckBidi, CheckJoiners, UseSTD3ASCIIRules=false,
 * Transitional_Processing=false, VerifyDnsLength=false) via Node's `domainToASCII`, which returns ''
 * on failure. Node runs its whole host parser there (it stops at "/", decodes "%"), so forbidden
 * ASCII code points are rejected before the call, and the result is checked again after mapping.
 */
function domainToAsciiSlow(domain: string): string | null {
  let result = idnaCache.get(domain);
  if (result === undefined) {
    result = '';
    if (!hasForbiddenDomainCodePoint(domain)) {
      result = domainToASCII(domain);
      if (hasForbiddenDomainCodePoint(result)) result = '';
    }
    if (idnaCache.size >= IDNA_CACHE_LIMIT) idnaCache.clear();
    idnaCache.set(domain, result);
  }
  // §3.3 steps 2-3: failure, or an empty result, is a failure.
  return result === '' ? null : result;
}

function hasForbiddenDomainCodePoint(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80 && FORBIDDEN_DOMAIN[c] === 1) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// §3.5 IPv4: ends in a number, IPv4 parser, IPv4 number parser, IPv4 serializer
// ---------------------------------------------------------------------------------------------

/** Any value at or above 2^32 fails every IPv4 range check, so larger numbers saturate here. */
const IPV4_SATURATED = 0x1_0000_0000;

/** §3.5 "ends in a number checker". */
function endsInANumber(input: string): boolean {
  // 1-2. Split on "."; drop one trailing empty part (unless it is the only part).
  let end = input.length;
  if (end > 0 && input.charCodeAt(end - 1) === 0x2e) end--;
  // parts [""] or ["", ""]: no last part that could be a number.
  if (end === 0) return false;
  // 3. last = the last part.
  const start = input.lastIndexOf('.', end - 1) + 1;
  // 4. If last is non-empty and all ASCII digits, return true.
  if (start < end) {
    let allDigits = true;
    for (let i = start; i < end; i++) {
      const c = input.charCodeAt(i);
      if (c < 0x30 || c > 0x39) {
        allDigits = false;
        break;
      }
    }
    if (allDigits) return true;
  }
  // 5. If parsing last as an IPv4 number does not return failure, return true (e.g. "0x1f").
  return ipv4NumberParse(input, start, end) >= 0;
}

/** §3.5 "IPv4 number parser" on `input[start, end)`; -1 for failure. */
function ipv4NumberParse(input: string, start: number, end: number): number {
  // 1. If input is the empty string, return failure.
  if (start >= end) return -1;
  // 3-4. "0x"/"0X" prefix: radix 16; a leading "0": radix 8.
  let radix = 10;
  if (end - start >= 2 && input.charCodeAt(start) === 0x30) {
    if ((input.charCodeAt(start + 1) | 0x20) === 0x78) {
      radix = 16;
      start += 2;
    } else {
      radix = 8;
      start += 1;
    }
  }
  // 5. If input is now empty, return 0.
  if (start === end) return 0;
  // 6-7. Every code point must be a radix-R digit; output is the value in radix R.
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = digitValue(input.charCodeAt(i));
    if (digit < 0 || digit >= radix) return -1;
    value = value * radix + digit;
    if (value > IPV4_SATURATED) value = IPV4_SATURATED;
  }
  return value;
}

function digitValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Scratch space for the at most four IPv4 parts (the parser is synchronous). */
const ipv4Numbers = new Float64Array(4);

/** §3.5 "IPv4 parser"; -1 for failure. */
function ipv4Parse(input: string): number {
  // 1-2. Split on "."; if the last part is empty and there is more than one part, drop it.
  let end = input.length;
  if (end > 0 && input.charCodeAt(end - 1) === 0x2e) end--;
  // 3-5. At most 4 parts; each must parse as an IPv4 number.
  let count = 0;
  let partStart = 0;
  for (let i = 0; i <= end; i++) {
    if (i < end && input.charCodeAt(i) !== 0x2e) continue;
    if (count === 4) return -1;
    const n = ipv4NumberParse(input, partStart, i);
    if (n < 0) return -1;
    ipv4Numbers[count++] = n;
    partStart = i + 1;
  }
  // 7. Any but the last number above 255 is a failure.
  for (let k = 0; k < count - 1; k++) if (ipv4Numbers[k]! > 255) return -1;
  // 8. The last number must be below 256^(5 - count).
  const last = ipv4Numbers[count - 1]!;
  if (last >= 256 ** (5 - count)) return -1;
  // 9-10. ipv4 = last + Σ n × 256^(3 - counter).
  let ipv4 = last;
  for (let k = 0; k < count - 1; k++) ipv4 += ipv4Numbers[k]! * 256 ** (3 - k);
  return ipv4;
}

/**
 * WHATWG IPv4 parser; returns the 32-bit address, or null if the input is not an IPv4 host
 * (throws UrlError ERR_INVALID_HOST for a number form that is invalid, e.g. an out-of-range part).
 * "Not an IPv4 host" is the §3.5 ends-in-a-number test: only a host whose last label is a number
 * goes to the IPv4 parser.
 */
export function parseIPv4(input: string): number | null {
  if (!endsInANumber(input)) return null;
  const address = ipv4Parse(input);
  if (address < 0) throw invalidHost(input, 'invalid IPv4 address');
  return address;
}

/** §3.6 IPv4 serializer: dotted decimal. */
export function serializeIPv4(address: number): string {
  return (
    (address >>> 24) + '.' + ((address >>> 16) & 0xff) + '.' + ((address >>> 8) & 0xff) + '.' + (address & 0xff)
  );
}

// ---------------------------------------------------------------------------------------------
// §3.5 IPv6 parser, §3.6 IPv6 serializer (RFC 5952 §4)
// ---------------------------------------------------------------------------------------------

/** Parse the inside of an IPv6 literal (no brackets); returns 8 16-bit pieces or null. */
export function parseIPv6(input: string): number[] | null {
  // §3.5 "IPv6 parser". 1-4. address = 0×8, pieceIndex = 0, compress = null, pointer = 0.
  const address = [0, 0, 0, 0, 0, 0, 0, 0];
  const length = input.length;
  let pieceIndex = 0;
  let compress = -1;
  let pointer = 0;
  let c = length > 0 ? input.charCodeAt(0) : -1;
  // 5. A leading ":" must be "::".
  if (c === 0x3a) {
    if (input.charCodeAt(1) !== 0x3a) return null;
    pointer += 2;
    pieceIndex++;
    compress = pieceIndex;
  }
  // 6. While c is not the EOF code point:
  while (pointer < length) {
    c = input.charCodeAt(pointer);
    // 6.1
    if (pieceIndex === 8) return null;
    // 6.2 "::"
    if (c === 0x3a) {
      if (compress !== -1) return null;
      pointer++;
      pieceIndex++;
      compress = pieceIndex;
      continue;
    }
    // 6.3-6.4 up to four hex digits.
    let value = 0;
    let digits = 0;
    while (digits < 4 && pointer < length) {
      const digit = digitValue(input.charCodeAt(pointer));
      if (digit < 0) break;
      value = value * 0x10 + digit;
      pointer++;
      digits++;
    }
    c = pointer < length ? input.charCodeAt(pointer) : -1;
    // 6.5 An embedded IPv4 address.
    if (c === 0x2e) {
      if (digits === 0) return null;
      pointer -= digits;
      if (pieceIndex > 6) return null;
      let numbersSeen = 0;
      while (pointer < length) {
        c = input.charCodeAt(pointer);
        let ipv4Piece = -1;
        if (numbersSeen > 0) {
          if (c === 0x2e && numbersSeen < 4) {
            pointer++;
            c = pointer < length ? input.charCodeAt(pointer) : -1;
          } else {
            return null;
          }
        }
        if (c < 0x30 || c > 0x39) return null;
        while (c >= 0x30 && c <= 0x39) {
          const number = c - 0x30;
          if (ipv4Piece === -1) ipv4Piece = number;
          else if (ipv4Piece === 0) return null;
          else ipv4Piece = ipv4Piece * 10 + number;
          if (ipv4Piece > 255) return null;
          pointer++;
          c = pointer < length ? input.charCodeAt(pointer) : -1;
        }
        address[pieceIndex] = address[pieceIndex]! * 0x100 + ipv4Piece;
        numbersSeen++;
        if (numbersSeen === 2 || numbersSeen === 4) pieceIndex++;
      }
      if (numbersSeen !== 4) return null;
      break;
    }
    // 6.6 ":" then more.
    if (c === 0x3a) {
      pointer++;
      if (pointer >= length) return null;
    } else if (c !== -1) {
      // 6.7
      return null;
    }
    // 6.8
    address[pieceIndex] = value;
    pieceIndex++;
  }
  // 7. Move the pieces after "::" to the end.
  if (compress !== -1) {
    let swaps = pieceIndex - compress;
    pieceIndex = 7;
    while (pieceIndex !== 0 && swaps > 0) {
      const other = compress + swaps - 1;
      const piece = address[pieceIndex]!;
      address[pieceIndex] = address[other]!;
      address[other] = piece;
      pieceIndex--;
      swaps--;
    }
  } else if (pieceIndex !== 8) {
    // 8.
    return null;
  }
  return address;
}

/** RFC 5952 / WHATWG IPv6 serializer (no brackets). */
export function serializeIPv6(pieces: readonly number[]): string {
  // §3.6 2. compress = first of the longest runs of 0 pieces longer than 1 (RFC 5952 §4.2.2-4.2.3).
  let compress = -1;
  let longest = 1;
  for (let i = 0; i < 8; ) {
    if (pieces[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && pieces[j] === 0) j++;
    if (j - i > longest) {
      longest = j - i;
      compress = i;
    }
    i = j;
  }
  // 3-4. Lowercase hex without leading zeros (RFC 5952 §4.1, §4.3); "::" for the compressed run.
  let output = '';
  for (let i = 0; i < 8; i++) {
    if (i === compress) {
      output += i === 0 ? '::' : ':';
      i += longest - 1;
      continue;
    }
    output += pieces[i]!.toString(16);
    if (i !== 7) output += ':';
  }
  return output;
}

// ---------------------------------------------------------------------------------------------
// Classification of a serialized host
// ---------------------------------------------------------------------------------------------

/**
 * Classify a serialized host: 'ipv4' | 'ipv6' | 'domain' | 'opaque' | 'empty'.
 * Judged from the form alone: '' is empty, "[…]" ipv6, canonical dotted decimal ipv4, and anything
 * {@link parseSpecialHost} could have returned as a domain (ASCII, no uppercase, no forbidden domain
 * code point) is a domain. Anything else (uppercase, "%", non-ASCII) can only be an opaque host.
 * An opaque host that happens to look like a domain is reported as 'domain'; callers that know the
 * scheme is not special should treat its host as opaque.
 */
export function hostKind(serialized: string): HostKind {
  if (serialized.length === 0) return 'empty';
  if (serialized.charCodeAt(0) === 0x5b) return 'ipv6';
  if (isDottedDecimal(serialized)) return 'ipv4';
  for (let i = 0; i < serialized.length; i++) {
    const c = serialized.charCodeAt(i);
    if (c >= 0x80 || FORBIDDEN_DOMAIN[c] === 1 || (c >= 0x41 && c <= 0x5a)) return 'opaque';
  }
  return 'domain';
}

/** Four decimal parts 0-255 without leading zeros: what {@link serializeIPv4} writes. */
function isDottedDecimal(s: string): boolean {
  let parts = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || value > 255 || (digits > 1 && s.charCodeAt(i - digits) === 0x30)) return false;
      parts++;
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      value = value * 10 + (c - 0x30);
      digits++;
      if (digits > 3) return false;
    } else {
      return false;
    }
  }
  return parts === 4;
}
