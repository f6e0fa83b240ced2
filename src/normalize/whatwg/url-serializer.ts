/**
 * WHATWG URL Standard §4.5 "URL serializing".
 */
import type { WhatwgUrl } from './url-record.js';

/** §4.5 "URL path serializer". */
export function serializePath(url: WhatwgUrl): string {
  // 1. If url has an opaque path, return it.
  const path = url.path;
  if (typeof path === 'string') return path;
  // 2-3. "/" followed by each segment.
  let output = '';
  for (let i = 0; i < path.length; i++) output += '/' + path[i]!;
  return output;
}

/** §4.5 "URL serializer": the href. */
export function serializeWhatwg(url: WhatwgUrl, excludeFragment = false): string {
  // 1. scheme ":"
  let output = url.scheme + ':';
  // 2. "//" [ username [ ":" password ] "@" ] host [ ":" port ]
  if (url.host !== null) {
    output += '//';
    if (url.username !== '' || url.password !== '') {
      output += url.username;
      if (url.password !== '') output += ':' + url.password;
      output += '@';
    }
    output += url.host;
    if (url.port !== null) output += ':' + url.port;
  }
  // 3. No host, a path of more than one segment whose first is empty: "/." keeps "//" from reading as a host.
  const path = url.path;
  if (url.host === null && typeof path !== 'string' && path.length > 1 && path[0] === '') output += '/.';
  // 4. The path.
  output += serializePath(url);
  // 5-6. "?" query, "#" fragment.
  if (url.query !== null) output += '?' + url.query;
  if (!excludeFragment && url.fragment !== null) output += '#' + url.fragment;
  return output;
}
