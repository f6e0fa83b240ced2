/**
 * WHATWG URL Standard §4.4 "URL parsing": the basic URL parser, without state override, for UTF-8.
 *
 * The spec walks one code point at a time and collects a `buffer`. Every buffer here ends at an
 * ASCII delimiter, so each state scans to its delimiter and takes the run as one slice; the states,
 * their order and their transitions are the spec's. `p` is the spec's pointer: the index of `c`.
 */
import { UrlError } from '../errors.js';
import { parseOpaqueHost, parseSpecialHost } from '../host.js';
import {
  C0_CONTROL_SET,
  FRAGMENT_SET,
  PATH_SET,
  QUERY_SET,
  SPECIAL_QUERY_SET,
  USERINFO_SET,
  utf8PercentEncodeRange,
} from './percent-encode-sets.js';
import { defaultPort, isSpecialScheme, type WhatwgUrl } from './url-record.js';

/** The parser's states (§4.4), minus those only reachable with a state override. */
type ParserState =
  | 'scheme start'
  | 'no scheme'
  | 'special relative or authority'
  | 'path or authority'
  | 'relative'
  | 'relative slash'
  | 'special authority slashes'
  | 'special authority ignore slashes'
  | 'authority'
  | 'host'
  | 'port'
  | 'file'
  | 'file slash'
  | 'file host'
  | 'path start'
  | 'path'
  | 'opaque path'
  | 'query'
  | 'fragment'
  | 'done';

/** The EOF code point. */
const EOF = -1;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const HASH = 0x23;
const PERCENT = 0x25;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const COLON = 0x3a;
const QUESTION = 0x3f;
const AT = 0x40;
const LEFT_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RIGHT_BRACKET = 0x5d;
const PIPE = 0x7c;

/** Path state, per ASCII code point: copy it, percent-encode it (path set), or end the segment. */
const COPY = 0;
const ENCODE = 1;
const END_OF_SEGMENT = 2;
/** "\" ends a segment only in special URLs (and is not in the path percent-encode set). */
const BACKSLASH_IF_SPECIAL = 3;
const PATH_STATE_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) PATH_STATE_CHAR[c] = PATH_SET[c] === 1 ? ENCODE : COPY;
PATH_STATE_CHAR[SLASH] = END_OF_SEGMENT;
PATH_STATE_CHAR[QUESTION] = END_OF_SEGMENT;
PATH_STATE_CHAR[HASH] = END_OF_SEGMENT;
PATH_STATE_CHAR[BACKSLASH] = BACKSLASH_IF_SPECIAL;

function fail(input: string, detail: string, cause?: unknown): never {
  throw new UrlError('ERR_INVALID_URL', input, cause === undefined ? { detail } : { detail, cause });
}

/**
 * §4.4 basic URL parser steps 1-3: strip leading and trailing C0 control or space, then remove all
 * ASCII tab or newline. Returns the input itself when there is nothing to remove.
 */
export function removeControlsAndWhitespace(input: string): string {
  let start = 0;
  let end = input.length;
  while (start < end && input.charCodeAt(start) <= SPACE) start++;
  while (end > start && input.charCodeAt(end - 1) <= SPACE) end--;
  const trimmed = start === 0 && end === input.length ? input : input.slice(start, end);
  // Native scans: most inputs hold no tab or newline at all.
  if (trimmed.indexOf('\t') === -1 && trimmed.indexOf('\n') === -1 && trimmed.indexOf('\r') === -1) {
    return trimmed;
  }
  let output = '';
  let copied = 0;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed.charCodeAt(i);
    if (c === TAB || c === LF || c === CR) {
      output += trimmed.slice(copied, i);
      copied = i + 1;
    }
  }
  return output + trimmed.slice(copied);
}

function isAsciiAlpha(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

function isAsciiAlphanumeric(c: number): boolean {
  return isAsciiAlpha(c) || (c >= 0x30 && c <= 0x39);
}

/** Scheme start and scheme states: index of the ":" ending ALPHA *( alphanumeric / "+" / "-" / "." ), or -1. */
function schemeEnd(input: string): number {
  if (input.length === 0 || !isAsciiAlpha(input.charCodeAt(0))) return -1;
  for (let i = 1; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === COLON) return i;
    if (!(isAsciiAlphanumeric(c) || c === PLUS || c === MINUS || c === DOT)) return -1;
  }
  return -1;
}

/** ASCII lowercase (the scheme is ASCII by construction). */
function asciiLowercase(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return s.toLowerCase();
  }
  return s;
}

/** §4.1 Windows drive letter: ASCII alpha then ":" or "|". */
function isWindowsDriveLetter(s: string): boolean {
  if (s.length !== 2 || !isAsciiAlpha(s.charCodeAt(0))) return false;
  const c = s.charCodeAt(1);
  return c === COLON || c === PIPE;
}

/** §4.1 normalized Windows drive letter: ASCII alpha then ":". */
function isNormalizedWindowsDriveLetter(s: string | undefined): boolean {
  return s !== undefined && s.length === 2 && isAsciiAlpha(s.charCodeAt(0)) && s.charCodeAt(1) === COLON;
}

/** §4.1 "starts with a Windows drive letter", for `input` from index `p`. */
function startsWithWindowsDriveLetter(input: string, p: number): boolean {
  const length = input.length;
  if (length - p < 2 || !isAsciiAlpha(input.charCodeAt(p))) return false;
  const second = input.charCodeAt(p + 1);
  if (second !== COLON && second !== PIPE) return false;
  if (length - p === 2) return true;
  const third = input.charCodeAt(p + 2);
  return third === SLASH || third === BACKSLASH || third === QUESTION || third === HASH;
}

/** Width of a "." or "%2e" (ASCII case-insensitive) at `i`, within `end`; 0 when neither. */
function dotWidth(input: string, i: number, end: number): number {
  if (i >= end) return 0;
  const c = input.charCodeAt(i);
  if (c === DOT) return 1;
  if (c === PERCENT && i + 3 <= end && input.charCodeAt(i + 1) === 0x32 && (input.charCodeAt(i + 2) | 0x20) === 0x65) {
    return 3;
  }
  return 0;
}

/** §4.1 single-dot URL path segment: "." or "%2e". */
export function isSingleDotSegment(input: string, start: number, end: number): boolean {
  const width = dotWidth(input, start, end);
  return width > 0 && start + width === end;
}

/** §4.1 double-dot URL path segment: "..", ".%2e", "%2e." or "%2e%2e". */
export function isDoubleDotSegment(input: string, start: number, end: number): boolean {
  const first = dotWidth(input, start, end);
  if (first === 0) return false;
  const second = dotWidth(input, start + first, end);
  return second > 0 && start + first + second === end;
}

/** §4.4 "shorten a url's path". */
function shortenPath(url: WhatwgUrl, path: string[]): void {
  // 3. A file URL's lone normalized Windows drive letter stays.
  if (url.scheme === 'file' && path.length === 1 && isNormalizedWindowsDriveLetter(path[0])) return;
  // 4. Remove the last item, if any.
  path.pop();
}

function clonePath(base: WhatwgUrl): string[] {
  return typeof base.path === 'string' ? [] : base.path.slice();
}

/** Host parser (§3.5), with its failure reported as the URL's failure. */
function parseHost(original: string, input: string, start: number, end: number, special: boolean): string {
  const buffer = input.slice(start, end);
  try {
    return special ? parseSpecialHost(buffer) : parseOpaqueHost(buffer);
  } catch (error) {
    return fail(original, 'invalid host', error);
  }
}

/**
 * §4.4 basic URL parser with no encoding override (UTF-8), no url and no state override.
 * Throws UrlError('ERR_INVALID_URL') where the spec returns failure.
 */
export function basicUrlParse(original: string, base: WhatwgUrl | null): WhatwgUrl {
  // 1-3. Trim C0 control or space; remove ASCII tab or newline.
  const input = removeControlsAndWhitespace(original);
  const length = input.length;
  const url: WhatwgUrl = {
    scheme: '',
    username: '',
    password: '',
    host: null,
    port: null,
    path: [],
    query: null,
    fragment: null,
  };
  let special = false;
  let state: ParserState = 'scheme start';
  let p = 0;

  while (state !== 'done') {
    const c = p < length ? input.charCodeAt(p) : EOF;
    switch (state) {
      case 'scheme start': {
        // Scheme start state and scheme state: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
        const end = schemeEnd(input);
        if (end < 0) {
          // Neither an alpha first nor a ":" ending the scheme: no scheme state, from the start.
          state = 'no scheme';
          break;
        }
        url.scheme = asciiLowercase(input.slice(0, end));
        special = isSpecialScheme(url.scheme);
        p = end + 1;
        if (url.scheme === 'file') {
          state = 'file';
        } else if (special && base !== null && base.scheme === url.scheme) {
          state = 'special relative or authority';
        } else if (special) {
          state = 'special authority slashes';
        } else if (p < length && input.charCodeAt(p) === SLASH) {
          state = 'path or authority';
          p++;
        } else {
          url.path = '';
          state = 'opaque path';
        }
        break;
      }

      case 'no scheme': {
        // 1. No base, or a base with an opaque path and c is not "#": failure.
        if (base === null) fail(original, 'relative URL without a base');
        if (typeof base.path === 'string') {
          if (c !== HASH) fail(original, 'relative URL against a base with an opaque path');
          // 2. Only a fragment may be set on a base with an opaque path.
          url.scheme = base.scheme;
          url.path = base.path;
          url.query = base.query;
          url.fragment = '';
          state = 'fragment';
          p++;
        } else {
          // 3-4.
          state = base.scheme === 'file' ? 'file' : 'relative';
        }
        break;
      }

      case 'special relative or authority':
        // 1. "//": special authority ignore slashes. 2. Else relative, reading c again.
        if (c === SLASH && input.charCodeAt(p + 1) === SLASH) {
          state = 'special authority ignore slashes';
          p += 2;
        } else {
          state = 'relative';
        }
        break;

      case 'path or authority':
        if (c === SLASH) {
          state = 'authority';
          p++;
        } else {
          state = 'path';
        }
        break;

      case 'relative': {
        // 1-2. base is non-null and its scheme is not file.
        const from = base!;
        url.scheme = from.scheme;
        special = isSpecialScheme(url.scheme);
        if (c === SLASH || (special && c === BACKSLASH)) {
          // 3-4.
          state = 'relative slash';
          p++;
          break;
        }
        // 5. Everything but the path's tail and what follows comes from the base.
        url.username = from.username;
        url.password = from.password;
        url.host = from.host;
        url.port = from.port;
        url.path = clonePath(from);
        url.query = from.query;
        if (c === QUESTION) {
          url.query = '';
          state = 'query';
          p++;
        } else if (c === HASH) {
          url.fragment = '';
          state = 'fragment';
          p++;
        } else if (c !== EOF) {
          url.query = null;
          shortenPath(url, url.path);
          state = 'path';
        } else {
          state = 'done';
        }
        break;
      }

      case 'relative slash': {
        const from = base!;
        if (special && (c === SLASH || c === BACKSLASH)) {
          state = 'special authority ignore slashes';
          p++;
        } else if (c === SLASH) {
          state = 'authority';
          p++;
        } else {
          // 3. An absolute path: the authority comes from the base.
          url.username = from.username;
          url.password = from.password;
          url.host = from.host;
          url.port = from.port;
          state = 'path';
        }
        break;
      }

      case 'special authority slashes':
        // "//" is skipped; otherwise c is read again (validation error only).
        if (c === SLASH && input.charCodeAt(p + 1) === SLASH) p += 2;
        state = 'special authority ignore slashes';
        break;

      case 'special authority ignore slashes': {
        let i = p;
        while (i < length) {
          const d = input.charCodeAt(i);
          if (d !== SLASH && d !== BACKSLASH) break;
          i++;
        }
        p = i;
        state = 'authority';
        break;
      }

      case 'authority': {
        // The authority runs to EOF, "/", "?", "#" or (special) "\"; its last "@" ends the userinfo.
        let end = p;
        let lastAt = -1;
        for (; end < length; end++) {
          const d = input.charCodeAt(end);
          if (d === SLASH || d === QUESTION || d === HASH || (special && d === BACKSLASH)) break;
          if (d === AT) lastAt = end;
        }
        if (lastAt >= 0) {
          // 1.2-1.4. Every "@" but the last becomes "%40" (the userinfo set encodes "@" the same
          // way); the first ":" starts the password.
          let colon = -1;
          for (let i = p; i < lastAt; i++) {
            if (input.charCodeAt(i) === COLON) {
              colon = i;
              break;
            }
          }
          if (colon < 0) {
            url.username = utf8PercentEncodeRange(input, p, lastAt, USERINFO_SET);
          } else {
            url.username = utf8PercentEncodeRange(input, p, colon, USERINFO_SET);
            url.password = utf8PercentEncodeRange(input, colon + 1, lastAt, USERINFO_SET);
          }
          // 2.1. atSignSeen and an empty buffer: host missing.
          if (lastAt + 1 === end) fail(original, 'credentials without a host');
          p = lastAt + 1;
        }
        state = 'host';
        break;
      }

      case 'host': {
        // Host state: runs to ":" outside "[ ]", or to EOF, "/", "?", "#" or (special) "\".
        let i = p;
        let insideBrackets = false;
        let d = EOF;
        for (; i < length; i++) {
          d = input.charCodeAt(i);
          if (d === COLON && !insideBrackets) break;
          if (d === SLASH || d === QUESTION || d === HASH || (special && d === BACKSLASH)) break;
          if (d === LEFT_BRACKET) insideBrackets = true;
          else if (d === RIGHT_BRACKET) insideBrackets = false;
        }
        if (i === length) d = EOF;
        if (d === COLON) {
          // 2. ":" after an empty buffer: host missing.
          if (i === p) fail(original, 'empty host before a port');
          url.host = parseHost(original, input, p, i, special);
          state = 'port';
          p = i + 1;
        } else {
          // 3. A special URL needs a non-empty host.
          if (special && i === p) fail(original, 'empty host');
          url.host = parseHost(original, input, p, i, special);
          state = 'path start';
          p = i;
        }
        break;
      }

      case 'port': {
        // 1. Collect ASCII digits; 2. they end at EOF, "/", "?", "#" or (special) "\"; 3. else failure.
        let i = p;
        let port = 0;
        while (i < length) {
          const d = input.charCodeAt(i);
          if (d < 0x30 || d > 0x39) break;
          // Saturate above 65535 so a long run of digits cannot lose precision.
          port = Math.min(port * 10 + (d - 0x30), 65536);
          i++;
        }
        const d = i < length ? input.charCodeAt(i) : EOF;
        if (!(d === EOF || d === SLASH || d === QUESTION || d === HASH || (special && d === BACKSLASH))) {
          fail(original, 'invalid port');
        }
        if (i > p) {
          // 2.1. Above 65535 is a failure; the scheme's default port is omitted.
          if (port > 65535) fail(original, 'port out of range');
          url.port = port === defaultPort(url.scheme) ? null : port;
        }
        state = 'path start';
        p = i;
        break;
      }

      case 'file': {
        // 1-2.
        url.scheme = 'file';
        special = true;
        url.host = '';
        if (c === SLASH || c === BACKSLASH) {
          // 3.
          state = 'file slash';
          p++;
        } else if (base !== null && base.scheme === 'file') {
          // 4. Relative to a file base.
          url.host = base.host;
          url.path = clonePath(base);
          url.query = base.query;
          if (c === QUESTION) {
            url.query = '';
            state = 'query';
            p++;
          } else if (c === HASH) {
            url.fragment = '';
            state = 'fragment';
            p++;
          } else if (c !== EOF) {
            url.query = null;
            // 4.4.2-3. A drive letter replaces the whole base path.
            if (!startsWithWindowsDriveLetter(input, p)) shortenPath(url, url.path);
            else url.path = [];
            state = 'path';
          } else {
            state = 'done';
          }
        } else {
          // 5.
          state = 'path';
        }
        break;
      }

      case 'file slash':
        if (c === SLASH || c === BACKSLASH) {
          state = 'file host';
          p++;
        } else {
          if (base !== null && base.scheme === 'file') {
            // 2.1.1-2. Keep the base's host and, unless we bring our own, its drive letter.
            url.host = base.host;
            const basePath = base.path;
            if (
              !startsWithWindowsDriveLetter(input, p) &&
              typeof basePath !== 'string' &&
              isNormalizedWindowsDriveLetter(basePath[0])
            ) {
              (url.path as string[]).push(basePath[0]!);
            }
          }
          state = 'path';
        }
        break;

      case 'file host': {
        let i = p;
        while (i < length) {
          const d = input.charCodeAt(i);
          if (d === SLASH || d === BACKSLASH || d === QUESTION || d === HASH) break;
          i++;
        }
        if (i - p === 2 && isWindowsDriveLetter(input.slice(p, i))) {
          // 1.1. "file://C:/": the drive letter quirk. The buffer is not reset: the path state
          // reads it again as the first segment, so p stays at its start.
          state = 'path';
        } else if (i === p) {
          // 1.2. Empty host.
          url.host = '';
          state = 'path start';
        } else {
          // 1.3. Parse the host; "localhost" becomes the empty host.
          const host = parseHost(original, input, p, i, true);
          url.host = host === 'localhost' ? '' : host;
          state = 'path start';
          p = i;
        }
        break;
      }

      case 'path start':
        if (special) {
          // 1. Special: always a path; a leading "/" or "\" is consumed.
          state = 'path';
          if (c === SLASH || c === BACKSLASH) p++;
        } else if (c === QUESTION) {
          url.query = '';
          state = 'query';
          p++;
        } else if (c === HASH) {
          url.fragment = '';
          state = 'fragment';
          p++;
        } else if (c !== EOF) {
          state = 'path';
          if (c === SLASH) p++;
        } else {
          state = 'done';
        }
        break;

      case 'path': {
        const path = url.path as string[];
        // One iteration per segment: the buffer runs to EOF, "/", (special) "\", "?" or "#".
        for (;;) {
          let i = p;
          let d = EOF;
          let needsEncoding = false;
          for (; i < length; i++) {
            d = input.charCodeAt(i);
            if (d >= 0x80) {
              needsEncoding = true;
              continue;
            }
            const kind = PATH_STATE_CHAR[d]!;
            if (kind === COPY) continue;
            if (kind === ENCODE) needsEncoding = true;
            else if (kind === END_OF_SEGMENT || special) break;
          }
          if (i === length) d = EOF;
          const slash = d === SLASH || d === BACKSLASH;
          if (isDoubleDotSegment(input, p, i)) {
            // 1.2. ".." removes the last segment; at the end it leaves an empty one.
            shortenPath(url, path);
            if (!slash) path.push('');
          } else if (isSingleDotSegment(input, p, i)) {
            // 1.3.
            if (!slash) path.push('');
          } else {
            // 1.4. Percent-encode with the path set; a file URL's first "C|" becomes "C:".
            let segment = needsEncoding ? utf8PercentEncodeRange(input, p, i, PATH_SET) : input.slice(p, i);
            if (url.scheme === 'file' && path.length === 0 && isWindowsDriveLetter(segment)) {
              segment = segment.charAt(0) + ':';
            }
            path.push(segment);
          }
          p = i + 1;
          if (slash) continue;
          // 1.6-1.7.
          if (d === QUESTION) {
            url.query = '';
            state = 'query';
          } else if (d === HASH) {
            url.fragment = '';
            state = 'fragment';
          } else {
            state = 'done';
          }
          break;
        }
        break;
      }

      case 'opaque path': {
        let i = p;
        for (; i < length; i++) {
          const d = input.charCodeAt(i);
          if (d === QUESTION || d === HASH) break;
        }
        // 4. C0 control percent-encode set. 3. A space right before "?" or "#" becomes "%20".
        let opaque = utf8PercentEncodeRange(input, p, i, C0_CONTROL_SET);
        if (i < length && i > p && input.charCodeAt(i - 1) === SPACE) opaque = opaque.slice(0, -1) + '%20';
        url.path = opaque;
        p = i + 1;
        if (i === length) {
          state = 'done';
        } else if (input.charCodeAt(i) === QUESTION) {
          url.query = '';
          state = 'query';
        } else {
          url.fragment = '';
          state = 'fragment';
        }
        break;
      }

      case 'query': {
        // 2. The query runs to "#" or EOF; special URLs also encode "'".
        let end = input.indexOf('#', p);
        if (end < 0) end = length;
        url.query = utf8PercentEncodeRange(input, p, end, special ? SPECIAL_QUERY_SET : QUERY_SET);
        if (end < length) {
          url.fragment = '';
          state = 'fragment';
          p = end + 1;
        } else {
          state = 'done';
        }
        break;
      }

      case 'fragment':
        url.fragment = utf8PercentEncodeRange(input, p, length, FRAGMENT_SET);
        state = 'done';
        break;
    }
  }
  return url;
}
