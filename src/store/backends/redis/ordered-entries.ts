/**
 * The spaces RedisKv keeps as one sorted set of whole entries, key and value in one member:
 *
 *     <name>{<tag>}<code>:s    sorted set, score 0: member = escape(key) NUL value
 *
 * where the other sorted spaces keep a hash of the values and a sorted set of the same keys
 * (redis-kv.ts). These are the spaces that grow with the crawl (evidence, pruned, alias, aliasrev:
 * in a fleet crawl evidence alone was 466 of 808 bytes per URL, 304 of them the second copy of each
 * key and its sorted-set node). One copy of each key, and no hash entry, is what this saves.
 *
 * ## Member order is key order
 * ZRANGEBYLEX compares members bytewise, so a member must sort as its key does, whatever the value
 * after it. `escape` takes the NUL out of keys (`SEP` is NUL), then NUL ends the key:
 *
 *     NUL → \x01\x01     \x01 → \x01\x02     any other code unit as it is
 *
 * Keys that differ first at a code unit keep that order (NUL < \x01 < the rest, and their escapes
 * sort the same way); a key that is a prefix of another ends in NUL where the longer one goes on
 * with \x01 or more. So for every key k, the members of k lie in [escape(k) NUL, escape(k) \x01),
 * which no other key's member enters, and the range bounds below are exact:
 *
 *     gte k → [escape(k)     gt k → [escape(k) \x01     lt k → (escape(k)
 *
 * A put is ZREMRANGEBYLEX of the key's interval then ZADD; a get is ZRANGEBYLEX of it, LIMIT 1.
 */
import type { Space } from '../../keys.js';

/** The spaces kept as sorted sets of whole entries. */
export const ENTRY_SPACES: ReadonlySet<Space> = new Set<Space>(['evidence', 'pruned', 'alias', 'aliasrev']);

/** The suffix of such a space's sorted set: `<name>{<tag>}<code>:s`. */
export const ENTRY_SUFFIX = ':s';

/** `key` with its NUL and \x01 escaped (module comment). */
export function escapeKey(key: string): string {
  if (key.indexOf('\u0000') === -1 && key.indexOf('\u0001') === -1) return key;
  let out = '';
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    out += c === 0 ? '\u0001\u0001' : c === 1 ? '\u0001\u0002' : key[i];
  }
  return out;
}

export function unescapeKey(escaped: string): string {
  if (escaped.indexOf('\u0001') === -1) return escaped;
  let out = '';
  for (let i = 0; i < escaped.length; i++) {
    const c = escaped.charCodeAt(i);
    if (c === 1) {
      out += escaped.charCodeAt(i + 1) === 1 ? '\u0000' : '\u0001';
      i++;
    } else out += escaped[i];
  }
  return out;
}

/** The member of entry (`key`, `value`). */
export function entryMember(key: string, value: string): string {
  return escapeKey(key) + '\u0000' + value;
}

/** The key and value of a member. */
export function splitMember(member: string): [string, string] {
  const nul = member.indexOf('\u0000');
  return [unescapeKey(member.slice(0, nul)), member.slice(nul + 1)];
}

/** ZRANGEBYLEX bounds of a key range (module comment). */
export function entryBounds(range: { readonly gte?: string; readonly gt?: string; readonly lt?: string }): { min: string; max: string } {
  const min = range.gte !== undefined ? '[' + escapeKey(range.gte) : range.gt !== undefined ? '[' + escapeKey(range.gt) + '\u0001' : '-';
  const max = range.lt !== undefined ? '(' + escapeKey(range.lt) : '+';
  return { min, max };
}

/** The lower bound of the keys after `key` (a page's next start), as `entryBounds` gives for `gt`. */
export function afterKeyBound(key: string): string {
  return '[' + escapeKey(key) + '\u0001';
}

/** The upper bound of the keys before `key` (a reverse page's next end). */
export function beforeKeyBound(key: string): string {
  return '(' + escapeKey(key);
}

/**
 * Lua for the scripts (redis-kv.ts): `eput(z, ek, v)` and `edel(z, ek)` write the entry of the
 * escaped key `ek`; `eget(z, ek)` reads its value, false when there is none.
 */
export const ENTRY_LUA = `
local function edel(z, ek)
  redis.call('ZREMRANGEBYLEX', z, '[' .. ek .. '\\0', '(' .. ek .. '\\1')
end
local function eput(z, ek, v)
  edel(z, ek)
  redis.call('ZADD', z, 0, ek .. '\\0' .. v)
end
local function eget(z, ek)
  local m = redis.call('ZRANGEBYLEX', z, '[' .. ek .. '\\0', '(' .. ek .. '\\1', 'LIMIT', 0, 1)[1]
  if not m then return false end
  return string.sub(m, #ek + 2)
end`;
