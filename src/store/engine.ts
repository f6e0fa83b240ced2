/**
 * The store's engine, shared by the LevelDB and memory backends (it runs on a `Kv`).
 *
 * RFC 3986 §6.2.4 (protocol-based normalization) at the frontier gate:
 *
 *     url ─ normalize (§6.2.2, §6.2.3) ─ redact password ─► identity key
 *         ─ presets (named, reversible) ─ active host rules ─ alias table ─► canonical key
 *         ─ seen set ─► queued, or the reason it was not
 *
 * Every state change of one call is one `Kv.write` (one LevelDB batch) together with the counters
 * it changes, and calls run one at a time (a queue), so no check-then-write race exists across
 * `await`. Writes are chained in submission order. `admit` batches are pipelined (the next one is
 * built while this one is written), so the in-memory state has two parts: what the next batch
 * builds on (counters, keys of batches in flight, the Bloom front) follows at submission; the rest
 * (written counters for `stats`, cache, frontier, rules) follows when the write returned. A failed
 * write refuses the batches built on it and rolls the first part back.
 */
import {
  applyPolicy,
  defaultLimits,
  fingerprintInto,
  fingerprintWords,
  normalizeAndKey,
  isPresetName,
  keyFromRecord,
  KEY_FORMAT_VERSION,
  normalizeRecord,
  parseUri,
  urlFromKey,
  UrlError,
  type NormalizeOptions,
  type PresetName,
  type UriRecord,
  type UrlErrorCode,
} from '../normalize/index.js';
import { identifyInto, UrlIdentity } from '../normalize/identify.js';
import { EntryCache, KeyTable, ScalableBloom } from './bloom.js';
import { deleteFrontSnapshot, readFrontSnapshot, writeFrontSnapshot } from './front-snapshot.js';
import { BLOCK_LINES, blockLine, Frontier, headLine, parseBlock, wholeLines } from './frontier.js';
import {
  aliasRevKey,
  counterNames,
  decodeJson,
  decodeUrlEntry,
  encodeJson,
  encodeUrlEntry,
  evidenceKeys,
  frontierKey,
  parseFrontierKey,
  prefixRange,
  prunedKey,
  SEP,
  SEP_END,
  splitPair,
  STORE_FORMAT_VERSION,
  STORE_FORMATS_READ,
  URL_STATES,
  type AdmitReason,
  type AliasEntry,
  type LoopRecord,
  type Space,
  type TemporaryRedirect,
  type UrlEntry,
  type UrlState,
} from './keys.js';
import type { Kv, KvOp } from './kv.js';
import {
  applies,
  isParameterRule,
  pathParameterNames,
  apply,
  applyRules,
  compareForApply,
  defaultDocuments as builtinDefaultDocuments,
  explainRedirect,
  hostOf,
  isFinalAnswer,
  judgeRedirect,
  newCandidate,
  observe,
  parseRuleId,
  ruleId,
  type ActiveRule,
  type Observation,
  type RuleRecord,
  type RuleSpec,
} from './rules.js';
import {
  defaultStoreOptions,
  type AdmitOptions,
  type AdmitResult,
  type AliasRecord,
  type CanonicalFailure,
  type CanonicalResult,
  type CanonicalUrlRecord,
  type FetchRecord,
  type FrontierEntry,
  type NextOptions,
  type PruneEntry,
  type RebuildReport,
  type SeenStore,
  type StoreOptions,
  type StoreStats,
  type StoreSupports,
  type SyncPolicy,
  type VerifyReport,
} from './seen-store.js';
import { newSalt, redactPassword } from './userinfo.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Admit batches being written at most when the next one is built (`admitQueued`). */
const ADMIT_WRITES_AHEAD = 2;

interface Identity {
  readonly rec: UriRecord;
  readonly key: string;
}

interface Transformed {
  readonly rec: UriRecord;
  readonly key: string;
  /** `preset:<name>` or `rule:<id>`: the first step that changed the key. */
  readonly via: string | undefined;
}

interface ResolvedOptions {
  readonly normalize: NormalizeOptions;
  readonly presets: readonly PresetName[];
  readonly ruleThreshold: number;
  readonly learnRules: boolean;
  readonly temporaryRedirectsMerge: boolean;
  readonly enqueueRedirectTargets: boolean;
  readonly sync: SyncPolicy;
  readonly schemes: ReadonlySet<string>;
  readonly hosts: readonly string[] | undefined;
  readonly maxDepth: number;
  readonly filter: ((record: UriRecord) => boolean) | undefined;
  readonly defaultDocuments: readonly string[];
  readonly bloomBitsPerKey: number;
  readonly frontSnapshotMinKeys: number;
  readonly cacheSize: number;
  readonly maxEvidencePerRule: number;
  readonly restoreBatchSize: number;
  readonly readOnly: boolean;
}

/** Validate options once; conflicts are rejected up front (TypeError: programmer misuse). */
export function resolveStoreOptions(options: StoreOptions = {}): ResolvedOptions {
  const d = defaultStoreOptions;
  const normalize = { ...d.normalize, ...(options.normalize ?? {}) } as NormalizeOptions;
  if ((normalize as { presets?: unknown }).presets !== undefined) {
    throw new TypeError("store: give presets as the store's `presets` option (reversible), not in `normalize`");
  }
  if (normalize.level === 'policy') throw new TypeError("store: normalize.level 'policy' is the store's `presets` option");
  const presets = options.presets ?? d.presets;
  for (const p of presets) if (!isPresetName(p)) throw new TypeError(`store: unknown preset ${JSON.stringify(p)}`);
  const positiveInt = (name: string, v: number): number => {
    if (!Number.isInteger(v) || v < 1) throw new TypeError(`store: ${name} must be an integer >= 1`);
    return v;
  };
  const atLeastZero = (name: string, v: number): number => {
    if (!(v >= 0)) throw new TypeError(`store: ${name} must be a number >= 0`);
    return v;
  };
  const ruleThreshold = positiveInt('ruleThreshold', options.ruleThreshold ?? d.ruleThreshold);
  const maxEvidencePerRule = positiveInt('maxEvidencePerRule', options.maxEvidencePerRule ?? d.maxEvidencePerRule);
  if (ruleThreshold > maxEvidencePerRule) throw new TypeError('store: ruleThreshold must not exceed maxEvidencePerRule');
  const sync = options.sync ?? d.sync;
  if (typeof sync === 'object') {
    if (!(sync.everyBatches >= 1) || !(sync.everyMs >= 1)) throw new TypeError('store: sync.everyBatches and sync.everyMs must be >= 1');
  } else if (sync !== 'always' && sync !== 'never') {
    throw new TypeError(`store: sync must be 'always', 'never' or { everyBatches, everyMs }`);
  }
  const scope = options.scope ?? {};
  const maxDepth = scope.maxDepth ?? Infinity;
  if (!(maxDepth >= 0)) throw new TypeError('store: scope.maxDepth must be >= 0');
  return {
    normalize,
    presets: [...presets],
    ruleThreshold,
    learnRules: options.learnRules ?? d.learnRules,
    temporaryRedirectsMerge: options.temporaryRedirectsMerge ?? d.temporaryRedirectsMerge,
    enqueueRedirectTargets: options.enqueueRedirectTargets ?? d.enqueueRedirectTargets,
    sync,
    schemes: new Set((scope.schemes ?? d.scope.schemes).map((s) => s.toLowerCase())),
    hosts: scope.hosts?.map((h) => h.toLowerCase()),
    maxDepth,
    filter: scope.filter,
    defaultDocuments: options.defaultDocuments ?? builtinDefaultDocuments,
    bloomBitsPerKey: positiveInt('bloomBitsPerKey', options.bloomBitsPerKey ?? d.bloomBitsPerKey),
    frontSnapshotMinKeys: atLeastZero('frontSnapshotMinKeys', options.frontSnapshotMinKeys ?? d.frontSnapshotMinKeys),
    cacheSize: positiveInt('cacheSize', options.cacheSize ?? d.cacheSize),
    maxEvidencePerRule,
    restoreBatchSize: positiveInt('restoreBatchSize', options.restoreBatchSize ?? d.restoreBatchSize),
    readOnly: options.readOnly === true,
  };
}

/** The normalization options that shape identity keys, as recorded in `meta/identity`. */
function identityOptions(o: NormalizeOptions): { level: string; keepFragment: boolean } {
  return { level: o.level ?? 'scheme', keepFragment: o.keepFragment === true };
}

/** The pending changes of one batch, with read-your-writes overlays. */
class Txn {
  readonly ops: KvOp[] = [];
  readonly urls = new Map<string, UrlEntry | null>();
  readonly aliases = new Map<string, AliasEntry | null>();
  readonly evidence = new Map<string, string | null>();
  readonly rules = new Map<string, RuleRecord>();
  readonly counters = new Map<string, number>();
  readonly frontier = new Map<string, number>();
  /** Keys whose frontier entry ends (no longer in flight after the commit). */
  readonly landed: string[] = [];
  readonly newKeys: string[] = [];
  /** Fingerprint words of `newKeys`, two per key. */
  readonly newWords: number[] = [];
  /** The single-pass parts of `newKeys` ('' and the key when it came whole): see `written`. */
  readonly newHeads: string[] = [];
  readonly newRests: string[] = [];
  private createdSet: Set<string> | undefined;
  readonly newAliasSources: string[] = [];
  readonly activated: string[] = [];
  /** Rules withdrawn while active: their pruned URLs come back after the commit. */
  readonly withdrawnActive: string[] = [];
  /** Frontier blocks this batch writes: the open block per host, and the full ones. */
  readonly blocks = new Map<string, Block>();
  readonly fullBlocks: (Block & { host: string })[] = [];
  /** Live-line counts of existing blocks after this batch (0: the block is deleted). */
  readonly blockLive = new Map<string, number>();
  /** Keys queued by `queueNew` (counted into `admitted` and `state:queued` at submit). */
  queuedNew = 0;
  seq: number;

  constructor(seq: number) {
    this.seq = seq;
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

  /** Put `key` at `depth` into this batch's block for `host`; returns the block's sequence number. */
  place(host: string, depth: number, key: string): number {
    return this.blockFor(host, depth, '', key).seq;
  }

  /**
   * The block for `host` with room for one more line, with the key `head + rest` at `depth` in it:
   * a head line first when `head` is not the block's current head (frontier.ts), then the line.
   */
  blockFor(host: string, depth: number, head: string, rest: string): Block {
    let b = this.blocks.get(host);
    if (b === undefined || b.lines.length >= BLOCK_LINES - 1) {
      if (b !== undefined) this.fullBlocks.push({ host, ...b });
      b = { seq: this.seq++, lines: [], head: '', queued: 0, value: undefined, valueOf: undefined };
      this.blocks.set(host, b);
    }
    if (b.head !== head) {
      b.lines.push(headLine(head));
      b.head = head;
    }
    b.lines.push(blockLine(depth, rest));
    return b;
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

/** A frontier block being written by a batch. */
interface Block {
  readonly seq: number;
  readonly lines: string[];
  /** The head the block's next line is written under (frontier.ts: `@head` lines). */
  head: string;
  /** Lines added by `queueNew` (their frontier count is added at submit). */
  queued: number;
  /**
   * The `url` value of the entries `queueNew` queued at this block: every field of a new queued
   * entry (depth, time, block, host, source) is the batch's or the block's, so they share one string.
   */
  value: string | undefined;
  /** The depth, time and source `value` was made for. */
  valueOf: readonly [number, number, string | undefined] | undefined;
}

const NEED: unique symbol = Symbol('need');
/** One URL of `canonicalMany`: its identity key, the key after presets and rules, and its normal form when it is the input. */
interface Lookup {
  readonly i: number;
  readonly k0: string;
  readonly tKey: string;
  readonly tVia: string | undefined;
  readonly normal: string | undefined;
}
/** A read for `canonicalMany`: the value, `undefined` when absent, or `NEED` (asked for, read next round). */
type Look = (space: 'url' | 'alias', key: string) => string | undefined | typeof NEED;

function isUrlError(e: unknown): e is UrlError {
  return e instanceof UrlError;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A url entry with the fields its state keeps, in a fixed order. */
function makeEntry(e: UrlEntry, h: string | undefined, n: number | undefined): UrlEntry {
  const out: UrlEntry = { s: e.s, d: e.d, t: e.t };
  if (h !== undefined && n !== undefined) {
    out.h = h;
    out.n = n;
  }
  if (e.src !== undefined) out.src = e.src;
  if (e.st !== undefined) out.st = e.st;
  if ((e.s === 'redirected' || e.s === 'pruned') && e.to !== undefined) out.to = e.to;
  if (e.s === 'pruned' && e.by !== undefined) out.by = e.by;
  if (e.c !== undefined) out.c = e.c;
  if (e.ft !== undefined) out.ft = e.ft;
  if (e.e !== undefined) out.e = e.e;
  return out;
}

/**
 * What the cache keeps of a `url` value: all that lookups need (`canonical`: the state, and for a
 * pruned entry its reason and target). The state letter, one shared string, for every state but
 * pruned; the whole value for a pruned entry. `decodeUrlEntry` reads either.
 */
function entrySummary(value: string): string {
  switch (value.charCodeAt(0)) {
    case 0x71 /* q */: return 'q';
    case 0x66 /* f */: return 'f';
    case 0x72 /* r */: return 'r';
    case 0x78 /* x */: return 'x';
    default: return value;
  }
}

const SUMMARY_LETTER: Readonly<Record<UrlState, string>> = { queued: 'q', fetched: 'f', redirected: 'r', pruned: 'p', failed: 'x' };

/** Shared read-only entries for lookups, by state letter: all they use of an entry not pruned is its state. */
const STATE_ONLY: Readonly<Record<string, Readonly<UrlEntry>>> = {
  q: Object.freeze({ s: 'queued', d: 0, t: 0 }),
  f: Object.freeze({ s: 'fetched', d: 0, t: 0 }),
  r: Object.freeze({ s: 'redirected', d: 0, t: 0 }),
  x: Object.freeze({ s: 'failed', d: 0, t: 0 }),
};

/** A `url` value (or its `entrySummary`) as lookups read it: the state, and reason and target when pruned. */
function lookupEntry(value: string): Readonly<UrlEntry> {
  return value.charCodeAt(0) === 0x70 /* p */ ? decodeUrlEntry(value) : (STATE_ONLY[value.charAt(0)] ?? decodeUrlEntry(value));
}

/** `entrySummary` of the value `e` is written as. */
function summaryOf(e: UrlEntry): string {
  return e.s === 'pruned' ? encodeUrlEntry(e) : SUMMARY_LETTER[e.s];
}

/** The record of a key's normal form. */
function recordOfKey(key: string): UriRecord {
  return parseUri(urlFromKey(key), { maxLength: Number.MAX_SAFE_INTEGER });
}

export class StoreEngine implements SeenStore {
  readonly supports: StoreSupports;
  readonly location: string;
  private readonly kv: Kv;
  private o: ResolvedOptions;
  /** The normalize options, or `undefined` when they are the defaults (normalize's fastest path). */
  private readonly normalizeOptions: NormalizeOptions | undefined;
  private salt = '';
  /** Counters including submitted batches not yet written (what the next batch builds on). */
  private counters = new Map<string, number>();
  /** Counters as written. */
  private readonly committed = new Map<string, number>();
  /** Admit batches submitted and not yet written: their new keys count as present. */
  private readonly inflight = new Set<Txn>();
  /** The keys those batches create (each by one batch: a later one finds it here), by fingerprint word. */
  private readonly pendingKeys = new KeyTable();
  /** The write chain: batches are written one after another, in submission order. */
  private writes: Promise<void> = Promise.resolve();
  /** Bumped when a write fails; batches built in an earlier epoch are refused (they built on it). */
  private epoch = 0;
  private failure: unknown;
  private front!: ScalableBloom;
  private aliasFront!: ScalableBloom;
  /** Where the fronts came from at open: the snapshot of the last clean close, or the keys. */
  private frontSource: 'snapshot' | 'database' = 'database';
  /** The `url` entries of keys known present, as `entrySummary` keeps them (written state only). */
  private readonly cache: EntryCache;
  /** Bumped by every written batch that changed `url` entries: a read overtaken by one is not cached. */
  private urlWrites = 0;
  private frontier: Frontier;
  /** Candidate and active rules by id, and the ids of withdrawn ones. */
  private readonly liveRules = new Map<string, RuleRecord>();
  private readonly liveByHost = new Map<string, Set<string>>();
  private readonly withdrawnIds = new Set<string>();
  private readonly activeByHost = new Map<string, ActiveRule[]>();
  private readonly rulesOf = (host: string): readonly ActiveRule[] | undefined => this.activeByHost.get(host);
  private tail: Promise<void> = Promise.resolve();
  /** Writes of admit batches not yet returned, oldest first (see `admitQueued`). */
  private readonly admitWrites: Promise<void>[] = [];
  private closed = false;
  private closing: Promise<void> | undefined;
  private unsyncedBatches = 0;
  private lastSync = Date.now();
  private syncTimer: NodeJS.Timeout | undefined;

  private constructor(kv: Kv, supports: StoreSupports, options: ResolvedOptions) {
    this.kv = kv;
    this.supports = supports;
    this.location = kv.location;
    this.o = options;
    const n = options.normalize;
    this.normalizeOptions = Object.keys(n).every((k) => k === 'level') && (n.level ?? 'scheme') === 'scheme' ? undefined : n;
    this.cache = new EntryCache(options.cacheSize);
    this.frontier = new Frontier(kv);
  }

  /** Open an engine on `kv`: check the format, load counters and rules, rebuild the front, reconcile. */
  static async open(kv: Kv, supports: StoreSupports, options: StoreOptions = {}): Promise<StoreEngine> {
    try {
      const engine = new StoreEngine(kv, supports, resolveStoreOptions(options));
      await engine.load();
      return engine;
    } catch (error) {
      await kv.close().catch(() => undefined);
      throw error;
    }
  }

  // ---- open ----------------------------------------------------------------------------------

  private incompatible(detail: string): UrlError {
    return new UrlError('ERR_STORE_INCOMPATIBLE', this.location, { detail: `incompatible store: ${detail}` });
  }

  private async load(): Promise<void> {
    const format = await this.kv.get('meta', 'format');
    const identity = identityOptions(this.o.normalize);
    // the layout the folder was written in (a new store is written in the current one)
    let layout = STORE_FORMAT_VERSION;
    if (format === undefined) {
      for await (const _ of this.kv.keys('url', { limit: 1 })) {
        throw new UrlError('ERR_STORE_CORRUPT', this.location, { detail: 'URL entries without a meta/format record' });
      }
      this.salt = newSalt();
      const now = new Date().toISOString();
      // read-only on an empty database: an empty store that writes nothing (not even its meta)
      if (!this.o.readOnly) await this.kv.write(
        [
          { space: 'meta', key: 'format', value: encodeJson({ store: STORE_FORMAT_VERSION, key: KEY_FORMAT_VERSION }) },
          { space: 'meta', key: 'identity', value: encodeJson(identity) },
          { space: 'meta', key: 'presets', value: encodeJson(this.o.presets) },
          { space: 'meta', key: 'salt', value: this.salt },
          { space: 'meta', key: 'created', value: now },
          { space: 'meta', key: 'synced', value: now },
        ],
        { sync: this.o.sync !== 'never' },
      );
    } else {
      const f = decodeJson<{ store: number; key: number }>(format);
      layout = f.store;
      if (!STORE_FORMATS_READ.includes(f.store)) {
        throw this.incompatible(`layout version ${f.store}, this build reads ${STORE_FORMATS_READ.join(' and ')}`);
      }
      if (f.key !== KEY_FORMAT_VERSION) {
        throw this.incompatible(`key format version ${f.key}, this build writes ${KEY_FORMAT_VERSION}; rebuild the store from its URLs`);
      }
      const stored = decodeJson<{ level: string; keepFragment: boolean }>((await this.kv.get('meta', 'identity')) ?? '{}');
      if (stored.level !== identity.level || stored.keepFragment !== identity.keepFragment) {
        throw this.incompatible(
          `keys were made with normalize ${encodeJson(stored)}, not ${encodeJson(identity)}; open it with the same normalize options`,
        );
      }
      const salt = await this.kv.get('meta', 'salt');
      if (salt === undefined || !/^[0-9a-f]{64}$/.test(salt)) throw new UrlError('ERR_STORE_CORRUPT', this.location, { detail: 'meta/salt missing' });
      this.salt = salt;
      if (this.o.readOnly) {
        // the presets the store was last opened with, instead of giving back what they pruned
        const raw = await this.kv.get('meta', 'presets');
        const recorded: unknown = raw === undefined ? [] : decodeJson<unknown>(raw);
        if (!Array.isArray(recorded) || !recorded.every((p): p is PresetName => typeof p === 'string' && isPresetName(p))) {
          throw this.incompatible(`meta/presets ${raw ?? ''} names a preset this build does not know`);
        }
        this.o = { ...this.o, presets: recorded };
      }
    }

    for await (const [name, value] of this.kv.entries('counter')) {
      this.counters.set(name, Number(value));
      this.committed.set(name, Number(value));
    }
    const hostCounts = new Map<string, number>();
    const frontierPrefix = counterNames.frontier('');
    for (const [name, n] of this.counters) if (name.startsWith(frontierPrefix)) hostCounts.set(name.slice(frontierPrefix.length), n);
    this.frontier.load(hostCounts);

    for await (const [, value] of this.kv.entries('rule')) this.remember(decodeJson<RuleRecord>(value));

    // the fronts: as written down at the last clean close when nothing was written since
    // (front-snapshot.ts), else sized from the stored counts and filled from the keys themselves
    const counts = { admitted: this.counter(counterNames.admitted), aliases: this.counter(counterNames.aliases) };
    const snapshot = await readFrontSnapshot(this.kv, counts, this.o.bloomBitsPerKey);
    if (snapshot !== undefined) {
      this.front = snapshot.url;
      this.aliasFront = snapshot.alias;
      this.frontSource = 'snapshot';
    } else {
      await this.buildFronts();
    }

    if (this.o.readOnly) return;
    // from here on the database changes: a snapshot would no longer speak for it
    await deleteFrontSnapshot(this.kv);
    // an older layout is marked current before anything is written in the current one
    if (layout !== STORE_FORMAT_VERSION) {
      await this.kv.write([{ space: 'meta', key: 'format', value: encodeJson({ store: STORE_FORMAT_VERSION, key: KEY_FORMAT_VERSION }) }], { sync: false });
    }
    await this.reconcilePruned();
    await this.kv.write([{ space: 'meta', key: 'presets', value: encodeJson(this.o.presets) }], { sync: false });
  }

  /** The Bloom fronts from the `url` and `alias` keys, sized from the stored counts. */
  private async buildFronts(): Promise<void> {
    this.front = new ScalableBloom(this.counter(counterNames.admitted), this.o.bloomBitsPerKey);
    for await (const k of this.kv.keys('url')) this.front.add(k);
    this.aliasFront = new ScalableBloom(this.counter(counterNames.aliases), this.o.bloomBitsPerKey);
    for await (const k of this.kv.keys('alias')) this.aliasFront.add(k);
    this.frontSource = 'database';
  }

  /** The rejection of a write method on a read-only store. */
  private readOnlyRefusal(): Promise<never> {
    return Promise.reject(new UrlError('ERR_STORE_IO', this.location, { detail: 'read-only' }));
  }

  /**
   * Give back URLs pruned by something no longer in force: a preset the store was opened without,
   * a rule withdrawn (also finishes a give-back that a crash interrupted). One seek per reason.
   */
  private async reconcilePruned(): Promise<void> {
    let from: string | undefined;
    for (;;) {
      let first: string | undefined;
      for await (const k of this.kv.keys('pruned', from === undefined ? { limit: 1 } : { gte: from, limit: 1 })) first = k;
      if (first === undefined) break;
      const [reason] = splitPair(first);
      if (!this.inForce(reason)) await this.restoreReason(reason, reason);
      from = reason + SEP_END;
    }
  }

  private inForce(reason: string): boolean {
    if (reason.startsWith('preset:')) return this.o.presets.includes(reason.slice(7) as PresetName);
    if (reason.startsWith('rule:')) return this.liveRules.get(reason.slice(5))?.state === 'active';
    // the crawler's refusals: in force until given back with `restore`
    if (reason.startsWith('trap:')) return true;
    return false;
  }

  private remember(rule: RuleRecord): void {
    const had = this.liveRules.get(rule.id);
    if (rule.state === 'withdrawn') {
      this.liveRules.delete(rule.id);
      this.liveByHost.get(rule.host)?.delete(rule.id);
      this.withdrawnIds.add(rule.id);
    } else {
      this.liveRules.set(rule.id, rule);
      let ids = this.liveByHost.get(rule.host);
      if (ids === undefined) this.liveByHost.set(rule.host, (ids = new Set()));
      ids.add(rule.id);
    }
    if (had?.state === 'active' || rule.state === 'active') this.rebuildActive(rule.host);
  }

  private rebuildActive(host: string): void {
    const active: { id: string; spec: RuleSpec }[] = [];
    for (const id of this.liveByHost.get(host) ?? []) {
      const r = this.liveRules.get(id);
      if (r?.state !== 'active') continue;
      const parsed = parseRuleId(id);
      if (parsed !== undefined) active.push({ id, spec: parsed.spec });
    }
    active.sort((a, b) => compareForApply(a.spec, b.spec) || compare(a.id, b.id));
    if (active.length === 0) this.activeByHost.delete(host);
    else this.activeByHost.set(host, active);
  }

  // ---- the write queue and commits -------------------------------------------------------------

  /**
   * Run `fn` alone: after every earlier call, with no write in flight (so the database and the
   * in-memory state agree). `admit` is the exception: see `admitQueued`.
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed || this.closing !== undefined) {
      return Promise.reject(new UrlError('ERR_STORE_IO', this.location, { detail: 'the store is closed' }));
    }
    const run = this.tail.then(async () => {
      await this.writes;
      return fn();
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Admit batches are pipelined: a batch is built alone (after every earlier call), and the queue
   * moves on as soon as its write is submitted, so the next batch is normalized while LevelDB
   * writes this one. Writes still happen one at a time in order, and each call resolves only
   * after its own write (and so every earlier one) returned.
   *
   * A build waits while `ADMIT_WRITES_AHEAD` batches are still being written: one batch built while
   * the last is written is all the overlap there is to gain, and a caller with more calls in flight
   * would otherwise have all of them built, each holding its inputs, results, keys and operations
   * until written. Young objects that outlive a scavenge are copied; at 4 calls in flight that
   * copying was the largest cost admit had over a plain LevelDB loop.
   */
  private admitQueued<T>(build: () => Promise<{ value: T; written: Promise<void> }>): Promise<T> {
    if (this.closed || this.closing !== undefined) {
      return Promise.reject(new UrlError('ERR_STORE_IO', this.location, { detail: 'the store is closed' }));
    }
    const built = this.tail.then(async () => {
      // (these promises never reject: `pending` below settles them either way)
      while (this.admitWrites.length >= ADMIT_WRITES_AHEAD) await this.admitWrites[0];
      const b = await build();
      const pending: Promise<void> = b.written.then(
        () => this.admitWriteDone(pending),
        () => this.admitWriteDone(pending),
      );
      this.admitWrites.push(pending);
      return b;
    });
    this.tail = built.then(
      () => undefined,
      () => undefined,
    );
    return built.then(({ value, written }) => written.then(() => value));
  }

  private admitWriteDone(write: Promise<void>): void {
    const i = this.admitWrites.indexOf(write);
    if (i >= 0) this.admitWrites.splice(i, 1);
  }

  private counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  private newTxn(): Txn {
    return new Txn(this.counter(counterNames.seq));
  }

  private wantSync(): boolean {
    const s = this.o.sync;
    if (s === 'always') return true;
    if (s === 'never') return false;
    return this.unsyncedBatches + 1 >= s.everyBatches || Date.now() - this.lastSync >= s.everyMs;
  }

  /** Submit and wait: for calls that run alone (`exclusive`). */
  private commit(txn: Txn): Promise<void> {
    return this.submit(txn, this.epoch);
  }

  /**
   * Queue the batch's write behind the writes already submitted. The in-memory state that the next
   * batch builds on (counters, pending keys, the Bloom front) follows at once; the rest (cache,
   * frontier, rules, written counters) when the write has returned. A failed write refuses every
   * batch built on it and rolls the in-memory state back to what was written.
   */
  private submit(txn: Txn, epoch: number): Promise<void> {
    if (epoch !== this.epoch) return Promise.reject(this.failure);
    const ops = txn.ops;
    for (const b of txn.fullBlocks) {
      ops.push({ space: 'frontier', key: frontierKey(b.host, b.seq), value: b.lines.join('\n') });
      if (b.queued > 0) txn.frontier.set(b.host, (txn.frontier.get(b.host) ?? 0) + b.queued);
    }
    for (const [host, b] of txn.blocks) {
      ops.push({ space: 'frontier', key: frontierKey(host, b.seq), value: b.lines.join('\n') });
      if (b.queued > 0) txn.frontier.set(host, (txn.frontier.get(host) ?? 0) + b.queued);
    }
    const changed: [string, number][] = [];
    if (txn.queuedNew > 0) {
      txn.count(counterNames.admitted, txn.queuedNew);
      txn.count(counterNames.state('queued'), txn.queuedNew);
    }
    const seq = this.counter(counterNames.seq);
    if (txn.seq !== seq) txn.counters.set(counterNames.seq, txn.seq - seq);
    for (const [host, delta] of txn.frontier) if (delta !== 0) txn.count(counterNames.frontier(host), delta);
    for (const [name, delta] of txn.counters) {
      if (delta === 0) continue;
      const value = this.counter(name) + delta;
      changed.push([name, value]);
      ops.push({ space: 'counter', key: name, value: value === 0 ? undefined : String(value) });
    }
    if (ops.length === 0) return this.writes;
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
    const sync = this.wantSync();
    this.unsyncedBatches = sync ? 0 : this.unsyncedBatches + 1;
    const done = this.writes.then(() => {
      if (epoch !== this.epoch) throw this.failure;
      return this.kv.write(ops, { sync });
    }).then(() => this.written(txn, changed, sync));
    this.writes = done.catch((error: unknown) => this.writeFailed(error, epoch));
    return done;
  }

  /** The batch is written: the rest of the in-memory state follows. */
  private written(txn: Txn, changed: readonly [string, number][], sync: boolean): void {
    this.noteWrite(sync);
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
        const h1 = fingerprintWords(k)[0];
        if (e === null) this.cache.delete(k, h1);
        else this.cache.set(k, h1, summaryOf(e));
      }
    }
    for (const k of txn.newAliasSources) this.aliasFront.add(k);
    for (const [host, delta] of txn.frontier) if (delta !== 0) this.frontier.adjust(host, delta);
    for (const [block, n] of txn.blockLive) this.frontier.setLive(block, n);
    for (const k of txn.landed) this.frontier.land(k);
    for (const rule of txn.rules.values()) this.remember(rule);
  }

  private writeFailed(error: unknown, epoch: number): void {
    if (epoch !== this.epoch) return; // already rolled back by an earlier batch's failure
    this.epoch++;
    this.failure = error;
    this.counters = new Map(this.committed);
    this.inflight.clear();
    this.pendingKeys.clear();
  }

  private noteWrite(synced: boolean): void {
    if (synced) {
      this.lastSync = Date.now();
      return;
    }
    const s = this.o.sync;
    if (typeof s === 'object' && this.syncTimer === undefined && this.kv.durable) {
      // LevelDB's hybrid scheme: a synced marker at most everyMs after an unsynced batch
      this.syncTimer = setTimeout(() => {
        this.syncTimer = undefined;
        if (this.unsyncedBatches > 0 && !this.closed && this.closing === undefined) {
          this.exclusive(() => this.writeSyncMarker()).catch(() => undefined);
        }
      }, s.everyMs);
      this.syncTimer.unref();
    }
  }

  private async writeSyncMarker(): Promise<void> {
    if (this.unsyncedBatches === 0) return;
    await this.kv.write([{ space: 'meta', key: 'synced', value: new Date().toISOString() }], { sync: true });
    this.unsyncedBatches = 0;
    this.noteWrite(true);
  }

  // ---- reads with the batch overlay ------------------------------------------------------------

  private async getUrl(txn: Txn | undefined, key: string): Promise<UrlEntry | undefined> {
    const pending = txn?.urls.get(key);
    if (pending !== undefined) return pending ?? undefined;
    const v = await this.kv.get('url', key);
    return v === undefined ? undefined : decodeUrlEntry(v);
  }

  private async getAlias(txn: Txn | undefined, key: string): Promise<AliasEntry | undefined> {
    const pending = txn?.aliases.get(key);
    if (pending !== undefined) return pending ?? undefined;
    if (!this.aliasFront.has(key) && !(txn?.newAliasSources.includes(key) ?? false)) return undefined;
    const v = await this.kv.get('alias', key);
    return v === undefined ? undefined : decodeJson<AliasEntry>(v);
  }

  private async getEvidence(txn: Txn, key: string): Promise<string | undefined> {
    const pending = txn.evidence.get(key);
    if (pending !== undefined) return pending ?? undefined;
    return this.kv.get('evidence', key);
  }

  private putEvidence(txn: Txn, key: string, value: string): void {
    txn.evidence.set(key, value);
    txn.put('evidence', key, value);
  }

  // ---- the URL state machine -------------------------------------------------------------------

  /**
   * Move `key` from `prev` to `next`, keeping the frontier, the `pruned` index and the counters in
   * step in the same batch. A queued entry gets its frontier host (from `rec`) and sequence number.
   */
  private setUrl(txn: Txn, key: string, prev: UrlEntry | undefined, next: UrlEntry, rec?: UriRecord): void {
    if (prev === undefined) {
      txn.count(counterNames.admitted, 1);
      txn.count(counterNames.state(next.s), 1);
      const [h1, h2] = fingerprintWords(key);
      txn.addNew(key, h1, h2);
    } else if (prev.s !== next.s) {
      txn.count(counterNames.state(prev.s), -1);
      txn.count(counterNames.state(next.s), 1);
    }
    // leaving the frontier (a queued entry that stays queued keeps its place)
    const place = prev?.s === 'queued' && prev.h !== undefined && prev.n !== undefined ? { h: prev.h, n: prev.n } : undefined;
    if (place !== undefined && next.s !== 'queued') {
      txn.frontier.set(place.h, (txn.frontier.get(place.h) ?? 0) - 1);
      txn.landed.push(key);
      // its block loses a live line; a block without one goes
      const block = frontierKey(place.h, place.n);
      const live = txn.blockLive.get(block) ?? this.frontier.liveOf(block);
      if (live !== undefined) {
        txn.blockLive.set(block, live - 1);
        if (live - 1 <= 0) txn.del('frontier', block);
      }
    }
    // leaving the pruned index (or changing reason)
    if (prev?.s === 'pruned' && prev.by !== undefined && !(next.s === 'pruned' && next.by === prev.by)) {
      txn.del('pruned', prunedKey(prev.by, key));
      txn.count(counterNames.pruned(prev.by), -1);
    }
    let h: string | undefined;
    let n: number | undefined;
    if (next.s === 'queued') {
      if (place !== undefined) {
        h = place.h;
        n = place.n;
      } else {
        h = hostOf(rec ?? recordOfKey(key));
        n = txn.place(h, next.d, key);
        txn.frontier.set(h, (txn.frontier.get(h) ?? 0) + 1);
      }
    }
    if (next.s === 'pruned') {
      if (next.by === undefined || next.to === undefined) throw new Error('setUrl: a pruned entry needs by and to');
      if (!(prev?.s === 'pruned' && prev.by === next.by)) txn.count(counterNames.pruned(next.by), 1);
      txn.put('pruned', prunedKey(next.by, key), next.to);
    }
    const entry = makeEntry(next, h, n);
    txn.urls.set(key, entry);
    txn.put('url', key, encodeUrlEntry(entry));
  }

  /** The fields of an entry that outlive a change of state. */
  private carried(prev: UrlEntry | undefined, depth: number, now: number): Pick<UrlEntry, 'd' | 't' | 'src'> {
    if (prev === undefined) return { d: depth, t: now };
    return prev.src === undefined ? { d: prev.d, t: prev.t } : { d: prev.d, t: prev.t, src: prev.src };
  }

  // ---- identity and the pipeline ---------------------------------------------------------------

  /** normalize (RFC rungs) → redact the password → key. Throws `UrlError`. */
  private identity(url: string): Identity {
    const rec = redactPassword(normalizeRecord(url, this.normalizeOptions), this.salt);
    return { rec, key: keyFromRecord(rec) };
  }

  private inScope(rec: UriRecord, depth: number): boolean {
    if (depth > this.o.maxDepth) return false;
    if (!this.o.schemes.has(rec.scheme ?? '')) return false;
    if (this.o.hosts !== undefined) {
      const host = rec.host ?? '';
      if (!this.o.hosts.some((h) => host === h || host.endsWith('.' + h))) return false;
    }
    return this.o.filter === undefined || this.o.filter(rec);
  }

  /** Presets, then active host rules. `exclude` (a reason) is left out, for a give-back. */
  private transform(rec: UriRecord, k0: string, exclude?: string): Transformed {
    let cur = rec;
    let via: string | undefined;
    if (this.o.presets.length > 0) {
      const presets = exclude?.startsWith('preset:') ? this.o.presets.filter((p) => `preset:${p}` !== exclude) : this.o.presets;
      if (presets.length > 0) {
        const r = applyPolicy(cur, presets);
        if (r.applied.length > 0) {
          cur = r.record;
          via = `preset:${r.applied[0]}`;
        }
      }
    }
    if (this.activeByHost.size > 0) {
      const r = applyRules(cur, this.rulesOf, exclude?.startsWith('rule:') ? exclude.slice(5) : undefined);
      if (r.first !== undefined) {
        cur = r.record;
        via ??= `rule:${r.first}`;
      }
    }
    if (cur === rec) return { rec, key: k0, via: undefined };
    const key = keyFromRecord(cur);
    return key === k0 ? { rec, key: k0, via: undefined } : { rec: cur, key, via };
  }

  /**
   * The pipeline for one URL inside a batch (redirect targets, give-backs, frontier pruning):
   * queue the canonical key when new, and record the URL as pruned when a preset or rule mapped it.
   */
  private async admitOne(txn: Txn, rec: UriRecord, k0: string, depth: number, src: string | undefined, now: number, exclude?: string): Promise<{ key: string; admitted: boolean; via: string | undefined }> {
    const t = this.transform(rec, k0, exclude);
    let key = t.key;
    let via = t.via;
    const alias = await this.getAlias(txn, key);
    if (alias !== undefined && alias.to !== k0) {
      key = alias.to;
      via ??= 'alias';
    } else if (alias !== undefined) {
      key = k0;
      via = undefined;
    }
    let admitted = false;
    const target = await this.getUrl(txn, key);
    if (target === undefined) {
      const entry: UrlEntry = { s: 'queued', d: depth, t: now };
      if (src !== undefined) entry.src = src;
      this.setUrl(txn, key, undefined, entry, key === k0 ? rec : key === t.key ? t.rec : undefined);
      admitted = true;
    }
    if (key !== k0 && via !== undefined && via !== 'alias') {
      const own = await this.getUrl(txn, k0);
      if (own === undefined) {
        const entry: UrlEntry = { s: 'pruned', d: depth, t: now, by: via, to: key };
        if (src !== undefined) entry.src = src;
        this.setUrl(txn, k0, undefined, entry);
      }
    }
    return { key, admitted, via };
  }

  // ---- admit -----------------------------------------------------------------------------------

  admit(urls: readonly string[], options: AdmitOptions = {}): Promise<AdmitResult[]> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    if (!Array.isArray(urls)) return Promise.reject(new TypeError('admit: urls must be an array of strings'));
    const depth = options.depth ?? 0;
    if (!Number.isInteger(depth) || depth < 0) return Promise.reject(new TypeError('admit: depth must be an integer >= 0'));
    return this.admitQueued(() => this.admitBatch(urls, depth, options.source));
  }

  private async admitBatch(urls: readonly string[], depth: number, source: string | undefined): Promise<{ value: AdmitResult[]; written: Promise<void> }> {
    const epoch = this.epoch;
    const now = Date.now();
    let src: string | undefined;
    if (source !== undefined) {
      try {
        src = this.identity(source).key;
      } catch (e) {
        if (!isUrlError(e)) throw e;
      }
    }
    const n = urls.length;
    const results: (AdmitResult | undefined)[] = new Array(n);
    // phase 1 (synchronous): identity, scope, in-batch duplicates, presets and rules. The URLs
    // that go on (items) are kept in columns, not one object each: the hot path allocates little
    let m = 0;
    const at = new Int32Array(n); // input index of item j
    const k0s: string[] = new Array(n); // identity key
    const hosts: string[] = new Array(n); // host[:port] of the URL
    const heads: string[] = new Array(n); // k0s[j] is heads[j] + rests[j] (the single pass's parts, or '' + the key)
    const rests: string[] = new Array(n);
    const keys: string[] = new Array(n); // key after presets, rules and aliases
    const h1s = new Int32Array(n); // fingerprint words of keys[j]
    const h2s = new Int32Array(n);
    const g1s = new Int32Array(n); // fingerprint words of k0s[j]
    const g2s = new Int32Array(n);
    const kp = new Uint8Array(n); // presence of keys[j] and k0s[j]: 0 absent, 1 present, 2 asked of the database
    const k0p = new Uint8Array(n);
    /** Items that presets, rules or an alias map elsewhere: key after presets and rules, its record when they changed it, and the first step that changed it. */
    let mapped: Map<number, { tKey: string; tRec: UriRecord | undefined; via: string | undefined }> | undefined;
    // in-batch duplicates (same identity key): open addressing over the fingerprint the Bloom
    // front needs anyway, each hit confirmed by comparing the keys (no Map hashing of each key)
    let slots = 1024;
    while (slots < 2 * n) slots *= 2;
    const firstOf = new Int32Array(slots); // item + 1, 0: empty
    const slotMask = slots - 1;
    const dupOf: number[] = []; // pairs: input index, input index of its first occurrence
    let aliasWanted: number[] | undefined;
    // default normalize options: normalize's single pass gives key and host[:port] for http(s)
    const fast = this.normalizeOptions === undefined;
    const maxLength = defaultLimits.maxLength;
    const inDepth = depth <= this.o.maxDepth;
    const httpIn = inDepth && this.o.schemes.has('http');
    const httpsIn = inDepth && this.o.schemes.has('https');
    const recordFree = this.o.presets.length === 0 && this.o.hosts === undefined && this.o.filter === undefined;
    const aliasFront = this.aliasFront.count > 0 ? this.aliasFront : undefined;
    const fw = new Int32Array(2); // fingerprint words of the key at hand
    const idr = new UrlIdentity(); // the URL at hand, identified (reused)
    for (let i = 0; i < n; i++) {
      const url = urls[i]!;
      let k0: string;
      let host: string;
      let rec: UriRecord | undefined;
      let head = '';
      let rest: string;
      let sp = false;
      let identified = false; // idr is this URL's
      if (fast && typeof url === 'string' && url.length <= maxLength) {
        try {
          identifyInto(url, idr);
          identified = true;
        } catch (e) {
          if (!isUrlError(e)) throw e;
          results[i] = { url, key: undefined, identityKey: undefined, admitted: false, reason: `invalid:${e.code as UrlErrorCode}` };
          continue;
        }
        sp = idr.record === undefined;
      }
      if (sp) {
        // http(s) through normalize's single pass (it declines userinfo, so there is no password
        // to redact): key and host[:port] with no record, unless a preset, a rule of its host or
        // the scope needs one
        head = idr.keyHead;
        rest = idr.keyRest;
        k0 = idr.key;
        host = idr.hostPort;
        if (!(idr.scheme === 'https' ? httpsIn : httpIn)) {
          results[i] = { url, key: k0, identityKey: k0, admitted: false, reason: 'out-of-scope' };
          continue;
        }
        if (!recordFree || this.activeByHost.has(host)) {
          rec = parseUri(idr.normal);
          if (!this.inScope(rec, depth)) {
            results[i] = { url, key: k0, identityKey: k0, admitted: false, reason: 'out-of-scope' };
            continue;
          }
        }
      } else {
        let id: Identity;
        try {
          if (typeof url !== 'string') throw new UrlError('ERR_INVALID_URL', String(url), { detail: 'not a string' });
          // the ladder's record identify already made, its password redacted (this.identity's steps)
          const r = !identified || idr.record === undefined || idr.record.userinfo !== undefined ? undefined : idr.record;
          id = r === undefined ? this.identity(url) : { rec: r, key: idr.key };
        } catch (e) {
          if (!isUrlError(e)) throw e;
          results[i] = { url, key: undefined, identityKey: undefined, admitted: false, reason: `invalid:${e.code as UrlErrorCode}` };
          continue;
        }
        k0 = id.key;
        rest = k0;
        rec = id.rec;
        host = hostOf(rec);
        if (!this.inScope(rec, depth)) {
          results[i] = { url, key: k0, identityKey: k0, admitted: false, reason: 'out-of-scope' };
          continue;
        }
      }
      let g1: number;
      let g2: number;
      if (identified && idr.key === k0) {
        g1 = idr.fingerprintHigh; // the same words, without reading the key's head again
        g2 = idr.fingerprintLow;
      } else {
        fingerprintInto(k0, fw);
        g1 = fw[0]!;
        g2 = fw[1]!;
      }
      let slot = (g1 ^ (g1 >>> 16)) & slotMask;
      let first = -1;
      for (let s = firstOf[slot]!; s !== 0; s = firstOf[slot]!) {
        if (k0s[s - 1] === k0) {
          first = at[s - 1]!;
          break;
        }
        slot = (slot + 1) & slotMask;
      }
      if (first !== -1) {
        dupOf.push(i, first);
        continue;
      }
      const j = m++;
      firstOf[slot] = j + 1;
      at[j] = i;
      k0s[j] = k0;
      hosts[j] = host;
      heads[j] = head;
      rests[j] = rest;
      g1s[j] = g1;
      g2s[j] = g2;
      let key = k0;
      let h1 = g1;
      let h2 = g2;
      if (rec !== undefined) {
        const t = this.transform(rec, k0);
        if (t.key !== k0 || t.via !== undefined) {
          (mapped ??= new Map()).set(j, { tKey: t.key, tRec: t.via === undefined ? undefined : t.rec, via: t.via });
          if (t.key !== k0) {
            key = t.key;
            fingerprintInto(key, fw);
            h1 = fw[0]!;
            h2 = fw[1]!;
          }
        }
      }
      keys[j] = key;
      h1s[j] = h1;
      h2s[j] = h2;
      if (aliasFront?.hasWords(h1, h2) === true) (aliasWanted ??= []).push(j);
    }
    // phase 2: aliases (one read for all, only where the alias front says maybe)
    if (aliasWanted !== undefined) {
      const unique = [...new Set(aliasWanted.map((j) => keys[j]!))];
      const values = await this.kv.getMany('alias', unique);
      const aliases = new Map<string, string>();
      for (let q = 0; q < unique.length; q++) {
        const v = values[q];
        if (v !== undefined) aliases.set(unique[q]!, decodeJson<AliasEntry>(v).to);
      }
      for (const j of aliasWanted) {
        const to = aliases.get(keys[j]!);
        if (to === undefined) continue;
        const mj = mapped?.get(j);
        if (to === k0s[j]) {
          // the transforms and the alias cancel out
          keys[j] = to;
          if (mj !== undefined) mj.via = undefined;
          h1s[j] = g1s[j]!;
          h2s[j] = g2s[j]!;
        } else {
          keys[j] = to;
          if (mj === undefined) (mapped ??= new Map()).set(j, { tKey: k0s[j]!, tRec: undefined, via: 'alias' });
          else mj.via ??= 'alias';
          const w = fingerprintWords(to);
          h1s[j] = w[0] | 0;
          h2s[j] = w[1] | 0;
        }
      }
    }
    // phase 3: the seen set. The Bloom front first: a "no" is certain and needs nothing more;
    // a "maybe" is settled by the cache, the batches still being written, or one database read
    let queried: Map<string, number> | undefined; // key → its first fingerprint word
    const presence = (k: string, h1: number, h2: number, head = '', rest = k): 0 | 1 | 2 => {
      if (!this.front.hasWords(h1, h2)) return 0;
      if (head === '' ? this.cache.has(k, h1) : this.cache.hasSplit(head, rest, h1)) return 1;
      if (this.pendingKeys.has(k, h1)) return 1;
      (queried ??= new Map()).set(k, h1);
      return 2;
    };
    for (let j = 0; j < m; j++) {
      kp[j] = keys[j] === k0s[j] ? presence(keys[j]!, h1s[j]!, h2s[j]!, heads[j], rests[j]) : presence(keys[j]!, h1s[j]!, h2s[j]!);
      if (keys[j] !== k0s[j] && mapped?.get(j)?.via !== 'alias') k0p[j] = presence(k0s[j]!, g1s[j]!, g2s[j]!);
    }
    let found: Set<string> | undefined;
    if (queried !== undefined) {
      const query = [...queried.keys()];
      const values = await this.kv.getMany('url', query);
      for (let q = 0; q < query.length; q++) {
        const v = values[q];
        if (v === undefined) continue;
        const k = query[q]!;
        (found ??= new Set()).add(k);
        // the read is current: only batches of this queue are being written, and they create
        // keys they found absent, never one that is present
        this.cache.set(k, queried.get(k)!, entrySummary(v));
      }
    }
    const isPresent = (k: string, p: number): boolean => (p === 2 ? found?.has(k) === true : p === 1);
    // phase 4: decisions, in input order, into one batch
    const txn = this.newTxn();
    // once a transform maps an input onto another key, inputs may collide with keys this batch created
    let transformed = false;
    for (let j = 0; j < m; j++) {
      const i = at[j]!;
      const url = urls[i]!;
      const k0 = k0s[j]!;
      const key = keys[j]!;
      if (key === k0) {
        if (transformed && txn.creates(k0)) results[i] = { url, key, identityKey: k0, admitted: false, reason: 'duplicate-in-batch' };
        else if (isPresent(k0, kp[j]!)) results[i] = { url, key, identityKey: k0, admitted: false, reason: 'seen' };
        else {
          this.queueNew(txn, k0, hosts[j]!, depth, now, src, h1s[j]!, h2s[j]!, heads[j]!, rests[j]!);
          results[i] = { url, key, identityKey: k0, admitted: true, reason: 'new' };
        }
        continue;
      }
      transformed = true;
      const mj = mapped!.get(j)!;
      const via = mj.via!;
      let admitted = false;
      if (!isPresent(key, kp[j]!) && !txn.creates(key)) {
        this.queueNew(txn, key, hostOf(key === mj.tKey && mj.tRec !== undefined ? mj.tRec : recordOfKey(key)), depth, now, src, h1s[j]!, h2s[j]!);
        admitted = true;
      }
      if (via !== 'alias' && !isPresent(k0, k0p[j]!) && !txn.creates(k0)) {
        const entry: UrlEntry = { s: 'pruned', d: depth, t: now, by: via, to: key };
        if (src !== undefined) entry.src = src;
        this.setUrl(txn, k0, undefined, entry);
      }
      results[i] = admitted
        ? { url, key, identityKey: k0, admitted: true, reason: 'new', via }
        : { url, key, identityKey: k0, admitted: false, reason: via as AdmitReason };
    }
    for (let q = 0; q < dupOf.length; q += 2) {
      const i = dupOf[q]!;
      const r = results[dupOf[q + 1]!]!;
      results[i] = { url: urls[i]!, key: r.key, identityKey: r.identityKey, admitted: false, reason: 'duplicate-in-batch' };
    }
    return { value: results as AdmitResult[], written: this.submit(txn, epoch) };
  }

  /** The hot path of `setUrl`: a key never seen, queued. */
  private queueNew(txn: Txn, key: string, h: string, depth: number, now: number, src: string | undefined, h1: number, h2: number, head = '', rest = key): void {
    const b = txn.blockFor(h, depth, head, rest);
    const of = b.valueOf;
    if (b.value === undefined || of === undefined || of[0] !== depth || of[1] !== now || of[2] !== src) {
      b.value = encodeUrlEntry(src === undefined ? { s: 'queued', d: depth, t: now, h, n: b.seq } : { s: 'queued', d: depth, t: now, h, n: b.seq, src });
      b.valueOf = [depth, now, src];
    }
    b.queued++;
    txn.queuedNew++;
    txn.addNew(key, h1, h2, head, rest);
    txn.put('url', key, b.value);
  }

  // ---- evidence: redirects and fetches ---------------------------------------------------------

  recordRedirect(from: string, to: string, status: number): Promise<void> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    if (!REDIRECT_STATUSES.has(status)) return Promise.reject(new TypeError(`recordRedirect: status must be 301, 302, 303, 307 or 308, not ${status}`));
    let f: Identity;
    let t: Identity;
    try {
      f = this.identity(from);
      t = this.identity(to);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.exclusive(async () => {
      const now = Date.now();
      const txn = this.newTxn();
      const permanent = status === 301 || status === 308;
      const merge = permanent || this.o.temporaryRedirectsMerge;
      const before = await this.getUrl(txn, f.key);
      const depth = before?.d ?? 0;
      if (t.key !== f.key && this.o.enqueueRedirectTargets && this.inScope(t.rec, depth)) {
        await this.admitOne(txn, t.rec, t.key, depth, before?.src, now);
      }
      // read again: the target's canonical key may be the source's own (a preset or rule maps it back)
      const prev = await this.getUrl(txn, f.key);
      const entry: UrlEntry = { ...this.carried(prev, depth, now), s: 'redirected', st: status, to: t.key, ft: now };
      this.setUrl(txn, f.key, prev, entry, f.rec);
      txn.landed.push(f.key);
      let loop = false;
      if (t.key === f.key) loop = await this.recordLoop(txn, f.key, t.key, status, [f.key], now);
      else if (merge) loop = await this.addAlias(txn, f.key, t.key, status, now);
      if (!permanent) {
        const k = evidenceKeys.temporary(f.key);
        const old = await this.getEvidence(txn, k);
        const prevT = old === undefined ? undefined : decodeJson<TemporaryRedirect>(old);
        if (prevT === undefined) txn.count(counterNames.temporary, 1);
        this.putEvidence(txn, k, encodeJson({ to: t.key, st: status, n: (prevT?.n ?? 0) + 1, t: now } satisfies TemporaryRedirect));
      }
      if (this.o.learnRules && !loop) await this.learnFromRedirect(txn, f, t, status, merge, now);
      await this.commit(txn);
      await this.afterRuleChanges(txn);
    });
  }

  private async recordLoop(txn: Txn, from: string, to: string, status: number, cycle: string[], now: number): Promise<true> {
    const k = evidenceKeys.loop(from);
    if ((await this.getEvidence(txn, k)) === undefined) txn.count(counterNames.loops, 1);
    this.putEvidence(txn, k, encodeJson({ to, st: status, cycle, t: now } satisfies LoopRecord));
    return true;
  }

  /**
   * `from` becomes an alias of `to`'s canonical key. Chains stay compressed (every alias points at
   * a key that is not itself an alias source), so an alias that would point back at `from` closes a
   * cycle: it is recorded as a loop and not added. Returns true for a loop.
   */
  private async addAlias(txn: Txn, from: string, to: string, status: number, now: number): Promise<boolean> {
    const next = await this.getAlias(txn, to);
    const target = next?.to ?? to;
    if (target === from) return this.recordLoop(txn, from, to, status, target === to ? [from, to] : [from, to, target], now);
    const prev = await this.getAlias(txn, from);
    if (prev !== undefined) {
      if (prev.to !== target) txn.del('aliasrev', aliasRevKey(prev.to, from));
    } else {
      txn.count(counterNames.aliases, 1);
      txn.newAliasSources.push(from);
    }
    const entry: AliasEntry = { to: target, st: status, t: now };
    txn.aliases.set(from, entry);
    txn.put('alias', from, encodeJson(entry));
    txn.put('aliasrev', aliasRevKey(target, from), '');
    // whatever pointed at `from` now points at `target`
    for await (const rk of this.kv.keys('aliasrev', prefixRange(from + SEP))) {
      const source = rk.slice(from.length + 1);
      const old = await this.getAlias(txn, source);
      if (old === undefined || old.to !== from) continue;
      const moved: AliasEntry = { ...old, to: target };
      txn.aliases.set(source, moved);
      txn.put('alias', source, encodeJson(moved));
      txn.del('aliasrev', rk);
      txn.put('aliasrev', aliasRevKey(target, source), '');
    }
    return false;
  }

  recordFetch(url: string, response: FetchRecord): Promise<void> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    if (response === null || typeof response !== 'object' || !Number.isInteger(response.status) || response.status < 0 || response.status > 999) {
      return Promise.reject(new TypeError('recordFetch: response.status must be an integer 0–999 (0: no response)'));
    }
    let u: Identity;
    let fin: Identity | undefined;
    try {
      u = this.identity(url);
      if (response.finalUrl !== undefined) fin = this.identity(response.finalUrl);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.exclusive(async () => {
      const now = Date.now();
      const txn = this.newTxn();
      const prev = await this.getUrl(txn, u.key);
      let target = u;
      let prevTarget = prev;
      if (fin !== undefined && fin.key !== u.key) {
        // the fetcher followed redirects: `url` redirected (hops unknown), `finalUrl` answered
        const entry: UrlEntry = { ...this.carried(prev, 0, now), s: 'redirected', to: fin.key, ft: now };
        this.setUrl(txn, u.key, prev, entry, u.rec);
        txn.landed.push(u.key);
        const k = evidenceKeys.temporary(u.key);
        const old = await this.getEvidence(txn, k);
        const prevT = old === undefined ? undefined : decodeJson<TemporaryRedirect>(old);
        if (prevT === undefined) txn.count(counterNames.temporary, 1);
        this.putEvidence(txn, k, encodeJson({ to: fin.key, st: 0, n: (prevT?.n ?? 0) + 1, t: now } satisfies TemporaryRedirect));
        target = fin;
        prevTarget = await this.getUrl(txn, fin.key);
      }
      const failed = response.status === 0 || response.status >= 500 || response.error !== undefined;
      const entry: UrlEntry = { ...this.carried(prevTarget, prev?.d ?? 0, now), s: failed ? 'failed' : 'fetched', st: response.status, ft: now };
      if (response.contentHash !== undefined) entry.c = response.contentHash;
      if (response.error !== undefined) entry.e = response.error;
      this.setUrl(txn, target.key, prevTarget, entry, target.rec);
      txn.landed.push(target.key);
      if (this.o.learnRules && isFinalAnswer(response.status) && !failed) {
        await this.learnFromFetch(txn, target, response.contentHash, response.status, now);
      }
      await this.commit(txn);
      await this.afterRuleChanges(txn);
    });
  }

  // ---- the learner -----------------------------------------------------------------------------

  private liveRulesOf(txn: Txn, host: string): RuleRecord[] {
    const out = new Map<string, RuleRecord>();
    for (const id of this.liveByHost.get(host) ?? []) {
      const r = txn.rules.get(id) ?? this.liveRules.get(id);
      if (r !== undefined) out.set(id, r);
    }
    for (const r of txn.rules.values()) if (r.host === host) out.set(r.id, r);
    return [...out.values()].filter((r) => r.state !== 'withdrawn');
  }

  /** Record one observation of `spec` on `host`, once per distinct source URL and verdict. */
  private async observeRule(txn: Txn, host: string, spec: RuleSpec, obs: Observation): Promise<void> {
    const id = ruleId(host, spec);
    let rule = txn.rules.get(id) ?? this.liveRules.get(id);
    if (rule === undefined && this.withdrawnIds.has(id)) {
      const v = await this.kv.get('rule', id);
      if (v !== undefined) rule = decodeJson<RuleRecord>(v);
    }
    if (rule === undefined) {
      if (obs.v !== 'for') return; // no candidate from a contradiction alone
      rule = newCandidate(host, spec, obs.t);
      txn.count(counterNames.rules('candidate'), 1);
    }
    const ek = evidenceKeys.observation(id, obs.source);
    const existing = await this.getEvidence(txn, ek);
    if (existing !== undefined && decodeJson<Observation>(existing).v === obs.v) return;
    if (obs.v === 'against' || rule.for < this.o.maxEvidencePerRule) this.putEvidence(txn, ek, encodeJson(obs));
    const tr = observe(rule, obs, this.o.ruleThreshold);
    if (tr.rule.state !== rule.state) {
      txn.count(counterNames.rules(rule.state), -1);
      txn.count(counterNames.rules(tr.rule.state), 1);
    }
    if (tr.change === 'activated') txn.activated.push(id);
    if (tr.change === 'withdrawn' && rule.state === 'active') txn.withdrawnActive.push(id);
    txn.rules.set(id, tr.rule);
    txn.put('rule', id, encodeJson(tr.rule));
  }

  private async learnFromRedirect(txn: Txn, f: Identity, t: Identity, status: number, merge: boolean, now: number): Promise<void> {
    const explained = explainRedirect(f.rec, t.rec, this.o.defaultDocuments);
    const host = hostOf(f.rec);
    if (merge && explained !== undefined) {
      for (const spec of explained) {
        await this.observeRule(txn, host, spec, { v: 'for', how: 'redirect', source: f.key, to: t.key, status, t: now });
      }
    }
    for (const h of new Set([host, hostOf(t.rec)])) {
      for (const rule of this.liveRulesOf(txn, h)) {
        const parsed = parseRuleId(rule.id);
        if (parsed === undefined) continue;
        const verdict = judgeRedirect(parsed.spec, h, f.rec, t.rec, explained);
        if (verdict !== 'against') continue;
        const how = h === host && applies(parsed.spec, f.rec) ? 'redirect' : 'inverse-redirect';
        await this.observeRule(txn, h, parsed.spec, { v: 'against', how, source: f.key, to: t.key, status, t: now });
      }
    }
  }

  private keyOf(rec: UriRecord): string {
    return keyFromRecord(rec);
  }

  private async contentOf(txn: Txn, key: string): Promise<string | undefined> {
    const e = await this.getUrl(txn, key);
    return e?.s === 'fetched' ? e.c : undefined;
  }

  private async learnFromFetch(txn: Txn, u: Identity, hash: string | undefined, status: number, now: number): Promise<void> {
    const host = hostOf(u.rec);
    // 1. the host served `u` itself: against every rule that maps it elsewhere, unless the content
    //    shows the two URLs equal
    for (const rule of this.liveRulesOf(txn, host)) {
      const parsed = parseRuleId(rule.id);
      if (parsed === undefined || isParameterRule(parsed.spec) || !applies(parsed.spec, u.rec)) continue;
      const other = this.keyOf(apply(parsed.spec, u.rec));
      const otherHash = hash === undefined ? undefined : await this.contentOf(txn, other);
      if (otherHash !== undefined) {
        await this.observeRule(txn, host, parsed.spec, { v: otherHash === hash ? 'for' : 'against', how: 'content', source: u.key, to: other, status, t: now });
      } else {
        await this.observeRule(txn, host, parsed.spec, { v: 'against', how: 'fetch', source: u.key, status, t: now });
      }
    }
    if (hash === undefined) return;
    // 2. content pairs: a default document and its directory
    const path = u.rec.path;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const pairs: { variant: string; base: string; spec: RuleSpec; variantHash?: string; baseHash?: string }[] = [];
    if (this.o.defaultDocuments.includes(last)) {
      const spec: RuleSpec = { kind: 'default-document', name: last };
      pairs.push({ variant: u.key, base: this.keyOf(apply(spec, u.rec)), spec, variantHash: hash });
    }
    if (path.endsWith('/')) {
      for (const name of this.o.defaultDocuments) {
        pairs.push({ variant: this.keyOf({ ...u.rec, path: path + name }), base: u.key, spec: { kind: 'default-document', name }, baseHash: hash });
      }
    }
    // 3. content pairs: a query or path parameter and the URL without it, or with another value of it
    const queryNames = new Set((u.rec.query ?? '').split('&').filter((f) => f !== '').map((f) => (f.indexOf('=') === -1 ? f : f.slice(0, f.indexOf('=')))));
    const parameters: { kind: 'query-parameter' | 'path-parameter'; names: Iterable<string>; content: typeof evidenceKeys.content; prefix: typeof evidenceKeys.contentPrefix }[] = [
      { kind: 'query-parameter', names: queryNames, content: evidenceKeys.content, prefix: evidenceKeys.contentPrefix },
      { kind: 'path-parameter', names: pathParameterNames(u.rec.path), content: evidenceKeys.pathContent, prefix: evidenceKeys.pathContentPrefix },
    ];
    for (const { kind, names, content, prefix } of parameters) {
      for (const name of names) {
        const spec: RuleSpec = { kind, name };
        const base = this.keyOf(apply(spec, u.rec));
        this.putEvidence(txn, content(base, name, u.key), hash);
        pairs.push({ variant: u.key, base, spec, variantHash: hash });
        let n = 0;
        for await (const [k, h] of this.kv.entries('evidence', { ...prefixRange(prefix(base, name)), limit: 16 })) {
          const other = k.slice(k.lastIndexOf(SEP) + 1);
          if (other === u.key) continue;
          pairs.push({ variant: u.key, base: other, spec, variantHash: hash, baseHash: h });
          if (++n >= 8) break;
        }
      }
      // `u` as the base of variants fetched before it
      let n = 0;
      for await (const [k, h] of this.kv.entries('evidence', { ...prefixRange(prefix(u.key)), limit: 64 })) {
        const [name, variant] = splitPair(k.slice(prefix(u.key).length));
        pairs.push({ variant, base: u.key, spec: { kind, name }, variantHash: h, baseHash: hash });
        if (++n >= 64) break;
      }
    }
    for (const p of pairs) {
      const vh = p.variantHash ?? (await this.contentOf(txn, p.variant));
      const bh = p.baseHash ?? (await this.contentOf(txn, p.base));
      if (vh === undefined || bh === undefined) continue;
      const vrec = p.variant === u.key ? u.rec : recordOfKey(p.variant);
      await this.observeRule(txn, hostOf(vrec), p.spec, { v: vh === bh ? 'for' : 'against', how: 'content', source: p.variant, to: p.base, status, t: now });
    }
  }

  /** After a commit that activated or withdrew rules: prune the frontier, or give URLs back. */
  private async afterRuleChanges(txn: Txn): Promise<void> {
    for (const id of txn.withdrawnActive) await this.restoreReason(`rule:${id}`, `rule:${id}`);
    for (const id of txn.activated) if (this.liveRules.get(id)?.state === 'active') await this.pruneFrontier(id);
  }

  /** A rule became active: queued URLs of its host that it maps elsewhere are pruned (a batch per block). */
  private async pruneFrontier(id: string): Promise<void> {
    const parsed = parseRuleId(id);
    if (parsed === undefined) return;
    const host = parsed.host;
    const range = prefixRange(host + SEP);
    let after: string | undefined;
    for (;;) {
      let block: [string, string] | undefined;
      for await (const e of this.kv.entries('frontier', { gt: after ?? range.gte, lt: range.lt, limit: 1 })) block = e;
      if (block === undefined) return;
      after = block[0];
      const seq = parseFrontierKey(block[0]).seq;
      const txn = this.newTxn();
      const now = Date.now();
      for (const { key, depth } of parseBlock(block[1])) {
        if (this.frontier.isInFlight(key)) continue;
        const rec = recordOfKey(key);
        if (!applies(parsed.spec, rec)) continue;
        const prev = await this.getUrl(txn, key);
        if (prev?.s !== 'queued' || prev.n !== seq || prev.h !== host) continue;
        const r = await this.admitOne(txn, rec, key, depth, prev.src, now);
        if (r.key === key || r.via === undefined || r.via === 'alias') continue;
        const still = await this.getUrl(txn, key);
        if (still?.s !== 'queued') continue;
        this.setUrl(txn, key, still, { ...this.carried(still, depth, now), s: 'pruned', by: r.via, to: r.key });
      }
      await this.commit(txn);
    }
  }

  /**
   * Give back the URLs pruned by `reason`: each is evaluated again without `exclude`; one still
   * mapped elsewhere by another preset or rule is pruned under that one, the others are queued.
   */
  private async restoreReason(reason: string, exclude: string): Promise<number> {
    let total = 0;
    const range = prefixRange(reason + SEP);
    for (;;) {
      const chunk: [string, string][] = [];
      for await (const e of this.kv.entries('pruned', { ...range, limit: this.o.restoreBatchSize })) chunk.push(e);
      if (chunk.length === 0) return total;
      const txn = this.newTxn();
      const now = Date.now();
      for (const [pk] of chunk) {
        const key = pk.slice(reason.length + 1);
        const prev = await this.getUrl(txn, key);
        if (prev?.s !== 'pruned' || prev.by !== reason) {
          txn.del('pruned', pk); // stale index entry
          continue;
        }
        const rec = recordOfKey(key);
        const t = this.transform(rec, key, exclude);
        let onto: string | undefined;
        if (t.via !== undefined && t.key !== key) {
          const r = await this.admitOne(txn, t.rec, t.key, prev.d, prev.src, now, exclude);
          if (r.key !== key) onto = r.key;
        }
        const cur = (await this.getUrl(txn, key)) ?? prev;
        if (onto !== undefined && t.via !== undefined) this.setUrl(txn, key, cur, { ...this.carried(cur, cur.d, now), s: 'pruned', by: t.via, to: onto });
        else this.setUrl(txn, key, cur, { ...this.carried(cur, cur.d, now), s: 'queued' }, rec);
        total++;
      }
      await this.commit(txn);
    }
  }

  restore(reason: string): Promise<number> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    let r = reason;
    if (!r.startsWith('rule:') && !r.startsWith('preset:') && !r.startsWith('trap:')) r = isPresetName(r) ? `preset:${r}` : `rule:${r}`;
    return this.exclusive(() => this.restoreReason(r, r));
  }

  // ---- prune (the crawler's refusals) ----------------------------------------------------------

  prune(entries: readonly PruneEntry[]): Promise<void> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    if (!Array.isArray(entries)) return Promise.reject(new TypeError('prune: entries must be an array'));
    const ids: { id: Identity; reason: string; depth: number | undefined }[] = [];
    for (const e of entries as readonly PruneEntry[]) {
      if (typeof e?.url !== 'string') return Promise.reject(new TypeError('prune: url must be a string'));
      if (typeof e.reason !== 'string' || !/^trap:[^\s\x00-\x1f]+$/.test(e.reason)) {
        return Promise.reject(new TypeError(`prune: reason must be trap:<name>, not ${JSON.stringify(e.reason)}`));
      }
      if (e.depth !== undefined && !(Number.isInteger(e.depth) && e.depth >= 0)) return Promise.reject(new TypeError('prune: depth must be an integer >= 0'));
      try {
        ids.push({ id: this.identity(e.url), reason: e.reason, depth: e.depth });
      } catch (error) {
        if (!isUrlError(error)) return Promise.reject(error);
      }
    }
    if (ids.length === 0) return this.exclusive(async () => undefined);
    return this.exclusive(async () => {
      const txn = this.newTxn();
      const now = Date.now();
      for (const { id, reason, depth } of ids) {
        // the canonical key, as admit would find it (presets, active rules, aliases)
        const t = this.transform(id.rec, id.key);
        let key = t.key;
        const alias = await this.getAlias(txn, key);
        if (alias !== undefined) key = alias.to !== id.key ? alias.to : id.key;
        const prev = await this.getUrl(txn, key);
        if (prev === undefined) {
          this.setUrl(txn, key, undefined, { s: 'pruned', d: depth ?? 0, t: now, by: reason, to: key });
        } else if (prev.s === 'queued' && !this.frontier.isInFlight(key) && !(depth !== undefined && prev.d < depth)) {
          this.setUrl(txn, key, prev, { ...this.carried(prev, prev.d, now), s: 'pruned', by: reason, to: key });
        }
      }
      if (txn.ops.length > 0) await this.commit(txn);
    });
  }

  // ---- frontier --------------------------------------------------------------------------------

  next(options: NextOptions = {}): Promise<FrontierEntry[]> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    return this.exclusive(() =>
      this.frontier.next(options, async (blocks) => {
        const txn = this.newTxn();
        for (const b of blocks) txn.del('frontier', b);
        await this.commit(txn);
      }),
    );
  }

  release(urls: readonly string[]): Promise<void> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    const keys: string[] = [];
    for (const u of urls) {
      try {
        keys.push(this.identity(u).key);
      } catch (e) {
        if (!isUrlError(e)) throw e;
      }
    }
    return this.exclusive(async () => {
      for (const k of keys) this.frontier.release(k);
    });
  }

  // ---- queries ---------------------------------------------------------------------------------

  /** `canonicalMany` for one URL; a URL the store cannot key throws the ladder's `UrlError`. */
  async canonical(url: string): Promise<CanonicalResult> {
    const r = (await this.canonicalMany([url]))[0]!;
    if ('ok' in r) {
      this.identity(url); // throws the error itself, with its detail
      throw new UrlError(r.code, r.input);
    }
    return r;
  }

  async canonicalMany(urls: readonly string[]): Promise<(CanonicalResult | CanonicalFailure)[]> {
    if (!Array.isArray(urls)) throw new TypeError('canonicalMany: urls must be an array of strings');
    const out = new Array<CanonicalResult | CanonicalFailure>(urls.length);
    let pending: Lookup[] = [];
    const fast = this.normalizeOptions === undefined;
    const maxLength = defaultLimits.maxLength;
    const noPresets = this.o.presets.length === 0;
    for (let i = 0; i < urls.length; i++) {
      const url = urls[i]!;
      if (fast && typeof url === 'string' && url.length <= maxLength && url.indexOf('@') === -1) {
        // no userinfo, so no password to redact: normalize's own normal form and key (its single
        // pass for http(s)); no record unless a preset or an active rule of its host needs one
        let nk: { readonly normal: string; readonly key: string };
        try {
          nk = normalizeAndKey(url);
        } catch (e) {
          if (!isUrlError(e)) throw e;
          out[i] = { ok: false, code: e.code as UrlErrorCode, input: url };
          continue;
        }
        const normal = nk.normal;
        if (noPresets && this.activeByHost.size === 0) {
          pending.push({ i, k0: nk.key, tKey: nk.key, tVia: undefined, normal });
          continue;
        }
        const t = this.transform(parseUri(normal), nk.key);
        pending.push({ i, k0: nk.key, tKey: t.key, tVia: t.via, normal });
        continue;
      }
      try {
        if (typeof url !== 'string') throw new UrlError('ERR_INVALID_URL', String(url), { detail: 'not a string' });
        const id = this.identity(url);
        const t = this.transform(id.rec, id.key);
        pending.push({ i, k0: id.key, tKey: t.key, tVia: t.via, normal: undefined });
      } catch (e) {
        if (!isUrlError(e) || e.code.startsWith('ERR_STORE_')) throw e;
        out[i] = { ok: false, code: e.code as UrlErrorCode, input: url };
      }
    }
    // Resolve every URL against what is known; what is missing is read for all of them at once.
    // The Bloom fronts answer "absent" for sure (they hold every key submitted) and the cache
    // answers for keys it holds (their entries as written); only the rest is read. Usually one
    // read or none; aliases and pruned entries that point at a key not read yet take one more
    // round (at most two).
    const known = new Map<string, string | undefined>();
    let wanted = new Map<string, readonly [Space, string]>();
    let lastKey: string | undefined;
    let w1 = 0;
    let w2 = 0;
    const look: Look = (space, key) => {
      if (space === 'alias' && this.aliasFront.count === 0) return undefined;
      if (key !== lastKey) {
        [w1, w2] = fingerprintWords(key);
        lastKey = key;
      }
      if (space === 'url') {
        if (!this.front.hasWords(w1, w2)) return undefined;
        const cached = this.cache.get(key, w1);
        if (cached !== undefined) return cached;
      } else if (!this.aliasFront.hasWords(w1, w2)) return undefined;
      const mk = (space === 'url' ? 'u' : 'a') + key;
      if (known.has(mk)) return known.get(mk);
      wanted.set(mk, [space, key]);
      return NEED;
    };
    while (pending.length > 0) {
      const again: Lookup[] = [];
      for (const p of pending) {
        const r = this.resolveCanonical(p, look);
        if (r === NEED) again.push(p);
        else out[p.i] = r;
      }
      if (wanted.size > 0) {
        const asked = [...wanted];
        wanted = new Map();
        const keys = asked.map(([, sk]) => sk);
        const gen = this.urlWrites;
        const values = this.kv.getAcross !== undefined ? await this.kv.getAcross(keys) : await this.getAcrossFallback(keys);
        const fill = gen === this.urlWrites; // no write overtook the read: its entries may be cached
        for (let j = 0; j < asked.length; j++) {
          const v = values[j];
          known.set(asked[j]![0], v);
          const [space, key] = asked[j]![1];
          if (fill && v !== undefined && space === 'url') this.cache.set(key, fingerprintWords(key)[0], entrySummary(v));
        }
      } else if (again.length > 0) {
        throw new Error('canonicalMany: no progress'); // cannot happen: NEED always asks for a key
      }
      pending = again;
    }
    return out;
  }

  private async getAcrossFallback(keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
    const out = new Array<string | undefined>(keys.length);
    const bySpace = new Map<Space, number[]>();
    keys.forEach(([space], j) => {
      let list = bySpace.get(space);
      if (list === undefined) bySpace.set(space, (list = []));
      list.push(j);
    });
    await Promise.all(
      [...bySpace].map(async ([space, idx]) => {
        const values = await this.kv.getMany(space, idx.map((j) => keys[j]![1]));
        idx.forEach((j, m) => (out[j] = values[m]));
      }),
    );
    return out;
  }

  /** `canonical` on values read so far; `NEED` when a key still has to be read (`look` asked for it). */
  private resolveCanonical(p: Lookup, look: Look): CanonicalResult | typeof NEED {
    const k0 = p.k0;
    // ask for everything the usual path may need at once: the URL's own entry, its transform's alias and entry
    const ownV = look('url', k0);
    const aliasV = look('alias', p.tKey);
    const tV = p.tKey === k0 ? ownV : look('url', p.tKey);
    if (ownV === NEED || aliasV === NEED || tV === NEED) return NEED;
    const own = ownV === undefined ? undefined : lookupEntry(ownV);
    let key: string;
    let via: string | undefined;
    if (own?.s === 'pruned' && own.to !== undefined) {
      key = own.to;
      via = own.by;
    } else {
      key = p.tKey;
      via = p.tVia;
      const alias = aliasV === undefined ? undefined : decodeJson<AliasEntry>(aliasV);
      if (alias !== undefined && alias.to !== k0) {
        key = alias.to;
        via ??= 'alias';
      }
    }
    let target = own;
    if (key !== k0) {
      const v = look('url', key);
      if (v === NEED) return NEED;
      target = v === undefined ? undefined : lookupEntry(v);
    }
    if (target?.s === 'pruned' && target.to !== undefined && target.to !== k0) {
      via ??= target.by;
      key = target.to;
      const v = look('url', key);
      if (v === NEED) return NEED;
      target = v === undefined ? undefined : lookupEntry(v);
    }
    const state = own !== undefined ? own.s : target !== undefined ? 'seen' : 'unknown';
    // an input in normal form is the URL of its own key
    const out: CanonicalResult = { key: k0, canonicalKey: key, canonicalUrl: key === k0 && p.normal !== undefined ? p.normal : urlFromKey(key), state };
    return key !== k0 && via !== undefined ? { ...out, via } : out;
  }

  async stats(): Promise<StoreStats> {
    const c = (name: string): number => this.committed.get(name) ?? 0;
    const pruned: Record<string, number> = {};
    const prefix = counterNames.pruned('');
    for (const [name, n] of [...this.committed].sort((a, b) => compare(a[0], b[0]))) if (name.startsWith(prefix) && n !== 0) pruned[name.slice(prefix.length)] = n;
    const states = Object.fromEntries(URL_STATES.map((s) => [s, c(counterNames.state(s))])) as Record<UrlState, number>;
    return {
      urls: { admitted: c(counterNames.admitted), ...states },
      aliases: c(counterNames.aliases),
      loops: c(counterNames.loops),
      temporaryRedirects: c(counterNames.temporary),
      rules: { candidate: c(counterNames.rules('candidate')), active: c(counterNames.rules('active')), withdrawn: c(counterNames.rules('withdrawn')) },
      pruned,
      frontier: { size: this.frontier.size, inFlight: this.frontier.inFlight, hosts: this.frontier.hosts() },
      front: { source: this.frontSource, keys: this.front.count, aliasKeys: this.aliasFront.count, bytes: this.front.byteLength + this.aliasFront.byteLength },
    };
  }

  async *canonicalUrls(): AsyncIterable<CanonicalUrlRecord> {
    for await (const [key, value] of this.kv.entries('url')) {
      const e = decodeUrlEntry(value);
      if (e.s !== 'queued' && e.s !== 'fetched' && e.s !== 'failed') continue;
      const out: CanonicalUrlRecord = { key, url: urlFromKey(key), state: e.s, depth: e.d };
      yield e.st === undefined ? out : { ...out, status: e.st };
    }
  }

  async *aliases(): AsyncIterable<AliasRecord> {
    for await (const [from, value] of this.kv.entries('alias')) {
      const a = decodeJson<AliasEntry>(value);
      yield { from, to: a.to, fromUrl: urlFromKey(from), toUrl: urlFromKey(a.to), status: a.st };
    }
  }

  async *rules(): AsyncIterable<RuleRecord> {
    for await (const [, value] of this.kv.entries('rule')) yield decodeJson<RuleRecord>(value);
  }

  // ---- verify (fsck) ---------------------------------------------------------------------------

  verify(): Promise<VerifyReport> {
    return this.exclusive(() => this.verifyNow());
  }

  private async verifyNow(): Promise<VerifyReport> {
    const problems: string[] = [];
    const problem = (p: string): void => {
      if (problems.length < 100) problems.push(p);
    };
    const counted = new Map<string, number>();
    const bump = (name: string, d = 1): void => {
      counted.set(name, (counted.get(name) ?? 0) + d);
    };
    const queued = new Map<string, string>();
    const pruned = new Map<string, string>();
    for await (const [key, value] of this.kv.entries('url')) {
      const e = decodeUrlEntry(value);
      bump(counterNames.admitted);
      bump(counterNames.state(e.s));
      if (!this.front.has(key)) problem(`front: false negative for ${key}`);
      if (e.s === 'queued') {
        if (e.h === undefined || e.n === undefined) problem(`url ${key}: queued without a frontier position`);
        else {
          queued.set(frontierKey(e.h, e.n) + SEP + key, key);
          bump(counterNames.frontier(e.h));
        }
      }
      if (e.s === 'pruned') {
        if (e.by === undefined || e.to === undefined) problem(`url ${key}: pruned without reason or target`);
        else {
          pruned.set(prunedKey(e.by, key), e.to);
          bump(counterNames.pruned(e.by));
          if (!this.inForce(e.by)) problem(`url ${key}: pruned by ${e.by}, which is not in force`);
        }
      }
    }
    // every queued URL is a line of the block its entry names; blocks may hold lines no longer live
    for await (const [fk, value] of this.kv.entries('frontier')) {
      for (const { key } of parseBlock(value)) if (queued.get(fk + SEP + key) !== undefined) queued.delete(fk + SEP + key);
    }
    for (const [, key] of queued) problem(`url ${key}: queued, but not in the frontier block its entry names`);
    for await (const [pk, to] of this.kv.entries('pruned')) {
      if (pruned.get(pk) !== to) problem(`pruned ${JSON.stringify(pk)}: no matching url entry`);
      pruned.delete(pk);
    }
    for (const [pk] of pruned) problem(`pruned index entry missing: ${JSON.stringify(pk)}`);
    const sources = new Map<string, string>();
    for await (const [from, value] of this.kv.entries('alias')) {
      sources.set(from, decodeJson<AliasEntry>(value).to);
      bump(counterNames.aliases);
      if (!this.aliasFront.has(from)) problem(`alias front: false negative for ${from}`);
    }
    for (const [from, to] of sources) {
      if (to === from) problem(`alias ${from} points at itself`);
      if (sources.has(to)) problem(`alias ${from} → ${to} is a chain (target is a source): not compressed`);
    }
    let revs = 0;
    for await (const rk of this.kv.keys('aliasrev')) {
      const [to, from] = splitPair(rk);
      revs++;
      if (sources.get(from) !== to) problem(`aliasrev ${JSON.stringify(rk)} does not match alias ${from}`);
    }
    if (revs !== sources.size) problem(`aliasrev has ${revs} entries for ${sources.size} aliases`);
    for await (const [id, value] of this.kv.entries('rule')) {
      const r = decodeJson<RuleRecord>(value);
      if (r.id !== id) problem(`rule ${id}: id mismatch`);
      bump(counterNames.rules(r.state));
    }
    for await (const k of this.kv.keys('evidence')) {
      if (k.startsWith('l' + SEP)) bump(counterNames.loops);
      else if (k.startsWith('t' + SEP)) bump(counterNames.temporary);
    }
    const names = new Set([...counted.keys(), ...[...this.counters.keys()].filter((n) => n !== counterNames.seq)]);
    for (const name of names) {
      const want = counted.get(name) ?? 0;
      const have = this.counter(name);
      if (want !== have) problem(`counter ${name} = ${have}, recount ${want}`);
    }
    const sumStates = URL_STATES.reduce((s, st) => s + (counted.get(counterNames.state(st)) ?? 0), 0);
    if (sumStates !== (counted.get(counterNames.admitted) ?? 0)) problem('conservation: admitted ≠ the sum of the states');
    return { ok: problems.length === 0, problems, counted: Object.fromEntries(counted) };
  }

  // ---- rebuild (after urldedup repair) ---------------------------------------------------------

  rebuildDerived(): Promise<RebuildReport> {
    if (this.o.readOnly) return this.readOnlyRefusal();
    return this.exclusive(() => this.rebuildNow());
  }

  private async rebuildNow(): Promise<RebuildReport> {
    let ops: KvOp[] = [];
    const flush = async (sync: boolean): Promise<void> => {
      if (ops.length === 0) return;
      const batch = ops;
      ops = [];
      await this.kv.write(batch, { sync });
    };
    const put = async (space: Space, key: string, value: string | undefined): Promise<void> => {
      ops.push({ space, key, value });
      if (ops.length >= this.o.restoreBatchSize) await flush(false);
    };
    const counted = new Map<string, number>();
    const bump = (name: string, d = 1): void => {
      counted.set(name, (counted.get(name) ?? 0) + d);
    };
    // 1. the url sublevel: counts, the lines each frontier block should hold, the pruned index
    const want = new Map<string, Map<string, string>>(); // block → key → line
    const unplaced: [string, UrlEntry][] = [];
    const prunedWant = new Map<string, string>();
    let maxSeq = -1;
    for await (const [key, value] of this.kv.entries('url')) {
      const e = decodeUrlEntry(value);
      bump(counterNames.admitted);
      bump(counterNames.state(e.s));
      if (e.s === 'queued') {
        if (e.h === undefined || e.n === undefined) unplaced.push([key, e]);
        else {
          const block = frontierKey(e.h, e.n);
          let lines = want.get(block);
          if (lines === undefined) want.set(block, (lines = new Map()));
          lines.set(key, blockLine(e.d, key));
          bump(counterNames.frontier(e.h));
          if (e.n > maxSeq) maxSeq = e.n;
        }
      }
      if (e.s === 'pruned' && e.by !== undefined && e.to !== undefined) {
        prunedWant.set(prunedKey(e.by, key), e.to);
        bump(counterNames.pruned(e.by));
      }
    }
    // 2. frontier blocks: keep the live lines in their order, add the missing ones, drop the rest
    let blocks = 0;
    for await (const [block, value] of this.kv.entries('frontier')) {
      const seq = parseFrontierKey(block).seq;
      if (seq > maxSeq) maxSeq = seq;
      const lines = want.get(block);
      want.delete(block);
      if (lines === undefined) {
        await put('frontier', block, undefined);
        blocks++;
        continue;
      }
      const kept: string[] = [];
      for (const { key } of parseBlock(value)) {
        const line = lines.get(key);
        if (line === undefined) continue;
        kept.push(line);
        lines.delete(key);
      }
      for (const line of lines.values()) kept.push(line);
      const next = kept.join('\n');
      if (next !== wholeLines(value)) {
        await put('frontier', block, next);
        blocks++;
      }
    }
    for (const [block, lines] of want) {
      await put('frontier', block, [...lines.values()].join('\n'));
      blocks++;
    }
    // queued URLs without a frontier position get one, in new blocks per host
    let seq = Math.max(this.counter(counterNames.seq), maxSeq + 1);
    const open = new Map<string, { seq: number; lines: string[] }>();
    const writeBlock = async (host: string, b: { seq: number; lines: string[] }): Promise<void> => {
      await put('frontier', frontierKey(host, b.seq), b.lines.join('\n'));
      blocks++;
    };
    for (const [key, e] of unplaced) {
      const host = hostOf(recordOfKey(key));
      let b = open.get(host);
      if (b === undefined || b.lines.length >= BLOCK_LINES) {
        if (b !== undefined) await writeBlock(host, b);
        b = { seq: seq++, lines: [] };
        open.set(host, b);
      }
      b.lines.push(blockLine(e.d, key));
      await put('url', key, encodeUrlEntry(makeEntry(e, host, b.seq)));
      bump(counterNames.frontier(host));
    }
    for (const [host, b] of open) await writeBlock(host, b);
    // 3. the pruned index
    let indexEntries = 0;
    for await (const [pk, to] of this.kv.entries('pruned')) {
      if (prunedWant.get(pk) === to) prunedWant.delete(pk);
      else {
        await put('pruned', pk, undefined);
        indexEntries++;
      }
    }
    for (const [pk, to] of prunedWant) {
      await put('pruned', pk, to);
      indexEntries++;
    }
    // 4. aliases: the count and the aliasrev mirror
    const sources = new Map<string, string>();
    for await (const [from, value] of this.kv.entries('alias')) {
      sources.set(from, decodeJson<AliasEntry>(value).to);
      bump(counterNames.aliases);
    }
    const mirrored = new Set<string>();
    for await (const rk of this.kv.keys('aliasrev')) {
      const [to, from] = splitPair(rk);
      if (sources.get(from) === to && !mirrored.has(from)) mirrored.add(from);
      else {
        await put('aliasrev', rk, undefined);
        indexEntries++;
      }
    }
    for (const [from, to] of sources) {
      if (mirrored.has(from)) continue;
      await put('aliasrev', aliasRevKey(to, from), '');
      indexEntries++;
    }
    // 5. rules and evidence counts
    for await (const [, value] of this.kv.entries('rule')) bump(counterNames.rules(decodeJson<RuleRecord>(value).state));
    for await (const k of this.kv.keys('evidence')) {
      if (k.startsWith('l' + SEP)) bump(counterNames.loops);
      else if (k.startsWith('t' + SEP)) bump(counterNames.temporary);
    }
    // 6. the counters: the recount, and a sequence number past every block
    let counters = 0;
    const names = new Set([...counted.keys(), ...this.counters.keys()]);
    names.delete(counterNames.seq);
    for (const name of names) {
      const n = counted.get(name) ?? 0;
      if (n === this.counter(name)) continue;
      await put('counter', name, n === 0 ? undefined : String(n));
      counters++;
    }
    if (seq !== this.counter(counterNames.seq)) {
      await put('counter', counterNames.seq, String(seq));
      counters++;
    }
    await flush(this.o.sync !== 'never');
    // the in-memory state follows: counters, and a frontier loaded afresh (in-flight entries forgotten)
    this.counters = new Map([...counted].filter(([, n]) => n !== 0));
    if (seq !== 0) this.counters.set(counterNames.seq, seq);
    this.committed.clear();
    for (const [name, n] of this.counters) this.committed.set(name, n);
    const hostCounts = new Map<string, number>();
    const frontierPrefix = counterNames.frontier('');
    for (const [name, n] of this.counters) if (name.startsWith(frontierPrefix)) hostCounts.set(name.slice(frontierPrefix.length), n);
    this.frontier = new Frontier(this.kv);
    this.frontier.load(hostCounts);
    // entries were rewritten outside the batch path: the cache starts afresh, and the fronts are
    // built from the keys a repair left (it may have dropped some, or brought back older ones)
    await this.buildFronts();
    this.cache.clear();
    this.urlWrites++;
    return { counters, blocks, placed: unplaced.length, indexEntries };
  }

  // ---- close -----------------------------------------------------------------------------------

  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    if (this.closed) return Promise.resolve();
    const pending = this.tail;
    this.closing = (async () => {
      await pending;
      await this.writes;
      if (this.syncTimer !== undefined) clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
      try {
        if (this.kv.durable && !this.o.readOnly && this.front.count + this.aliasFront.count >= this.o.frontSnapshotMinKeys) {
          // the fronts, for a quick next open; a failure here costs only that (the next open rebuilds)
          const counts = { admitted: this.committed.get(counterNames.admitted) ?? 0, aliases: this.committed.get(counterNames.aliases) ?? 0 };
          await writeFrontSnapshot(this.kv, { url: this.front, alias: this.aliasFront }, counts, this.o.sync !== 'never').catch(() => undefined);
        }
        if (this.o.sync !== 'never' && this.kv.durable && !this.o.readOnly) await this.writeSyncMarker();
      } finally {
        this.closed = true;
        await this.kv.close();
      }
    })();
    return this.closing;
  }
}
