/**
 * Preset `remove-empty-host-labels`: `example.com.`, `.example.com` and `example..com` as `example.com`.
 *
 * A trailing dot names the DNS root explicitly (RFC 1034 §3.1), so `example.com.` is the same DNS
 * name, though a server may see a different `Host` header. Leading and repeated dots make empty
 * labels that DNS cannot resolve; browsers still accept them. The preset removes every empty label
 * of a registered name: dots at either end, and runs of dots become one. IP literals are left alone,
 * and so is a name that would become empty or end in a numeric label (it would read as IPv4).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { endsInNumber, isIpLiteral } from './host-labels.js';

/** The host without empty labels, or the same string when it has none or the rule does not apply. */
export function removeEmptyLabels(host: string): string {
  if (host === '' || isIpLiteral(host)) return host;
  if (host.charCodeAt(0) !== 0x2e && host.charCodeAt(host.length - 1) !== 0x2e && host.indexOf('..') === -1) return host;
  let out = '';
  let i = 0;
  while (i < host.length) {
    while (i < host.length && host.charCodeAt(i) === 0x2e) i++;
    const start = i;
    while (i < host.length && host.charCodeAt(i) !== 0x2e) i++;
    if (i > start) out += (out === '' ? '' : '.') + host.slice(start, i);
  }
  if (out === '' || endsInNumber(out)) return host;
  return out;
}

export const removeEmptyHostLabels: Preset = {
  name: 'remove-empty-host-labels',
  summary: 'Remove empty labels from a host name: a trailing dot (`example.com.`), leading dots, and runs of dots.',
  removes: [
    'trailing dots of a registered-name host (the explicit DNS root: example.com. → example.com)',
    'leading dots of the host (.example.com → example.com)',
    'repeated dots inside the host (example..com → example.com)',
    '(IP literals, and names that would become empty or end in a numeric label, are kept)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.host === undefined) return rec;
    const host = removeEmptyLabels(rec.host);
    return host === rec.host ? rec : { ...rec, host };
  },
};
