/**
 * WHATWG URL Standard §6.1 "URL class" getters as pure functions of a URL record, and the origin
 * of a URL (§4.7 "Origin", HTML "serialization of an origin").
 */
import { basicUrlParse } from './basic-url-parser.js';
import type { WhatwgUrl } from './url-record.js';
import { serializePath } from './url-serializer.js';

/** `protocol` getter: scheme followed by ":". */
export function protocolOf(url: WhatwgUrl): string {
  return url.scheme + ':';
}

/** `host` getter: '' without a host; the host and, if there is one, ":" port. */
export function hostOf(url: WhatwgUrl): string {
  if (url.host === null) return '';
  return url.port === null ? url.host : url.host + ':' + url.port;
}

/** `hostname` getter. */
export function hostnameOf(url: WhatwgUrl): string {
  return url.host ?? '';
}

/** `port` getter. */
export function portOf(url: WhatwgUrl): string {
  return url.port === null ? '' : String(url.port);
}

/** `pathname` getter: the URL path serialized. */
export function pathnameOf(url: WhatwgUrl): string {
  return serializePath(url);
}

/** `search` getter: '' when the query is null or empty, else "?" query. */
export function searchOf(url: WhatwgUrl): string {
  return url.query === null || url.query === '' ? '' : '?' + url.query;
}

/** `hash` getter: '' when the fragment is null or empty, else "#" fragment. */
export function hashOf(url: WhatwgUrl): string {
  return url.fragment === null || url.fragment === '' ? '' : '#' + url.fragment;
}

/**
 * The serialized origin of a URL (§4.7): "scheme://host[:port]" for http, https, ws, wss and ftp;
 * for blob, the origin of the URL in its path when that is http or https; otherwise an opaque
 * origin, serialized "null" (file is implementation-defined and opaque here, as in browsers).
 */
export function originOf(url: WhatwgUrl): string {
  switch (url.scheme) {
    case 'blob': {
      // 1. (no blob URL entry) 2. Parse the path serialized; 3-4. http(s) gives its origin.
      let pathUrl: WhatwgUrl;
      try {
        pathUrl = basicUrlParse(serializePath(url), null);
      } catch {
        return 'null';
      }
      return pathUrl.scheme === 'http' || pathUrl.scheme === 'https' ? originOf(pathUrl) : 'null';
    }
    case 'ftp':
    case 'http':
    case 'https':
    case 'ws':
    case 'wss':
      return url.scheme + '://' + hostOf(url);
    default:
      return 'null';
  }
}
