/**
 * The canonical key: the normal form rearranged so that one host's keys sort together in LevelDB.
 *
 * Format, version 1 (`KEY_FORMAT_VERSION`):
 *
 *     key      = sorthost ")" tail
 *     sorthost = ""                                 ; no authority, or an empty host (file:///)
 *              / ip-literal / IPv4address            ; as written: "[2001:db8::1]", "192.0.2.1"
 *              / label *( "," label )                ; domain labels in reverse: "com,example,www"
 *     tail     = scheme ":" [ "//" [ userinfo "@" ] [ ":" port ] ] path [ "?" query ] [ "#" fragment ]
 *
 * that is, the normal form with its host moved to the front (`https://www.example.com:8080/a?b`
 * → `com,example,www)https://:8080/a?b`). In the host part `%`, `,` and `)` are written `%25`, `%2C`
 * and `%29`, so the first `)` always ends it. The key is a bijection of the normal form
 * (`urlFromKey(keyFromNormal(u)) === u`): two URLs get the same key exactly when their normal
 * forms are equal, and nothing that distinguishes them (scheme, userinfo, port, path and query case,
 * an empty `?`) is lost — unlike the Internet Archive's SURT, which is lossy (see surt.ts for that).
 * It depends only on the input string (and Node's UTS #46 tables through the host parser), never on
 * the machine or the run.
 */
import { normalizeWith, resolveNormalizeOptions, type NormalizeOptions, type ResolvedOptions } from './normalize.js';
import { defaultLimits } from './limits.js';
import { urlArgument } from './misuse.js';
import { parseUriReference } from './parse.js';
import { sortHost } from './sort-host.js';
import { keyOf, normalOf, singlePassKey, singlePassScan, SinglePassResult, type AuthorityFailure } from './single-pass/single-pass.js';
import type { UriRecord } from './uri-record.js';
import { recompose } from './uri-record.js';

/** Bumped when the key layout changes; the store records it and refuses a mismatch. */
export const KEY_FORMAT_VERSION = 1;

export { sortHost };

function unescapeHostPart(part: string): string {
  if (part.indexOf('%') === -1) return part;
  return part.replace(/%(25|2C|29)/g, (_, h: string) => (h === '25' ? '%' : h === '2C' ? ',' : ')'));
}

function unsortHost(part: string): string {
  // A reversed domain never holds "."; an IPv4 address always does; a literal starts with "[".
  if (part.charCodeAt(0) === 0x5b || part.indexOf('.') !== -1 || part.indexOf(',') === -1) return unescapeHostPart(part);
  return unescapeHostPart(part.split(',').reverse().join('.'));
}

/** The key of a record in normal form. */
export function keyFromRecord(r: UriRecord): string {
  const head = r.host === undefined ? '' : sortHost(r.host);
  let tail = (r.scheme ?? '') + ':';
  if (r.host !== undefined) {
    tail += '//';
    if (r.userinfo !== undefined) tail += r.userinfo + '@';
    if (r.port !== undefined) tail += ':' + r.port;
  }
  tail += r.path;
  if (r.query !== undefined) tail += '?' + r.query;
  if (r.fragment !== undefined) tail += '#' + r.fragment;
  return head + ')' + tail;
}

/** The key of a string already in normal form (the output of `normalize`). */
export function keyFromNormal(normalForm: string): string {
  return singlePassKey(normalForm) ?? keyFromRecord(parseUriReference(normalForm, { maxLength: Number.MAX_SAFE_INTEGER }));
}

/** The normal form a key was made from. */
export function urlFromKey(key: string): string {
  const close = key.indexOf(')');
  if (close === -1) throw new TypeError('urlFromKey: not a urldedup key');
  const head = key.slice(0, close);
  const tail = key.slice(close + 1);
  const colon = tail.indexOf(':');
  if (tail.charCodeAt(colon + 1) !== 0x2f || tail.charCodeAt(colon + 2) !== 0x2f) return tail; // no authority
  // "//" [ userinfo "@" ] [ ":" port ] — the host goes after the userinfo, before the port
  const authStart = colon + 3;
  let authEnd = authStart;
  while (authEnd < tail.length) {
    const c = tail.charCodeAt(authEnd);
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    authEnd++;
  }
  const at = tail.lastIndexOf('@', authEnd - 1);
  const insertAt = at >= authStart ? at + 1 : authStart;
  return tail.slice(0, insertAt) + unsortHost(head) + tail.slice(insertAt);
}

/** The single pass's record for the scans made here (read only within the call that scanned). */
const scanned = new SinglePassResult();

/** Normalize `url` (a string or a `URL`) with `options` and return its canonical key. Throws `UrlError` like `normalize`. */
export function key(url: string | URL, options?: NormalizeOptions): string {
  if (typeof url !== 'string') url = urlArgument('key', 'url', url);
  if (options === undefined) {
    // the default options, known without resolving them (the common call: one per extracted link)
    if (url.length > defaultLimits.maxLength) return keyFromRecord(normalizeWith(url, resolveNormalizeOptions(undefined), true));
    if (singlePassScan(url, scanned)) return keyOf(scanned, url);
    return keyFromRecord(normalizeWith(url, resolveNormalizeOptions(undefined), true, scanned.failure));
  }
  const o = resolveNormalizeOptions(options, 'key');
  if (!(o.fast && o.presets.length === 0 && url.length <= o.maxLength)) return keyFromRecord(normalizeWith(url, o, true));
  if (singlePassScan(url, scanned, o.strict)) return keyOf(scanned, url);
  return keyFromRecord(normalizeWith(url, o, true, scanned.failure));
}

/** The normal form and the key together, for callers that need both. */
export function normalizeAndKey(url: string | URL, options?: NormalizeOptions): { readonly normal: string; readonly key: string } {
  if (typeof url !== 'string') url = urlArgument('normalizeAndKey', 'url', url);
  return normalizeAndKeyWith(url, resolveNormalizeOptions(options, 'normalizeAndKey'));
}

/** `normalizeAndKey` with options resolved once by the caller. */
export function normalizeAndKeyWith(url: string, o: ResolvedOptions): { readonly normal: string; readonly key: string } {
  let failure: AuthorityFailure | undefined;
  if (o.fast && o.presets.length === 0 && url.length <= o.maxLength) {
    if (singlePassScan(url, scanned, o.strict, true)) return { normal: normalOf(scanned, url), key: keyOf(scanned, url) };
    failure = scanned.failure;
  }
  const r = normalizeWith(url, o, true, failure);
  return { normal: recompose(r), key: keyFromRecord(r) };
}
