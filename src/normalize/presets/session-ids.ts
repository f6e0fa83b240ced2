/**
 * Preset `session-ids`: session identifiers that servers put into URLs when cookies are off.
 * They name a visitor, not a resource, and change on every visit: a crawler that keeps them
 * sees every page again on every session.
 *
 * Path (only for URIs with an authority, whose path starts with `/`):
 * - the path parameter `;jsessionid=VALUE` (Java servlets; name ASCII case-insensitive), up to
 *   the next `;` or `/`, in any segment. A segment that would become `.` or `..` is left alone
 *   (that would make a dot-segment out of a normal path, RFC 3986 §5.2.4).
 * - an ASP.NET cookieless-state segment: `(X(value)…)` made only of groups tagged `A`, `S` or `F`
 *   with 24 or more `[A-Za-z0-9_-]` characters each, e.g. `/(S(4hqa0555fwsecu455xqckv45))/`; or the
 *   ASP.NET 1.x form `(value)` with exactly 24 characters of the session alphabet `a–z 0–5`
 *   (letters in either case), at least one of them a digit.
 *
 * Query parameters (names ASCII case-insensitive):
 * - always: `jsessionid`, `phpsessid`, `aspsessionid` followed by letters (classic ASP appends
 *   eight, `ASPSESSIONIDQQGGQGGS`), `cfid` and `cftoken` (ColdFusion), `oscsid` (osCommerce),
 *   `zenid` (Zen Cart). These names mean a session id and nothing else.
 * - only when the value looks like a session token: `sid`, `sessionid`, `session_id`, `sessid`.
 *   These names are also used for content (`sid=12` a site id, `sid=en` a section), so the value
 *   must be 16 or more ASCII letters and digits, with at least one of each
 *   (`sid=9682993c8daa2c5497996114facdc805`). A numeric id such as a 19-digit snowflake is kept.
 * When this leaves the query with no field, the `?` goes too. A path or query holding a malformed
 * `%` is left as it is (malformed-percent.ts).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import {
  equalsIgnoringAsciiCase,
  parameterName,
  parameterValue,
  removeQueryFields,
  startsWithIgnoringAsciiCase,
} from './query-parameters.js';
import { hasMalformedPercent } from './malformed-percent.js';

/** Query parameter names removed whatever their value (compared ASCII case-insensitively). */
export const sessionParameterNames: readonly string[] = ['jsessionid', 'phpsessid', 'cfid', 'cftoken', 'oscsid', 'zenid'];
/** Query parameter name prefix removed when the rest of the name is ASCII letters. */
export const sessionParameterLetterPrefixes: readonly string[] = ['aspsessionid'];
/** Query parameter names removed only when the value looks like a session token. */
export const guardedSessionParameterNames: readonly string[] = ['sid', 'sessionid', 'session_id', 'sessid'];
/** Shortest value of a guarded name that counts as a session token. */
export const SESSION_TOKEN_MIN_LENGTH = 16;

const JSESSIONID_PARAMETER = ';jsessionid=';

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isAsciiDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** 16+ ASCII letters and digits (and `-`, `_` where `dashes`), at least one letter and one digit. */
function tokenShaped(value: string, dashes: boolean): boolean {
  if (value.length < SESSION_TOKEN_MIN_LENGTH) return false;
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (isAsciiLetter(c)) letters++;
    else if (isAsciiDigit(c)) digits++;
    else if (!(dashes && (c === 0x2d || c === 0x5f))) return false;
  }
  return letters > 0 && digits > 0;
}

/** 16+ ASCII letters and digits, at least one of each. */
export function looksLikeSessionToken(value: string): boolean {
  return tokenShaped(value, false);
}

/**
 * A value a server minted rather than one a page offers or a person wrote: a session token's
 * shape, `-` and `_` allowed too (Tomcat's 32 hex digits, PHP's 26 to 32 characters, ASP.NET's
 * 24, a click id, a request id). Where it is evidence, not a preset's licence to drop it: the
 * learner's parameter values (rule-scope.ts) and a not-found page's shape (page-shape.ts).
 */
export function looksMinted(value: string): boolean {
  return tokenShaped(value, true);
}

function isSessionParameter(field: string): boolean {
  const name = parameterName(field);
  for (const n of sessionParameterNames) if (equalsIgnoringAsciiCase(name, n)) return true;
  for (const prefix of sessionParameterLetterPrefixes) {
    if (startsWithIgnoringAsciiCase(name, prefix)) {
      let letters = true;
      for (let i = prefix.length; i < name.length; i++) if (!isAsciiLetter(name.charCodeAt(i))) letters = false;
      if (letters) return true;
    }
  }
  for (const n of guardedSessionParameterNames) {
    if (equalsIgnoringAsciiCase(name, n)) {
      const value = parameterValue(field);
      return value !== undefined && looksLikeSessionToken(value);
    }
  }
  return false;
}

/** Remove every `;jsessionid=…` path parameter from one segment; the same string when none. */
function removeJsessionid(segment: string): string {
  let at = segment.indexOf(';');
  if (at === -1) return segment;
  let out = '';
  let copied = 0;
  while (at !== -1) {
    if (startsWithIgnoringAsciiCase(segment, JSESSIONID_PARAMETER, at)) {
      // The value runs to the next path parameter or the end of the segment.
      const next = segment.indexOf(';', at + JSESSIONID_PARAMETER.length);
      out += segment.slice(copied, at);
      copied = next === -1 ? segment.length : next;
      at = next;
    } else {
      at = segment.indexOf(';', at + 1);
    }
  }
  if (copied === 0) return segment;
  out += segment.slice(copied);
  // Never turn a segment into a dot-segment (RFC 3986 §5.2.4).
  return out === '.' || out === '..' ? segment : out;
}

const ASPNET_SESSION_ALPHABET_LENGTH = 24;

function isAspNetTicketChar(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === 0x2d /* - */ || c === 0x5f /* _ */;
}
/** ASP.NET session ids are 24 characters of `abcdefghijklmnopqrstuvwxyz012345`. */
function isAspNetSessionChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x35);
}

/** `(S(x))`, `(A(x)S(x)F(x))` or `(x)`: an ASP.NET cookieless-state segment (see the module comment). */
export function isAspNetCookielessSegment(segment: string): boolean {
  const n = segment.length;
  if (n < 2 || segment.charCodeAt(0) !== 0x28 /* ( */ || segment.charCodeAt(n - 1) !== 0x29 /* ) */) return false;
  // ASP.NET 1.x: `(` 24 session characters `)`.
  if (n === ASPNET_SESSION_ALPHABET_LENGTH + 2) {
    let ok = true;
    let digits = 0;
    for (let i = 1; i < n - 1; i++) {
      const c = segment.charCodeAt(i);
      if (!isAspNetSessionChar(c)) ok = false;
      else if (isAsciiDigit(c)) digits++;
    }
    if (ok && digits > 0) return true;
  }
  // ASP.NET 2.0+: `(` then one or more `T(value)` with T in A, S, F, then `)`.
  let i = 1;
  let groups = 0;
  while (i < n - 1) {
    const tag = segment.charCodeAt(i) | 0x20;
    if (tag !== 0x61 && tag !== 0x73 && tag !== 0x66) return false; // a, s, f
    if (segment.charCodeAt(i + 1) !== 0x28) return false;
    let j = i + 2;
    while (j < n - 1 && isAspNetTicketChar(segment.charCodeAt(j))) j++;
    if (j - (i + 2) < ASPNET_SESSION_ALPHABET_LENGTH || segment.charCodeAt(j) !== 0x29) return false;
    i = j + 1;
    groups++;
  }
  return groups > 0;
}

function removePathSessionIds(rec: UriRecord): UriRecord {
  const path = rec.path;
  // Only hierarchical paths under an authority: there the path starts with `/`, and dropping a
  // segment cannot make it read as an authority (`//…`) or a scheme (`a:…`).
  if (rec.host === undefined || path.charCodeAt(0) !== 0x2f) return rec;
  if ((path.indexOf(';') === -1 && path.indexOf('(') === -1) || hasMalformedPercent(path)) return rec;
  const segments = path.split('/'); // segments[0] === '' (the path starts with `/`)
  const kept: string[] = [''];
  let changed = false;
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    // `;jsessionid=` first: what is left may be an ASP.NET segment (`(S(…));jsessionid=…`).
    const stripped = removeJsessionid(segment);
    if (isAspNetCookielessSegment(stripped)) {
      changed = true;
      // A last segment leaves its `/` behind, so the path never becomes empty.
      if (i === segments.length - 1) kept.push('');
      continue;
    }
    if (stripped !== segment) changed = true;
    kept.push(stripped);
  }
  if (!changed) return rec;
  return { ...rec, path: kept.length === 1 ? '/' : kept.join('/') };
}

export const sessionIds: Preset = {
  name: 'session-ids',
  summary:
    'Remove session identifiers: `;jsessionid=` path parameters, ASP.NET cookieless `(S(…))` segments, and session query parameters (`sid` and the like only when the value looks like a token).',
  removes: [
    'path parameter ;jsessionid=VALUE (name case-insensitive) in any segment, unless the segment would become . or ..',
    'ASP.NET cookieless path segment (S(id)), (A(id)S(id)F(id)) (tags A, S, F; 24+ chars of [A-Za-z0-9_-] each) or (id) (exactly 24 chars of a-z 0-5, at least one digit)',
    ...sessionParameterNames.map((n) => `query parameter ${n} (any value; name case-insensitive)`),
    ...sessionParameterLetterPrefixes.map((p) => `query parameter ${p}<letters> (any value; name case-insensitive)`),
    ...guardedSessionParameterNames.map(
      (n) =>
        `query parameter ${n} (name case-insensitive) only when its value is ${SESSION_TOKEN_MIN_LENGTH}+ ASCII letters and digits with at least one of each`,
    ),
    'the ? when no query field is left',
    '(a path or query holding a malformed %, one not followed by two hex digits, is left as it is)',
  ],
  apply(rec: UriRecord): UriRecord {
    return removeQueryFields(removePathSessionIds(rec), isSessionParameter);
  },
};
