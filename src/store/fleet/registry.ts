/**
 * The fleet's shared keys on Redis Cluster, beside the partitions (partition.ts):
 *
 *     <name>{g}fleet     hash: the marker of a fleet store (`layout`, `created`)
 *     <name>{g}hosts     set: the tag of every partition
 *     <name>{g}ready     set: tags with work (queued URLs or an inbox) that may have no holder
 *     <name>{g}leased    set: tags whose lease was taken (the lease key says whether it still holds)
 *
 * Ordering is what makes the sets safe without a transaction across slots (they are in another
 * slot than the partitions): a tag is added to `ready` before its lease is given up, and a worker
 * that asks "is the fleet done?" reads `leased` before `ready`. So a host that still has work is
 * always in one of the two when it is read, and the last worker cannot finish while another holds
 * a host that may still hand it links.
 */
import type { Cluster } from 'ioredis';
import { StoreError } from '../errors.js';
import { newSalt } from '../userinfo.js';
import { isTransientRedisError, ridingCommands } from '../backends/redis/redis-kv.js';
import { inboxKey, leaseKey } from './partition.js';

/** The fleet's key layout (`<name>{g}fleet` field `layout`). */
const FLEET_LAYOUT = '2';

/** What an inbox line holds: a link to admit (or, with `p`, to record as pruned for that reason). */
export interface InboxEntry {
  readonly u: string;
  readonly d: number;
  readonly s?: string;
  readonly p?: string;
}

const DRAIN = `#!lua
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
return items`;

const TAKEN = `#!lua
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1`;

const GIVING_UP = `#!lua
if ARGV[2] == '1' then redis.call('SADD', KEYS[1], ARGV[1]) end
redis.call('SREM', KEYS[2], ARGV[1])
return 1`;

const LISTED_READY = `#!lua
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
return 1`;

export class FleetRegistry {
  private readonly cluster: Cluster;
  /** Tags this worker put in `hosts` (a set only added to while the store lives). */
  private readonly listed = new Set<string>();

  constructor(
    cluster: Cluster,
    readonly name: string,
  ) {
    // the fleet's own keys ride out a restart too; each of these is safe to run twice (an RPUSH
    // run twice puts an inbox line twice: admitted twice, seen the second time). LTRIM is not:
    // see dropInbox
    this.cluster = ridingCommands(cluster, ['eval', 'exists', 'hget', 'hsetnx', 'llen', 'rpush', 'sadd', 'scard', 'smembers', 'srandmember', 'srem']);
  }

  private key(what: string): string {
    return `${this.name}{g}${what}`;
  }

  /**
   * Mark the store as a fleet store, or check that it is one: a store written by one process
   * (`openRedisStore`, its meta under `{g}`) is not opened as a fleet, nor the other way round.
   */
  async claimLayout(location: string): Promise<string> {
    if ((await this.cluster.exists(this.key('m'))) === 1) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', location, { detail: `${this.name} is a single-writer Redis store (openRedisStore, --redis without a fleet), not a fleet store` });
    }
    const marker = this.key('fleet');
    // layout 2: a host and its `www.` name share a partition (host-tag.ts `partitionTag`); a
    // layout-1 fleet keyed them apart, and its `www.` partitions would be read as nobody's
    await this.cluster.hsetnx(marker, 'layout', FLEET_LAYOUT);
    const layout = await this.cluster.hget(marker, 'layout');
    if (layout !== FLEET_LAYOUT) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', location, { detail: `${this.name} is a fleet store of layout ${layout ?? '(none)'}, written by an earlier urldedup; this one reads layout ${FLEET_LAYOUT} (finish that crawl with the version that began it, or start a new fleet under another --redis-name)` });
    }
    await this.cluster.hsetnx(marker, 'created', new Date().toISOString());
    // the fleet's password salt (userinfo.ts): one for every partition and the inboxes
    await this.cluster.hsetnx(marker, 'salt', newSalt());
    const salt = await this.cluster.hget(marker, 'salt');
    if (salt === null) throw new StoreError('ERR_STORE_CORRUPT', location, { detail: `${marker} has no salt` });
    return salt;
  }

  /** True when `name` holds a fleet store. */
  async isFleet(): Promise<boolean> {
    return (await this.cluster.exists(this.key('fleet'))) === 1;
  }

  async hosts(): Promise<string[]> {
    return (await this.cluster.smembers(this.key('hosts'))).sort();
  }

  /** Up to `n` tags that may have work and no holder. */
  async readySample(n: number): Promise<string[]> {
    return (await this.cluster.srandmember(this.key('ready'), n)) as string[];
  }

  async readyCount(): Promise<number> {
    return this.cluster.scard(this.key('ready'));
  }

  // The fleet's sets share one slot (`{g}`): each change that moves a tag between them is one
  // script, one round trip, its steps in order even when an outage makes it run twice (each step
  // may run twice: set membership).

  /** After this worker took `tag`'s lease: in `hosts` and `leased`, then out of `ready`. */
  async taken(tag: string): Promise<void> {
    this.listed.add(tag);
    await this.cluster.eval(TAKEN, 3, this.key('hosts'), this.key('leased'), this.key('ready'), tag);
  }

  /** Before `tag`'s lease is given up: back to `ready` when it has work left, then out of `leased`. */
  async givingUp(tag: string, hasWork: boolean): Promise<void> {
    await this.cluster.eval(GIVING_UP, 2, this.key('ready'), this.key('leased'), tag, hasWork ? '1' : '0');
  }

  /** Links for `tag` from another worker: its inbox, then `tag` in `hosts` and `ready`. */
  async send(tag: string, entries: readonly InboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.cluster.rpush(inboxKey(this.name, tag), ...entries.map((e) => JSON.stringify(e)));
    if (this.listed.has(tag)) await this.cluster.sadd(this.key('ready'), tag);
    else await this.cluster.eval(LISTED_READY, 2, this.key('hosts'), this.key('ready'), tag);
    this.listed.add(tag);
  }

  /** The first `n` lines of `tag`'s inbox, left in place until `dropInbox` (at-least-once). */
  async peekInbox(tag: string, n: number): Promise<InboxEntry[]> {
    const lines = (await this.cluster.eval(DRAIN, 1, inboxKey(this.name, tag), String(n))) as string[];
    return lines.map((l) => JSON.parse(l) as InboxEntry);
  }

  /** Remove the first `n` lines of `tag`'s inbox (they were admitted). */
  async dropInbox(tag: string, n: number): Promise<void> {
    try {
      await this.cluster.ltrim(inboxKey(this.name, tag), n, -1);
    } catch (e) {
      // not run again (a second LTRIM would drop lines nobody admitted): lines left in the inbox
      // are admitted again by the next drain, and found seen
      if (!isTransientRedisError(e)) throw e;
    }
  }

  async inboxLength(tag: string): Promise<number> {
    return this.cluster.llen(inboxKey(this.name, tag));
  }

  /** Once the holder has drained `tag`'s inbox: it need not stay ready. */
  async drained(tag: string): Promise<void> {
    await this.cluster.srem(this.key('ready'), tag);
    // a link sent between the drain and here is put back by its sender's SADD, or found now
    if ((await this.inboxLength(tag)) > 0) await this.cluster.sadd(this.key('ready'), tag);
  }

  /**
   * Hosts whose lease expired (a worker was killed or stalled) go back to `ready`, their queued
   * and in-flight URLs with them. Returns the tags whose leases still hold.
   */
  async reap(): Promise<string[]> {
    const leased = await this.cluster.smembers(this.key('leased'));
    const held = await Promise.all(leased.map((tag) => this.cluster.exists(leaseKey(this.name, tag))));
    const live: string[] = [];
    for (let i = 0; i < leased.length; i++) {
      const tag = leased[i]!;
      if (held[i] === 1) {
        live.push(tag);
        continue;
      }
      // remembered for whichever worker takes it next: a takeover it says it made (`takeReaped`)
      await this.cluster.sadd(this.key('reaped'), tag);
      await this.cluster.sadd(this.key('ready'), tag);
      await this.cluster.srem(this.key('leased'), tag);
      // taken in between (its taker added it to `leased` before this SREM): put it back
      if ((await this.cluster.exists(leaseKey(this.name, tag))) === 1) await this.cluster.sadd(this.key('leased'), tag);
    }
    return live;
  }

  /**
   * Whether a host just taken (its lease set, before `taken`) was left by a holder whose lease
   * expired: reaped back to `ready` since, or still in `leased` (a clean give-up leaves `leased`
   * first). Called once per take: the reaped mark is cleared.
   */
  async takeover(tag: string): Promise<boolean> {
    const reaped = (await this.cluster.srem(this.key('reaped'), tag)) === 1;
    return reaped || (await this.cluster.sismember(this.key('leased'), tag)) === 1;
  }

  /** Every key of the fleet's own (not the partitions'): for `destroy`. */
  sharedKeys(): string[] {
    return ['fleet', 'hosts', 'ready', 'leased', 'reaped'].map((w) => this.key(w));
  }
}
