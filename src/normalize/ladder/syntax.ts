/**
 * RFC 3986 §6.2.2: syntax-based normalization. A record in, a record out; no scheme knowledge.
 */
import { FRAGMENT, normalizePercentEncoding, PATH, QUERY, REG_NAME, USERINFO } from '../percent-encoding.js';
import { removeDotSegments } from '../remove-dot-segments.js';
import type { UriRecord } from '../uri-record.js';

function lowercaseAscii(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return s.toLowerCase();
  }
  return s;
}

/**
 * §6.2.2.3 on a record's path. Only hierarchical paths (with an authority, or starting with "/")
 * have dot-segments; a rootless path (`mailto:a/../b`, `urn:…`) is opaque data, as the WHATWG
 * "opaque path" treats it. Departure: where removal would leave a path starting with "//" and no
 * authority, "/." is kept in front, or the path would be read back as an authority (§3.3).
 */
export function removeRecordDotSegments(r: UriRecord): string {
  const path = r.path;
  if (r.host === undefined && path.charCodeAt(0) !== 0x2f) return path;
  const out = removeDotSegments(path);
  if (r.host === undefined && out.charCodeAt(1) === 0x2f && out.charCodeAt(0) === 0x2f) return '/.' + out;
  return out;
}

/**
 * §6.2.2.1 case normalization, §6.2.2.2 percent-encoding normalization, §6.2.2.3 dot-segments.
 * `strict` rejects what RFC 3986 does not allow instead of percent-encoding it.
 */
export function syntaxNormalize(r: UriRecord, input: string, strict: boolean): UriRecord {
  const scheme = r.scheme === undefined ? undefined : lowercaseAscii(r.scheme);
  const userinfo =
    r.userinfo === undefined
      ? undefined
      : normalizePercentEncoding(r.userinfo, USERINFO, strict, false, 'ERR_INVALID_AUTHORITY', input);
  let host = r.host;
  if (host !== undefined) {
    host =
      host.charCodeAt(0) === 0x5b
        ? lowercaseAscii(host) // IP-literal: hex digits are case-insensitive
        : normalizePercentEncoding(host, REG_NAME, strict, true, 'ERR_INVALID_HOST', input);
  }
  const pathEncoded = normalizePercentEncoding(r.path, PATH, strict, false, 'ERR_INVALID_CHARACTER', input);
  const query =
    r.query === undefined
      ? undefined
      : normalizePercentEncoding(r.query, QUERY, strict, false, 'ERR_INVALID_CHARACTER', input);
  const fragment =
    r.fragment === undefined
      ? undefined
      : normalizePercentEncoding(r.fragment, FRAGMENT, strict, false, 'ERR_INVALID_CHARACTER', input);
  const encoded = { scheme, userinfo, host, port: r.port, path: pathEncoded, query, fragment };
  const path = removeRecordDotSegments(encoded);
  return path === pathEncoded ? encoded : { ...encoded, path };
}
