/**
 * The url space on Redis: per-host buckets small enough for Redis to keep each one a listpack.
 *
 *     <name>{<tag>}u:<b>    bucket b (0 ≤ b < n): a hash, field = the key without its `head)`
 *     <name>{<tag>}u:x      the tag's entries whose field or value is too long for a listpack
 *
 * A bucket holds at most `hash-max-listpack-entries` fields of at most `hash-max-listpack-value`
 * bytes, so Redis stores it as one listpack (a few bytes of overhead per field and value) instead
 * of a hashtable (a dict entry and two allocations per field). An entry whose field or value is
 * longer than the value limit goes to the tag's `u:x` hash instead (any encoding), so it never
 * turns a bucket into a hashtable.
 *
 * The field: every url key of a tag starts with `head)` and the tag is `h` + head, so the field is
 * the rest, with a leading `https://` written `\x02` and `http://` written `\x03`. A key that does
 * not start with its tag's `head)` (a fleet partition holds one tag for every key) is stored whole
 * after a `)`; a rest never starts with `)`, `\x02` or `\x03` (it starts with the scheme).
 *
 * Linear hashing: a field's bucket is `h mod 2^L`, or `h mod 2^(L+1)` when that is below the split
 * pointer `s`, with `h` the first 32 bits of the field's SHA-1, `n = 2^L + s` buckets. The tag's
 * state, `n` and the number of entries in its buckets, is the field `` (empty: never a real field)
 * of bucket 0, so a host with few URLs costs one Redis key. A put that would bring the entries
 * above `load × n` first splits bucket `s` into `s` and `n` (the one bucket whose entries move),
 * in the same script: the buckets never exceed about twice `load` (the buckets not yet split in a
 * round hold twice the others), and `load` is set from the masters' listpack limit with room for
 * that. Buckets never merge: a host that shrinks keeps its buckets.
 *
 * The scripts (redis-kv.ts) compute the bucket from `n` read on the master, so any number of
 * clients agree; the client sends `h` with each op and the script recomputes it only for the
 * entries of a bucket it splits (`redis.sha1hex`, the same function).
 */
import { hash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** The first 32 bits of the SHA-1 of `field` (UTF-8), what picks its bucket. */
export function fieldHash(field: string): number {
  return hash('sha1', field, 'buffer').readUInt32BE(0);
}

/** The bucket of hash `h` among `n` buckets (linear hashing; the scripts' `bucket`). */
export function bucketOf(n: number, h: number): number {
  let low = 1;
  while (low * 2 <= n) low *= 2;
  const b = h % low;
  return b < n - low ? h % (2 * low) : b;
}

/** The field of url key `key` in tag `tag`'s buckets. */
export function urlField(tag: string, key: string): string {
  const n = tag.length;
  if (n > 1 && tag.charCodeAt(0) === 0x68 && key.length > n && key.charCodeAt(n - 1) === 0x29 && key.startsWith(tag.slice(1))) {
    const c = key.charCodeAt(n);
    if (key.startsWith('https://', n)) return '\x02' + key.slice(n + 8);
    if (key.startsWith('http://', n)) return '\x03' + key.slice(n + 7);
    if (c !== 0x29 && c !== 0x02 && c !== 0x03) return key.slice(n);
  }
  return ')' + key;
}

/** The url key of field `field` of tag `tag` (inverse of `urlField`). */
export function urlKey(tag: string, field: string): string {
  switch (field.charCodeAt(0)) {
    case 0x29:
      return field.slice(1);
    case 0x02:
      return tag.slice(1) + ')https://' + field.slice(1);
    case 0x03:
      return tag.slice(1) + ')http://' + field.slice(1);
    default:
      return tag.slice(1) + ')' + field;
  }
}

/** Every url key of `tag` starts with this (outside a fleet partition). */
export function tagKeyPrefix(tag: string): string | undefined {
  return tag.charCodeAt(0) === 0x68 ? tag.slice(1) + ')' : undefined;
}

export interface BucketLimits {
  /** Entries per bucket on average before a split: the largest bucket stays under the listpack limit. */
  readonly load: number;
  /** Bytes a field or value may have in a bucket (`hash-max-listpack-value`). */
  readonly valueMax: number;
}

const limitsOf = new WeakMap<Cluster, Promise<BucketLimits>>();

/**
 * The bucket limits for the masters' `hash-max-listpack-entries` and `-value` (the smallest over
 * the masters; 128 and 64 when CONFIG is refused, as on some managed services): `load` is 3/8 of
 * the entries limit (at most 48), so a bucket not yet split in its round (about 2 × load) stays
 * under the limit with room for the spread of a hash.
 */
export function bucketLimits(cluster: Cluster): Promise<BucketLimits> {
  let p = limitsOf.get(cluster);
  if (p === undefined) {
    p = (async () => {
      let entries = Infinity;
      let value = Infinity;
      await Promise.all(
        cluster.nodes('master').map(async (m: Redis) => {
          const get = async (name: string, fallback: number): Promise<number> => {
            const v = Number(((await m.config('GET', name).catch(() => [])) as string[])[1]);
            return Number.isFinite(v) && v > 0 ? v : fallback;
          };
          entries = Math.min(entries, await get('hash-max-listpack-entries', 128));
          value = Math.min(value, await get('hash-max-listpack-value', 64));
        }),
      );
      if (!Number.isFinite(entries)) entries = 128;
      if (!Number.isFinite(value)) value = 64;
      return { load: Math.max(1, Math.min(48, Math.floor((entries * 3) / 8))), valueMax: value };
    })();
    limitsOf.set(cluster, p);
  }
  return p;
}

/**
 * Lua shared by the scripts: `ustate(base)` is the tag's state `{n, c, x}` (read once per run),
 * `ubucket(n, h)` a bucket, `usplit(base, s)` splits the next bucket. `x` tells whether `u:x`
 * exists. `uflush()` writes back the states a run changed.
 */
export const URL_LUA = `
local ust = {}
local function ustate(base)
  local s = ust[base]
  if s == nil then
    local v = redis.call('HGET', base .. ':0', '')
    local n, c = 1, 0
    if v then
      local a, b = string.match(v, '^(%d+) (-?%d+)$')
      n, c = tonumber(a), tonumber(b)
    end
    s = { n = n, c = c, x = redis.call('EXISTS', base .. ':x') == 1, dirty = false }
    ust[base] = s
  end
  return s
end
local function ulow(n)
  local low = 1
  while low * 2 <= n do low = low * 2 end
  return low
end
local function ubucket(n, h)
  local low = ulow(n)
  local b = h % low
  if b < n - low then b = h % (2 * low) end
  return b
end
local function uhset(key, a)
  for j = 1, #a, 400 do redis.call('HSET', key, unpack(a, j, math.min(j + 399, #a))) end
end
local function usplit(base, s)
  local low = ulow(s.n)
  local src = s.n - low
  local key = base .. ':' .. src
  local all = redis.call('HGETALL', key)
  local stay, move = {}, {}
  for i = 1, #all, 2 do
    local f = all[i]
    local t = stay
    if f ~= '' and tonumber(string.sub(redis.sha1hex(f), 1, 8), 16) % (2 * low) ~= src then t = move end
    t[#t + 1] = f
    t[#t + 1] = all[i + 1]
  end
  if #move > 0 then
    redis.call('DEL', key)
    uhset(key, stay)
    uhset(base .. ':' .. s.n, move)
  end
  s.n = s.n + 1
  s.dirty = true
end
local function uflush()
  for base, s in pairs(ust) do
    if s.dirty then redis.call('HSET', base .. ':0', '', s.n .. ' ' .. s.c) end
  end
end
`;

/**
 * A url put or del, inside WRITE's op loop: `kind` P or D, `base` the tag's key name without
 * `:<b>`, `h` the field's hash. LOAD and VMAX are locals of the script.
 */
export const URL_OP_LUA = `
    local s = ustate(base)
    if kind == 'P' then
      local v = ARGV[i + 4]
      if #f > VMAX or #v > VMAX then
        redis.call('HSET', base .. ':x', f, v)
        s.x = true
        s.c = s.c - redis.call('HDEL', base .. ':' .. ubucket(s.n, h), f)
      else
        while s.c >= LOAD * s.n do usplit(base, s) end
        s.c = s.c + redis.call('HSET', base .. ':' .. ubucket(s.n, h), f, v)
        if s.x then redis.call('HDEL', base .. ':x', f) end
      end
    else
      s.c = s.c - redis.call('HDEL', base .. ':' .. ubucket(s.n, h), f)
      if s.x then redis.call('HDEL', base .. ':x', f) end
    end
    s.dirty = true
`;

/** The entries of buckets [from, from + count) of a tag, and of `u:x` with the first page: `{n, f1, v1, …}`. */
export const URL_PAGE = `#!lua flags=no-writes
${URL_LUA}
local base = ARGV[1]
local from = tonumber(ARGV[2])
local s = ustate(base)
local out = { tostring(s.n) }
local function add(flat)
  for i = 1, #flat, 2 do
    if flat[i] ~= '' then
      out[#out + 1] = flat[i]
      out[#out + 1] = flat[i + 1]
    end
  end
end
for b = from, math.min(s.n, from + tonumber(ARGV[3])) - 1 do add(redis.call('HGETALL', base .. ':' .. b)) end
if from == 0 and s.x then add(redis.call('HGETALL', base .. ':x')) end
return out`;
