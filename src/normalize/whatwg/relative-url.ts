/**
 * §4.4 basic URL parser for the case of nearly every link in a page: a relative-URL string
 * (path-relative, path-absolute, query-only or fragment-only) against an http(s) base, made only
 * of code points the parser copies as they are. Such input has no C0 control, space, tab or
 * newline to trim or remove (steps 1-3), no backslash, no scheme and no authority, and nothing of
 * the path, special-query or fragment percent-encode set, so the parser only passes through the
 * relative, relative slash, path, query and fragment states, which `parseRelativeUrl` follows
 * step by step. Anything else returns `undefined`, for `basicUrlParse` to parse.
 * test/normalize/relative-url.test.ts checks that both give the same record.
 */
import { isDoubleDotSegment, isSingleDotSegment } from './basic-url-parser.js';
import type { WhatwgUrl } from './url-record.js';

const SLASH = 0x2f;
const COLON = 0x3a;
const QUESTION = 0x3f;
const HASH = 0x23;

/**
 * The ASCII code points taken here: those in none of the path, special-query and fragment
 * percent-encode sets, less `\` (a special URL's path separator), `[`, `]` and `|`.
 */
const TAKEN = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/?#%') TAKEN[c.charCodeAt(0)] = 1;

/** The record `basicUrlParse(input, base)` gives, for the input described above; else undefined. */
export function parseRelativeUrl(input: string, base: WhatwgUrl): WhatwgUrl | undefined {
  if ((base.scheme !== 'http' && base.scheme !== 'https') || typeof base.path === 'string') return undefined;
  const n = input.length;
  if (n === 0) return undefined;
  // where the path ends (the first "?" or "#") and the fragment starts (the first "#"); a ":"
  // before any "/", "?" or "#" may end a scheme: the full parser decides
  let pathEnd = n;
  let hash = n;
  let delimited = false;
  for (let i = 0; i < n; i++) {
    const c = input.charCodeAt(i);
    if (c >= 0x80 || TAKEN[c] === 0) return undefined;
    if (c === COLON) {
      if (!delimited) return undefined;
    } else if (c === SLASH) {
      delimited = true;
    } else if (c === QUESTION) {
      delimited = true;
      if (pathEnd === n) pathEnd = i;
    } else if (c === HASH && hash === n) {
      delimited = true;
      if (pathEnd === n) pathEnd = i;
      hash = i;
    }
  }
  const first = input.charCodeAt(0);
  let path: string[];
  let query: string | null;
  if (first === HASH) {
    // relative state, "#": base's path and query, an empty fragment to fill
    path = base.path.slice();
    query = base.query;
  } else if (first === QUESTION) {
    // relative state, "?": base's path, the query up to "#"
    path = base.path.slice();
    query = input.slice(1, hash);
  } else {
    let start = 0;
    if (first === SLASH) {
      // relative slash state: "//" starts an authority (the full parser's); else the path state
      // from the next code point, on an empty path
      if (n > 1 && input.charCodeAt(1) === SLASH) return undefined;
      path = [];
      start = 1;
    } else {
      // relative state, otherwise: base's path, shortened (not a file URL: the last item goes)
      path = base.path.slice();
      path.pop();
    }
    // path state: a segment ends at "/" or at the path's end (EOF, "?" or "#")
    let segment = start;
    for (let i = start; i <= pathEnd; i++) {
      if (i < pathEnd && input.charCodeAt(i) !== SLASH) continue;
      const atSlash = i < pathEnd;
      if (isDoubleDotSegment(input, segment, i)) {
        path.pop();
        if (!atSlash) path.push('');
      } else if (isSingleDotSegment(input, segment, i)) {
        if (!atSlash) path.push('');
      } else {
        path.push(input.slice(segment, i));
      }
      segment = i + 1;
    }
    query = pathEnd < hash ? input.slice(pathEnd + 1, hash) : null;
  }
  return {
    scheme: base.scheme,
    username: base.username,
    password: base.password,
    host: base.host,
    port: base.port,
    path,
    query,
    fragment: hash < n ? input.slice(hash + 1) : null,
  };
}
