/**
 * What RedisKv stores for a value, where that is shorter than the engine's text (the engine never
 * sees the difference: `decodeValue(encodeValue(v)) === v` for every value):
 *
 * - url: a url entry names the host it is queued under (` h<host[:port]>`, keys.ts), which is the
 *   key's own host in nearly every entry: that part is stored as `\x01` and put back from the key.
 *   A value that already holds `\x01`, or starts with `\x02`, is stored after a `\x02`.
 * - frontier: a block (`depth SP key` lines, frontier.ts) of at least `DEFLATE_MIN` characters is
 *   stored as `~` + base64 of its raw DEFLATE (URLs of one host compress about 3 to 5 times); a
 *   block never starts with `~` (its lines start with `@` or a depth), and a short value that does
 *   is stored after a second `~` (base64 has no `~`).
 *
 * The LevelDB store gets the like from Snappy; Redis keeps values as they are given.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Space } from '../../keys.js';

const DEFLATE_MIN = 200;

/** The `host[:port]` of url key `key` (`head)scheme://[userinfo@][:port]…`), or undefined when not simply told. */
export function keyHost(key: string): string | undefined {
  const close = key.indexOf(')');
  if (close <= 0 || key.lastIndexOf('%', close) !== -1 || key.charCodeAt(0) === 0x5b) return undefined;
  const host = key.slice(0, close).split(',').reverse().join('.');
  const slashes = key.indexOf('://', close);
  if (slashes === -1) return undefined;
  let i = slashes + 3;
  let end = i;
  while (end < key.length) {
    const c = key.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23) break; // / ? #
    end++;
  }
  const at = key.lastIndexOf('@', end - 1);
  if (at >= i) i = at + 1;
  return key.charCodeAt(i) === 0x3a /* : */ && end > i + 1 ? `${host}:${key.slice(i + 1, end)}` : host;
}

function hostPart(value: string, host: string): number {
  const part = ' h' + host;
  let at = value.indexOf(part);
  while (at !== -1) {
    const after = at + part.length;
    if (after === value.length || value.charCodeAt(after) === 0x20) return at;
    at = value.indexOf(part, at + 1);
  }
  return -1;
}

export function encodeValue(space: Space, key: string, value: string): string {
  if (space === 'url') {
    if (value.includes('\x01') || value.charCodeAt(0) === 0x02) return '\x02' + value;
    const host = keyHost(key);
    if (host === undefined) return value;
    const at = hostPart(value, host);
    return at === -1 ? value : value.slice(0, at) + '\x01' + value.slice(at + 2 + host.length);
  }
  if (space === 'frontier') {
    if (value.length >= DEFLATE_MIN) return '~' + deflateRawSync(value, { level: 1 }).toString('base64');
    return value.charCodeAt(0) === 0x7e ? '~' + value : value;
  }
  return value;
}

export function decodeValue(space: Space, key: string, stored: string): string {
  if (space === 'url') {
    if (stored.charCodeAt(0) === 0x02) return stored.slice(1);
    const at = stored.indexOf('\x01');
    if (at === -1) return stored;
    return stored.slice(0, at) + ' h' + (keyHost(key) ?? '') + stored.slice(at + 1);
  }
  if (space === 'frontier' && stored.charCodeAt(0) === 0x7e) {
    if (stored.charCodeAt(1) === 0x7e) return stored.slice(1);
    return inflateRawSync(Buffer.from(stored.slice(1), 'base64')).toString('utf8');
  }
  return stored;
}
