/**
 * RFC 3986 §6.2.3: scheme-based normalization, from the scheme registry (schemes/registry.ts).
 * Input: a record already through the syntax rung.
 */
import { UrlError } from '../errors.js';
import { parseIPv6, parseSpecialHost, serializeIPv6 } from '../host.js';
import { schemeRule } from '../schemes/registry.js';
import type { UriRecord } from '../uri-record.js';

export interface SchemeRungOptions {
  /** Keep the fragment; by default it is dropped, since it is never sent to a server (§3.5). */
  readonly keepFragment: boolean;
}

/** §3.2.3 port: leading zeros are not significant ("080" is 80); above 65535 is invalid for a network scheme. */
function canonicalPort(port: string, input: string): string {
  let i = 0;
  while (i < port.length - 1 && port.charCodeAt(i) === 0x30) i++;
  const digits = i === 0 ? port : port.slice(i);
  if (digits.length > 5 || Number(digits) > 65535) throw new UrlError('ERR_INVALID_PORT', input);
  return digits;
}

/** §3.2.2: an IPv6 literal in RFC 5952 text form; IPvFuture is left as written. */
function canonicalIpLiteral(host: string, input: string): string {
  const inner = host.slice(1, -1);
  if (inner.charCodeAt(0) === 0x76) return host; // "v" IPvFuture, already lowercased
  const pieces = parseIPv6(inner);
  if (pieces === null) throw new UrlError('ERR_INVALID_HOST', input, { detail: 'invalid IPv6 literal' });
  return '[' + serializeIPv6(pieces) + ']';
}

export function schemeNormalize(r: UriRecord, input: string, options: SchemeRungOptions): UriRecord {
  if (r.scheme === undefined) throw new UrlError('ERR_RELATIVE_URL', input);
  const rule = schemeRule(r.scheme);
  let { userinfo, host, port, path, fragment } = r;

  if (host !== undefined) {
    if (rule.specialHost && host !== '') host = parseSpecialHost(host, input);
    else if (host.charCodeAt(0) === 0x5b) host = canonicalIpLiteral(host, input);
  }
  if (rule.requiresHost && (host === undefined || host === '')) {
    throw new UrlError('ERR_INVALID_HOST', input, { detail: `${rule.scheme} requires a host` });
  }
  if (port !== undefined) {
    // §3.2.3: omit the port when it is empty or the scheme's default.
    if (port === '') port = undefined;
    else if (rule.defaultPort !== undefined) {
      port = canonicalPort(port, input);
      if (port === rule.defaultPort) port = undefined;
    }
  }
  if (rule.dropEmptyUserinfo && userinfo !== undefined) {
    if (userinfo === '' || userinfo === ':') userinfo = undefined;
    else if (userinfo.charCodeAt(userinfo.length - 1) === 0x3a && userinfo.indexOf(':') === userinfo.length - 1) {
      userinfo = userinfo.slice(0, -1); // "user:" has an empty password: the same credentials as "user"
    }
  }
  if (rule.emptyPathIsRoot && path === '' && host !== undefined) path = '/';
  if (!options.keepFragment) fragment = undefined;

  const out: UriRecord =
    userinfo === r.userinfo && host === r.host && port === r.port && path === r.path && fragment === r.fragment
      ? r
      : { scheme: r.scheme, userinfo, host, port, path, query: r.query, fragment };
  return rule.extra ? rule.extra(out, input) : out;
}
