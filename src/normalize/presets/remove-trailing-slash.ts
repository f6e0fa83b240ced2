/**
 * Preset `remove-trailing-slash`: `/dir/` as `/dir`.
 *
 * RFC 3986 treats `/data` and `/data/` as different (rfc3986.json `not_equivalent`): a server may
 * redirect one to the other, or serve different content (relative links resolve differently).
 * This preset assumes they are the same. It removes the trailing `/` (all of them) from a path
 * with something else before it. The root path `/` stays: it is the normal form of the empty
 * path (§6.2.3), so `http://a/` never becomes `http://a`. A path whose last segment would then
 * be a default-document name (`/index.html/`) also stays, so that together with
 * `remove-index-document` the result is idempotent. Only URIs with an authority are changed:
 * without one, the normal form may keep dot-segments or a `/.` prefix that a shorter path would
 * expose (`mailto:/.//` must not become `mailto:/.`).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { isIndexDocumentName } from './remove-index-document.js';

/** The path without its trailing slashes, or the same string when the rule does not apply. */
export function removeTrailingSlash(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  if (end === path.length || end === 0) return path;
  const stripped = path.slice(0, end);
  if (isIndexDocumentName(stripped.slice(stripped.lastIndexOf('/') + 1))) return path;
  return stripped;
}

export const removeTrailingSlashPreset: Preset = {
  name: 'remove-trailing-slash',
  summary: 'Remove trailing `/` from a non-root path (`/dir/` → `/dir`) of a URI with an authority; the root `/` stays.',
  removes: [
    'the trailing / (every one) of the path of a URI with an authority, when other characters come before it; the root path / and a path of only slashes stay',
    '(kept when the last segment would become a default-document name such as index.html)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.host === undefined) return rec;
    const path = removeTrailingSlash(rec.path);
    return path === rec.path ? rec : { ...rec, path };
  },
};
