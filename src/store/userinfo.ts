/**
 * RFC 3986 §3.2.1 (User Information): "Use of the format 'user:password' in the userinfo field
 * is deprecated. … Applications should not render as clear text any data after the first colon."
 *
 * The store never keeps a password in clear. Before a URL is keyed, the text after the first `:`
 * of its userinfo is replaced by `~hmac-` and 16 lowercase hex digits: the first 64 bits of
 * HMAC-SHA-256 of the password, keyed with the store's own random salt (`meta/salt`, 32 bytes).
 *
 *     http://alice:s3cret@example.com/  →  http://alice:~hmac-1f0c2a9e4b7d6c35@example.com/
 *
 * - Two different passwords stay two different URLs (up to a 64-bit collision); the same password
 *   gives the same key on every run of the same store, so duplicates are still found.
 * - The salt makes the redaction useless for a dictionary attack prepared without the database,
 *   and different stores give different redactions.
 * - A password that already has the redacted form (`~hmac-` and 16 lowercase hex digits) is kept
 *   as it is, so a URL handed out by the store (`next()`, `canonicalUrls()`) keys to itself when
 *   it comes back in `recordFetch` or `admit`.
 * - The user name and an empty password (`user:@`) are kept; so is userinfo without a `:`.
 * - Consequence: the frontier hands out the redacted URL. A crawler that must authenticate takes
 *   credentials from its own configuration, not from stored URLs.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { UriRecord } from '../normalize/index.js';

const REDACTED = /^~hmac-[0-9a-f]{16}$/;

export function newSalt(): string {
  return randomBytes(32).toString('hex');
}

export function isRedactedPassword(password: string): boolean {
  return password.length === 22 && REDACTED.test(password);
}

/** The record with its userinfo password redacted; the same record when there is nothing to redact. */
export function redactPassword(rec: UriRecord, salt: string): UriRecord {
  const userinfo = rec.userinfo;
  if (userinfo === undefined) return rec;
  const colon = userinfo.indexOf(':');
  if (colon === -1 || colon === userinfo.length - 1) return rec;
  const password = userinfo.slice(colon + 1);
  if (isRedactedPassword(password)) return rec;
  const mac = createHmac('sha256', Buffer.from(salt, 'hex')).update(password, 'utf8').digest('hex').slice(0, 16);
  return { ...rec, userinfo: `${userinfo.slice(0, colon)}:~hmac-${mac}` };
}
