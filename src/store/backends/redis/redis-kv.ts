/**
 * `Kv` over Redis Cluster: the engine (engine.ts) runs on it unchanged, with the same options,
 * reasons, rule learning and give-back as on LevelDB.
 *
 * ## Key layout
 * Each (space, host) pair of meta, counter, rule and frontier is one Redis hash and one sorted set
 * of the same keys (score 0, so ZRANGEBYLEX orders them bytewise, as LevelDB does); those of the
 * spaces that grow with the crawl (evidence, pruned, alias, aliasrev) are one sorted set of whole
 * entries (ordered-entries.ts); the url space of a host is a set of small hashes, its buckets
 * (url-buckets.ts):
 *
 *     <name>{<tag>}<code>      hash: field = the store key, value = its value
 *     <name>{<tag>}<code>:o    sorted set: the store keys
 *     <name>{<tag>}<code>:s    sorted set: escaped key NUL value (evidence, pruned, alias, aliasrev)
 *     <name>{<tag>}u:<b>       url bucket b: field = the key without its `head)`, value = its value
 *     <name>{<tag>}u:x         url entries too long for a bucket
 *
 * Url values and frontier blocks are stored shorter than the engine's text (values.ts).
 *
 * `code` is the space's short name (u url, a alias, v aliasrev, r rule, e evidence, f frontier,
 * p pruned, c counter, m meta). `tag` is `h` + the host in key order (`sortHost`, no port), found in
 * each space's key layout (keys.ts):
 *
 * | space      | key                          | host taken from                      |
 * |------------|------------------------------|--------------------------------------|
 * | url, alias | canonical key `head)tail`    | `head`                               |
 * | aliasrev   | target SEP source            | the target's head                    |
 * | rule       | `host/spec`                  | `host`                               |
 * | evidence   | `r` SEP rule id SEP source   | the rule id's host                   |
 * |            | `h`/`b`/`q`/`n`/`u` SEP host SEP … | `host` (the learner's indexes) |
 * |            | `t`/`l`/`k` SEP source; `w`/`x` SEP target SEP …; `v` SEP original SEP … | that key's head |
 * |            | `c` SEP hash SEP key (mirrors); `s` SEP host SEP preset SEP dir | none: tag `g` |
 * | frontier   | host SEP seq                 | `host` (port dropped)                |
 * | pruned     | reason SEP key               | the key's head                       |
 * | counter, meta | name                      | none: tag `g`                        |
 *
 * so every key of one host hashes to one slot, whatever the space: a host's seen URLs, aliases,
 * rules, evidence and frontier live on one master. In each layout the host is read from a prefix of
 * the key that ends at a delimiter (`)`, `/`, SEP), so a range whose bounds share that prefix lies
 * in one tag and is read from it alone; any other range (a whole space, all URLs a preset pruned)
 * is merged across the space's tags in key order.
 *
 * The url space has no sorted set (it is most of the data). Its ordered reads (whole-space scans
 * at open, `verify`, exports, retries paged by key) sort each host's entries: the url keys of one
 * tag all start with `head)`, and `)` never occurs in a head, so the tags' key ranges are disjoint
 * and ordered by `head)`: the tags are read one after another in that order, those whose keys all
 * lie outside the range skipped. A store written before the buckets (one url hash `<name>{<tag>}u`
 * per host, whole keys) is converted by its first writer's open (`migrate`).
 *
 * The tags of each space are found at open (SCAN of every master for `<name>{*`) and kept in memory
 * by the single writer; nothing on the write path touches a key outside the host's slot.
 *
 * ## Atomicity
 * `write(ops)` groups the ops by the master that serves each tag's slot (the client's slot map);
 * each group is one EVALSHA of a script that applies them all (hashes and sorted sets): one call
 * per master, whatever the number of hosts. Redis runs a script alone and logs its effects to the
 * AOF as one MULTI/EXEC (a torn AOF tail drops an incomplete transaction whole). The scripts carry
 * a `#!lua` header, so a master out of memory refuses a script before it starts rather than in its
 * middle, and `allow-cross-slot-keys` (Redis 7.0), since one group spans the master's slots; only
 * the first key is declared (the cluster refuses declared keys of several slots) and routes the
 * call. A slot moved since the slot map was read fails the call (ERR_STORE_IO) rather than
 * applying part of it. The groups of one write go out together and are not atomic with each other:
 * a batch is all or nothing per master, so per host, but not across masters
 * (`supports.atomicBatch` is false). Reads by key are one script per master too.
 *
 * ## Durability
 * A write resolves when every master touched has applied its group and answered. What it survives
 * is the masters' `appendfsync` (the `sync` flag of `write` cannot ask a Redis 7.0 master to fsync:
 * WAITAOF is 7.2):
 * - `appendfsync always`: the AOF is written and fsynced before the reply, so an acknowledged
 *   write survives `kill -9` of its master and power loss (open with `sync: 'always'` to require it);
 * - `appendfsync everysec`: the AOF is written (to the page cache) before the reply and fsynced
 *   once a second, so an acknowledged write survives `kill -9` of the master process; power loss
 *   or a kernel crash loses up to the last ~1 s (up to 2 s when fsync is slow: Redis then postpones
 *   the write itself, and a process crash in that window loses it too);
 * - no AOF: nothing survives a restart of the master beyond its last RDB snapshot.
 * A master restarted from its AOF comes back with what it had; with replicas and failover, writes a
 * replica had not received are lost in the switch (WAIT on replicas is for the fleet part).
 */
import type { Cluster } from 'ioredis';
import { hostTag } from '../../host-tag.js';
import { SEP, SPACES, type Space } from '../../keys.js';
import type { Kv, KvOp, KvRange } from '../kv.js';
import { StoreError } from '../../errors.js';
import { redisError, scanStoreKeys, tagSlot, type ClusterLock } from './cluster.js';
import { CursorHeap } from './cursor-heap.js';
import { decodeValue, encodeValue } from './values.js';
import { FENCED_WRITE, GET, RANGE, WRITE } from './scripts.js';
import { ridingOutages } from './outages.js';
import { afterKeyBound, beforeKeyBound, ENTRY_SPACES, ENTRY_SUFFIX, entryBounds, escapeKey, splitMember } from './ordered-entries.js';
import { bucketLimits, fieldHash, tagKeyPrefix, URL_PAGE, urlField, urlKey, type BucketLimits } from './url-buckets.js';

export { isTransientRedisError, OUTAGE_MS, ridingCommands, ridingOutages } from './outages.js';

export const SPACE_CODES: Readonly<Record<Space, string>> = {
  meta: 'm',
  url: 'u',
  alias: 'a',
  aliasrev: 'v',
  rule: 'r',
  evidence: 'e',
  frontier: 'f',
  pruned: 'p',
  counter: 'c',
};
const CODE_SPACES = new Map(SPACES.map((s) => [SPACE_CODES[s], s] as const));
/** The tag of keys with no host (meta, counter). */
const GLOBAL_TAG = 'g';

export { hostTag };

/**
 * The end (exclusive) of the prefix of `k` that names its host, and the tag, or undefined when `k`
 * is too short to tell (a range bound such as `host` without its SEP).
 */
export function tagPrefix(space: Space, k: string): { end: number; tag: string } | undefined {
  switch (space) {
    case 'meta':
    case 'counter':
      return { end: 0, tag: GLOBAL_TAG };
    case 'url':
    case 'alias':
    case 'aliasrev':
      return headTag(k, 0);
    case 'rule': {
      const slash = k.indexOf('/');
      return slash === -1 ? undefined : { end: slash + 1, tag: hostTag(k.slice(0, slash)) };
    }
    case 'frontier': {
      const sep = k.indexOf(SEP);
      return sep === -1 ? undefined : { end: sep + 1, tag: hostTag(k.slice(0, sep)) };
    }
    case 'pruned': {
      const sep = k.indexOf(SEP);
      return sep === -1 ? undefined : headTag(k, sep + 1);
    }
    case 'evidence': {
      if (k.length < 2 || k.charCodeAt(1) !== 0) return undefined;
      switch (k.charCodeAt(0)) {
        case 0x63 /* c: documents by hash on every host (mirrors) */:
        case 0x73 /* s: suspended presets, read whole at open */:
          return { end: 2, tag: GLOBAL_TAG };
        case 0x72 /* r: rule id */: {
          const slash = k.indexOf('/', 2);
          return slash === -1 ? undefined : { end: slash + 1, tag: hostTag(k.slice(2, slash)) };
        }
        case 0x68 /* h: documents by hash */:
        case 0x62 /* b: documents by main content */:
        case 0x71 /* q: documents by path */:
        case 0x6e /* n: not-found signatures */:
        case 0x75 /* u: stability */: {
          // host[:port] SEP …
          const sep = k.indexOf(SEP, 2);
          return sep === -1 ? undefined : { end: sep + 1, tag: hostTag(k.slice(2, sep)) };
        }
        default:
          return headTag(k, 2); // a url key first
      }
    }
  }
}

function headTag(k: string, from: number): { end: number; tag: string } | undefined {
  const close = k.indexOf(')', from);
  return close === -1 ? undefined : { end: close + 1, tag: 'h' + k.slice(from, close) };
}

/** The one tag every key of `range` has, if its bounds tell. */
function rangeTag(space: Space, range: KvRange): string | undefined {
  if (space === 'meta' || space === 'counter') return GLOBAL_TAG;
  const lower = range.gte ?? range.gt;
  if (lower === undefined || range.lt === undefined) return undefined;
  const p = tagPrefix(space, lower);
  if (p === undefined) return undefined;
  // every key k with lower ≤ k < lt starts with lower's prefix when lt ≤ that prefix's successor
  const prefix = lower.slice(0, p.end);
  const successor = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return range.lt <= successor ? p.tag : undefined;
}

interface ScriptedCluster {
  udWrite(numKeys: number, ...args: string[]): Promise<number>;
  udFencedWrite(numKeys: number, ...args: string[]): Promise<number>;
  udGet(numKeys: number, ...args: string[]): Promise<(string | null)[]>;
  udRange(zset: string, hash: string, min: string, max: string, limit: string, reverse: string): Promise<string[]>;
  udUrlPage(first: string, base: string, from: string, count: string): Promise<string[]>;
}

const PAGE = 256;
/** Url buckets per read of a tag's entries (about 48 entries each). */
const URL_PAGE_BUCKETS = 64;

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function inRange(k: string, r: KvRange): boolean {
  if (r.gte !== undefined && k < r.gte) return false;
  if (r.gt !== undefined && k <= r.gt) return false;
  if (r.lt !== undefined && k >= r.lt) return false;
  return true;
}

/** True when no key that starts with `prefix` lies in `r` (false when there is no prefix). */
function outsideRange(prefix: string | undefined, r: KvRange): boolean {
  if (prefix === undefined) return false;
  const successor = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  if (r.lt !== undefined && r.lt <= prefix) return true;
  if (r.gte !== undefined && r.gte >= successor) return true;
  if (r.gt !== undefined && r.gt >= successor) return true;
  return false;
}

/**
 * A fleet partition (fleet/partition.ts): every key of the Kv, meta and counters included, under
 * the one tag of a host, so the whole store of that host lives in one slot; writes are fenced by
 * the host's lease when `fence` is given (its key is in the same slot).
 */
export interface KvPartition {
  readonly tag: string;
  readonly fence?: { readonly key: string; readonly token: string };
}

export class RedisKv implements Kv {
  readonly durable = true;
  /** The tags that hold (or held) keys of each space. */
  private readonly tags = new Map<Space, Set<string>>();
  // (udGet and udWrite route by their first key; every key of a group is on that key's master)
  private readonly scripted: ScriptedCluster;
  private readonly slotOfTag = new Map<string, number>();
  private closed = false;
  private limits: BucketLimits = { load: 48, valueMax: 64 };

  private constructor(
    private readonly cluster: Cluster,
    private readonly name: string,
    readonly location: string,
    private readonly lock: ClusterLock | undefined,
    private readonly onClose: () => Promise<void>,
    private readonly partition: KvPartition | undefined,
  ) {
    for (const s of SPACES) this.tags.set(s, new Set(partition === undefined ? [] : [partition.tag]));
    cluster.defineCommand('udWrite', { lua: WRITE });
    cluster.defineCommand('udFencedWrite', { lua: FENCED_WRITE });
    cluster.defineCommand('udGet', { lua: GET });
    cluster.defineCommand('udRange', { numberOfKeys: 2, lua: RANGE });
    cluster.defineCommand('udUrlPage', { numberOfKeys: 1, lua: URL_PAGE });
    // every script rides out a restart or a failover (OUTAGE_MS)
    const raw = cluster as unknown as ScriptedCluster;
    this.scripted = {
      udWrite: (n, ...a) => ridingOutages(() => raw.udWrite(n, ...a)),
      udFencedWrite: (n, ...a) => ridingOutages(() => raw.udFencedWrite(n, ...a)),
      udGet: (n, ...a) => ridingOutages(() => raw.udGet(n, ...a)),
      udRange: (z, h, min, max, limit, reverse) => ridingOutages(() => raw.udRange(z, h, min, max, limit, reverse)),
      udUrlPage: (first, base, from, count) => ridingOutages(() => raw.udUrlPage(first, base, from, count)),
    };
  }

  /** A Kv on the store `name` of `cluster` (connected), its tags found by SCAN (a partition has one). */
  static async open(
    cluster: Cluster,
    name: string,
    location: string,
    lock: ClusterLock | undefined,
    onClose: () => Promise<void>,
    partition?: KvPartition,
  ): Promise<RedisKv> {
    const kv = new RedisKv(cluster, name, location, lock, onClose, partition);
    const old: string[] = [];
    // entry spaces still in the hash and key set of before ordered-entries.ts: [space, tag]
    const oldEntries: [Space, string][] = [];
    try {
      kv.limits = await bucketLimits(cluster);
      if (partition !== undefined) {
        if ((await cluster.exists(`${name}{${partition.tag}}u`)) === 1) old.push(partition.tag);
        for (const space of ENTRY_SPACES) if ((await cluster.exists(kv.zsetKey(space, partition.tag))) === 1) oldEntries.push([space, partition.tag]);
      } else {
        for await (const k of scanStoreKeys(cluster, name)) {
          const open = name.length;
          const close = k.indexOf('}', open);
          if (k.charCodeAt(open) !== 0x7b || close === -1) continue;
          const tag = k.slice(open + 1, close);
          const code = k.slice(close + 1);
          if (code === 'u') old.push(tag);
          const space = CODE_SPACES.get(code.startsWith('u:') ? 'u' : code.replace(/:[os]$/, ''));
          if (space === undefined) continue;
          kv.tags.get(space)!.add(tag);
          if (ENTRY_SPACES.has(space) && code.endsWith(':o')) oldEntries.push([space, tag]);
        }
      }
    } catch (e) {
      throw redisError(e, location);
    }
    const writer = lock !== undefined || partition?.fence !== undefined;
    if (old.length > 0) await kv.migrate(old, writer);
    if (oldEntries.length > 0) await kv.migrateEntries(oldEntries, writer);
    return kv;
  }

  /**
   * Move the entries of an entry space kept as a hash and a sorted set of its keys (the layout of
   * before ordered-entries.ts) into its sorted set of whole entries, then delete the two. As
   * `migrate`: only a writer converts, a conversion cut short starts again at the next open.
   */
  private async migrateEntries(pairs: readonly (readonly [Space, string])[], writer: boolean): Promise<void> {
    if (!writer) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', this.location, { detail: 'its evidence, pruned and alias entries are in the layout of before whole-entry sorted sets: open it once as its writer to convert them' });
    }
    for (const [space, tag] of pairs) {
      const z = this.zsetKey(space, tag);
      const h = this.hashKey(space, tag);
      try {
        let min = '-';
        for (;;) {
          const flat = await this.scripted.udRange(z, h, min, '+', String(PAGE), '0');
          const ops: KvOp[] = [];
          for (let i = 0; i < flat.length; i += 2) ops.push({ space, key: flat[i]!, value: decodeValue(space, flat[i]!, flat[i + 1]!) });
          if (ops.length > 0) await this.write(ops, { sync: false });
          if (ops.length < PAGE) break;
          min = '(' + ops[ops.length - 1]!.key;
        }
        await this.cluster.del(z, h);
      } catch (e) {
        throw redisError(e, this.location);
      }
    }
  }

  /**
   * Move the url hashes of the layout before the buckets (`<name>{<tag>}u`, field = the whole key)
   * into the buckets, then delete them. Only a writer converts (it holds the lock or the lease); a
   * reader of such a store is refused. A conversion cut short leaves the old hash, and the next
   * open starts it again: its puts are idempotent.
   */
  private async migrate(tags: readonly string[], writer: boolean): Promise<void> {
    if (!writer) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', this.location, { detail: 'its url entries are in the layout of before the url buckets: open it once as its writer to convert them' });
    }
    for (const tag of tags) {
      const old = `${this.name}{${tag}}u`;
      try {
        let cursor = '0';
        do {
          const [next, flat] = await this.cluster.hscan(old, cursor, 'COUNT', 500);
          cursor = next;
          const ops: KvOp[] = [];
          for (let i = 0; i < flat.length; i += 2) ops.push({ space: 'url', key: flat[i]!, value: flat[i + 1]! });
          if (ops.length > 0) await this.write(ops, { sync: false });
        } while (cursor !== '0');
        await this.cluster.del(old);
      } catch (e) {
        throw redisError(e, this.location);
      }
    }
  }

  private hashKey(space: Space, tag: string): string {
    return `${this.name}{${tag}}${SPACE_CODES[space]}`;
  }

  /** The name of a tag's url buckets without their `:<b>` (url-buckets.ts). */
  private urlBase(tag: string): string {
    return `${this.name}{${tag}}u`;
  }

  private zsetKey(space: Space, tag: string): string {
    return `${this.name}{${tag}}${SPACE_CODES[space]}:o`;
  }

  /** The sorted set of whole entries of an entry space's tag (ordered-entries.ts). */
  private entryKey(space: Space, tag: string): string {
    return `${this.name}{${tag}}${SPACE_CODES[space]}${ENTRY_SUFFIX}`;
  }

  private tagOf(space: Space, k: string): string {
    if (this.partition !== undefined) return this.partition.tag;
    const p = tagPrefix(space, k);
    // a key outside the documented layouts (never written by the engine) goes with the global keys
    return p === undefined ? GLOBAL_TAG : p.tag;
  }

  async get(space: Space, key: string): Promise<string | undefined> {
    return (await this.getMany(space, [key]))[0];
  }

  async getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.getAcross(keys.map((k) => [space, k] as const));
  }

  /** The master serving `tag` (`host:port`), or the tag's slot when the slot map does not say. */
  private nodeOf(tag: string): string {
    let slot = this.slotOfTag.get(tag);
    if (slot === undefined) {
      slot = tagSlot(tag);
      if (this.slotOfTag.size > 100_000) this.slotOfTag.clear();
      this.slotOfTag.set(tag, slot);
    }
    return this.cluster.slots[slot]?.[0] ?? `slot:${slot}`;
  }

  /** One read script per master, all sent in one tick. */
  async getAcross(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    const groups = new Map<string, { keys: string[]; index: Map<string, number>; args: string[]; at: number[] }>();
    for (let i = 0; i < keys.length; i++) {
      const [space, k] = keys[i]!;
      const tag = this.tagOf(space, k);
      const node = this.nodeOf(tag);
      let g = groups.get(node);
      if (g === undefined) groups.set(node, (g = { keys: [], index: new Map(), args: [], at: [] }));
      const url = space === 'url';
      const entry = ENTRY_SPACES.has(space);
      const h = url ? this.urlBase(tag) : entry ? this.entryKey(space, tag) : this.hashKey(space, tag);
      let hi = g.index.get(h);
      if (hi === undefined) {
        g.keys.push(h);
        g.index.set(h, (hi = g.keys.length));
      }
      if (url) {
        const f = urlField(tag, k);
        g.args.push(String(hi), f, String(fieldHash(f)));
      } else if (entry) g.args.push(String(hi), escapeKey(k), 'e');
      else g.args.push(String(hi), k, '');
      g.at.push(i);
    }
    const out = new Array<string | undefined>(keys.length);
    try {
      await Promise.all(
        [...groups.values()].map(async (g) => {
          const values = await this.scripted.udGet(1, g.keys[0]!, String(g.keys.length), ...g.keys, ...g.args);
          for (let j = 0; j < values.length; j++) {
            const v = values[j];
            const [space, k] = keys[g.at[j]!]!;
            out[g.at[j]!] = v === null || v === undefined ? undefined : decodeValue(space, k, v);
          }
        }),
      );
    } catch (e) {
      throw redisError(e, this.location);
    }
    return out;
  }

  async *entries(space: Space, range: KvRange = {}): AsyncIterable<[string, string]> {
    try {
      yield* this.read(space, range);
    } catch (e) {
      throw redisError(e, this.location);
    }
  }

  async *keys(space: Space, range: KvRange = {}): AsyncIterable<string> {
    for await (const [k] of this.entries(space, range)) yield k;
  }

  private async *read(space: Space, range: KvRange): AsyncIterable<[string, string]> {
    const limit = range.limit === undefined || range.limit < 0 ? Infinity : range.limit;
    if (limit === 0) return;
    const one = this.partition?.tag ?? rangeTag(space, range);
    const tags = one !== undefined ? [one] : [...this.tags.get(space)!];
    let n = 0;
    if (space === 'url') {
      // disjoint per tag, ordered by `head)` (see the layout above); a tag whose keys all lie
      // outside the range is not read (a paged whole-space scan asks for the rest after a key)
      const order = tags
        .map((t) => ({ t, p: t.slice(1) + ')' }))
        .filter(({ t }) => this.partition !== undefined || !outsideRange(tagKeyPrefix(t), range))
        .sort((a, b) => cmp(a.p, b.p) * (range.reverse === true ? -1 : 1));
      for (const { t } of order) {
        for (const e of await this.urlEntries(t, range)) {
          yield e;
          if (++n >= limit) return;
        }
      }
      return;
    }
    if (tags.length === 1) {
      for await (const e of this.tagEntries(space, tags[0]!, range, limit)) {
        yield e;
        if (++n >= limit) return;
      }
      return;
    }
    // merge across tags in key order: one paged cursor per tag
    type Cursor = { key: string; value: string; it: AsyncIterator<[string, string]> };
    const heap = new CursorHeap<Cursor>(range.reverse === true ? -1 : 1);
    const starts = await Promise.all(
      tags.map(async (t) => {
        const it = this.tagEntries(space, t, range, limit)[Symbol.asyncIterator]();
        const first = await it.next();
        return first.done === true ? undefined : { key: first.value[0], value: first.value[1], it };
      }),
    );
    for (const c of starts) if (c !== undefined) heap.push(c);
    while (heap.size > 0) {
      const c = heap.pop()!;
      yield [c.key, c.value];
      if (++n >= limit) {
        for (let rest = heap.pop(); rest !== undefined; rest = heap.pop()) await rest.it.return?.();
        await c.it.return?.();
        return;
      }
      const next = await c.it.next();
      if (next.done !== true) heap.push({ key: next.value[0], value: next.value[1], it: c.it });
    }
  }

  /** The entries of one tag's sorted space in `range`, paged (each page one consistent read). */
  private async *tagEntries(space: Space, tag: string, range: KvRange, limit: number): AsyncIterable<[string, string]> {
    const reverse = range.reverse === true;
    if (ENTRY_SPACES.has(space)) {
      yield* this.entrySetEntries(space, tag, range, limit);
      return;
    }
    let min = range.gte !== undefined ? '[' + range.gte : range.gt !== undefined ? '(' + range.gt : '-';
    let max = range.lt !== undefined ? '(' + range.lt : '+';
    const z = this.zsetKey(space, tag);
    const h = this.hashKey(space, tag);
    let left = limit;
    for (;;) {
      const page = Math.min(PAGE, left);
      const flat = await this.scripted.udRange(z, h, min, max, String(page), reverse ? '1' : '0');
      for (let i = 0; i < flat.length; i += 2) yield [flat[i]!, decodeValue(space, flat[i]!, flat[i + 1]!)];
      left -= flat.length / 2;
      if (flat.length / 2 < page || left <= 0) return;
      const last = flat[flat.length - 2]!;
      if (reverse) max = '(' + last;
      else min = '(' + last;
    }
  }

  /** The entries of an entry space's tag in `range` (ordered-entries.ts), a page per ZRANGEBYLEX. */
  private async *entrySetEntries(space: Space, tag: string, range: KvRange, limit: number): AsyncIterable<[string, string]> {
    const reverse = range.reverse === true;
    let { min, max } = entryBounds(range);
    const z = this.entryKey(space, tag);
    let left = limit;
    for (;;) {
      const page = Math.min(PAGE, left);
      const members = await ridingOutages(() =>
        reverse ? this.cluster.zrevrangebylex(z, max, min, 'LIMIT', 0, page) : this.cluster.zrangebylex(z, min, max, 'LIMIT', 0, page),
      );
      let last = '';
      for (const m of members) {
        const [k, v] = splitMember(m);
        last = k;
        yield [k, decodeValue(space, k, v)];
      }
      left -= members.length;
      if (members.length < page || left <= 0) return;
      if (reverse) max = beforeKeyBound(last);
      else min = afterKeyBound(last);
    }
  }

  /** One tag's url entries in `range`, sorted: its buckets read a page at a time (url-buckets.ts). */
  private async urlEntries(tag: string, range: KvRange): Promise<[string, string][]> {
    const base = this.urlBase(tag);
    const seen = new Map<string, string>();
    let n = 1;
    for (let from = 0; from < n; from += URL_PAGE_BUCKETS) {
      const flat = await this.scripted.udUrlPage(`${base}:0`, base, String(from), String(URL_PAGE_BUCKETS));
      n = Number(flat[0]);
      // a split between two pages moves entries to a bucket after n: read again, not lost
      for (let i = 1; i < flat.length; i += 2) {
        const k = urlKey(tag, flat[i]!);
        if (inRange(k, range)) seen.set(k, decodeValue('url', k, flat[i + 1]!));
      }
    }
    const out = [...seen];
    out.sort((a, b) => cmp(a[0], b[0]) * (range.reverse === true ? -1 : 1));
    return out;
  }

  /**
   * The ops grouped by master, each group applied by one script run (atomic on its master), all
   * groups sent in one tick. Resolves when every group was applied; see the module comment for
   * what that survives. `sync` is not used: the masters' appendfsync decides.
   */
  async write(ops: readonly KvOp[], options: { readonly sync: boolean }): Promise<void> {
    void options;
    if (this.closed) throw redisError(new Error('closed'), this.location);
    if (this.lock?.lost !== undefined) throw this.lock.lost;
    type Group = { keys: string[]; index: Map<string, number>; args: string[] };
    const groups = new Map<string, Group>();
    const slot = (g: Group, k: string): number => {
      let i = g.index.get(k);
      if (i === undefined) {
        g.keys.push(k);
        g.index.set(k, (i = g.keys.length));
      }
      return i;
    };
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const tag = this.tagOf(op.space, op.key);
      const node = this.nodeOf(tag);
      let g = groups.get(node);
      if (g === undefined) groups.set(node, (g = { keys: [], index: new Map(), args: [] }));
      if (op.space === 'url') {
        const f = urlField(tag, op.key);
        const v = op.value === undefined ? '' : encodeValue('url', op.key, op.value);
        g.args.push(op.value === undefined ? 'D' : 'P', String(slot(g, this.urlBase(tag))), String(fieldHash(f)), f, v);
      } else if (ENTRY_SPACES.has(op.space)) {
        const v = op.value === undefined ? '' : encodeValue(op.space, op.key, op.value);
        g.args.push(op.value === undefined ? 'X' : 'E', String(slot(g, this.entryKey(op.space, tag))), '0', escapeKey(op.key), v);
      } else {
        const hi = slot(g, this.hashKey(op.space, tag));
        const zi = slot(g, this.zsetKey(op.space, tag));
        g.args.push(op.value === undefined ? 'd' : 'p', String(hi), String(zi), op.key, op.value === undefined ? '' : encodeValue(op.space, op.key, op.value));
      }
      if (op.value !== undefined) this.tags.get(op.space)!.add(tag);
    }
    const fence = this.partition?.fence;
    const load = String(this.limits.load);
    const vmax = String(this.limits.valueMax);
    try {
      await Promise.all(
        [...groups.values()].map((g) =>
          fence === undefined
            ? this.scripted.udWrite(1, g.keys[0]!, String(g.keys.length), '', load, vmax, ...g.keys, ...g.args)
            : this.scripted.udFencedWrite(1, fence.key, String(g.keys.length), fence.token, load, vmax, ...g.keys, ...g.args),
        ),
      );
    } catch (e) {
      if (fence !== undefined && e instanceof Error && e.message.startsWith('LEASELOST')) {
        throw new StoreError('ERR_STORE_LOCKED', this.location, { cause: e, detail: `the host lease ${fence.key} is held by another worker` });
      }
      throw redisError(e, this.location);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose();
  }
}

