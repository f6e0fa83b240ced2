/**
 * Presets on the query as a whole: `remove-empty-params`, `remove-empty-query`, `remove-query`.
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { hasMalformedPercent } from './malformed-percent.js';
import { queryFields } from './query-parameters.js';

/** The query without empty fields (`&&`, leading or trailing `&`); the same string when it has none. */
export function removeEmptyFields(query: string): string {
  if (query === '' || (query.indexOf('&&') === -1 && query.charCodeAt(0) !== 0x26 && query.charCodeAt(query.length - 1) !== 0x26)) {
    return query;
  }
  return queryFields(query)
    .filter((f) => f !== '')
    .join('&');
}

export const removeEmptyParams: Preset = {
  name: 'remove-empty-params',
  summary:
    'Remove empty query fields: nothing between two `&` or at either end (`?&a=1&&b=2&` → `?a=1&b=2`); `a=` and `a` are not empty. The `?` stays.',
  removes: [
    'empty query fields (&& and a leading or trailing &); a field with a name, such as a or a=, is kept; the ? stays',
    '(a query holding a malformed %, one not followed by two hex digits, is left as it is)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.query === undefined || hasMalformedPercent(rec.query)) return rec;
    const query = removeEmptyFields(rec.query);
    return query === rec.query ? rec : { ...rec, query };
  },
};

export const removeEmptyQuery: Preset = {
  name: 'remove-empty-query',
  summary: 'Remove a `?` with nothing after it (`/a?` → `/a`); RFC 3986 §6.2.3 keeps them distinct.',
  removes: ['the ? of an empty query'],
  apply(rec: UriRecord): UriRecord {
    return rec.query === '' ? { ...rec, query: undefined } : rec;
  },
};

export const removeQuery: Preset = {
  name: 'remove-query',
  summary: 'Remove the whole query and its `?` (the Safe Browsing v4 Go client key).',
  removes: ['the query and its ?'],
  apply(rec: UriRecord): UriRecord {
    return rec.query === undefined ? rec : { ...rec, query: undefined };
  },
};
