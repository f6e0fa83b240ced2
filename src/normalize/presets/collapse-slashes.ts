/**
 * Preset `collapse-slashes`: `/a//b` as `/a/b`.
 *
 * RFC 3986 §3.3 gives an empty segment its own meaning, and many servers (object stores, routers
 * matching segments) serve `/a//b` and `/a/b` differently; others (Apache and nginx on files)
 * collapse them. The preset replaces every run of `/` in the path with one `/`, in URIs with an
 * authority only: without one, a path that starts with `//` is written `/.//` so that it cannot
 * read as an authority (RFC 3986 §3.3), and `urn:a//b` or `mailto:` paths are not hierarchical
 * locations. A path holding a malformed `%` is left alone too (malformed-percent.ts).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { hasMalformedPercent } from './malformed-percent.js';

/** The path with every run of `/` made one `/`; the same string when it has none. */
export function collapseSlashes(path: string): string {
  if (path.indexOf('//') === -1) return path;
  let out = '';
  let copied = 0;
  let i = path.indexOf('//');
  while (i !== -1) {
    let end = i + 2;
    while (end < path.length && path.charCodeAt(end) === 0x2f) end++;
    out += path.slice(copied, i + 1);
    copied = end;
    i = path.indexOf('//', end);
  }
  return out + path.slice(copied);
}

export const collapseSlashesPreset: Preset = {
  name: 'collapse-slashes',
  summary: 'Make every run of `/` in the path one `/` (`/a//b` → `/a/b`), in URIs with an authority.',
  removes: [
    'empty path segments: each run of / in the path of a URI with an authority becomes one /',
    '(a path holding a malformed %, one not followed by two hex digits, is left as it is)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.host === undefined || hasMalformedPercent(rec.path)) return rec;
    const path = collapseSlashes(rec.path);
    return path === rec.path ? rec : { ...rec, path };
  },
};
