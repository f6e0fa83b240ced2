/**
 * Preset `www`: `www.example.com` and `example.com` as one host.
 *
 * Removes one leading `www.` label from a registered name when what is left still has at least two
 * labels (`www.com` stays) and does not itself start with `www.` (so `www.www.example.com` stays
 * and the preset is idempotent), and when what is left does not end in a numeric label (it would
 * read as an IPv4 address). Only `www` exactly: `www2.` and `www-1.` are often different servers.
 * Without the Public Suffix List, `www.co.uk` becomes `co.uk`; such hosts do not serve pages.
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';
import { countLabels, endsInNumber } from './host-labels.js';

const WWW = 'www.';

/** The host without its `www.` label, or the same host when the rule does not apply. */
export function stripWww(host: string): string {
  if (!host.startsWith(WWW)) return host;
  const rest = host.slice(WWW.length);
  if (rest.startsWith(WWW) || countLabels(rest) < 2 || endsInNumber(rest)) return host;
  return rest;
}

export const www: Preset = {
  name: 'www',
  summary: 'Remove one leading `www.` label when at least two labels remain (`www.example.com` → `example.com`).',
  removes: [
    'one leading www. label of the host, when at least two labels remain, the rest does not start with www. and does not end in a numeric label (www2., www-1. and other labels are kept)',
  ],
  apply(rec: UriRecord): UriRecord {
    if (rec.host === undefined) return rec;
    const host = stripWww(rec.host);
    return host === rec.host ? rec : { ...rec, host };
  },
};
