/**
 * Preset `collapse-slashes`: `/a//b` as `/a/b`.
 *
 * RFC 3986 §3.3 gives an empty segment its own meaning, and many servers (object stores, routers
 * matching segments) serve `/a//b` and `/a/b` differently; others (Apache and nginx on files)
 * collapse them. The preset replaces every run of `/` in the path with one `/`. Rootless paths
 * (`urn:a//b`, `mailto:…`) are left alone.
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';

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
  summary: 'Make every run of `/` in the path one `/` (`/a//b` → `/a/b`); rootless paths are left alone.',
  removes: ['empty path segments: each run of / in a path that starts with / becomes one /'],
  apply(rec: UriRecord): UriRecord {
    if (rec.path.charCodeAt(0) !== 0x2f) return rec;
    const path = collapseSlashes(rec.path);
    return path === rec.path ? rec : { ...rec, path };
  },
};
