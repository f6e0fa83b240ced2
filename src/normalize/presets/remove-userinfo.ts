/**
 * Preset `remove-userinfo`: drop `user:password@` from http and https URIs.
 *
 * RFC 9110 §4.2.4: the userinfo subcomponent of http(s) URIs is deprecated; a sender must not
 * generate it and a recipient should treat it as an error. It carries credentials, not the
 * resource's identity. Other schemes keep it: for `ftp` the user chooses the account and so the
 * files you see (RFC 1738 §3.2).
 */
import type { Preset } from '../ladder/policy.js';
import type { UriRecord } from '../uri-record.js';

/** Schemes whose userinfo the preset removes. */
export const userinfoRemovedSchemes: readonly string[] = ['http', 'https'];

export const removeUserinfo: Preset = {
  name: 'remove-userinfo',
  summary: 'Remove `user:password@` from http and https URIs (RFC 9110 §4.2.4 deprecates it); other schemes keep it.',
  removes: [`the userinfo and its @ in ${userinfoRemovedSchemes.join(' and ')} URIs (ftp and other schemes keep it)`],
  apply(rec: UriRecord): UriRecord {
    if (rec.userinfo === undefined || rec.scheme === undefined) return rec;
    if (!userinfoRemovedSchemes.includes(rec.scheme)) return rec;
    return { ...rec, userinfo: undefined };
  },
};
