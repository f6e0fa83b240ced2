/**
 * RFC 3986 §3 and Appendix B: split a URI reference into its five components, and validate them.
 *
 * Two ways to read the input:
 * - `strict`: the RFC 3986 grammar, nothing else; anything outside it is a coded error.
 * - lenient (default): what a browser accepts in an address bar or `href` is read the way the
 *   browser reads it, so real-world links work. Raw characters the RFC does not allow (spaces,
 *   non-ASCII, `"` …) are kept here and percent-encoded by the syntax rung. With `browser: true`
 *   the WHATWG pre-processing applies as well: leading and trailing C0 controls and spaces are
 *   trimmed, tabs and newlines removed, and in special schemes `\` counts as `/` and any run of
 *   slashes introduces the authority (`http:\\a\b` is `http://a/b`).
 */
import { parseCount } from './parse-count.js';
import { UrlError } from './errors.js';
import { parseIPv6 } from './host.js';
import { defaultLimits } from './limits.js';
import { hexValue, isSubDelim, isUnreserved, REG_NAME, USERINFO } from './percent-encoding.js';
import type { UriRecord } from './uri-record.js';
import { isSpecialScheme } from './whatwg/url-record.js';

export interface ParseOptions {
  /** Reject anything that is not RFC 3986 (`ERR_INVALID_CHARACTER`, `ERR_INVALID_PERCENT`, …). @default false */
  readonly strict?: boolean;
  /** Apply the WHATWG input pre-processing described above (ignored when `strict`). @default false */
  readonly browser?: boolean;
  /** Longest input accepted, checked first (`ERR_TOO_LONG`). @default 16384 */
  readonly maxLength?: number;
}

const COLON = 0x3a;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const QUESTION = 0x3f;
const HASH = 0x23;
const AT = 0x40;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** "/", or "\\" where it counts as one (special schemes, browser reading). */
function isSlash(c: number, backslash: boolean): boolean {
  return c === SLASH || (backslash && c === BACKSLASH);
}

/** The scheme in lowercase, allocating only when it has an uppercase letter. */
function lowercaseScheme(scheme: string): string {
  for (let k = 0; k < scheme.length; k++) {
    const c = scheme.charCodeAt(k);
    if (c >= 0x41 && c <= 0x5a) return scheme.toLowerCase();
  }
  return scheme;
}

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** §3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
function isSchemeChar(c: number): boolean {
  return isAlpha(c) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
}

/** WHATWG: strip leading and trailing C0 controls and spaces, and every tab, LF and CR. */
export function trimControlsAndSpace(input: string): string {
  let start = 0;
  let end = input.length;
  while (start < end && input.charCodeAt(start) <= 0x20) start++;
  while (end > start && input.charCodeAt(end - 1) <= 0x20) end--;
  let s = start === 0 && end === input.length ? input : input.slice(start, end);
  if (s.indexOf('\t') !== -1 || s.indexOf('\n') !== -1 || s.indexOf('\r') !== -1) {
    s = s.replace(/[\t\n\r]/g, '');
  }
  return s;
}

/** Index of the first of `/?#` (and `\` when `backslash`) at or after `from`, or `end`. */
function findDelimiter(s: string, from: number, end: number, backslash: boolean): number {
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === SLASH || c === QUESTION || c === HASH || (backslash && c === BACKSLASH)) return i;
  }
  return end;
}

/**
 * Split `input` into a `UriRecord` (Appendix B), then validate it (§3).
 * The returned components are as written (no case or percent-encoding change), except for the
 * browser pre-processing when `browser` is on.
 */
export function parseUriReference(input: string, options: ParseOptions = {}): UriRecord {
  parseCount.rfc++;
  const maxLength = options.maxLength ?? defaultLimits.maxLength;
  if (input.length > maxLength) throw new UrlError('ERR_TOO_LONG', input, { detail: `longer than ${maxLength}` });
  const strict = options.strict === true;
  const browser = !strict && options.browser === true;
  const s = browser ? trimControlsAndSpace(input) : input;
  const n = s.length;

  // scheme: ^(([^:/?#]+):)?
  let scheme: string | undefined;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === COLON || c === SLASH || c === QUESTION || c === HASH) break;
    i++;
  }
  if (i < n && i > 0 && s.charCodeAt(i) === COLON) {
    let valid = isAlpha(s.charCodeAt(0));
    for (let k = 1; valid && k < i; k++) valid = isSchemeChar(s.charCodeAt(k));
    if (valid) {
      scheme = s.slice(0, i);
      i += 1;
    } else if (strict) {
      throw new UrlError('ERR_INVALID_SCHEME', input);
    } else {
      // Lenient: like a browser, a first segment that is not a scheme is a relative path.
      i = 0;
    }
  } else {
    i = 0;
  }

  const lower = browser && scheme !== undefined ? lowercaseScheme(scheme) : undefined;
  const special = lower !== undefined && isSpecialScheme(lower);
  // The end of the hierarchical part: `\` may stand for `/` before it, not in the query or fragment.
  const question = s.indexOf('?', i);
  const hashAt = s.indexOf('#', i);
  const hierEnd = question === -1 ? (hashAt === -1 ? n : hashAt) : hashAt === -1 || question < hashAt ? question : hashAt;

  // authority: (//([^/?#]*))?
  let userinfo: string | undefined;
  let host: string | undefined;
  let port: string | undefined;
  let hasAuthority = i + 1 < hierEnd && isSlash(s.charCodeAt(i), special) && isSlash(s.charCodeAt(i + 1), special);
  let authStart = i + 2;
  if (special && lower !== 'file') {
    // WHATWG "special authority ignore slashes": any number of slashes, even none, before the authority.
    let k = i;
    while (k < hierEnd && isSlash(s.charCodeAt(k), true)) k++;
    hasAuthority = true;
    authStart = k;
  }
  if (hasAuthority) {
    const authEnd = findDelimiter(s, authStart, hierEnd, special);
    parseAuthority(s.slice(authStart, authEnd), input, strict);
    userinfo = parsedUserinfo;
    host = parsedHost;
    port = parsedPort;
    i = authEnd;
  }

  // path: ([^?#]*)
  let path = s.slice(i, hierEnd);
  if (special && path.indexOf('\\') !== -1) path = path.replace(/\\/g, '/');
  let query: string | undefined;
  let fragment: string | undefined;
  if (hierEnd < n) {
    if (hierEnd === question) query = s.slice(hierEnd + 1, hashAt === -1 ? n : hashAt);
    if (hashAt !== -1) fragment = s.slice(hashAt + 1);
  }

  if (strict) {
    validatePathLike(path, input);
    if (query !== undefined) validatePathLike(query, input, true);
    if (fragment !== undefined) validatePathLike(fragment, input, true);
    // §3.3: without an authority the path cannot begin with "//"; a relative-path reference's
    // first segment cannot hold ":" (§4.2) — the scheme scan above already rejected it.
    if (host === undefined && path.startsWith('//')) throw new UrlError('ERR_INVALID_AUTHORITY', input);
    // §4.2: a relative-path reference whose first segment holds ":" (`::`, `a::b` after a
    // non-scheme) would be read as a scheme; the scan above saw only a first segment before ":"
    if (scheme === undefined && host === undefined) {
      const slash = path.indexOf('/');
      if (path.lastIndexOf(':', slash === -1 ? path.length : slash) !== -1) throw new UrlError('ERR_INVALID_SCHEME', input, { detail: 'a relative path whose first segment holds ":"' });
    }
  }
  return { scheme, userinfo, host, port, path, query, fragment };
}

// parseAuthority's results (module-level, so the hot path allocates no result object).
let parsedUserinfo: string | undefined;
let parsedHost = '';
let parsedPort: string | undefined;

/** §3.2: authority = [ userinfo "@" ] host [ ":" port ]; sets parsedUserinfo, parsedHost, parsedPort. */
function parseAuthority(authority: string, input: string, strict: boolean): void {
  // The last "@" ends the userinfo, as in browsers; in strict mode a raw "@" inside the
  // userinfo is invalid and caught by its validation below.
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? undefined : authority.slice(0, at);
  const hostport = at === -1 ? authority : authority.slice(at + 1);
  let host: string;
  let port: string | undefined;
  if (hostport.charCodeAt(0) === LBRACKET) {
    // §3.2.2 IP-literal = "[" ( IPv6address / IPvFuture ) "]"
    const close = hostport.indexOf(']');
    if (close === -1) throw new UrlError('ERR_INVALID_HOST', input, { detail: 'unclosed [' });
    host = hostport.slice(0, close + 1);
    const rest = hostport.slice(close + 1);
    if (rest.length > 0) {
      if (rest.charCodeAt(0) !== COLON) throw new UrlError('ERR_INVALID_HOST', input);
      port = rest.slice(1);
    }
  } else {
    const colon = hostport.lastIndexOf(':');
    host = colon === -1 ? hostport : hostport.slice(0, colon);
    if (colon !== -1) port = hostport.slice(colon + 1);
  }
  // §3.2.3 port = *DIGIT
  if (port !== undefined) {
    for (let k = 0; k < port.length; k++) {
      const c = port.charCodeAt(k);
      if (c < 0x30 || c > 0x39) throw new UrlError('ERR_INVALID_PORT', input);
    }
  }
  if (host.charCodeAt(0) === LBRACKET) {
    if (!isIpLiteralSyntax(host)) throw new UrlError('ERR_INVALID_HOST', input);
    // strict: §3.2.2 IPv6address itself (h16 is 1*4HEXDIG: `[::12345]` is none), IPvFuture aside
    const v = host.charCodeAt(1) | 0x20;
    if (strict && v !== 0x76 /* v */ && parseIPv6(host.slice(1, -1)) === null) throw new UrlError('ERR_INVALID_HOST', input, { detail: 'not an IPv6 address' });
  } else if (strict ? !conforms(host, REG_NAME) : host.indexOf('[') !== -1 || host.indexOf(']') !== -1) {
    throw new UrlError('ERR_INVALID_HOST', input);
  }
  if (strict && userinfo !== undefined && !conforms(userinfo, USERINFO)) throw new UrlError('ERR_INVALID_AUTHORITY', input);
  parsedUserinfo = userinfo;
  parsedHost = host;
  parsedPort = port;
}

/** True when `s` holds only the table's characters and well-formed `%XX` triplets. */
function conforms(s: string, allowed: Uint8Array): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (hexValue(s.charCodeAt(i + 1)) < 0 || hexValue(s.charCodeAt(i + 2)) < 0) return false;
      i += 2;
    } else if (c >= 128 || allowed[c] === 0) {
      return false;
    }
  }
  return true;
}

/** Strict validation of a path, query or fragment: pchar, "/" (and "?" in query and fragment). */
function validatePathLike(s: string, input: string, allowQuestion = false): void {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (hexValue(s.charCodeAt(i + 1)) < 0 || hexValue(s.charCodeAt(i + 2)) < 0) {
        throw new UrlError('ERR_INVALID_PERCENT', input);
      }
      i += 2;
    } else if (
      !(isUnreserved(c) || isSubDelim(c) || c === COLON || c === AT || c === SLASH || (allowQuestion && c === QUESTION))
    ) {
      throw new UrlError('ERR_INVALID_CHARACTER', input);
    }
  }
}

/** §3.2.2 IP-literal syntax (the address itself is checked by the host parser). */
function isIpLiteralSyntax(host: string): boolean {
  if (host.charCodeAt(host.length - 1) !== RBRACKET) return false;
  const inner = host.slice(1, -1);
  if (inner.charCodeAt(0) === 0x76 || inner.charCodeAt(0) === 0x56) {
    // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
    const dot = inner.indexOf('.');
    if (dot < 2 || dot === inner.length - 1) return false;
    for (let k = 1; k < dot; k++) if (hexValue(inner.charCodeAt(k)) < 0) return false;
    for (let k = dot + 1; k < inner.length; k++) {
      const c = inner.charCodeAt(k);
      if (!(isUnreserved(c) || isSubDelim(c) || c === COLON)) return false;
    }
    return true;
  }
  for (let k = 0; k < inner.length; k++) {
    const c = inner.charCodeAt(k);
    if (!(hexValue(c) >= 0 || c === COLON || c === 0x2e)) return false;
  }
  return inner.length > 0;
}
