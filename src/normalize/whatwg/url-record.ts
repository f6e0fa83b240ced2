/**
 * WHATWG URL Standard §4.1 "URL representation": the URL record, and §4.2 special schemes.
 */

/** A URL record (URL Standard §4.1). `host` is the serialized host (§3.6); `path` is a string when opaque. */
export interface WhatwgUrl {
  /** ASCII lowercase, without the trailing `:`. */
  scheme: string;
  /** Percent-encoded with the userinfo set. */
  username: string;
  /** Percent-encoded with the userinfo set. */
  password: string;
  /** Serialized host; `null` when the URL has no host, `''` for an empty host (`file:///x`). */
  host: string | null;
  /** `null` when absent or the scheme's default port. */
  port: number | null;
  /** A list of segments, or a string (an opaque path: `mailto:x`, `data:…`). */
  path: string[] | string;
  query: string | null;
  fragment: string | null;
}

/** §4.2: "A special scheme is a scheme listed below": ftp, file, http, https, ws, wss. */
export function isSpecialScheme(scheme: string): boolean {
  switch (scheme) {
    case 'http':
    case 'https':
    case 'ws':
    case 'wss':
    case 'ftp':
    case 'file':
      return true;
    default:
      return false;
  }
}

/** §4.2: a special scheme's default port (null for file and for every non-special scheme). */
export function defaultPort(scheme: string): number | null {
  switch (scheme) {
    case 'http':
    case 'ws':
      return 80;
    case 'https':
    case 'wss':
      return 443;
    case 'ftp':
      return 21;
    default:
      return null;
  }
}

/** §4.1: "A URL has an opaque path if its path is a URL path segment" (a string). */
export function hasOpaquePath(url: WhatwgUrl): url is WhatwgUrl & { path: string } {
  return typeof url.path === 'string';
}
