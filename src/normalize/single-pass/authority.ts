/**
 * The single pass's scheme and authority (RFC 3986 §3.1, §3.2) of an http(s) URL: scanned once,
 * then remembered (a short memo and a table, by the exact text up to the path), so the next URL of
 * the same authority reads only its path and query (single-pass/path-query.ts). The scan lowercases
 * a plain domain itself (§6.2.2.1) and hands any other host to the ladder's host parser (UTS #46,
 * IPv4 forms, §6.2.3), and writes the normal form's and the key's head with it.
 */
import { UrlError, type UrlErrorCode } from '../errors.js';
import { fingerprintLanes } from '../fingerprint.js';
import { parseSpecialHost } from '../host.js';
import { normalizePercentEncoding, REG_NAME } from '../percent-encoding.js';
import { sortHost } from '../sort-host.js';

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



/** Dots of a plain host, for reversing its labels in the key without another scan (scratch of `scanAuthority`). */
const MAX_LABELS = 32;
const dots = new Int32Array(MAX_LABELS);

/** Scheme and authority of a URL, as the ladder leaves them. */
export interface Authority {
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
export const memo: Authority[] = [];
/** No authority: what a result record holds before its first scan. */
export const NO_AUTHORITY: Authority = { prefix: '', end: 0, lastChar: 0, midChar: 0, https: false, host: '', port: '', same: false, bare: false, lenient: false, asciiPrefix: true, normalHead: '', keyHead: '', hostPort: '', keyLane1: 0, keyLane2: 0, run: undefined, anyCaseRun: undefined, failure: undefined };

/**
 * In `authorities`, an authority `scanAuthority` declined (userinfo, an IP literal, a host or port
 * the ladder rejects): it only reads the text up to the authority's end, so the same text is
 * declined again at the cost of a lookup. A crawl meets a bad link template many times over.
 */
const DECLINED: Authority = { ...NO_AUTHORITY, end: -1 };

export function declined(text: string, failure?: AuthorityFailure): void {
  if (authorities.size === AUTHORITIES_MAX) authorities.clear();
  authorities.set(detached(text), failure === undefined ? DECLINED : { ...DECLINED, failure });
}

/**
 * Remember that the ladder rejects the authority that ends `text` (an http(s) URL up to the end of
 * its authority) with `failure`: a later scan that finds it in the table leaves the failure in its
 * result record, so a bad link's error is rebuilt from the one lookup the scan made.
 */
export function rememberFailedAuthority(text: string, failure: AuthorityFailure): void {
  declined(text, failure);
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
export const authorities = new Map<string, Authority>();

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
export const RUN_PREFIX_MAX = 272;

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
export function authorityRun(a: Authority, anyCase: boolean): RegExp {
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

/**
 * Where the authority of an "http://" or "https://" URL (any case) ends, or -1 for any other input.
 * An authority of printable ASCII (so another case of it may be looked up by its lowercase text)
 * gives its end; any other gives `~end` (below -1).
 */
export function authorityEnd(u: string): number {
  const c = u.charCodeAt(4);
  const start = c === 0x3a ? 7 : c === 0x73 || c === 0x53 ? (u.charCodeAt(5) === 0x3a ? 8 : -1) : -1;
  if (start < 0) return -1;
  const end = afterRun(ASCII_AUTHORITY_RUN, u, start);
  return end === u.length || endsAuthority(u.charCodeAt(end)) ? end : ~afterRun(AUTHORITY_RUN, u, end);
}

/** Where the run of `run`'s characters from `i` ends. */
export function afterRun(run: RegExp, u: string, i: number): number {
  run.lastIndex = i;
  run.test(u);
  return run.lastIndex;
}

/**
 * `a` goes last in the memo, in place of the one there: it climbs one step per hit from there, so
 * an authority met once does not push the ones met often back (a crawl's page links to a few hosts
 * many times and to many hosts once).
 */
export function remember(a: Authority): void {
  if (memo.length < MEMO_SIZE) memo.push(a);
  else memo[MEMO_SIZE - 1] = a;
}

/** "/", "\\", "?" or "#": what may follow an authority, besides the end of the input. */
export function endsAuthority(c: number): boolean {
  return c === 0x2f || c === 0x3f || c === 0x23 || c === 0x5c;
}

/**
 * Scheme, "//" and authority (§3.1, §3.2) of `u`, into the memo and the table; the path starts at
 * its `end`. `undefined`: take the full ladder.
 */
export function scanAuthority(u: string): Authority | undefined {
  const n = u.length;
  if (n < 8) return undefined; // shorter than "http://a"
  // scheme: "http" / "https", any case, then "://" (§3.1; §6.2.2.1 lowercases it)
  const c0 = u.charCodeAt(0);
  const c1 = u.charCodeAt(1);
  const c2 = u.charCodeAt(2);
  const c3 = u.charCodeAt(3);
  if ((c0 | 0x20) !== 0x68 || (c1 | 0x20) !== 0x74 || (c2 | 0x20) !== 0x74 || (c3 | 0x20) !== 0x70) return undefined;
  let same = c0 === 0x68 && c1 === 0x74 && c2 === 0x74 && c3 === 0x70;
  let i = 4;
  let c = u.charCodeAt(4);
  const https = (c | 0x20) === 0x73;
  if (https) {
    if (c !== 0x73) same = false;
    c = u.charCodeAt(++i);
  }
  if (c !== 0x3a || u.charCodeAt(i + 1) !== 0x2f || u.charCodeAt(i + 2) !== 0x2f) return undefined;
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
    if (k === H_BAIL) return undefined;
    break;
  }
  const hostEnd = i;
  if (hostEnd === hostStart) return undefined; // an empty host: the ladder's error (or leniency)
  let host: string;
  // dots in `dots`, or -1 when the host came from the host parser (the key uses sortHost)
  let dotCount: number;
  if (plain && i !== labelStart && !isALabelStart(u, labelStart) && !isDigit(u.charCodeAt(labelStart))) {
    host = upper ? u.slice(hostStart, hostEnd).toLowerCase() : u.slice(hostStart, hostEnd);
    dotCount = dotsSeen;
    if (upper) same = false;
  } else {
    // an A-label, an empty label, a last label starting with a digit (an IPv4 form for the URL
    // Standard), or characters beyond LDH: the ladder's host steps, in its order
    const parsed = parsedHost(u, u.slice(hostStart, hostEnd));
    if (parsed === undefined) return undefined;
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
    if (i < n && !(c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23)) return undefined;
    if (digits > 5 || value > 65535) return undefined; // the ladder reports ERR_INVALID_PORT or decides
    if (digits === 0 || value === (https ? 443 : 80)) same = false;
    else {
      port = ':' + value;
      if (u.charCodeAt(portStart) === 0x30) same = false;
    }
  }

  const keyHead = reversedHost(host, dotCount) + (https ? ')https://' : ')http://') + port;
  fingerprintLanes(keyHead, lanes);
  // the strings kept are flat copies of their own: a slice of the input would keep the whole input
  // alive as long as the authority is remembered (a crawled page's text, for a link cut from it),
  // and each hit would read them from wherever that input lies
  const prefix = detached(u.slice(0, i));
  const auth: Authority = {
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
  return auth;
}


/** `s` as one flat string of its own, not a slice or a concatenation of other strings. */
export function detached(s: string): string {
  return (' ' + s).slice(1);
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

export function isDigit(c: number): boolean {
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

/** The key's sorthost: from the scan's dots for a plain host, else key.ts's general form. */
function reversedHost(host: string, dotCount: number): string {
  if (dotCount < 0) return sortHost(host);
  if (dotCount === 0) return host;
  let out = host.slice(dots[dotCount - 1]! + 1);
  for (let d = dotCount - 1; d > 0; d--) out += ',' + host.slice(dots[d - 1]! + 1, dots[d]!);
  return out + ',' + host.slice(0, dots[0]!);
}
