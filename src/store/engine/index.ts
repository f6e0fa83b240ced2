/**
 * The store's engine, shared by the LevelDB and memory backends (it runs on a `Kv`): a thin
 * `SeenStore` that checks its arguments and hands each call to the module of its concept, through
 * the write queue.
 *
 * RFC 3986 §6.2.4 (protocol-based normalization) at the frontier gate:
 *
 *     url ─ normalize (§6.2.2, §6.2.3) ─ redact password ─► identity key        canonicalize.ts
 *         ─ presets (named, reversible) ─ active host rules ─ alias table ─► canonical key
 *         ─ seen set ─► queued, or the reason it was not                        admit.ts
 *
 * Every state change of one call is one `Kv.write` (one LevelDB batch, batch.ts) together with the
 * counters it changes, and calls run one at a time (write-queue.ts), so no check-then-write race
 * exists across `await`. The in-memory parts (parts.ts) follow each batch at submission and when
 * its write returned; a failed write refuses the batches built on it and rolls the state back.
 */
import type { Kv } from '../backends/kv.js';
import { parseRuleId, parseSpec, type RuleRecord } from '../rules.js';
import { defaultStoreOptions } from '../seen-store.js';
import { ScopeTest } from '../admission-scope.js';
import type {
  AdmissionScope,
  AdmitOptions,
  HostHold,
  WorkerHooks,
  AdmitResult,
  AliasRecord,
  CanonicalFailure,
  CanonicalResult,
  CanonicalUrlRecord,
  Explanation,
  FetchRecord,
  FrontierEntry,
  NextOptions,
  PruneEntry,
  RebuildReport,
  RequeueFailedOptions,
  SeenStore,
  StoreOptions,
  StatsOptions,
  StoreStats,
  StoreSupports,
  VerifyReport,
} from '../seen-store.js';
import { StoreError } from '../errors.js';
import { admitBatch } from './admit.js';
import { identity, isUrlError, type Identity } from './canonicalize.js';
import { Delivery } from './delivery.js';
import { recordFetch, recordRedirect, REDIRECT_STATUSES } from './evidence.js';
import { afterRuleChanges, prune, pruneHandedOut, pruneRequests, reasonOf, restoreReason, type PruneRequest } from './give-back.js';
import { explain } from './explain.js';
import type { RepresentationClaim } from '../learning/content-pairs.js';
import { RuleLearner } from '../learning/learner.js';
import * as lookup from './lookup.js';
import { load, writeFrontsAtClose } from './open.js';
import { resolveStoreOptions, type ResolvedOptions } from './options.js';
import { rebuildDerived } from './rebuild.js';
import { checkRequeueOptions, requeueFailed } from './retry.js';
import { EngineParts } from './parts.js';
import { verify } from './verify.js';
import { WriteQueue } from './write-queue.js';

/** Takes from the frontier under one hold of the queue when every entry taken was pruned at hand-out. */
const HAND_OUT_ROUNDS = 8;

export { resolveStoreOptions, type ResolvedOptions } from './options.js';

export class StoreEngine implements SeenStore {
  readonly supports: StoreSupports;
  readonly location: string;
  private readonly s: EngineParts;
  private readonly q: WriteQueue;
  private readonly learner: RuleLearner;
  private readonly delivery = new Delivery();

  private constructor(kv: Kv, supports: StoreSupports, options: ResolvedOptions) {
    this.supports = supports;
    this.location = kv.location;
    this.s = new EngineParts(kv, options);
    this.q = new WriteQueue(this.s);
    this.learner = new RuleLearner({ kv, rules: this.s.rules, notFound: this.s.rules.notFound, pathDocuments: this.s.rules.pathDocuments }, options);
  }

  /**
   * Open an engine on `kv`: check the format, load counters and rules, rebuild the front, reconcile.
   * `partition`: a fleet partition's host tag and the fleet's salt (options.ts `partition`).
   */
  static async open(kv: Kv, supports: StoreSupports, options: StoreOptions = {}, partition?: ResolvedOptions['partition']): Promise<StoreEngine> {
    try {
      const engine = new StoreEngine(kv, supports, { ...resolveStoreOptions(options), partition });
      await load(engine.s, engine.q);
      return engine;
    } catch (error) {
      await kv.close().catch(() => undefined);
      throw error;
    }
  }

  /** The rejection of a write method on a read-only store. */
  private readOnlyRefusal(): Promise<never> {
    return Promise.reject(new StoreError('ERR_STORE_IO', this.location, { detail: 'read-only' }));
  }

  admit(urls: readonly string[], options: AdmitOptions = {}): Promise<AdmitResult[]> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    if (!Array.isArray(urls)) return Promise.reject(new TypeError('admit: urls must be an array of strings'));
    const depth = options.depth ?? 0;
    if (!Number.isInteger(depth) || depth < 0) return Promise.reject(new TypeError('admit: depth must be an integer >= 0'));
    if (options.deliver !== true) return this.q.admitQueued(() => admitBatch(this.s, this.q, urls, depth, options.source));
    return this.q.admitQueued(async () => {
      const b = await admitBatch(this.s, this.q, urls, depth, options.source, true);
      return { value: await this.delivery.settle(this.s, b.value), written: b.written };
    });
  }

  markDelivered(keys: readonly string[]): Promise<void> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) return Promise.reject(new TypeError('markDelivered: keys must be an array of strings'));
    return this.q.exclusive(() => this.delivery.markDelivered(this.s, this.q, keys));
  }

  recordRedirect(from: string, to: string, status: number): Promise<void> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    if (!REDIRECT_STATUSES.has(status)) return Promise.reject(new TypeError(`recordRedirect: status must be 301, 302, 303, 307 or 308, not ${status}`));
    let f: Identity;
    let t: Identity;
    try {
      f = identity(this.s, from);
      t = identity(this.s, to);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.q.exclusive(() => recordRedirect(this.s, this.q, this.learner, f, t, status));
  }

  recordFetch(url: string, response: FetchRecord): Promise<void> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    if (response === null || typeof response !== 'object' || !Number.isInteger(response.status) || response.status < 0 || response.status > 999) {
      return Promise.reject(new TypeError('recordFetch: response.status must be an integer 0–999 (0: no response)'));
    }
    let u: Identity;
    let fin: Identity | undefined;
    const claims: RepresentationClaim[] = [];
    try {
      u = identity(this.s, url);
      if (response.finalUrl !== undefined) fin = identity(this.s, response.finalUrl);
    } catch (e) {
      return Promise.reject(e);
    }
    // what the answer named itself is the server's or the page's word, not the caller's: a name
    // that is no URL is ignored
    for (const how of ['content-location', 'canonical'] as const) {
      const text = how === 'canonical' ? response.canonical : response.contentLocation;
      if (typeof text !== 'string') continue;
      try {
        claims.push({ at: identity(this.s, text), how });
      } catch (e) {
        if (!isUrlError(e)) return Promise.reject(e);
      }
    }
    return this.q.exclusive(() => recordFetch(this.s, this.q, this.learner, u, fin, response, claims));
  }

  restore(reason: string): Promise<number> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    const r = reasonOf(reason);
    return this.q.exclusive(() => restoreReason(this.s, this.q, r, r));
  }

  prune(entries: readonly PruneEntry[]): Promise<void> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    let requests: PruneRequest[];
    try {
      requests = pruneRequests(this.s, entries);
    } catch (error) {
      return Promise.reject(error);
    }
    if (requests.length === 0) return this.q.exclusive(async () => undefined);
    return this.q.exclusive(() => prune(this.s, this.q, requests));
  }

  requeueFailed(options: RequeueFailedOptions): Promise<number> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    try {
      checkRequeueOptions(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.q.exclusive(() => requeueFailed(this.s, this.q, options));
  }

  /** Queued URLs of `host` (`host[:port]`), in flight included: one lookup, where `stats()` lists every host. */
  queuedOn(host: string): number {
    return this.s.frontier.queuedOn(host);
  }

  async next(options: NextOptions = {}): Promise<FrontierEntry[]> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    const drop = async (blocks: string[]): Promise<void> => {
      const txn = this.q.newTxn();
      for (const b of blocks) txn.del('frontier', b);
      await this.q.commit(txn);
    };
    // entries a rule now sends to a known name are pruned, not handed out (give-back.ts); a take
    // that lost them all is taken again, the queue held a few rounds at a time. An empty answer
    // says the frontier has nothing to offer now, so it is never given while a take pruned
    // something: each such take shortens the queue, so the rounds end. (Returning empty after a
    // fixed number of rounds ended a crawl with documents still queued behind more URLs pruned at
    // hand-out than that: simulator seed 91010.)
    for (;;) {
      const { taken, kept } = await this.q.exclusive(async () => {
        for (let round = 0; ; round++) {
          const out = await this.s.frontier.next(options, drop);
          const left = await pruneHandedOut(this.s, this.q, out);
          if (left.length > 0 || out.length === 0 || round === HAND_OUT_ROUNDS) return { taken: out.length, kept: left };
        }
      });
      if (kept.length > 0 || taken === 0) return kept;
    }
  }

  /** One worker: nothing to carry from one holder of a host to the next. */
  attachWorker(_worker: WorkerHooks): void {}

  setScope(scope: AdmissionScope): void {
    this.s.o = { ...this.s.o, scope: new ScopeTest(scope, defaultStoreOptions.scope.schemes, this.s.o.normalize) };
  }

  /** One worker holds every host: the hold is the crawl's own signal. */
  holdHost(_host: string, signal: AbortSignal): HostHold {
    return { signal, lost: false, stop: () => undefined };
  }

  /** One worker: no other hands it work once its frontier is empty. */
  waitForWork(_signal: AbortSignal): Promise<boolean> {
    return Promise.resolve(false);
  }

  release(urls: readonly string[]): Promise<void> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    const keys: string[] = [];
    for (const u of urls) {
      try {
        keys.push(identity(this.s, u).key);
      } catch (e) {
        if (!isUrlError(e)) throw e;
      }
    }
    return this.q.exclusive(async () => {
      for (const k of keys) this.s.frontier.release(k);
    });
  }

  canonical(url: string): Promise<CanonicalResult> {
    return lookup.canonical(this.s, url);
  }

  explain(url: string): Promise<Explanation> {
    return explain(this.s, url);
  }

  withdrawRule(id: string): Promise<RuleRecord> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    const parsed = typeof id === 'string' ? parseRuleId(id) : undefined;
    if (parsed === undefined) return Promise.reject(new TypeError(`withdrawRule: not a rule id (host/spec, e.g. example.com/slash-add): ${JSON.stringify(id)}`));
    return this.operate(parsed.host, parsed.spec);
  }

  blockRule(host: string, spec: string): Promise<RuleRecord> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    const parsed = typeof spec === 'string' ? parseSpec(spec) : undefined;
    if (typeof host !== 'string' || host === '' || host.includes('/')) return Promise.reject(new TypeError(`blockRule: host must be host[:port], not ${JSON.stringify(host)}`));
    if (parsed === undefined) return Promise.reject(new TypeError(`blockRule: not a rule spec (https, www-add, www-remove, slash-add, slash-remove, default-document:NAME, path-prefix:FROM>TO, query-parameter:NAME[&NAME…], path-parameter:NAME): ${JSON.stringify(spec)}`));
    return this.operate(host, parsed);
  }

  /** An operator's withdrawal, committed, and what the rule pruned given back. */
  private operate(host: string, spec: NonNullable<ReturnType<typeof parseSpec>>): Promise<RuleRecord> {
    return this.q.exclusive(async () => {
      const txn = this.q.newTxn();
      const { rule, changes } = await this.learner.withdrawByHand(txn, host, spec, Date.now());
      await this.q.commit(txn);
      await afterRuleChanges(this.s, this.q, changes);
      return rule;
    });
  }

  canonicalMany(urls: readonly string[]): Promise<(CanonicalResult | CanonicalFailure)[]> {
    return lookup.canonicalMany(this.s, urls);
  }

  /** In a fleet partition: the URLs for other hosts' partitions its calls found (parts.ts `outbox`), once. */
  takeOutbox(): { readonly url: string; readonly depth: number; readonly src?: string }[] {
    return this.s.outbox.splice(0);
  }

  /** The depth `url`'s entry was queued at, `undefined` when it has none (a fleet's forwarded redirect target). */
  async depthOf(url: string): Promise<number | undefined> {
    return lookup.depthOf(this.s, url);
  }

  async stats(options: StatsOptions = {}): Promise<StoreStats> {
    return lookup.stats(this.s, options);
  }

  canonicalUrls(): AsyncIterable<CanonicalUrlRecord> {
    return lookup.canonicalUrls(this.s);
  }

  aliases(): AsyncIterable<AliasRecord> {
    return lookup.aliases(this.s);
  }

  rules(): AsyncIterable<RuleRecord> {
    return lookup.rules(this.s);
  }

  verify(): Promise<VerifyReport> {
    return this.q.exclusive(() => verify(this.s));
  }

  rebuildDerived(): Promise<RebuildReport> {
    if (this.s.o.readOnly) return this.readOnlyRefusal();
    return this.q.exclusive(() => rebuildDerived(this.s));
  }

  writeFailure(): StoreError | undefined {
    return this.q.writeFailure;
  }

  close(): Promise<void> {
    return this.q.close(() => writeFrontsAtClose(this.s));
  }
}
