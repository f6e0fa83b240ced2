/**
 * The engine's in-memory state, in one object: counters, the Bloom fronts, the entry cache, the
 * frontier and the live host rules. The database is the truth; this is what keeps most checks off
 * the disk, and it follows the database in two steps (see write-queue.ts):
 * - at submission (`applySubmitted`), what the next batch builds on: counters, the keys of batches
 *   in flight, the Bloom front;
 * - when the write returned (`applyWritten`), the rest: written counters (for `stats`), the cache,
 *   the frontier, the rules.
 * A failed write rolls the first part back to what was written (`rollback`).
 */
import { fingerprintWords, urlFromKey, type NormalizeOptions } from '../../normalize/index.js';
import { EntryCache, KeyTable, type ScalableBloom } from '../front/bloom.js';
import { BLOCK_LINES, Frontier } from '../frontier.js';
import { counterNames } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { compareForApply, parseRuleId, type ActiveRule, type RuleRecord } from '../rules.js';
import type { Txn } from './batch.js';
import { NotFoundCache } from '../learning/not-found.js';
import { PathDocuments } from '../learning/path-documents.js';
import { customNormalizeOptions, type ResolvedOptions } from './options.js';
import { summaryOf } from './url-state.js';

/** A counter's new value after a batch: [name, value]. */
export type CounterChange = readonly [string, number];

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The candidate and active host rules as written, indexed for the transform (active rules per
 * host, in the order they apply) and the learner (live rule ids per host, and withdrawn ids).
 */
export class LiveRules {
  private readonly live = new Map<string, RuleRecord>();
  private readonly liveByHost = new Map<string, Set<string>>();
  private readonly withdrawnIds = new Set<string>();
  private readonly activeByHost = new Map<string, ActiveRule[]>();
  /** The active rules of `host`, in apply order (rules.ts `applyRules` takes this). */
  readonly activeOf = (host: string): readonly ActiveRule[] | undefined => this.activeByHost.get(host);

  /** A rule that is not withdrawn, by id. */
  get(id: string): RuleRecord | undefined {
    return this.live.get(id);
  }

  /** The ids of `host`'s live (candidate or active) rules. */
  idsOf(host: string): Iterable<string> {
    return this.liveByHost.get(host) ?? [];
  }

  /** True when `id` was withdrawn (its record is only in the database). */
  isWithdrawn(id: string): boolean {
    return this.withdrawnIds.has(id);
  }

  /** True when some host has an active rule. */
  get anyActive(): boolean {
    return this.activeByHost.size > 0;
  }

  hasActive(host: string): boolean {
    return this.activeByHost.has(host);
  }

  /** Take a rule as written (at open, and after each commit). */
  remember(rule: RuleRecord): void {
    const had = this.live.get(rule.id);
    if (rule.state === 'withdrawn') {
      this.live.delete(rule.id);
      this.liveByHost.get(rule.host)?.delete(rule.id);
      this.withdrawnIds.add(rule.id);
    } else {
      this.live.set(rule.id, rule);
      let ids = this.liveByHost.get(rule.host);
      if (ids === undefined) this.liveByHost.set(rule.host, (ids = new Set()));
      ids.add(rule.id);
    }
    if (had?.state === 'active' || rule.state === 'active') this.rebuildActive(rule.host);
  }

  private rebuildActive(host: string): void {
    const active: ActiveRule[] = [];
    for (const id of this.liveByHost.get(host) ?? []) {
      const r = this.live.get(id);
      if (r?.state !== 'active') continue;
      const parsed = parseRuleId(id);
      if (parsed !== undefined) active.push({ id, spec: parsed.spec, scopes: r.scopes ?? [] });
    }
    active.sort((a, b) => compareForApply(a.spec, b.spec) || compare(a.id, b.id));
    if (active.length === 0) this.activeByHost.delete(host);
    else this.activeByHost.set(host, active);
  }
}

export class EngineState {
  readonly kv: Kv;
  readonly location: string;
  o: ResolvedOptions;
  /** The normalize options, or `undefined` when they are the defaults (normalize's fastest path). */
  readonly normalizeOptions: NormalizeOptions | undefined;
  /** The store's salt for redacting passwords (userinfo.ts), read or made at open. */
  salt = '';
  /** Counters including submitted batches not yet written (what the next batch builds on). */
  counters = new Map<string, number>();
  /** Counters as written. */
  readonly committed = new Map<string, number>();
  /** Admit batches submitted and not yet written: their new keys count as present. */
  readonly inflight = new Set<Txn>();
  /** The keys those batches create (each by one batch: a later one finds it here), by fingerprint word. */
  readonly pendingKeys = new KeyTable();
  front!: ScalableBloom;
  aliasFront!: ScalableBloom;
  /** Where the fronts came from at open: the snapshot of the last clean close, or the keys. */
  frontSource: 'snapshot' | 'database' = 'database';
  /** The `url` entries of keys known present, as `entrySummary` keeps them (written state only). */
  readonly cache: EntryCache;
  /** Bumped by every written batch that changed `url` entries: a read overtaken by one is not cached. */
  urlWrites = 0;
  frontier: Frontier;
  readonly rules = new LiveRules();
  /**
   * In a fleet partition: URLs another host's partition must queue (a redirect target, a give-back
   * mapped by an alias onto another host), taken by the fleet after each call (`takeOutbox`).
   */
  readonly outbox: { readonly url: string; readonly depth: number; readonly src?: string }[] = [];
  /** URLs each rule rewrote in this process: which of them are fetched as themselves too (admit.ts). */
  readonly rewrites = new Map<string, number>();
  /** The directories where each rule has evidence or a checked rewrite (admit.ts `newDirectory`). */
  readonly rewriteDirs = new Map<string, Set<string>>();
  /** Scopes per rule (their node, flat, query and values) whose documents were read for images (give-back.ts `pruneImages`). */
  readonly imageScans = new Map<string, Set<string>>();
  /** Presets off on a host because its redirects contradict them (host → preset names; evidence.ts). */
  readonly suspendedPresets = new Map<string, Set<string>>();
  /** Each host's not-found entries as read (not-found.ts), until a written batch changes them. */
  readonly notFound = new NotFoundCache();
  /** The documents fetched under each path of the hosts read (path-documents.ts). */
  readonly pathDocuments: PathDocuments;

  constructor(kv: Kv, options: ResolvedOptions) {
    this.kv = kv;
    this.location = kv.location;
    this.o = options;
    this.normalizeOptions = customNormalizeOptions(options.normalize);
    this.cache = new EntryCache(options.cacheSize);
    this.frontier = new Frontier(kv);
    this.pathDocuments = new PathDocuments(kv);
  }

  /** A counter as the next batch builds on it. */
  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  /** Set every counter (at open, or after a rebuild) and load the frontier's per-host counts from them. */
  loadCounters(counts: Iterable<readonly [string, number]>): void {
    this.counters = new Map();
    this.committed.clear();
    for (const [name, n] of counts) {
      this.counters.set(name, n);
      this.committed.set(name, n);
    }
    const hostCounts = new Map<string, number>();
    const frontierPrefix = counterNames.frontier('');
    for (const [name, n] of this.counters) if (name.startsWith(frontierPrefix)) hostCounts.set(name.slice(frontierPrefix.length), n);
    this.frontier = new Frontier(this.kv);
    this.frontier.load(hostCounts);
  }

  /** A batch was submitted: what the next batch builds on follows it. */
  applySubmitted(txn: Txn, changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (value === 0) this.counters.delete(name);
      else this.counters.set(name, value);
    }
    const words = txn.newWords;
    for (let i = 0; i < txn.newKeys.length; i++) this.front.addWords(words[2 * i]!, words[2 * i + 1]!);
    if (txn.newKeys.length > 0) {
      this.inflight.add(txn);
      for (let i = 0; i < txn.newKeys.length; i++) this.pendingKeys.add(txn.newKeys[i]!, words[2 * i]!);
    }
  }

  /** The batch is written: the rest of the in-memory state follows. */
  applyWritten(txn: Txn, changed: readonly CounterChange[]): void {
    for (const [name, value] of changed) {
      if (value === 0) this.committed.delete(name);
      else this.committed.set(name, value);
    }
    if (this.inflight.delete(txn)) for (let i = 0; i < txn.newKeys.length; i++) this.pendingKeys.delete(txn.newKeys[i]!, txn.newWords[2 * i]!);
    if (txn.newKeys.length > 0 || txn.urls.size > 0) {
      // the cache follows every written entry: new queued keys (queueNew, not in `urls`), then
      // every entry `setUrl` wrote
      this.urlWrites++;
      const keys = txn.newKeys;
      const words = txn.newWords;
      const others = txn.urls.size > 0;
      const heads = txn.newHeads;
      const rests = txn.newRests;
      for (let i = 0; i < keys.length; i++) {
        if (others && txn.urls.has(keys[i]!)) continue;
        // a key the single pass made is a rope of its head and a slice of the input URL, which
        // it keeps alive whole: the cache, which keeps keys long enough to be copied twice by the
        // scavenger, gets one flat string instead (a two-part join makes one)
        const head = heads[i]!;
        this.cache.set(head === '' ? keys[i]! : [head, rests[i]!].join(''), words[2 * i]!, 'q');
      }
      for (const [k, e] of txn.urls) {
        this.frontier.changed(k);
        const h1 = fingerprintWords(k)[0];
        if (e === null) this.cache.delete(k, h1);
        else this.cache.set(k, h1, summaryOf(e));
      }
    }
    for (const k of txn.newAliasSources) this.aliasFront.add(k);
    for (const [host, delta] of txn.frontier) if (delta !== 0) this.frontier.adjust(host, delta);
    for (const [block, n] of txn.blockLive) this.frontier.setLive(block, n);
    for (const k of txn.landed) this.frontier.land(k);
    for (const u of txn.urgent) this.frontier.offerFirst({ url: urlFromKey(u.key), key: u.key, host: u.host, depth: u.depth, seq: u.seq * BLOCK_LINES, ...(txn.urls.get(u.key)?.k === 'p' ? { check: 'probe' as const } : {}) });
    for (const rule of txn.rules.values()) this.rules.remember(rule);
    this.notFound.written(txn.ops);
    this.pathDocuments.written(txn.ops);
  }

  /** A write failed: back to what was written (the batches built on it are refused by the queue). */
  rollback(): void {
    this.counters = new Map(this.committed);
    this.inflight.clear();
    this.pendingKeys.clear();
  }
}
