/**
 * Preset `remove-index-document`: `/dir/index.html` as `/dir/`.
 *
 * Servers commonly answer a directory URL with a default document, but which one (and whether the
 * two URLs match) is server configuration, not syntax: only a redirect or the content proves it
 * (RFC 3986 §6.2.4, the store learns it per host). This preset assumes it for a fixed list of
 * names in the last segment of a path under an authority, whatever the query.
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';

/** Last segments removed, exactly as written (Apache, nginx, IIS, PHP and Java defaults). */
export const indexDocumentNames: readonly string[] = [
  'index.html',
  'index.htm',
  'index.shtml',
  'index.php',
  'index.jsp',
  'index.asp',
  'index.aspx',
  'default.htm',
  'default.html',
  'default.asp',
  'default.aspx',
  'Default.htm',
  'Default.asp',
  'Default.aspx',
];

const names: ReadonlySet<string> = new Set(indexDocumentNames);

export function isIndexDocumentName(segment: string): boolean {
  return names.has(segment);
}

export const removeIndexDocument: Preset = {
  name: 'remove-index-document',
  summary: 'Remove a default-document last segment (`/dir/index.html` → `/dir/`), names exactly as listed.',
  removes: indexDocumentNames.map((n) => `a last path segment ${n} (the / before it stays)`),
  apply(rec: UriRecord): UriRecord {
    if (rec.host === undefined) return rec;
    const slash = rec.path.lastIndexOf('/');
    if (slash === -1 || !names.has(rec.path.slice(slash + 1))) return rec;
    return { ...rec, path: rec.path.slice(0, slash + 1) };
  },
};
