/**
 * One host's partition of a fleet store: a whole store (the engine, unchanged) whose every key,
 * meta and counters included, carries the host's tag, so it lives in one Redis Cluster slot and
 * each of its batches is atomic. The partition's lock is the host's lease: only the worker that
 * holds the lease writes, and every write is fenced by it (redis-kv.ts `FENCED_WRITE`).
 *
 *     <name>{<tag>}lease      the lease: SET NX PX, renewed every third of its TTL
 *     <name>{<tag>}inbox      links for this host found by other workers (a list of JSON lines)
 *     <name>{<tag>}<code>     the partition's store (redis-kv.ts layout, one tag)
 */
import type { Cluster } from 'ioredis';
import { StoreEngine } from '../engine/index.js';
import { ClusterLock } from '../backends/redis/cluster.js';
import { RedisKv } from '../backends/redis/redis-kv.js';
import type { StoreOptions } from '../seen-store.js';

export const leaseKey = (name: string, tag: string): string => `${name}{${tag}}lease`;
export const inboxKey = (name: string, tag: string): string => `${name}{${tag}}inbox`;
/** When the host's next request may start (epoch ms), left by the worker that gave the host up. */
export const paceKey = (name: string, tag: string): string => `${name}{${tag}}pace`;

/** A partition this worker holds: its lease and its engine. */
export interface HeldPartition {
  readonly tag: string;
  readonly lease: ClusterLock;
  readonly engine: StoreEngine;
  /** Set once a write failed because the lease was lost: the partition is given up. */
  lost: boolean;
  /** The frontier's hosts (`host[:port]`) handed out from this partition. */
  readonly hosts: Set<string>;
  /** No request to the host before this (epoch ms): the pace its last holder left. */
  notBefore: number;
  /** Since when its frontier has been empty (fleet-store.ts `refill`). */
  emptySince: number | undefined;
  /** Taken and not yet drained: its inbox's first drain takes it off `ready` whatever it finds. */
  fresh: boolean;
}

/**
 * Take `tag`'s lease if nobody holds it and open its partition; `undefined` when another worker
 * holds it. The lease is released again when the open fails.
 */
export async function takePartition(
  cluster: Cluster,
  name: string,
  location: string,
  tag: string,
  salt: string,
  ttlMs: number,
  options: StoreOptions,
): Promise<HeldPartition | undefined> {
  const lease = new ClusterLock(cluster, leaseKey(name, tag), ttlMs, location);
  if (!(await lease.tryAcquire())) return undefined;
  try {
    const kv = await RedisKv.open(cluster, name, `${location}/${tag}`, lease, async () => undefined, { tag, fence: { key: lease.name, token: lease.token } });
    const engine = await StoreEngine.open(kv, { durable: true, atomicBatch: true }, options, { tag, salt });
    const pace = Number((await cluster.get(paceKey(name, tag))) ?? 0);
    return { tag, lease, engine, lost: false, hosts: new Set(), notBefore: pace, emptySince: undefined, fresh: true };
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/**
 * Open `tag`'s partition to read it, without its lease (`stats`, `export`, `canonical` of a host
 * another worker holds): each read is consistent on its own, not with the next one.
 */
export async function peekPartition(cluster: Cluster, name: string, location: string, tag: string, salt: string, options: StoreOptions): Promise<StoreEngine> {
  const kv = await RedisKv.open(cluster, name, `${location}/${tag}`, undefined, async () => undefined, { tag });
  return StoreEngine.open(kv, { durable: true, atomicBatch: true }, { ...options, readOnly: true }, { tag, salt });
}
