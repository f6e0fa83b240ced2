/**
 * The five components of a URI reference (RFC 3986 §3), as parsed by Appendix B.
 *
 * `undefined` means the component (with its delimiter) is absent; `''` means the delimiter is
 * present and the component empty. `http://a/?` has `query: ''`, `http://a/` has `query: undefined`:
 * RFC 3986 §6.2.3 says these are not equivalent, so the record keeps the difference.
 */
export interface UriRecord {
  /** Without the trailing `:`. */
  readonly scheme: string | undefined;
  /** Without the trailing `@`. Present only when `host` is. */
  readonly userinfo: string | undefined;
  /** The authority is defined exactly when `host !== undefined` (it may be `''`: `file:///x`). IP literals keep their brackets. */
  readonly host: string | undefined;
  /** Digits only, without the `:`; `''` for an empty port (`http://a:/`). */
  readonly port: string | undefined;
  readonly path: string;
  /** Without the `?`. */
  readonly query: string | undefined;
  /** Without the `#`. */
  readonly fragment: string | undefined;
}

/** RFC 3986 §5.3: component recomposition. */
export function recompose(r: UriRecord): string {
  let out = '';
  if (r.scheme !== undefined) out += r.scheme + ':';
  if (r.host !== undefined) {
    out += '//';
    if (r.userinfo !== undefined) out += r.userinfo + '@';
    out += r.host;
    if (r.port !== undefined) out += ':' + r.port;
  }
  out += r.path;
  if (r.query !== undefined) out += '?' + r.query;
  if (r.fragment !== undefined) out += '#' + r.fragment;
  return out;
}
