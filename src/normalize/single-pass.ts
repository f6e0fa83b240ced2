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
 * The scan leaves its results in module variables (it is synchronous and not reentrant), so the
 * common case allocates only the strings it returns.
 */
import { UrlError, type UrlErrorCode } from './errors.js';
import { fingerprintFrom, fingerprintLanes } from './fingerprint.js';
import { parseSpecialHost } from './host.js';
import { hexValue, normalizePercentEncoding, percentEncodeCodePoint, REG_NAME } from './percent-encoding.js';
import { removeDotSegments, removeDotSegmentsBetween } from './remove-dot-segments.js';
import { sortHost } from './sort-host.js';

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

const H_OTHER = 0; // for the host parser
const H_LOWER = 1; // a-z 0-9 "-"
const H_UPPER = 2; // A-Z
const H_DOT = 3;
const H_END = 4; // "/" "\\" "?" "#" — the authority ends
const H_COLON = 5;
const H_BAIL = 6; // "@" (userinfo), "[" (IP literal), controls and space

/** Characters of a plain domain (§3.2.2 reg-name restricted to LDH labels) and what ends it. */
const HOST_CLASS = new Uint8Array(128);
{
  for (let c = 0; c <= 0x20; c++) HOST_CLASS[c] = H_BAIL;
  HOST_CLASS[0x7f] = H_BAIL;
  HOST_CLASS[0x40] = H_BAIL;
  HOST_CLASS[0x5b] = H_BAIL;
  for (let c = 0x61; c <= 0x7a; c++) HOST_CLASS[c] = H_LOWER;
  for (let c = 0x30; c <= 0x39; c++) HOST_CLASS[c] = H_LOWER;
  HOST_CLASS[0x2d] = H_LOWER;
  for (let c = 0x41; c <= 0x5a; c++) HOST_CLASS[c] = H_UPPER;
  HOST_CLASS[0x2e] = H_DOT;
  HOST_CLASS[0x2f] = H_END;
  HOST_CLASS[0x5c] = H_END;
  HOST_CLASS[0x3f] = H_END;
  HOST_CLASS[0x23] = H_END;
  HOST_CLASS[0x3a] = H_COLON;
}

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

// ---- the scan ---------------------------------------------------------------------------------

/** Dots of a plain host, for reversing its labels in the key without another scan. */
const MAX_LABELS = 32;
const dots = new Int32Array(MAX_LABELS);
/** Dots in `dots`, or -1 when the host came from the host parser (the key uses sortHost). */
let dotCount = 0;

/** Scheme and authority of a URL, as the ladder leaves them. */
interface Authority {
  /** The input up to the path, exactly as written: "HTTP://Example.COM:80". */
  readonly prefix: string;
  /** Its length and last character, as numbers: the memo's first checks read no string. */
  readonly end: number;
  readonly lastChar: number;
  /**
   * The character halfway through the prefix, ORed with 0x20 (ASCII case folded; a character that
   * matches in any case matches this): hosts of one length ending alike (`www.example.com`,
   * `www.foobars.com`) mostly differ there, so a miss reads one more character, not an expression.
   */
  readonly midChar: number;
  readonly https: boolean;
  /** The host, as the scheme rung leaves it. */
  readonly host: string;
  /** "" or ":" port, canonical. */
  readonly port: string;
  /** The prefix is already in normal form. */
  readonly same: boolean;
  /**
   * The prefix ends with the host (no ":" port): its runs also take an empty or default port after
   * it (`https://h:443/`, `https://h:/`), the same authority once normalized (§6.2.3, §3.2.3).
   */
  readonly bare: boolean;
  /** The prefix needed a browser's leniency (strict mode declines). */
  readonly lenient: boolean;
  /** The prefix is ASCII: its `anyCaseRun` uses the `i` flag (see `authorityRun`). */
  readonly asciiPrefix: boolean;
  /** Scheme, host and port as the normal form starts: "http://example.com". */
  readonly normalHead: string;
  /** The same as the key starts: "com,example)http://". */
  readonly keyHead: string;
  /** host[:port], as the store groups its frontier. */
  readonly hostPort: string;
  /** The fingerprint lanes after `keyHead` (fingerprint.ts), so a key's fingerprint reads only the rest. */
  readonly keyLane1: number;
  readonly keyLane2: number;
  /**
   * The prefix, then the longest rest that needs no rewriting, as one sticky expression
   * (`authorityRun`), and the same for the prefix in any ASCII case: built on first use from the memo.
   */
  run: RegExp | undefined;
  anyCaseRun: RegExp | undefined;
  /** For an authority the ladder rejects (`end` -1), its error, once the ladder has said which. */
  readonly failure: AuthorityFailure | undefined;
}

/** The ladder's error for an http(s) authority it rejects (authority-failures.ts). */
export interface AuthorityFailure {
  readonly code: UrlErrorCode;
  readonly detail: string | undefined;
}

/**
 * The authorities of the last URLs scanned: a crawler's links come in runs from one page, so most
 * URLs share the scheme, host and port of one of the last few and skip their scan. A new one goes
 * last and a hit moves one step forward, so the few a crawl meets most stay in front. Only the
 * exact prefix (or the same in another ASCII case, marked as such) followed by the end of the
 * authority is a hit, so the memo never changes an answer.
 */
const MEMO_SIZE = 8;
/** Scratch for `fingerprintLanes`. */
const lanes = new Int32Array(2);
const memo: Authority[] = [];
/** The authority of the last successful scan. */
let auth: Authority = { prefix: '', end: 0, lastChar: 0, midChar: 0, https: false, host: '', port: '', same: false, bare: false, lenient: false, asciiPrefix: true, normalHead: '', keyHead: '', hostPort: '', keyLane1: 0, keyLane2: 0, run: undefined, anyCaseRun: undefined, failure: undefined };

// Results of the last successful `scan`.
/** Path and query, normalized (from the first "/" up to the fragment). */
let rRest = '';
/**
 * Where the rest stands in the input as written, [rStart, rEnd), or -1 when it was rewritten (then
 * it is `rRest`). Kept as numbers: the common case stores no new string in module state, which
 * would cost a write barrier per URL; the slice is made by the answer that needs it.
 */
let rStart = 0;
/** True when the normal form is the input up to `rEnd` unchanged. */
let rSame = false;
let rEnd = 0;
/** True when the scan read the input as a browser does beyond RFC 3986 (strict mode declines). */
let rLenient = false;
/** The input's prefix is `auth.prefix` as written (false: the same in another ASCII case). */
let prefixSame = true;

/**
 * Scan `u`. True when it is an http(s) URL this pass normalizes; its pieces are then in `auth`
 * and the `r*` variables. False means only "take the full ladder".
 *
 * `exactFirst`: the caller wants the normal form, which is the input itself when nothing in it
 * needs rewriting; a remembered authority is then matched as written first, to tell. A key never
 * holds the input's prefix, so for one an ASCII prefix is matched in any case at once (one call,
 * as fast as the exact one), and the normal form, if asked for after all, is built rather than cut
 * from the input (the same string).
 */
function scan(u: string, exactFirst: boolean): boolean {
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
      auth = a;
      prefixSame = true;
      return scanRest(u, i);
    }
    if (c === last && (exactFirst || !a.asciiPrefix) && (run = a.run ?? (a.run = authorityRun(a, false))).test(u)) {
      prefixSame = p >= 0; // a port, even empty or default, is not the normal form (§6.2.3)
    } else {
      // the same authority in another ASCII case (§3.1, §3.2.2: case-insensitive), if it is one
      // (or, for a key, in any case)
      run = a.anyCaseRun ?? (a.anyCaseRun = authorityRun(a, true));
      if (!run.test(u)) continue;
      prefixSame = false;
    }
    auth = a;
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
    if (j > p && (j === n || u.charCodeAt(j) === 0x23)) return untouchedRest(p, j);
    return scanRest(u, p, j);
  }
  // not one of the last few: the table of authorities seen, by their exact text up to the path
  const end = authorityEnd(u);
  if (end > 0) {
    const text = u.slice(0, end);
    let a = authorities.get(text);
    prefixSame = true;
    if (a === undefined && asciiAuthority) {
      // another ASCII case of an authority: the one its lowercase spelling names
      const lower = text.toLowerCase();
      if (lower !== text) {
        prefixSame = false;
        a = authorities.get(lower);
        // not seen in any case: scan the lowercase spelling (into the memo and the table)
        if (a === undefined) {
          if (scanAuthority(lower) === end) return scanRest(u, end);
          declined(lower);
          return false;
        }
      }
    }
    if (a !== undefined) {
      if (a.end < 0) {
        if (a.failure !== undefined) {
          failedInput = u;
          failedWith = a.failure;
        }
        return false;
      }
      auth = a;
      remember(a);
      return scanRest(u, end);
    }
    const i = scanAuthority(u);
    if (i >= 0) return scanRest(u, i);
    declined(text);
    return false;
  }
  prefixSame = true;
  const i = scanAuthority(u);
  return i >= 0 && scanRest(u, i);
}

/**
 * In `authorities`, an authority `scanAuthority` declined (userinfo, an IP literal, a host or port
 * the ladder rejects): it only reads the text up to the authority's end, so the same text is
 * declined again at the cost of a lookup. A crawl meets a bad link template many times over.
 */
const DECLINED: Authority = { ...auth, end: -1 };

function declined(text: string, failure?: AuthorityFailure): void {
  if (authorities.size === AUTHORITIES_MAX) authorities.clear();
  authorities.set(detached(text), failure === undefined ? DECLINED : { ...DECLINED, failure });
}

/**
 * Remember that the ladder rejects the authority that ends `text` (an http(s) URL up to the end of
 * its authority) with `failure`: a later scan that finds it in the table leaves the failure for
 * `scannedFailure`, so a bad link's error is rebuilt from the one lookup the scan made.
 */
export function rememberFailedAuthority(text: string, failure: AuthorityFailure): void {
  declined(text, failure);
}

/** The last input whose scan found its authority rejected with a known failure, and that failure. */
let failedInput: string | undefined;
let failedWith: AuthorityFailure | undefined;

/**
 * The ladder's failure for `url`'s authority, when the last scan of `url` found it in the table
 * (`rememberFailedAuthority`); `undefined` when it did not. The same text names the same authority,
 * so an earlier scan of an equal string answers as well. Read once: the input is let go, as the
 * table lets go of the inputs its texts were cut from (a bad link's page stays alive otherwise),
 * and a second ask finds the failure in authority-failures.ts's own table.
 */
export function scannedFailure(url: string): AuthorityFailure | undefined {
  const failure = failedInput === url ? failedWith : undefined;
  failedInput = undefined;
  return failure;
}

/** The results for a URL whose path and query, [i, end), stand as written (`authorityRun` said so). */
function untouchedRest(i: number, end: number): boolean {
  rEnd = end;
  rSame = auth.same && prefixSame;
  rLenient = auth.lenient;
  rStart = i;
  return true;
}

/**
 * Authorities scanned before, by their exact prefix (`Authority.prefix`), beyond the few in
 * `memo`: a crawl's links interleave a few dozen hosts and spellings, more than a short list
 * holds. A hit needs the whole prefix and the end of the authority after it, as in `memo`, so the
 * table never changes an answer. Emptied when full, so it stays small.
 *
 * A spelling in another ASCII case (`HTTPS://WWW.Example.COM`) is looked up, and scanned if it must
 * be, by its lowercase text: scheme and host are case-insensitive (§3.1, §3.2.2; the host parser
 * maps ASCII letters to lowercase before anything else, and an escape's hex digits decode alike in
 * either case), so it names the same authority, only not normal as written. ASCII text only:
 * Unicode's case mapping is not UTS #46's (a final sigma, for one).
 */
const AUTHORITIES_MAX = 1024;
const authorities = new Map<string, Authority>();

/** Characters a path segment (§3.3) holds raw with nothing to rewrite; a query (§3.4) also "/" and "?". */
const SEGMENT_CHARS = "A-Za-z0-9\\-._~!$&'()*+,;=:@";
const SEGMENT_FIRST_CHARS = SEGMENT_CHARS.replace('.', '');

/**
 * What `authorityRun` matches after the prefix: the end of the authority, then "/"-led segments,
 * none starting with "." (it may be a dot-segment, §6.2.2.3), then a query only if it runs to the
 * end or the fragment. At least one segment, since an empty path becomes "/" (§6.2.3). A segment
 * cannot hold "/", so the match is linear; its first character is a class of its own rather than
 * a lookahead, which irregexp runs faster. So where a run stops short is in the path, or at the
 * "?" of a query that needs rewriting: never inside the query, which would take a search for "?"
 * to tell.
 */
const RUN_TAIL =
  String.raw`(?=[/\\?#]|$)(?:(?:\/(?:[` + SEGMENT_FIRST_CHARS + '][' + SEGMENT_CHARS + String.raw`]*)?)+(?:\?[` + SEGMENT_CHARS + String.raw`/?]*(?=#|$))?)?`;

/** The longest prefix given an `authorityRun`: scheme, "://", a 253-octet DNS name and a port. */
const RUN_PREFIX_MAX = 272;

/** Regular-expression syntax characters, escaped to match an authority's text literally. */
const SYNTAX_CHARACTER = /[\\^$.*+?()[\]{}|/-]/g;

/**
 * One authority's prefix, then the end of the authority and the longest rest that needs no
 * rewriting, as a sticky expression: one call in compiled code does what a `startsWith` and a run
 * over the path do in two. `anyCase`: the prefix's ASCII letters in either case (the rest keeps
 * its case: §6.2.2.1 leaves the path's alone).
 *
 * For an ASCII prefix that is the `i` flag, which irregexp runs a fifth faster than a class per
 * letter: without the `u` flag a character at or above U+0080 never matches one below it (ES
 * Canonicalize), and the rest's classes hold both cases of every letter they hold, so the flag
 * changes nothing else. A prefix beyond ASCII keeps a class per ASCII letter, since the flag would
 * also fold its other letters, by Unicode's case mapping, which is not UTS #46's (σ and ς).
 */
function authorityRun(a: Authority, anyCase: boolean): RegExp {
  let source = a.prefix.replace(SYNTAX_CHARACTER, '\\$&');
  const asciiCase = anyCase && a.asciiPrefix;
  if (anyCase && !asciiCase) source = source.replace(ASCII_LETTER, (l) => `[${l.toLowerCase()}${l.toUpperCase()}]`);
  if (a.bare) source += a.https ? '(?::(?:443)?)?' : '(?::(?:80)?)?';
  return new RegExp(source + RUN_TAIL, asciiCase ? 'iy' : 'y');
}

const ASCII_LETTER = /[A-Za-z]/g;
const ASCII_TEXT = /^[\x00-\x7f]*$/;

/** Runs to the end of an authority ("/", "\\", "?", "#" or the end of the input). */
const AUTHORITY_RUN = /[^/\\?#]*/y;
/** The same, over printable ASCII only. */
const ASCII_AUTHORITY_RUN = /[!"$-.0->@-[\]-~]*/y;
/** The authority `authorityEnd` last found is printable ASCII (so another case of it may be looked up by its lowercase text). */
let asciiAuthority = false;

/** Where the authority of an "http://" or "https://" URL (any case) ends, or -1 for any other input. */
function authorityEnd(u: string): number {
  const c = u.charCodeAt(4);
  const start = c === 0x3a ? 7 : c === 0x73 || c === 0x53 ? (u.charCodeAt(5) === 0x3a ? 8 : -1) : -1;
  if (start < 0) return -1;
  const end = afterRun(ASCII_AUTHORITY_RUN, u, start);
  asciiAuthority = end === u.length || endsAuthority(u.charCodeAt(end));
  return asciiAuthority ? end : afterRun(AUTHORITY_RUN, u, end);
}

/**
 * `a` goes last in the memo, in place of the one there: it climbs one step per hit from there, so
 * an authority met once does not push the ones met often back (a crawl's page links to a few hosts
 * many times and to many hosts once).
 */
function remember(a: Authority): void {
  if (memo.length < MEMO_SIZE) memo.push(a);
  else memo[MEMO_SIZE - 1] = a;
}

/** "/", "\\", "?" or "#": what may follow an authority, besides the end of the input. */
function endsAuthority(c: number): boolean {
  return c === 0x2f || c === 0x3f || c === 0x23 || c === 0x5c;
}

/** Scheme, "//" and authority (§3.1, §3.2) into `auth` and the memo; returns where the path starts, or -1. */
function scanAuthority(u: string): number {
  const n = u.length;
  if (n < 8) return -1; // shorter than "http://a"
  // scheme: "http" / "https", any case, then "://" (§3.1; §6.2.2.1 lowercases it)
  const c0 = u.charCodeAt(0);
  const c1 = u.charCodeAt(1);
  const c2 = u.charCodeAt(2);
  const c3 = u.charCodeAt(3);
  if ((c0 | 0x20) !== 0x68 || (c1 | 0x20) !== 0x74 || (c2 | 0x20) !== 0x74 || (c3 | 0x20) !== 0x70) return -1;
  let same = c0 === 0x68 && c1 === 0x74 && c2 === 0x74 && c3 === 0x70;
  let i = 4;
  let c = u.charCodeAt(4);
  const https = (c | 0x20) === 0x73;
  if (https) {
    if (c !== 0x73) same = false;
    c = u.charCodeAt(++i);
  }
  if (c !== 0x3a || u.charCodeAt(i + 1) !== 0x2f || u.charCodeAt(i + 2) !== 0x2f) return -1;
  const hostStart = i + 3;

  // host: a plain domain of letters, digits and "-" labels (§3.2.2) is lowercased here; anything
  // else is the host parser's (IDNA, IPv4 forms, escapes), as on the ladder
  let upper = false;
  let lenient = false;
  let plain = true;
  let labelStart = hostStart;
  let dotsSeen = 0;
  for (i = hostStart; i < n; i++) {
    c = u.charCodeAt(i);
    const k = c < 128 ? HOST_CLASS[c]! : H_OTHER;
    if (k === H_LOWER) continue;
    if (k === H_UPPER) {
      upper = true;
      continue;
    }
    if (k === H_DOT) {
      if (i === labelStart || isALabelStart(u, labelStart) || dotsSeen === MAX_LABELS) plain = false;
      else dots[dotsSeen++] = i - hostStart;
      labelStart = i + 1;
      continue;
    }
    if (k === H_OTHER) {
      plain = false;
      if (c >= 128 || REG_NAME[c] !== 1) lenient = true;
      continue;
    }
    if (k === H_BAIL) return -1;
    break;
  }
  const hostEnd = i;
  if (hostEnd === hostStart) return -1; // an empty host: the ladder's error (or leniency)
  let host: string;
  if (plain && i !== labelStart && !isALabelStart(u, labelStart) && !isDigit(u.charCodeAt(labelStart))) {
    host = upper ? u.slice(hostStart, hostEnd).toLowerCase() : u.slice(hostStart, hostEnd);
    dotCount = dotsSeen;
    if (upper) same = false;
  } else {
    // an A-label, an empty label, a last label starting with a digit (an IPv4 form for the URL
    // Standard), or characters beyond LDH: the ladder's host steps, in its order
    const parsed = parsedHost(u, u.slice(hostStart, hostEnd));
    if (parsed === undefined) return -1;
    host = parsed;
    dotCount = -1;
    if (host.length !== hostEnd - hostStart || !u.startsWith(host, hostStart)) same = false;
  }

  // port (§3.2.3, §6.2.3): digits; empty or default removed, leading zeros dropped
  let port = '';
  if (i < n && c === 0x3a) {
    const portStart = ++i;
    let value = 0;
    for (; i < n; i++) {
      c = u.charCodeAt(i);
      if (c < 0x30 || c > 0x39) break;
      value = value * 10 + (c - 0x30);
    }
    const digits = i - portStart;
    if (i < n && !(c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23)) return -1;
    if (digits > 5 || value > 65535) return -1; // the ladder reports ERR_INVALID_PORT or decides
    if (digits === 0 || value === (https ? 443 : 80)) same = false;
    else {
      port = ':' + value;
      if (u.charCodeAt(portStart) === 0x30) same = false;
    }
  }

  const keyHead = reversedHost(host) + (https ? ')https://' : ')http://') + port;
  fingerprintLanes(keyHead, lanes);
  // the strings kept are flat copies of their own: a slice of the input would keep the whole input
  // alive as long as the authority is remembered (a crawled page's text, for a link cut from it),
  // and each hit would read them from wherever that input lies
  const prefix = detached(u.slice(0, i));
  auth = {
    prefix,
    end: i,
    lastChar: u.charCodeAt(i - 1),
    midChar: u.charCodeAt(i >> 1) | 0x20,
    https,
    host: detached(host),
    port,
    same,
    bare: i === hostEnd,
    lenient,
    asciiPrefix: ASCII_TEXT.test(prefix),
    normalHead: detached((https ? 'https://' : 'http://') + host + port),
    keyHead: detached(keyHead),
    hostPort: detached(host + port),
    keyLane1: lanes[0]!,
    keyLane2: lanes[1]!,
    run: undefined,
    anyCaseRun: undefined,
    failure: undefined,
  };
  remember(auth);
  if (authorities.size === AUTHORITIES_MAX) authorities.clear();
  authorities.set(auth.prefix, auth);
  return i;
}

/**
 * Path, query and fragment (§3.3–3.5) from `i` (the end of the authority) into the `r*` results.
 * `resume` > `i`: the authority's run (`authorityRun`) vouched for [i, resume) — plain segments,
 * none a dot-segment — so the scan goes on from there: in the path, or at the "?" of a query.
 */
function scanRest(u: string, i: number, resume = i): boolean {
  const n = u.length;
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

  rEnd = end;
  rSame = auth.same && prefixSame && out === '';
  rLenient = lenient;
  if (out !== '') {
    rStart = -1;
    rRest = copied < end ? out + u.slice(copied, end) : out;
  } else rStart = restStart;
  return true;
}

/** `s` as one flat string of its own, not a slice or a concatenation of other strings. */
function detached(s: string): string {
  return (' ' + s).slice(1);
}

/** Where the run of `run`'s characters from `i` ends. */
function afterRun(run: RegExp, u: string, i: number): number {
  run.lastIndex = i;
  run.test(u);
  return run.lastIndex;
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
 * Hosts already through the host parser, raw → result (`null`: it rejects them). IDNA mapping is
 * the costliest step of all and a crawl sees the same few hosts again and again; the memo is
 * emptied when it fills, so it stays small.
 */
const PARSED_HOSTS_MAX = 1024;
const parsedHosts = new Map<string, string | null>();

/** The host through the ladder's steps: §6.2.2 percent-encoding and case, then the URL Standard's host parser. */
function parsedHost(u: string, raw: string): string | undefined {
  let host = parsedHosts.get(raw);
  if (host === undefined) {
    try {
      host = parseSpecialHost(normalizePercentEncoding(raw, REG_NAME, false, true, 'ERR_INVALID_HOST', u));
    } catch (e) {
      if (!(e instanceof UrlError)) throw e;
      host = null; // the ladder reports it
    }
    if (parsedHosts.size === PARSED_HOSTS_MAX) parsedHosts.clear();
    parsedHosts.set(raw, host);
  }
  return host ?? undefined;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** True when the label at `i` starts with "xn--" (any case): an A-label, for UTS #46 to check. */
function isALabelStart(u: string, i: number): boolean {
  return (
    i + 4 <= u.length &&
    (u.charCodeAt(i) | 0x20) === 0x78 &&
    (u.charCodeAt(i + 1) | 0x20) === 0x6e &&
    u.charCodeAt(i + 2) === 0x2d &&
    u.charCodeAt(i + 3) === 0x2d
  );
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
function isStrictlyValid(u: string): boolean {
  if (rLenient) return false;
  const n = u.length;
  for (let i = rEnd + 1; i < n; i++) {
    const c = u.charCodeAt(i);
    const k = c < 128 ? QUERY_CLASS[c]! : C_ENCODE;
    if (k === C_PLAIN) continue;
    if (k !== C_PERCENT || octetAt(u, i) < 0) return false;
    i += 2;
  }
  return true;
}

/** The key's sorthost: from the scan's dots for a plain host, else key.ts's general form. */
function reversedHost(host: string): string {
  if (dotCount < 0) return sortHost(host);
  if (dotCount === 0) return host;
  let out = host.slice(dots[dotCount - 1]! + 1);
  for (let d = dotCount - 1; d > 0; d--) out += ',' + host.slice(dots[d - 1]! + 1, dots[d]!);
  return out + ',' + host.slice(0, dots[0]!);
}

// ---- the answers --------------------------------------------------------------------------------

/**
 * The normal form of `url` at default options, or `undefined` when the full ladder must decide.
 * `strict`: also decline input that only a browser's leniency reads (strict mode rejects it).
 */
export function singlePassNormal(url: string, strict = false): string | undefined {
  if (!scan(url, true) || (strict && !isStrictlyValid(url))) return undefined;
  return scannedNormal(url);
}

/** The key (key.ts, format 1) of `url` at default options, or `undefined` for the full ladder. */
export function singlePassKey(url: string, strict = false): string | undefined {
  return singlePassScan(url, strict) ? auth.keyHead + scannedRest(url) : undefined;
}

/**
 * True when the single pass handles `url` at default options (`singlePassKey` would give a key);
 * its pieces are then read with the `scanned*` functions below, for callers that take the key's
 * head and rest apart rather than the key.
 */
export function singlePassScan(url: string, strict = false): boolean {
  return scan(url, false) && !(strict && !isStrictlyValid(url));
}

/** What the store needs of a URL the single pass handles: normal form, key, scheme and host[:port]. */
export interface SinglePassIdentity {
  readonly normal: string;
  readonly key: string;
  readonly scheme: 'http' | 'https';
  /** host[:port], as the store groups its frontier. */
  readonly hostPort: string;
}

/** Normal form, key, scheme and host[:port] of `url` at default options, or `undefined`. */
export function singlePassIdentity(url: string, strict = false): SinglePassIdentity | undefined {
  if (!scan(url, true) || (strict && !isStrictlyValid(url))) return undefined;
  return { normal: scannedNormal(url), key: auth.keyHead + scannedRest(url), scheme: scannedHttps() ? 'https' : 'http', hostPort: scannedHostPort() };
}

// The rest of the last scan that gave a key (`singlePassKey`), read without building an identity
// object: the store's admit loop takes only what it needs, per URL, from these.

/** host[:port] of the URL of the last `singlePassKey` that gave a key. */
export function scannedHostPort(): string {
  return auth.hostPort;
}

/** That URL's key is `scannedKeyHead() + scannedKeyRest()`: scheme, host and port as the key starts. */
export function scannedKeyHead(): string {
  return auth.keyHead;
}

/** The rest of that key: its path and query; `url` is the input it was given. */
export function scannedKeyRest(url: string): string {
  return scannedRest(url);
}

/** Path and query of the last scan, normalized; `url` is the input it was given. */
function scannedRest(url: string): string {
  return rStart >= 0 ? url.slice(rStart, rEnd) : rRest;
}

/** True when that URL is https (else http). */
export function scannedHttps(): boolean {
  return auth.https;
}

/**
 * The fingerprint words of that URL's key into `out` (as `fingerprintInto(key, out)`; `url` is the
 * input it was given), from the lanes its authority left: only the path and query are read, and
 * the key is not flattened.
 */
export function scannedKeyFingerprint(url: string, out: Int32Array): void {
  fingerprintFrom(auth.keyLane1, auth.keyLane2, scannedRest(url), out);
}

/** The normal form of that URL; `url` is the input it was given. */
export function scannedNormal(url: string): string {
  if (rSame) return rEnd === url.length ? url : url.slice(0, rEnd);
  return auth.normalHead + scannedRest(url);
}
