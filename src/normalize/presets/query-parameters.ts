/**
 * The query as a list of parameters, for the presets that edit it.
 *
 * RFC 3986 §3.4 gives the query no inner structure. The presets read it the way
 * `application/x-www-form-urlencoded` (WHATWG URL Standard §5.1) and nearly every server does:
 * fields separated by `&` only (`;` is data, never a separator), the name is everything before
 * the first `=` of a field (the whole field when it has no `=`). Names and values are compared
 * exactly as they stand in the normal form: percent-encoding is never decoded here and `+` is
 * never read as a space, so `a=` and `a`, `%26` and `&`, `+` and `%20` stay distinct.
 */
import type { UriRecord } from '../uri-record.js';
import { hasMalformedPercent } from './malformed-percent.js';

/** The `&`-separated fields of a query, empty fields included (`'a&&b'` → `['a', '', 'b']`). */
export function queryFields(query: string): string[] {
  return query.split('&');
}

/** The parameter name of a field: the text before its first `=`, or the whole field. */
export function parameterName(field: string): string {
  const eq = field.indexOf('=');
  return eq === -1 ? field : field.slice(0, eq);
}

/** The parameter value of a field: the text after its first `=`, or `undefined` when there is no `=`. */
export function parameterValue(field: string): string | undefined {
  const eq = field.indexOf('=');
  return eq === -1 ? undefined : field.slice(eq + 1);
}

/**
 * Remove every field for which `isRemoved(field)` holds. Returns the same record when no field
 * is removed. When fields were removed and nothing is left, the `?` goes too: the delimiter came
 * with the parameters (`/?utm_source=x` is the tagged form of `/`, not of `/?`). A query holding
 * a malformed `%` is left as it is (malformed-percent.ts).
 */
export function removeQueryFields(rec: UriRecord, isRemoved: (field: string) => boolean): UriRecord {
  const query = rec.query;
  if (query === undefined || query === '' || hasMalformedPercent(query)) return rec;
  const fields = queryFields(query);
  const kept: string[] = [];
  for (const field of fields) if (!isRemoved(field)) kept.push(field);
  if (kept.length === fields.length) return rec;
  const rest = kept.join('&');
  return { ...rec, query: rest === '' ? undefined : rest };
}

/** ASCII case-insensitive equality of a name against a lowercase word, without allocating. */
export function equalsIgnoringAsciiCase(name: string, lowercaseWord: string): boolean {
  if (name.length !== lowercaseWord.length) return false;
  for (let i = 0; i < name.length; i++) {
    let c = name.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== lowercaseWord.charCodeAt(i)) return false;
  }
  return true;
}

/** ASCII case-insensitive "starts with" against a lowercase word, at `offset`. */
export function startsWithIgnoringAsciiCase(text: string, lowercaseWord: string, offset = 0): boolean {
  if (text.length - offset < lowercaseWord.length) return false;
  for (let i = 0; i < lowercaseWord.length; i++) {
    let c = text.charCodeAt(offset + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== lowercaseWord.charCodeAt(i)) return false;
  }
  return true;
}
