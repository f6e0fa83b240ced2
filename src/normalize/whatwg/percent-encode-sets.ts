/**
 * WHATWG URL Standard §1.3 "Percent-encoded bytes": the percent-encode sets, UTF-8 percent-encode
 * and percent-decode. Every set holds the C0 controls and every code point above U+007E, so a set
 * is stored as a 128-entry table of the ASCII code points it adds; non-ASCII is always encoded.
 */

/** One flag per ASCII code point: 1 means "in the set, percent-encode it". */
export type PercentEncodeSet = Uint8Array;

/** `%00` … `%FF`, uppercase hex as the URL Standard's percent-encode writes it. */
const PERCENT_BYTE: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => '%' + byte.toString(16).toUpperCase().padStart(2, '0'),
);

function defineSet(base: PercentEncodeSet | null, added: string): PercentEncodeSet {
  const set = new Uint8Array(128);
  if (base === null) {
    // "The C0 control percent-encode set are the C0 controls and all code points greater than U+007E (~)."
    for (let c = 0; c < 0x20; c++) set[c] = 1;
    set[0x7f] = 1;
  } else {
    set.set(base);
  }
  for (let i = 0; i < added.length; i++) set[added.charCodeAt(i)] = 1;
  return set;
}

/** C0 control percent-encode set: C0 controls and code points above U+007E. */
export const C0_CONTROL_SET = defineSet(null, '');
/** Fragment percent-encode set: C0 control set and space, ", <, >, `. */
export const FRAGMENT_SET = defineSet(C0_CONTROL_SET, ' "<>`');
/** Query percent-encode set: C0 control set and space, ", #, <, >. */
export const QUERY_SET = defineSet(C0_CONTROL_SET, ' "#<>');
/** Special-query percent-encode set: query set and '. */
export const SPECIAL_QUERY_SET = defineSet(QUERY_SET, "'");
/** Path percent-encode set: query set and ?, ^, `, {, }. */
export const PATH_SET = defineSet(QUERY_SET, '?^`{}');
/** Userinfo percent-encode set: path set and /, :, ;, =, @, [ to ^, |. */
export const USERINFO_SET = defineSet(PATH_SET, '/:;=@[\\]^|');
/** Component percent-encode set: userinfo set and $ to &, +, ",". */
export const COMPONENT_SET = defineSet(USERINFO_SET, '$%&+,');

/** UTF-8 encode one code point and percent-encode every byte. */
function percentEncodeCodePoint(cp: number): string {
  if (cp < 0x80) return PERCENT_BYTE[cp]!;
  if (cp < 0x800) {
    return PERCENT_BYTE[0xc0 | (cp >> 6)]! + PERCENT_BYTE[0x80 | (cp & 0x3f)]!;
  }
  if (cp < 0x10000) {
    return (
      PERCENT_BYTE[0xe0 | (cp >> 12)]! +
      PERCENT_BYTE[0x80 | ((cp >> 6) & 0x3f)]! +
      PERCENT_BYTE[0x80 | (cp & 0x3f)]!
    );
  }
  return (
    PERCENT_BYTE[0xf0 | (cp >> 18)]! +
    PERCENT_BYTE[0x80 | ((cp >> 12) & 0x3f)]! +
    PERCENT_BYTE[0x80 | ((cp >> 6) & 0x3f)]! +
    PERCENT_BYTE[0x80 | (cp & 0x3f)]!
  );
}

/**
 * URL Standard "UTF-8 percent-encode" of every code point of `input[start, end)` in `set`.
 * Returns a slice of the input when nothing needs encoding. A lone surrogate becomes U+FFFD,
 * as the IDL USVString conversion would have made it.
 */
export function utf8PercentEncodeRange(
  input: string,
  start: number,
  end: number,
  set: PercentEncodeSet,
): string {
  let out = '';
  let copied = start;
  for (let i = start; i < end; i++) {
    const c = input.charCodeAt(i);
    if (c < 0x80) {
      if (set[c] === 0) continue;
      out += input.slice(copied, i) + PERCENT_BYTE[c]!;
      copied = i + 1;
      continue;
    }
    out += input.slice(copied, i);
    let cp = c;
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < end ? input.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        cp = 0xfffd;
      }
    }
    out += percentEncodeCodePoint(cp);
    copied = i + 1;
  }
  return copied === start ? input.slice(start, end) : out + input.slice(copied, end);
}

/** URL Standard "UTF-8 percent-encode" of a whole string. */
export function utf8PercentEncode(input: string, set: PercentEncodeSet): string {
  return utf8PercentEncodeRange(input, 0, input.length, set);
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * URL Standard "percent-decode" of the UTF-8 encoding of `input`, then "UTF-8 decode without BOM"
 * (invalid sequences become U+FFFD). A `%` not followed by two hex digits is kept as is.
 */
export function percentDecodeToString(input: string): string {
  if (input.indexOf('%') === -1) return input;
  const bytes = Buffer.from(input, 'utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x25 && i + 2 < bytes.length) {
      const high = hexValue(bytes[i + 1]!);
      const low = hexValue(bytes[i + 2]!);
      if (high >= 0 && low >= 0) {
        out[length++] = (high << 4) | low;
        i += 2;
        continue;
      }
    }
    out[length++] = byte;
  }
  return out.toString('utf8', 0, length);
}
