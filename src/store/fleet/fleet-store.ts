/**
 * A fleet store: many crawl workers, on any machines, share one frontier and one seen set on
 * Redis Cluster. The store is split by host into partitions (partition.ts), each a whole store of
 * the engine with the same options, reasons, rule learning and give-back as LevelDB. A worker
 * holds a host with a lease and alone writes that host's partition, so per-host politeness and the
 * engine's single-writer state hold across the fleet. A link for a host the worker does not hold
 * goes to that host's inbox, admitted by whoever takes the host (registry.ts). A worker killed
 * with SIGKILL loses its leases at expiry; its hosts, their queued and in-flight URLs still queued
 * in their partitions, go back to the others.
 *
 * What a partition cannot see: another partition's state. A host and its `www.` name share one
 * partition (host-tag.ts `partitionTag`), so the rules between them are learned there as in a
 * whole store; a redirect to any other host becomes an alias in the source's partition and its
 * target is sent to the target's partition. See docs/scale-out.md.
 */
import type { Cluster } from 'ioredis';
import { identifyInto, isUrlError, normalizeRecord, recompose, urlFromKey, UrlIdentity, type UrlError } from '../../normalize/index.js';
import { redactPassword } from '../userinfo.js';
import { StoreError } from '../errors.js';
import type { Explanation } from '../seen-store.js';
import { statsOf } from '../engine/lookup.js';
import type { StoreEngine } from '../engine/index.js';
import { partitionTag } from '../host-tag.js';
import { ScopeTest } from '../admission-scope.js';
import { checkDurability, clusterReady, connectCluster, redisError, resolveRedisOptions, type RedisSeeds } from '../backends/redis/cluster.js';
import type { RuleRecord } from '../rules.js';
import type {
  AdmissionScope,
  AdmitOptions,
  AdmitResult,
  AliasRecord,
  CanonicalFailure,
  CanonicalResult,
  CanonicalUrlRecord,
  FetchRecord,
  FrontierEntry,
  HostHold,
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
  WorkerHooks,
  WorkerPacing,
} from '../seen-store.js';
import { watchLease } from './lease-watch.js';
import { paceKey, peekPartition, takePartition, type HeldPartition } from './partition.js';
import { FleetRegistry, type InboxEntry } from './registry.js';
import type { FleetMember, FleetOptions, OpenFleetStoreOptions } from './fleet-member.js';

export type { FleetLocation, FleetMember, FleetOptions, OpenFleetStoreOptions } from './fleet-member.js';
export { isFleetLocation, isFleetMember } from './fleet-member.js';

const INBOX_PAGE = 2000;
const STATS_TTL_MS = 1000;
/** How long a worker keeps a host with nothing queued while it is busy with others. */
const EMPTY_GRACE_MS = 1000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class FleetStore implements SeenStore, FleetMember {
  readonly fleet = true as const;
  pacing: WorkerPacing | undefined;
  // atomic per host (one slot per partition), not across hosts
  readonly supports: StoreSupports = { durable: true, atomicBatch: false };
  readonly location: string;
  private readonly held = new Map<string, HeldPartition>();
  private readonly scratch = new UrlIdentity();
  private requeue: RequeueFailedOptions | undefined;
  private counters: { at: number; ttl: number; value: Map<string, number> } | undefined;
  private closed = false;
  private lastRefill = 0;
  private takeoverListener: ((tag: string) => void) | undefined;

  /** Be told when this worker takes a host whose previous holder's lease expired. */
  onTakeover(listener: (tag: string) => void): void {
    this.takeoverListener = listener;
  }

  attachWorker(worker: WorkerHooks): void {
    this.pacing = worker.pacing;
    this.onTakeover(worker.onTakeover);
  }

  /** The partitions held now and those taken later admit by `scope`. */
  setScope(scope: AdmissionScope): void {
    new ScopeTest(scope); // a scope that is not one is refused here, not at the next partition taken
    const options = { ...this.options, scope };
    for (const p of this.held.values()) p.engine.setScope(scope);
    this.options = options;
  }

  /** A fetch starts only while this worker holds the host's lease, and stops when it lapses (lease-watch.ts). */
  holdHost(host: string, signal: AbortSignal): HostHold | undefined {
    return this.holds(host) ? watchLease(this, host, signal) : undefined;
  }

  /** When `refill` last looked for expired leases (`reap`). */
  private reapedAt = 0;

  private constructor(
    private readonly cluster: Cluster,
    private readonly registry: FleetRegistry,
    private options: StoreOptions,
    private readonly o: Required<Omit<FleetOptions, 'sync' | 'name'>> & { name: string },
    location: string,
    private readonly salt: string,
  ) {
    this.location = location;
  }

  static async open(seeds: RedisSeeds, options: OpenFleetStoreOptions = {}): Promise<FleetStore> {
    const { fleet = {}, ...storeOptions } = options;
    const r = resolveRedisOptions({ name: fleet.name ?? 'ud', sync: fleet.sync ?? 'server' });
    const o = { name: r.name, leaseMs: fleet.leaseMs ?? 15_000, maxHosts: fleet.maxHosts ?? 4, pollMs: fleet.pollMs ?? 200 };
    if (!Number.isInteger(o.leaseMs) || o.leaseMs < 1000) throw new TypeError('fleet: leaseMs must be an integer >= 1000');
    if (!Number.isInteger(o.maxHosts) || o.maxHosts < 1) throw new TypeError('fleet: maxHosts must be an integer >= 1');
    if (!(o.pollMs >= 10)) throw new TypeError('fleet: pollMs must be >= 10');
    const cluster = connectCluster(seeds);
    const location = `redis-fleet:${o.name}@${typeof seeds === 'string' ? seeds : seeds.join(',')}`;
    try {
      await clusterReady(cluster, location);
      await checkDurability(cluster, r.sync, location);
      const registry = new FleetRegistry(cluster, o.name);
      const salt = await registry.claimLayout(location);
      return new FleetStore(cluster, registry, storeOptions, o, location, salt);
    } catch (e) {
      cluster.disconnect();
      throw redisError(e, location);
    }
  }

  /** True when the cluster holds a fleet store named `name`. */
  static async exists(seeds: RedisSeeds, name = 'ud'): Promise<boolean> {
    const cluster = connectCluster(seeds);
    try {
      await clusterReady(cluster, name);
      return await new FleetRegistry(cluster, name).isFleet();
    } catch (e) {
      throw redisError(e, name);
    } finally {
      cluster.disconnect();
    }
  }

  // ---- routing --------------------------------------------------------------------------------

  /** The partition tag of `url`, or the `UrlError` that refuses it. */
  private tagOf(url: string): string {
    return partitionTag(identifyInto(url, this.scratch, this.options.normalize).hostPort);
  }

  /**
   * `url` as an inbox may hold it: a userinfo password redacted with the fleet's salt (the store
   * never keeps one in clear, userinfo.ts), as every partition redacts it, so it keys alike.
   */
  private redacted(url: string): string {
    if (url.indexOf('@') === -1) return url;
    try {
      const rec = normalizeRecord(url, this.options.normalize);
      const red = redactPassword(rec, this.salt);
      return red === rec ? url : recompose(red);
    } catch {
      // unreachable for a URL that was routed (identified alike); never a password in clear anyway
      return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#@]*@/, '$1');
    }
  }

  private live(tag: string): HeldPartition | undefined {
    const p = this.held.get(tag);
    return p === undefined || p.lost || p.lease.lost !== undefined ? undefined : p;
  }

  /** A partition whose lease was found lost: dropped without another write; its host is reaped by the others. */
  private async lose(p: HeldPartition): Promise<void> {
    p.lost = true;
    this.held.delete(p.tag);
    await p.lease.release();
    await p.engine.close().catch(() => undefined);
  }

  private isLeaseLost(error: unknown, p: HeldPartition): boolean {
    return p.lease.lost !== undefined || (error instanceof StoreError && error.code === 'ERR_STORE_LOCKED');
  }

  /** Run `f` on the held partition `p`; a lost lease gives the partition up and yields `undefined`. */
  private async onHeld<T>(p: HeldPartition, f: (e: StoreEngine) => Promise<T>): Promise<T | undefined> {
    try {
      const value = await f(p.engine);
      await this.flushOutbox(p);
      return value;
    } catch (error) {
      // given up meanwhile (refill closed it between the lookup and the call): as if not held
      if (this.held.get(p.tag) !== p) return undefined;
      if (!this.isLeaseLost(error, p)) throw error;
      await this.lose(p);
      return undefined;
    }
  }

  /** What `p`'s last calls left for other hosts (engine/parts.ts `outbox`): to their inboxes. */
  private async flushOutbox(p: HeldPartition): Promise<void> {
    const out = p.engine.takeOutbox();
    if (out.length > 0) await this.forward(out.map((o) => ({ url: o.url, depth: o.depth, ...(o.src === undefined ? {} : { source: urlFromKey(o.src) }) })));
  }

  /** Send each URL to its host's inbox (for a host this worker holds too: its holder admits the inbox). */
  private async forward(items: readonly { url: string; depth: number; source?: string }[]): Promise<void> {
    const byTag = this.byTag(items, (it) => it.url);
    await Promise.all(
      [...byTag].map(([tag, group]) => this.registry.send(tag, group.map((it) => ({ u: this.redacted(it.url), d: it.depth, ...(it.source === undefined ? {} : { s: this.redacted(it.source) }) })))),
    );
  }

  /**
   * The indexes of `urls` grouped by partition tag, each URL identified once (`each` sees its
   * identity); a URL the store cannot key goes to `invalid` with its `UrlError`.
   */
  private groupUrls(urls: readonly string[], invalid: (i: number, e: UrlError) => void, each?: (i: number, id: UrlIdentity) => void): Map<string, number[]> {
    const groups = new Map<string, number[]>();
    for (let i = 0; i < urls.length; i++) {
      let tag: string;
      try {
        const id = identifyInto(urls[i]!, this.scratch, this.options.normalize);
        tag = partitionTag(id.hostPort);
        each?.(i, id);
      } catch (e) {
        if (!isUrlError(e)) throw e;
        invalid(i, e);
        continue;
      }
      let g = groups.get(tag);
      if (g === undefined) groups.set(tag, (g = []));
      g.push(i);
    }
    return groups;
  }

  /** `items` grouped by the partition tag of `urlOf(item)`; an item the store cannot key is left out (its partition would refuse it). */
  private byTag<T>(items: readonly T[], urlOf: (item: T) => string): Map<string, T[]> {
    const groups = new Map<string, T[]>();
    for (const it of items) {
      let tag: string;
      try {
        tag = this.tagOf(urlOf(it));
      } catch (e) {
        if (isUrlError(e)) continue;
        throw e;
      }
      let g = groups.get(tag);
      if (g === undefined) groups.set(tag, (g = []));
      g.push(it);
    }
    return groups;
  }

  admit(urls: readonly string[], options: AdmitOptions = {}): Promise<AdmitResult[]> {
    if (options.deliver === true) return Promise.reject(new TypeError('admit: deliver is not supported by a fleet store (use one writer: openRedisStore)'));
    return this.admitRouted(urls, options.depth ?? 0, options.source);
  }

  private async admitRouted(urls: readonly string[], depth: number, source: string | undefined): Promise<AdmitResult[]> {
    const out = new Array<AdmitResult>(urls.length);
    const keys = new Array<string>(urls.length);
    const groups = this.groupUrls(
      urls,
      (i, e) => (out[i] = { url: urls[i]!, key: undefined, identityKey: undefined, admitted: false, reason: `invalid:${e.code}` }),
      (i, id) => (keys[i] = id.key),
    );
    const sends: Promise<void>[] = [];
    for (const [tag, at] of groups) {
      const p = this.live(tag);
      const results = p === undefined ? undefined : await this.onHeld(p, (e) => e.admit(at.map((i) => urls[i]!), { depth, source }));
      if (results !== undefined) {
        for (let j = 0; j < at.length; j++) out[at[j]!] = results[j]!;
        // mapped by the partition onto another host's URL (an alias across hosts): sent there
        const away = results.filter((r) => r.reason === 'forwarded' && r.key !== undefined);
        if (away.length > 0) sends.push(this.forward(away.map((r) => ({ url: urlFromKey(r.key!), depth, ...(source === undefined ? {} : { source }) }))));
        continue;
      }
      // judged by the host's holder; the key here is the URL's own (RFC rungs), as for `seen`
      sends.push(this.registry.send(tag, at.map((i) => ({ u: this.redacted(urls[i]!), d: depth, ...(source === undefined ? {} : { s: this.redacted(source) }) }))));
      for (const i of at) out[i] = { url: urls[i]!, key: keys[i], identityKey: keys[i], admitted: false, reason: 'forwarded' };
    }
    await Promise.all(sends);
    return out;
  }

  markDelivered(): Promise<void> {
    return Promise.reject(new TypeError('markDelivered: not supported by a fleet store'));
  }

  async recordRedirect(from: string, to: string, status: number): Promise<void> {
    const p = this.live(this.tagOf(from));
    if (p === undefined) return; // lost: the new holder fetches `from` again
    let toTag: string | undefined;
    try {
      toTag = this.tagOf(to);
    } catch {
      toTag = undefined; // the partition refuses it with its UrlError
    }
    if (toTag !== undefined && toTag !== p.tag && this.options.enqueueRedirectTargets !== false) {
      // sent before the redirect is recorded: a crash between the two fetches `from` again
      // rather than losing the target; at the depth of the page that redirected
      const depth = (await p.engine.depthOf(from)) ?? 0;
      await this.forward([{ url: to, depth }]);
    }
    await this.onHeld(p, (e) => e.recordRedirect(from, to, status));
  }

  async recordFetch(url: string, response: FetchRecord): Promise<void> {
    const tag = this.tagOf(url);
    const fin = response.finalUrl;
    if (fin !== undefined && this.tagOf(fin) !== tag) {
      // redirects followed onto another host (the crawler follows only its own origin): the
      // answer is that host's to record; here, a redirect that says nothing of equivalence
      return this.recordRedirect(url, fin, 302);
    }
    const p = this.live(tag);
    if (p !== undefined) await this.onHeld(p, (e) => e.recordFetch(url, response));
  }

  /**
   * `host` given: that host's entries, if this worker holds it. Otherwise the held hosts' entries,
   * after a `refill` (hosts with work taken, those left without any given up): the crawler's
   * pump asks this way, and a fleet worker's hosts change under it.
   */
  async next(options: NextOptions = {}): Promise<FrontierEntry[]> {
    if (options.host !== undefined) {
      const p = await this.holderOf(options.host);
      return p === undefined ? [] : this.handOut(p, (await this.onHeld(p, (e) => e.next(options))) ?? []);
    }
    await this.refill();
    const out: FrontierEntry[] = [];
    const limit = options.limit ?? 1;
    for (const p of [...this.held.values()]) {
      if (out.length >= limit) break;
      out.push(...this.handOut(p, (await this.onHeld(p, (e) => e.next({ ...options, limit: limit - out.length }))) ?? []));
    }
    return out;
  }

  /** The held partition whose frontier has `host` (`host[:port]`, as `stats().frontier.hosts` names it). */
  private async holderOf(host: string): Promise<HeldPartition | undefined> {
    const p = this.live(partitionTag(host));
    if (p !== undefined) return p;
    for (const q of this.held.values()) if (this.live(q.tag) !== undefined && q.engine.queuedOn(host) > 0) return q;
    return undefined;
  }

  /** Entries of `p` handed to the crawler: their hosts noted, and paced as the last holder left them. */
  private handOut(p: HeldPartition, entries: FrontierEntry[]): FrontierEntry[] {
    for (const e of entries) {
      if (!p.hosts.has(e.host)) {
        p.hosts.add(e.host);
        if (p.notBefore > Date.now()) this.pacing?.holdUntil(e.host, p.notBefore);
      }
    }
    return entries;
  }

  async release(urls: readonly string[]): Promise<void> {
    for (const [tag, group] of this.byTag(urls, (u) => u)) {
      const p = this.live(tag);
      if (p !== undefined) await this.onHeld(p, (e) => e.release(group));
    }
  }

  /** Read `tag`'s partition: the held engine, or a read-only open of it. */
  private async reading<T>(tag: string, f: (e: StoreEngine) => Promise<T>): Promise<T> {
    const p = this.live(tag);
    if (p !== undefined) return f(p.engine);
    const e = await peekPartition(this.cluster, this.o.name, this.location, tag, this.salt, this.options);
    try {
      return await f(e);
    } finally {
      await e.close();
    }
  }

  /** Read the partition of `url`'s host (`reading`); a URL the store cannot key rejects with its `UrlError`. */
  private readingUrl<T>(url: string, f: (e: StoreEngine) => Promise<T>): Promise<T> {
    let tag: string;
    try {
      tag = this.tagOf(url);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.reading(tag, f);
  }

  canonical(url: string): Promise<CanonicalResult> {
    return this.readingUrl(url, (e) => e.canonical(url));
  }

  /** Each host's URLs in one call on its partition (a partition not held is opened once, not per URL). */
  async canonicalMany(urls: readonly string[]): Promise<(CanonicalResult | CanonicalFailure)[]> {
    const out = new Array<CanonicalResult | CanonicalFailure>(urls.length);
    const groups = this.groupUrls(urls, (i, e) => (out[i] = { ok: false, code: e.code, input: urls[i]! }));
    for (const [tag, group] of groups) {
      const results = await this.reading(tag, (e) => e.canonicalMany(group.map((i) => urls[i]!)));
      group.forEach((i, j) => (out[i] = results[j]!));
    }
    return out;
  }

  explain(url: string): Promise<Explanation> {
    return this.readingUrl(url, (e) => e.explain(url));
  }

  async prune(entries: readonly PruneEntry[]): Promise<void> {
    const groups = this.byTag(entries, (e) => e.url);
    for (const [tag, group] of groups) {
      const p = this.live(tag);
      const done = p === undefined ? undefined : await this.onHeld(p, async (e) => (await e.prune(group), true));
      if (done === undefined) await this.registry.send(tag, group.map((e) => ({ u: this.redacted(e.url), d: e.depth ?? 0, p: e.reason })));
    }
  }

  // ---- hosts ----------------------------------------------------------------------------------

  async refill(idle = false): Promise<void> {
    if (this.closed) return;
    // the crawler asks on every pump: a few Redis calls per held host, so at most every pollMs
    const now = Date.now();
    if (this.held.size > 0 && now - this.lastRefill < this.o.pollMs) return;
    this.lastRefill = now;
    // admit what others sent to what is held; give up what has had no work for a while (at once
    // when idle or when other hosts wait: a host given up at its first empty moment is taken back
    // at the next link to it, its partition opened and its robots.txt read again)
    let waiting: boolean | undefined;
    for (const p of [...this.held.values()]) {
      if (p.lost || p.lease.lost !== undefined) {
        await this.lose(p);
        continue;
      }
      await this.drainInbox(p);
      if (!this.held.has(p.tag)) continue;
      if ((await p.engine.stats()).frontier.size > 0) {
        p.emptySince = undefined;
        continue;
      }
      p.emptySince ??= now;
      // kept only while no other host waits for a holder: a slot for a host with work comes first
      waiting ??= (await this.registry.readyCount()) > 0;
      if (idle || waiting || now - p.emptySince >= EMPTY_GRACE_MS) await this.giveUp(p, (await this.registry.inboxLength(p.tag)) > 0);
    }
    if (this.held.size >= this.o.maxHosts) return;
    // a killed worker's hosts go back to `ready` at lease expiry, not only once some worker is idle
    // (a busy fleet would leave them, their queued URLs with them, to the end of the crawl)
    if (now - this.reapedAt >= Math.max(this.o.pollMs, this.o.leaseMs / 3)) {
      this.reapedAt = now;
      await this.registry.reap();
    }
    for (const tag of await this.registry.readySample(4 * this.o.maxHosts)) {
      if (this.held.size >= this.o.maxHosts) break;
      if (this.held.has(tag)) continue;
      const p = await takePartition(this.cluster, this.o.name, this.location, tag, this.salt, this.o.leaseMs, this.options);
      if (p === undefined) continue;
      const takeover = await this.registry.takeover(tag);
      this.held.set(tag, p);
      await this.registry.taken(tag);
      if (takeover) this.takeoverListener?.(tag);
      if (this.requeue !== undefined) await this.onHeld(p, (e) => e.requeueFailed(this.requeue!));
      await this.drainInbox(p);
    }
  }

  /** Admit `p`'s inbox, page by page; a line is dropped from the inbox only once admitted. */
  private async drainInbox(p: HeldPartition): Promise<void> {
    let any = p.fresh;
    p.fresh = false;
    for (;;) {
      const lines = await this.registry.peekInbox(p.tag, INBOX_PAGE);
      if (lines.length === 0) break;
      const ok = await this.onHeld(p, async (e) => {
        for (let i = 0; i < lines.length; ) {
          const first = lines[i]!;
          let j = i + 1;
          while (j < lines.length && sameBatch(lines[j]!, first)) j++;
          const run = lines.slice(i, j);
          if (first.p !== undefined) await e.prune(run.map((l) => ({ url: l.u, reason: l.p!, depth: l.d })));
          else await e.admit(run.map((l) => l.u), { depth: first.d, ...(first.s === undefined ? {} : { source: first.s }) });
          i = j;
        }
        return true;
      });
      if (ok === undefined) return;
      any = true;
      await this.registry.dropInbox(p.tag, lines.length);
      if (lines.length < INBOX_PAGE) break;
    }
    // off `ready` once drained (a sender puts it back with its next line)
    if (any) await this.registry.drained(p.tag);
  }

  /** Close `p`'s partition and give its lease up (back to `ready` when it still has work). */
  private async giveUp(p: HeldPartition, hasWork: boolean): Promise<void> {
    this.held.delete(p.tag);
    await p.engine.close().catch(() => undefined);
    // the next holder starts no request before this one's pacing allows (--delay-ms, Crawl-delay)
    const pacing = this.pacing;
    const notBefore = Math.max(p.notBefore, ...[...p.hosts].map((h) => pacing?.notBefore(h) ?? 0));
    const wait = notBefore - Date.now();
    if (wait > 0) await this.cluster.set(paceKey(this.o.name, p.tag), String(notBefore), 'PX', Math.ceil(wait) + 1000);
    await this.registry.givingUp(p.tag, hasWork || (await this.registry.inboxLength(p.tag)) > 0);
    await p.lease.release();
  }

  async waitForWork(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted && !this.closed) {
      this.lastRefill = 0;
      await this.refill(true);
      for (const p of this.held.values()) if ((await p.engine.stats()).frontier.size > 0) return true;
      // `leased` before `ready` (registry.ts): a holder adds its host to `ready` before leaving `leased`
      const others = (await this.registry.reap()).filter((t) => !this.held.has(t));
      if (others.length === 0 && this.held.size === 0 && (await this.registry.readyCount()) === 0) return false;
      await sleep(this.o.pollMs, signal);
    }
    return false;
  }

  // ---- whole-store reads ----------------------------------------------------------------------

  /** Counters summed over every partition (read at most once a second, less often for many hosts). */
  private async allCounters(): Promise<Map<string, number>> {
    const now = Date.now();
    if (this.counters !== undefined && now - this.counters.at < this.counters.ttl) return this.counters.value;
    const sum = new Map<string, number>();
    const tags = await this.registry.hosts();
    // one HGETALL a host, sent together (the client pipelines them per master)
    const all = await Promise.all(tags.map((tag) => this.cluster.hgetall(`${this.o.name}{${tag}}c`)));
    for (const h of all) for (const [k, v] of Object.entries(h)) if (!k.startsWith('frontier:') && k !== 'seq') sum.set(k, (sum.get(k) ?? 0) + Number(v));
    // the crawler asks on every pump: a large fleet's sums are read less often (1 ms a host)
    this.counters = { at: now, ttl: Math.max(STATS_TTL_MS, tags.length), value: sum };
    return sum;
  }

  /**
   * The whole fleet's counters; the frontier part is this worker's: the queued URLs of the hosts
   * it holds (what it can take with `next`).
   */
  async stats(options: StatsOptions = {}): Promise<StoreStats> {
    const hosts: Record<string, number> = {};
    let hostCount = 0;
    let size = 0;
    let inFlight = 0;
    let keys = 0;
    let aliasKeys = 0;
    let bytes = 0;
    // the held partitions' fronts: `none` when any was taken over without a snapshot, `snapshot`
    // when every one came from its snapshot, else `database`
    let none = false;
    let snapshots = 0;
    for (const p of this.held.values()) {
      const s = await p.engine.stats(options);
      if (s.front.source === 'none') none = true;
      else if (s.front.source === 'snapshot') snapshots++;
      Object.assign(hosts, s.frontier.hosts);
      hostCount += s.frontier.hostCount;
      size += s.frontier.size;
      inFlight += s.frontier.inFlight;
      keys += s.front.keys;
      aliasKeys += s.front.aliasKeys;
      bytes += s.front.bytes;
    }
    const source = none ? 'none' : snapshots > 0 && snapshots === this.held.size ? 'snapshot' : 'database';
    return statsOf(await this.allCounters(), { size, inFlight, hostCount, hosts }, { source, keys, aliasKeys, bytes });
  }

  /** Each partition in turn, read-only (held ones through their engine). */
  private async *eachPartition<T>(f: (e: StoreEngine) => AsyncIterable<T>): AsyncIterable<T> {
    for (const tag of await this.registry.hosts()) {
      const p = this.live(tag);
      if (p !== undefined) {
        yield* f(p.engine);
        continue;
      }
      const e = await peekPartition(this.cluster, this.o.name, this.location, tag, this.salt, this.options);
      try {
        yield* f(e);
      } finally {
        await e.close();
      }
    }
  }

  canonicalUrls(): AsyncIterable<CanonicalUrlRecord> {
    return this.eachPartition((e) => e.canonicalUrls());
  }

  aliases(): AsyncIterable<AliasRecord> {
    return this.eachPartition((e) => e.aliases());
  }

  /** Every partition's rules, read from their rule hashes (no partition is opened: the crawl's report reads them at its end). */
  async *rules(): AsyncIterable<RuleRecord> {
    for (const tag of await this.registry.hosts()) {
      const records = (await this.cluster.hvals(`${this.o.name}{${tag}}r`)).map((v) => JSON.parse(v) as RuleRecord);
      yield* records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
  }

  async verify(): Promise<VerifyReport> {
    const problems: string[] = [];
    const counted: Record<string, number> = {};
    for (const tag of await this.registry.hosts()) {
      const r = await this.reading(tag, (e) => e.verify());
      problems.push(...r.problems.map((p) => `${tag}: ${p}`));
      for (const [k, n] of Object.entries(r.counted)) counted[k] = (counted[k] ?? 0) + n;
    }
    return { ok: problems.length === 0, problems, counted };
  }

  /** Failed URLs worth another try are queued again in each partition as it is taken. */
  async requeueFailed(options: RequeueFailedOptions): Promise<number> {
    this.requeue = options;
    let n = 0;
    for (const p of this.held.values()) n += (await this.onHeld(p, (e) => e.requeueFailed(options))) ?? 0;
    return n;
  }

  private exclusiveOnly(what: string): Promise<never> {
    return Promise.reject(new StoreError('ERR_STORE_IO', this.location, { detail: `${what} is not supported on a fleet store while workers may run; stop the fleet and use each host's partition` }));
  }

  restore(): Promise<number> {
    return this.exclusiveOnly('restore');
  }

  withdrawRule(): Promise<RuleRecord> {
    return this.exclusiveOnly('withdrawRule');
  }

  blockRule(): Promise<RuleRecord> {
    return this.exclusiveOnly('blockRule');
  }

  rebuildDerived(): Promise<RebuildReport> {
    return this.exclusiveOnly('rebuildDerived');
  }

  holds(host: string): boolean {
    return this.live(partitionTag(host))?.lease.held === true;
  }

  /** A fleet's writes go to Redis, whole or not at all: a failed one stops nothing (`undefined`). */
  writeFailure(): StoreError | undefined {
    return undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      for (const p of [...this.held.values()]) {
        if (p.lost || p.lease.lost !== undefined) {
          await this.lose(p);
          continue;
        }
        const s = await p.engine.stats().catch(() => undefined);
        await this.giveUp(p, s === undefined || s.frontier.size > 0);
      }
    } finally {
      await this.cluster.quit().catch(() => this.cluster.disconnect());
    }
  }
}

function sameBatch(a: InboxEntry, b: InboxEntry): boolean {
  return a.d === b.d && a.s === b.s && a.p === b.p;
}

/** Open (or join) the fleet store `options.fleet.name` on the cluster reached through `seeds`. */
export function openFleetStore(seeds: RedisSeeds, options: OpenFleetStoreOptions = {}): Promise<FleetStore> {
  return FleetStore.open(seeds, options);
}
