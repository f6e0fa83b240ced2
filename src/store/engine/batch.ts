/**
 * One batch: the pending changes of one call, written as one `Kv.write` (one LevelDB WriteBatch,
 * docs/reliability.md promise 3), with read-your-writes overlays so a call sees its own changes before the
 * commit. The reads here go through the overlay first, then the database.
 */
import { decodeJson, decodeUrlEntry, type AliasEntry, type Space, type UrlEntry } from '../keys.js';
import { FrontierBatch } from '../frontier.js';
import type { Kv, KvOp } from '../backends/kv.js';
import type { RuleRecord } from '../rules.js';
import type { EngineParts } from './parts.js';

/** The pending changes of one batch, with read-your-writes overlays. */
export class Txn {
  readonly ops: KvOp[] = [];
  readonly urls = new Map<string, UrlEntry | null>();
  /**
   * `url` entries read ahead from the database for this batch (`prefetchUrls`), for a call that
   * runs alone (write-queue.ts `exclusive`): nothing but its own commits changes them meanwhile.
   */
  readonly fetched = new Map<string, UrlEntry | undefined>();
  readonly aliases = new Map<string, AliasEntry | null>();
  readonly evidence = new Map<string, string | null>();
  readonly rules = new Map<string, RuleRecord>();
  readonly counters = new Map<string, number>();
  /** What this batch changes in the frontier: its blocks, queue counts, landed keys, checks. */
  readonly queue: FrontierBatch;
  readonly newKeys: string[] = [];
  /** Fingerprint words of `newKeys`, two per key. */
  readonly newWords: number[] = [];
  /** The single-pass parts of `newKeys` ('' and the key when it came whole): see `SeenSet.wrote`. */
  readonly newHeads: string[] = [];
  readonly newRests: string[] = [];
  private createdSet: Set<string> | undefined;
  readonly newAliasSources: string[] = [];
  /** Keys queued by `queueNew` (counted into `admitted` and `state:queued` at submit). */
  queuedNew = 0;

  /** `seq`: the store-wide block sequence this batch numbers its frontier blocks on from. */
  constructor(seq: number) {
    this.queue = new FrontierBatch(seq);
  }

  put(space: Space, key: string, value: string): void {
    this.ops.push({ space, key, value });
  }

  del(space: Space, key: string): void {
    this.ops.push({ space, key, value: undefined });
  }

  count(name: string, delta: number): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + delta);
  }

  /** A `url` entry for `key` is created by this batch. */
  addNew(key: string, h1: number, h2: number, head = '', rest = key): void {
    this.newKeys.push(key);
    this.newWords.push(h1, h2);
    this.newHeads.push(head);
    this.newRests.push(rest);
    this.createdSet?.add(key);
  }

  /** True when this batch creates a `url` entry for `key` (the set is built on first use). */
  creates(key: string): boolean {
    this.createdSet ??= new Set(this.newKeys);
    return this.createdSet.has(key);
  }
}

// ---- reads with the batch overlay ------------------------------------------------------------

/** A `url` entry: this batch's, else the one read ahead for it, else the database's. */
export async function getUrl(kv: Pick<Kv, 'get'>, txn: Txn | undefined, key: string): Promise<UrlEntry | undefined> {
  const pending = txn?.urls.get(key);
  if (pending !== undefined) return pending ?? undefined;
  if (txn !== undefined && txn.fetched.size > 0 && txn.fetched.has(key)) return txn.fetched.get(key);
  const v = await kv.get('url', key);
  return v === undefined ? undefined : decodeUrlEntry(v);
}

/**
 * Read the `url` entries of `keys` into the batch in one `getMany`, for a loop that then reads
 * them one by one (give-back.ts). Only for a call that runs alone: see `Txn.fetched`.
 */
export async function prefetchUrls(kv: Pick<Kv, 'getMany'>, txn: Txn, keys: Iterable<string>): Promise<void> {
  const want: string[] = [];
  for (const k of keys) if (!txn.urls.has(k) && !txn.fetched.has(k)) want.push(k);
  if (want.length === 0) return;
  const unique = [...new Set(want)];
  const values = await kv.getMany('url', unique);
  for (let i = 0; i < unique.length; i++) {
    const v = values[i];
    txn.fetched.set(unique[i]!, v === undefined ? undefined : decodeUrlEntry(v));
  }
}

/** An `alias` entry: this batch's, else the database's when the alias front says maybe. */
export async function getAlias(s: Pick<EngineParts, 'kv' | 'seen'>, txn: Txn | undefined, key: string): Promise<AliasEntry | undefined> {
  const pending = txn?.aliases.get(key);
  if (pending !== undefined) return pending ?? undefined;
  if (!s.seen.aliasFront.has(key) && !(txn?.newAliasSources.includes(key) ?? false)) return undefined;
  const v = await s.kv.get('alias', key);
  return v === undefined ? undefined : decodeJson<AliasEntry>(v);
}

/** An `evidence` value: this batch's, else the database's. */
export async function getEvidence(kv: Pick<Kv, 'get'>, txn: Txn, key: string): Promise<string | undefined> {
  const pending = txn.evidence.get(key);
  if (pending !== undefined) return pending ?? undefined;
  return kv.get('evidence', key);
}

export function putEvidence(txn: Txn, key: string, value: string): void {
  txn.evidence.set(key, value);
  txn.put('evidence', key, value);
}
