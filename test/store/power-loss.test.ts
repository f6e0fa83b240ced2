// crash/simulated-power-loss (docs/reliability.md), after LevelDB's FaultInjectionTestEnv.
//
// The store engine runs on a fault-injecting Kv (test/support/fault-kv.ts) that keeps the image of
// the last `sync: true` write. A seeded random workload of admit / recordRedirect / recordFetch /
// next runs one call at a time; every write is attributed to the call in flight, and after each
// call whose batch reached the "disk" the store's observable state is snapshotted (stats without
// the in-memory in-flight count, canonicalUrls(), aliases(), rules(), canonical() of every URL used).
// At random points the power goes out (`dropUnsynced()`), the store is reopened on what survived,
// and the test checks: (a) verify() is clean; (b) the content equals the last synced snapshot
// ('always': equals the state of the last acknowledged call; hybrid: at most everyBatches calls
// lost; 'never': everything since creation lost); (c) after the last drop of a sequence, an
// admit / next / recordFetch cycle drains the frontier.
// ~5 s in all by default, 60 s with URLDEDUP_LONG=1. Replay with URLDEDUP_SEED=<seed>.
import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/index.js';
import { StoreEngine } from '../../src/store/engine/index.js';
import type { SyncPolicy, StoreOptions } from '../../src/store/seen-store.js';
import { FaultDisk, type WriteEvent } from '../support/fault-kv.js';
import { seededRandom, type SeededRandom } from '../../sites/seeded-random.js';

const LONG = process.env['URLDEDUP_LONG'] === '1';
const SEED = process.env['URLDEDUP_SEED'] !== undefined ? Number(process.env['URLDEDUP_SEED']) : Math.floor(Math.random() * 2 ** 31);
const TOTAL_MS = LONG ? 60_000 : 5_000;

interface Policy {
  readonly name: string;
  readonly sync: SyncPolicy;
}

const POLICIES: readonly Policy[] = [
  { name: 'hybrid', sync: { everyBatches: 4, everyMs: 60_000 } },
  { name: 'always', sync: 'always' },
  { name: 'never', sync: 'never' },
];
const BUDGET_MS = TOTAL_MS / POLICIES.length;

// ---- the workload --------------------------------------------------------------------------------

function randomUrl(r: SeededRandom): string {
  const n = r.int(0, 11);
  switch (r.int(0, 8)) {
    case 0:
      return `http://a.test/p${n}`;
    case 1:
      return `https://a.test/p${n}`;
    case 2:
      return `http://a.test/p${n}/`;
    case 3:
      return `http://a.test/p${n}?sid=${r.int(0, 3)}`;
    case 4:
      return `http://a.test/p${n}/index.html`;
    case 5:
      return `http://www.b.test/q${n}`;
    case 6:
      return `http://b.test/q${n}`;
    case 7:
      return `https://b.test/q${n}?utm_source=${r.int(0, 2)}`;
    default:
      return `http://c.test/r${n}#f${r.int(0, 1)}`;
  }
}

/** A plausible redirect target for `from`: the kinds of change host rules are learned from. */
function redirectTarget(r: SeededRandom, from: string): string {
  const u = new URL(from);
  switch (r.int(0, 4)) {
    case 0:
      u.protocol = 'https:';
      break;
    case 1:
      if (!u.pathname.endsWith('/')) u.pathname += '/';
      break;
    case 2:
      u.hostname = u.hostname.startsWith('www.') ? u.hostname.slice(4) : 'www.' + u.hostname;
      break;
    case 3:
      u.search = '';
      break;
    default:
      return randomUrl(r);
  }
  return u.href;
}

function hashOf(url: string): string {
  // same path, same content: query variants and scheme variants look alike (query-parameter rules)
  const m = /\/([pqr]\d+)/.exec(url);
  return 'h-' + (m?.[1] ?? url);
}

// ---- the observable state ------------------------------------------------------------------------

interface Snapshot {
  readonly urls: readonly string[];
  readonly state: unknown;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function observe(store: StoreEngine, urls: readonly string[]): Promise<unknown> {
  const stats = await store.stats();
  const { inFlight: _inFlight, ...frontier } = stats.frontier; // in memory only: back to queued on reopen
  // the keys added to the Bloom fronts: never fewer than stored (StoreStats), more where entries
  // were forgotten (an unlinked image, keys.ts `UrlEntry.i`); a front built from the keys at
  // reopen holds the stored ones
  expect(stats.front.keys).toBeGreaterThanOrEqual(stats.urls.admitted);
  const { keys: _keys, ...front } = stats.front;
  const canonical: Record<string, unknown> = {};
  for (const u of urls) {
    try {
      canonical[u] = await store.canonical(u);
    } catch (e) {
      if (!(e instanceof UrlError)) throw e;
      canonical[u] = `error ${e.code}`;
    }
  }
  return {
    stats: { ...stats, frontier, front },
    canonicalUrls: await collect(store.canonicalUrls()),
    aliases: await collect(store.aliases()),
    rules: await collect(store.rules()),
    canonical,
  };
}

async function snapshot(store: StoreEngine, used: ReadonlySet<string>): Promise<Snapshot> {
  const urls = [...used].sort();
  return { urls, state: await observe(store, urls) };
}

// ---- one policy --------------------------------------------------------------------------------

interface Tally {
  sequences: number;
  calls: number;
  drops: number;
  /** Drops where the state after the last call differed from the synced one. */
  dropsWithLoss: number;
  /** Calls lost per drop (calls with a non-meta write since the last synced point). */
  lostCalls: number[];
  /** Unsynced non-meta batches lost per drop. */
  lostBatches: number[];
  /** Drops where the last sync fell inside a call (no snapshot of that exact state). */
  unknownSyncPoint: number;
  writes: number;
  syncedWrites: number;
  drained: number;
}

const touchesData = (e: WriteEvent): boolean => e.ops.some((op) => op.space !== 'meta');

async function runPolicy(policy: Policy, seed: number): Promise<Tally> {
  const tally: Tally = {
    sequences: 0, calls: 0, drops: 0, dropsWithLoss: 0, lostCalls: [], lostBatches: [], unknownSyncPoint: 0, writes: 0, syncedWrites: 0, drained: 0,
  };
  const r = seededRandom(seed);
  const options: StoreOptions = { sync: policy.sync, ruleThreshold: 2 };
  const supports = { durable: true, atomicBatch: true };
  const started = Date.now();
  const everyBatches = typeof policy.sync === 'object' ? policy.sync.everyBatches : 0;

  while (tally.sequences === 0 || Date.now() - started < BUDGET_MS) {
    tally.sequences++;
    const sequence = tally.sequences;
    const disk = new FaultDisk();
    const used = new Set<string>();
    let inFlight: string[] = [];

    // write attribution: the events of the call in flight
    let events: WriteEvent[] | undefined;
    let backgroundSync = false;
    disk.onWrite = (e) => {
      if (events !== undefined) events.push(e);
      else if (e.sync) backgroundSync = true;
    };

    let lastSynced: Snapshot | undefined;
    let lostCalls = 0;
    let lostBatches = 0;
    let label = '';
    /** The writes since the last synced point, for failure messages. */
    let log: string[] = [];

    /** Run one call (or open) with its writes attributed; update the synced snapshot. */
    const tracked = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      if (backgroundSync) {
        // a timer-driven sync marker between calls: the state is the one after the previous call
        backgroundSync = false;
        lastSynced = await snapshot(store, used);
        lostCalls = 0;
        lostBatches = 0;
      }
      label = what;
      const mine: WriteEvent[] = [];
      events = mine;
      let value: T;
      try {
        value = await fn();
      } finally {
        events = undefined;
      }
      if (value instanceof StoreEngine) store = value; // open / reopen: observe the new engine
      const lastSync = mine.map((e) => e.sync).lastIndexOf(true);
      const after = mine.slice(lastSync + 1).filter(touchesData);
      for (const e of mine) log.push(`${what}${e.sync ? ' [sync]' : ''} ${[...new Set(e.ops.map((o) => o.space))].join(',')}`);
      if (lastSync >= 0 && after.length === 0) {
        log = [];
        lastSynced = await snapshot(store, used);
        lostCalls = 0;
        lostBatches = 0;
      } else if (lastSync >= 0) {
        lastSynced = undefined; // synced mid-call: that exact state was never observable
        lostCalls = 1;
        lostBatches = after.length;
      } else if (after.length > 0) {
        lostCalls++;
        lostBatches += after.length;
      }
      return value;
    };

    let store!: StoreEngine;
    await tracked('open', () => StoreEngine.open(disk.reopen(), supports, options));
    // an empty disk opens as an empty store: the state "as of the last sync" before any sync
    lastSynced ??= await snapshot(store, used);

    const powerLoss = async (): Promise<void> => {
      const before = await snapshot(store, used);
      const context = `seed ${seed} sequence ${sequence} drop ${tally.drops + 1} (last call: ${label})`;
      tally.drops++;
      tally.lostCalls.push(lostCalls);
      tally.lostBatches.push(lostBatches);
      disk.dropUnsynced();
      const lost = { calls: lostCalls, batches: lostBatches, log: log.join('\n') };
      lostCalls = 0; // what was not synced is gone: count afresh from the reopen
      lostBatches = 0;
      log = [];
      await store.close().catch(() => undefined); // its Kv is dead: the close's marker write fails
      const expected = lastSynced;
      await tracked('reopen', () => StoreEngine.open(disk.reopen(), supports, options));
      // (a) a clean fsck: no orphan frontier or alias entries, counters equal a recount
      const report = await store.verify();
      expect(report.problems, context).toEqual([]);
      expect(report.ok, context).toBe(true);
      // (b) the content is the one recorded at the last synced write
      if (expected === undefined) tally.unknownSyncPoint++;
      else {
        const now = await observe(store, expected.urls);
        expect(now, context).toEqual(expected.state);
      }
      const afterAll = await observe(store, before.urls);
      if (JSON.stringify(afterAll) !== JSON.stringify(before.state)) tally.dropsWithLoss++;
      if (policy.sync === 'always') {
        // nothing acknowledged is lost
        expect(lost.calls, context).toBe(0);
        expect(afterAll, context).toEqual(before.state);
      } else if (typeof policy.sync === 'object') {
        expect(lost.calls, context).toBeLessThanOrEqual(everyBatches);
        expect(lost.batches, `${context}; writes since the last sync:\n${lost.log}`).toBeLessThan(everyBatches);
      }
      inFlight = [];
      lastSynced ??= await snapshot(store, used);
    };

    const calls = r.int(60, 200);
    for (let i = 0; i < calls; i++) {
      tally.calls++;
      const op = r.int(0, 9);
      try {
        if (op <= 3) {
          const urls = Array.from({ length: r.int(1, 4) }, () => randomUrl(r));
          for (const u of urls) used.add(u);
          await tracked('admit', () => store.admit(urls, { depth: r.int(0, 2) }));
        } else if (op <= 5) {
          const from = r.next() < 0.6 && inFlight.length > 0 ? r.pick(inFlight) : randomUrl(r);
          const to = redirectTarget(r, from);
          used.add(from).add(to);
          const status = r.pick([301, 301, 308, 302, 307]);
          await tracked('recordRedirect', () => store.recordRedirect(from, to, status));
        } else if (op <= 7) {
          const url = r.next() < 0.8 && inFlight.length > 0 ? r.pick(inFlight) : randomUrl(r);
          inFlight = inFlight.filter((u) => u !== url);
          used.add(url);
          const status = r.pick([200, 200, 200, 404, 500, 0]);
          await tracked('recordFetch', () => store.recordFetch(url, status === 0 ? { status, error: 'ETIMEDOUT' } : { status, contentHash: hashOf(url) }));
        } else {
          const got = await tracked('next', () => store.next({ limit: r.int(1, 5), perHost: r.int(1, 3) }));
          for (const e of got) inFlight.push(e.url);
        }
      } catch (e) {
        if (!(e instanceof UrlError)) throw e; // a refused URL is fine; anything else is a failure
      }
      if (r.next() < 1 / 20) await powerLoss();
    }
    await powerLoss();

    // (c) the workload continues: admit, then next/recordFetch until the frontier is empty
    const context = `seed ${seed} sequence ${sequence} drain`;
    const fresh = [`http://d.test/drain${sequence}-1`, `http://d.test/drain${sequence}-2`];
    const admitted = await store.admit(fresh);
    expect(admitted.length, context).toBe(2);
    let rounds = 0;
    for (;;) {
      const batch = await store.next({ limit: 100, perHost: 100 });
      if (batch.length === 0) break;
      for (const e of batch) await store.recordFetch(e.url, { status: 200 });
      expect(++rounds, context).toBeLessThan(1_000);
    }
    const stats = await store.stats();
    expect(stats.frontier.size, context).toBe(0);
    expect(stats.frontier.inFlight, context).toBe(0);
    expect(stats.urls.queued, context).toBe(0);
    for (const u of fresh) expect((await store.canonical(u)).state, context).toBe('fetched');
    const report = await store.verify();
    expect(report.problems, context).toEqual([]);
    tally.drained++;
    tally.writes += disk.writes;
    tally.syncedWrites += disk.syncedWrites;
    await store.close();
  }
  return tally;
}

function summarize(xs: readonly number[]): string {
  const hist = new Map<number, number>();
  for (const x of xs) hist.set(x, (hist.get(x) ?? 0) + 1);
  return [...hist].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}:${n}`).join(' ');
}

describe('crash/simulated-power-loss', () => {
  console.log(`power-loss: URLDEDUP_SEED=${SEED}${LONG ? ' (long)' : ''}`);
  POLICIES.forEach((policy, index) => {
    it(
      `sync ${JSON.stringify(policy.sync)}: after dropUnsynced the store is clean, at its last synced state, and resumes`,
      async () => {
        const t = await runPolicy(policy, SEED + index);
        console.log(
          `power-loss ${policy.name}: ${t.sequences} sequences, ${t.calls} calls, ${t.drops} drops ` +
            `(${t.dropsWithLoss} lost state, ${t.unknownSyncPoint} mid-call sync points), ` +
            `writes ${t.writes} (${t.syncedWrites} synced), calls lost per drop {${summarize(t.lostCalls)}} max ${Math.max(...t.lostCalls)}, ` +
            `batches lost per drop {${summarize(t.lostBatches)}}, drained ${t.drained}`,
        );
        expect(t.drops).toBeGreaterThan(0);
        if (policy.sync === 'never') expect(t.dropsWithLoss).toBeGreaterThan(0);
      },
      BUDGET_MS + 60_000,
    );
  });
});
