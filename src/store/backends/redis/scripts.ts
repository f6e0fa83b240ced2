/**
 * The Lua scripts of RedisKv (redis-kv.ts): writes, reads by key and lex ranges. Each carries a
 * `#!lua` header (flags: a master out of memory refuses a write script before it starts, and
 * `allow-cross-slot-keys` lets one run serve every slot of its master).
 */
import { ENTRY_LUA } from './ordered-entries.js';
import { URL_LUA, URL_OP_LUA } from './url-buckets.js';

// One run applies the ops of every host the master serves: allow-cross-slot-keys (Redis ≥ 7.0).
// The cluster refuses a call whose declared keys span slots (CROSSSLOT), so KEYS[1] is one of them,
// for routing. ARGV: the count of key names, the lease token (FENCED_WRITE), LOAD and VMAX (the
// url buckets' limits, url-buckets.ts), the key names (every one served by the master the call is
// routed to), then the ops, 5 arguments each: p/d (put, del), the hash's and the sorted set's
// index in the names (0: none), field, value; or P/D for a url op: the tag's bucket base name's
// index, the field's hash, field, value; or E/X (put, del) for an entry space (ordered-entries.ts):
// the sorted set's index, 0, the escaped key, value.
const WRITE_BODY = `${URL_LUA}
${ENTRY_LUA}
local nk = tonumber(ARGV[1])
local LOAD = tonumber(ARGV[3])
local VMAX = tonumber(ARGV[4])
local n = #ARGV
local i = nk + 5
while i <= n do
  local kind = ARGV[i]
  local f = ARGV[i + 3]
  if kind == 'P' or kind == 'D' then
    local base = ARGV[4 + tonumber(ARGV[i + 1])]
    local h = tonumber(ARGV[i + 2])
${URL_OP_LUA}
  elseif kind == 'E' then
    eput(ARGV[4 + tonumber(ARGV[i + 1])], f, ARGV[i + 4])
  elseif kind == 'X' then
    edel(ARGV[4 + tonumber(ARGV[i + 1])], f)
  else
    local hk = ARGV[4 + tonumber(ARGV[i + 1])]
    local z = tonumber(ARGV[i + 2])
    if kind == 'p' then
      redis.call('HSET', hk, f, ARGV[i + 4])
      if z > 0 then redis.call('ZADD', ARGV[4 + z], 0, f) end
    else
      redis.call('HDEL', hk, f)
      if z > 0 then redis.call('ZREM', ARGV[4 + z], f) end
    end
  end
  i = i + 5
end
uflush()
return (n - nk - 4) / 5`;

export const WRITE = `#!lua flags=allow-cross-slot-keys
${WRITE_BODY}`;

/**
 * WRITE for a fleet partition (fleet/partition.ts): the same ops, applied only while the host's
 * lease (KEYS[1], same slot as every key of the partition) holds this writer's token (ARGV[2]).
 * The lease fences the write: a writer whose lease expired and was taken by another worker changes
 * nothing, whatever its clock or pauses.
 */
export const FENCED_WRITE = `#!lua
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return redis.error_reply('LEASELOST the host lease is not held') end
${WRITE_BODY}`;

/**
 * Reads by key, after the key names (as WRITE): triples (name index, field, hash). With hash '' an
 * HGET of that hash; with 'e' an entry space's sorted set, the field its escaped key; else a url
 * read: the name is the tag's bucket base, the hash picks the bucket. false (nil) for a missing field.
 */
export const GET = `#!lua flags=no-writes,allow-cross-slot-keys
${URL_LUA}
${ENTRY_LUA}
local nk = tonumber(ARGV[1])
local out = {}
for i = nk + 2, #ARGV, 3 do
  local key = ARGV[1 + tonumber(ARGV[i])]
  local f = ARGV[i + 1]
  local v
  if ARGV[i + 2] == '' then
    v = redis.call('HGET', key, f)
  elseif ARGV[i + 2] == 'e' then
    v = eget(key, f)
  else
    local s = ustate(key)
    v = redis.call('HGET', key .. ':' .. ubucket(s.n, tonumber(ARGV[i + 2])), f)
    if not v and s.x then v = redis.call('HGET', key .. ':x', f) end
  end
  out[#out + 1] = v
end
return out`;

/** Members of a lex range and their values in one call: KEYS zset, hash; ARGV min, max, limit, reverse. */
export const RANGE = `#!lua flags=no-writes
local members
if ARGV[4] == '1' then
  members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[2], ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
else
  members = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
end
if #members == 0 then return {} end
local values = redis.call('HMGET', KEYS[2], unpack(members))
local out = {}
for i = 1, #members do
  out[2 * i - 1] = members[i]
  out[2 * i] = values[i] or ''
end
return out`;
