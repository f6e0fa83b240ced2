/**
 * The single pass's path and query (RFC 3986 §3.3, §3.4; the fragment, §3.5, is dropped): the
 * syntax rung's percent-encoding and dot-segment steps (§6.2.2.2, §6.2.2.3) and the scheme rung's
 * empty path (§6.2.3), in one scan after the authority (single-pass/authority.ts), written into
 * the caller's result record (single-pass/result.ts).
 */
import { hexValue, percentEncodeCodePoint } from '../percent-encoding.js';
import { removeDotSegments, removeDotSegmentsBetween } from '../remove-dot-segments.js';
import { afterRun, endsAuthority } from './authority.js';
import type { SinglePassResult } from './result.js';

// ---- character classes ----------------------------------------------------------------------

const C_BAIL = 0; // not handled here: control characters (a browser strips or rejects them)
const C_PLAIN = 1; // stands raw, nothing to check
const C_SLASH = 2;
const C_PERCENT = 3;
const C_QUESTION = 4;
const C_HASH = 5;
const C_ENCODE = 6; // printable, but the component may not hold it raw: "%XX" (§2.1)
const C_BACKSLASH = 7; // "/" in a special URL's path (URL Standard, path state)

/** Path characters (§3.3 pchar and "/"), with the ones the scan must look at singled out. */
const PATH_CLASS = new Uint8Array(128);
/** Query characters (§3.4: pchar, "/" and "?"). */
const QUERY_CLASS = new Uint8Array(128);
{
  for (let c = 0x20; c < 0x7f; c++) {
    PATH_CLASS[c] = C_ENCODE;
    QUERY_CLASS[c] = C_ENCODE;
  }
  const plain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";
  for (const ch of plain) {
    PATH_CLASS[ch.charCodeAt(0)] = C_PLAIN;
    QUERY_CLASS[ch.charCodeAt(0)] = C_PLAIN;
  }
  PATH_CLASS[0x2f] = C_SLASH;
  PATH_CLASS[0x5c] = C_BACKSLASH;
  PATH_CLASS[0x25] = C_PERCENT;
  PATH_CLASS[0x3f] = C_QUESTION;
  PATH_CLASS[0x23] = C_HASH;
  QUERY_CLASS[0x2f] = C_PLAIN;
  QUERY_CLASS[0x3f] = C_PLAIN;
  QUERY_CLASS[0x25] = C_PERCENT;
  QUERY_CLASS[0x23] = C_HASH;
}

/**
 * Runs of characters that stand raw and need no look (the classes' C_PLAIN, and "/" in the path
 * unless a "." follows, which may start a dot-segment): a sticky regular expression skips them in
 * compiled code, faster than a loop over char codes.
 */
const PATH_RUN = /[A-Za-z0-9\-._~!$&'()*+,;=:@]*(?:\/(?!\.)[A-Za-z0-9\-._~!$&'()*+,;=:@]*)*/y;
/** The same, through "/." too: for the rest of a path already known to need §5.2.4's walk. */
const DOTTED_PATH_RUN = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]*/y;
const QUERY_RUN = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*/y;

/** Hex digit values, 255 for a non-hex character. */
const HEX_VALUE = new Uint8Array(128).fill(255);
for (let c = 0; c < 128; c++) {
  const v = hexValue(c);
  if (v >= 0) HEX_VALUE[c] = v;
}

/** §2.3 unreserved, by octet: the escapes §6.2.2.2 decodes. */
const UNRESERVED_OCTET = new Uint8Array(256);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') UNRESERVED_OCTET[ch.charCodeAt(0)] = 1;

const OCTET_CHAR: string[] = [];
for (let b = 0; b < 256; b++) OCTET_CHAR.push(String.fromCharCode(b));
const UPPER_TRIPLET: string[] = [];
for (let b = 0; b < 256; b++) UPPER_TRIPLET.push('%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase());

/**
 * Into `r` (its `auth` and `prefixSame` set): a URL whose path and query, [i, end), stand as
 * written (`authorityRun` said so).
 */
export function untouchedRest(r: SinglePassResult, i: number, end: number): boolean {
  const auth = r.auth;
  r.restEnd = end;
  r.same = auth.same && r.prefixSame;
  r.lenient = auth.lenient;
  r.restStart = i;
  return true;
}

/**
 * Path, query and fragment (§3.3–3.5) from `i` (the end of the authority) into `r` (its `auth`
 * and `prefixSame` set).
 * `resume` > `i`: the authority's run (`authorityRun`) vouched for [i, resume) — plain segments,
 * none a dot-segment — so the scan goes on from there: in the path, or at the "?" of a query.
 */
export function scanRest(r: SinglePassResult, u: string, i: number, resume = i): boolean {
  const n = u.length;
  const auth = r.auth;
  let lenient = auth.lenient;
  let c = i < n ? u.charCodeAt(i) : -1;
  // the rest as it is to be written: `out`, then the input from `copied`; `out` is not empty once
  // anything was rewritten (locals, not module state: storing each new string there costs a write
  // barrier)
  let out = '';
  let copied = i;
  // path (§3.3): "/" segments; an empty path becomes "/" (§6.2.3)
  let end = n;
  const restStart = i;
  let inQuery = false;
  let queryFrom = 0;
  if (i < n && (c === 0x2f || c === 0x5c)) {
    const pathStart = i;
    // a dot-segment starts with "/." (where the path's run stops), "\." (read as "/.") or a "%2E"
    // (decoded); after one, the segments are walked
    let maybeDots = false;
    if (c === 0x5c) {
      out = spliced(out, u, copied, i, '/');
      copied = ++i;
      lenient = true;
      maybeDots = i < n && u.charCodeAt(i) === 0x2e;
    } // else the run starts at the "/", to see a "/." after it
    // the first "/." seen: the segments before it are plain, and move to the output as they are
    let firstDot = -1;
    // and the last: no "/." after it, so the walk needs no search past it
    let lastDot = -1;
    // the run stops at each "/." (where a dot-segment may start), until a "\\" or a "%2E" sends the
    // path to be walked whole: then it goes through them
    let run = PATH_RUN;
    if (resume > i && u.charCodeAt(resume) === 0x3f) {
      // the run went through the path, up to a query it does not vouch for
      i = resume;
      inQuery = true;
      queryFrom = resume + 1;
    } else {
      if (resume <= i) i = afterRun(run, u, i);
      else {
        // where the authority's run stopped: at the "." of a "/." (it took the "/"), or at a
        // character the path's run stops at too (so it is not called only to stop)
        i = resume;
        if (u.charCodeAt(i) === 0x2e) {
          maybeDots = true;
          firstDot = lastDot = i - 1;
          i = afterRun(run, u, i);
        }
      }
      for (; i < n; i = afterRun(run, u, i)) {
        const k = classOf(PATH_CLASS, u.charCodeAt(i));
        if (k === C_SLASH) {
          maybeDots = true; // "/."
          if (firstDot < 0) firstDot = i;
          lastDot = i;
          i++;
        } else if (k === C_BACKSLASH) {
          out = spliced(out, u, copied, i, '/');
          copied = ++i;
          lenient = true;
          if (i < n && u.charCodeAt(i) === 0x2e) {
            maybeDots = true;
            run = DOTTED_PATH_RUN;
          }
        } else if (k === C_PERCENT) {
          const b = octetAt(u, i);
          if (b < 0) {
            if (!strayPercentKept(u, i)) return false;
            lenient = true;
            i++;
            continue;
          }
          const text = escapeRewritten(u, i, b);
          if (text !== undefined) {
            out = spliced(out, u, copied, i, text);
            copied = i + 3;
          }
          if (b === 0x2e && inDotSegment(u, i)) {
            maybeDots = true;
            run = DOTTED_PATH_RUN;
          }
          i += 3;
        } else if (k === C_QUESTION) {
          inQuery = true;
          queryFrom = i + 1;
          break;
        } else if (k === C_HASH) {
          end = i;
          break;
        } else if (k === C_BAIL) {
          return false;
        } else if (k === C_ENCODE) {
          const width = encodedWidth(u, i, n);
          out = spliced(out, u, copied, i, percentEncodedAt(u, i, width));
          copied = i += width;
          lenient = true;
        } // C_PLAIN: the run goes on from here
      }
    }
    // `i`: the end of the path
    if (maybeDots) {
      // §6.2.2.3 on the path as the syntax rung leaves it (read in place when nothing in it was
      // rewritten yet); removing a dot-segment always shortens the path
      let removed: string;
      let before: number;
      if (out === '') {
        // the walk from the first "/." to the last the run stopped at, when it stopped at each
        const last = run === PATH_RUN && lastDot >= 0 ? lastDot : i;
        removed = removeDotSegmentsBetween(u, pathStart, i, firstDot < 0 ? pathStart : firstDot, last);
        before = i - pathStart;
      } else {
        const path = out + u.slice(copied, i);
        removed = removeDotSegments(path);
        before = path.length;
      }
      if (removed.length !== before) {
        out = removed;
        copied = i;
      }
    }
  } else {
    out = '/';
    if (i < n && c === 0x3f) {
      inQuery = true;
      queryFrom = i + 1;
    } else if (i < n) end = i; // "#"
  }

  // query (§3.4): "/" and "?" stand raw too; "+" is not a space
  if (inQuery) {
    i = queryFrom;
    for (;;) {
      i = afterRun(QUERY_RUN, u, i);
      if (i >= n) break;
      const k = classOf(QUERY_CLASS, u.charCodeAt(i));
      if (k === C_PERCENT) {
        const b = octetAt(u, i);
        if (b < 0) {
          if (!strayPercentKept(u, i)) return false;
          lenient = true;
          i++;
          continue;
        }
        const text = escapeRewritten(u, i, b);
        if (text !== undefined) {
          out = spliced(out, u, copied, i, text);
          copied = i + 3;
        }
        i += 3;
      } else if (k === C_HASH) {
        end = i;
        break;
      } else if (k === C_BAIL) {
        return false;
      } else {
        const width = encodedWidth(u, i, n);
        out = spliced(out, u, copied, i, percentEncodedAt(u, i, width));
        copied = i += width;
        lenient = true;
      }
    }
  }
  // the fragment (§3.5) is dropped; the lenient ladder never rejects one
  // trailing whitespace, which a browser strips, in the path or query (see `scan`)
  if (end === n && !(u.charCodeAt(n - 1) > 0x20)) return false;

  r.restEnd = end;
  r.same = auth.same && r.prefixSame && out === '';
  r.lenient = lenient;
  if (out !== '') {
    r.restStart = -1;
    r.rest = copied < end ? out + u.slice(copied, end) : out;
  } else r.restStart = restStart;
  return true;
}


/** The class of `c` in a component's table; every non-ASCII character is encoded. */
function classOf(table: Uint8Array, c: number): number {
  return c < 128 ? table[c]! : C_ENCODE;
}

/** The output so far, then the input from `copied` up to `i`, then `text` in place of what is at `i`. */
function spliced(out: string, u: string, copied: number, i: number, text: string): string {
  return out + u.slice(copied, i) + text;
}

/**
 * §6.2.2.1–2 on the escape of octet `b` at `i`: an unreserved character decoded, or the escape
 * with its hex digits uppercased; `undefined` when it stands as written.
 */
function escapeRewritten(u: string, i: number, b: number): string | undefined {
  if (UNRESERVED_OCTET[b] === 1) return OCTET_CHAR[b]!;
  if (u.charCodeAt(i + 1) > 0x46 || u.charCodeAt(i + 2) > 0x46) return UPPER_TRIPLET[b]!;
  return undefined;
}


/**
 * True when the "%2E" at `i` (a "." once decoded, §6.2.2.2) may be part of a dot-segment (§3.3:
 * a segment that is "." or ".."): only dots, raw or escaped, stand between it and the "/" (or "\\",
 * read as "/") that opens its segment, and the segment may end after it. Most are not: "%2Ehtml".
 * The path starts with "/" or "\\", so the walk back stops there at the latest.
 */
function inDotSegment(u: string, i: number): boolean {
  // the segment ends after it where an authority would end ("/", "\\", "?", "#", the end), or
  // goes on with another dot or escape
  const next = u.charCodeAt(i + 3); // NaN at the end
  if (!(next !== next || endsAuthority(next) || next === 0x2e || next === 0x25)) return false;
  for (let j = i; ; ) {
    const c = u.charCodeAt(j - 1);
    if (c === 0x2f || c === 0x5c) return true;
    if (c === 0x2e) j--;
    else if ((c | 0x20) === 0x65 && u.charCodeAt(j - 2) === 0x32 && u.charCodeAt(j - 3) === 0x25) j -= 3;
    else return false;
  }
}

/**
 * True when the "%" at `i`, which starts no escape (§2.1: "%zz", "100%", "a%2"), stands as written
 * here, as the ladder's lenient mode keeps it: a browser sends it so, and "%25" would name another
 * request line (§6.1; percent-encoding.ts). Strict mode rejects it (the caller marks the scan
 * lenient). The ladder then keeps a decoded hex digit encoded where it would follow such a "%" and
 * make a new triplet ("%%32%65" never becomes "%2e"); rather than track that, the pass declines
 * when an escape starts in the two characters after it, so every escape it decodes is further off.
 */
function strayPercentKept(u: string, i: number): boolean {
  return u.charCodeAt(i + 1) !== 0x25 && u.charCodeAt(i + 2) !== 0x25;
}

/** The octet of the escape "%XX" at `i`, or -1 when it is not one (§2.1). */
function octetAt(u: string, i: number): number {
  if (i + 3 > u.length) return -1;
  const h1 = u.charCodeAt(i + 1);
  const h2 = u.charCodeAt(i + 2);
  if (!(h1 < 128 && h2 < 128)) return -1;
  const v1 = HEX_VALUE[h1]!;
  const v2 = HEX_VALUE[h2]!;
  return v1 === 255 || v2 === 255 ? -1 : (v1 << 4) | v2;
}

/** The UTF-16 code units of the character at `i`: 2 for a surrogate pair, else 1. */
function encodedWidth(u: string, i: number, n: number): number {
  const c = u.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= n) return 1;
  const d = u.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
}

/**
 * The character at `i`, `width` code units, percent-encoded as UTF-8 (§2.1, §2.5; a lone surrogate
 * is U+FFFD, as UTF-8 encoding makes it).
 */
function percentEncodedAt(u: string, i: number, width: number): string {
  const c = u.charCodeAt(i);
  if (c < 0x80) return UPPER_TRIPLET[c]!;
  if (width === 2) return percentEncodeCodePoint(0x10000 + ((c - 0xd800) << 10) + (u.charCodeAt(i + 1) - 0xdc00));
  return percentEncodeCodePoint(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
}

/**
 * After a scan: the input is an RFC 3986 URI as written, with no leniency used and a fragment of
 * characters §3.5 allows raw (strict mode rejects anything else, even in a dropped fragment).
 */
export function isStrictlyValid(r: SinglePassResult, u: string): boolean {
  if (r.lenient) return false;
  const n = u.length;
  for (let i = r.restEnd + 1; i < n; i++) {
    const c = u.charCodeAt(i);
    const k = c < 128 ? QUERY_CLASS[c]! : C_ENCODE;
    if (k === C_PLAIN) continue;
    if (k !== C_PERCENT || octetAt(u, i) < 0) return false;
    i += 2;
  }
  return true;
}

