/**
 * Preset `sort-query`: order the query's fields by parameter name.
 *
 * A stable sort on the name alone (code-unit order; the normal form is ASCII): fields with the same
 * name keep their order, because `a=1&a=2` is a list most servers read in order and is not
 * `a=2&a=1`. Empty fields (`&&`) have the empty name and sort first. Names are compared exactly
 * (case-sensitively, without decoding). The fields themselves are not touched. A query holding a
 * malformed `%` is left as it is (malformed-percent.ts).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { hasMalformedPercent } from './malformed-percent.js';
import { parameterName, queryFields } from './query-parameters.js';

interface Keyed {
  readonly name: string;
  readonly field: string;
}

function byName(a: Keyed, b: Keyed): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The query with its fields in name order; the same string when it already is. */
export function sortQuery(query: string): string {
  const fields = queryFields(query);
  if (fields.length < 2) return query;
  let previous = parameterName(fields[0] as string);
  let sorted = true;
  const keyed: Keyed[] = [];
  for (const field of fields) {
    const name = parameterName(field);
    if (name < previous) sorted = false;
    previous = name;
    keyed.push({ name, field });
  }
  if (sorted) return query;
  // Array.prototype.sort is stable (ECMAScript 2019).
  keyed.sort(byName);
  return keyed.map((k) => k.field).join('&');
}

export const sortQueryPreset: Preset = {
  name: 'sort-query',
  summary:
    'Sort the query fields by parameter name (stable: repeated names keep their order, so `a=1&a=2` is not `a=2&a=1`).',
  removes: [
    'the order of query fields with different names (fields are split on & only; names compared exactly, in code-unit order; empty fields first)',
    '(a query holding a malformed %, one not followed by two hex digits, is left as it is)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.query === undefined || hasMalformedPercent(rec.query)) return rec;
    const query = sortQuery(rec.query);
    return query === rec.query ? rec : { ...rec, query };
  },
};
