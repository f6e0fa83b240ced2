/**
 * Open and close: the folder's format and identity options are checked before anything is read,
 * the in-memory parts (parts.ts) are loaded from the database, and the Bloom fronts are rebuilt
 * from the keys unless the snapshot written at the last clean close still speaks for the database
 * (front/snapshot.ts); a large fleet partition without one opens with fronts that know nothing.
 * The per-host queue counts are taken the same way from the close's snapshot (front/queue-counts.ts).
 */
import { collect } from '../backends/kv.js';
import { isPresetName, KEY_FORMAT_VERSION, type PresetName } from '../../normalize/index.js';
import { ScalableBloom } from '../front/bloom.js';
import { StoreError } from '../errors.js';
import { deleteFrontSnapshot, FRONT_HEADER, readFrontSnapshot, writeFrontSnapshot } from '../front/snapshot.js';
import { QUEUE_COUNTS_HEADER, readQueueCounts, writeQueueCounts } from '../front/queue-counts.js';
import { counterNames, decodeJson, encodeJson, evidenceKeys, prefixRange, SEP, SEP_END, splitPair, STORE_FORMAT_VERSION, STORE_FORMATS_READ } from '../keys.js';
import type { RuleRecord } from '../rules.js';
import { newSalt } from '../userinfo.js';
import { inForce, pruneQueued, restoreReason } from './give-back.js';
import { identityOptions } from './options.js';
import type { EngineParts } from './parts.js';
import type { WriteQueue } from './write-queue.js';

function incompatible(s: Pick<EngineParts, 'location'>, detail: string): StoreError {
  return new StoreError('ERR_STORE_INCOMPATIBLE', s.location, { detail: `incompatible store: ${detail}` });
}

/**
 * Open: check the format, the key format and the identity options; load counters and rules;
 * rebuild the fronts (or take the snapshot of the last clean close); then, unless read-only, give
 * back what is pruned by a reason no longer in force.
 */
export async function load(s: EngineParts, q: WriteQueue): Promise<void> {
  // the meta records an open checks, and the front snapshot's header, in one read (on Redis one
  // round trip: a fleet partition is opened each time its host is taken)
  const [format, storedIdentity, storedSalt, storedPresets, frontHeader, queueCountsHeader] = await s.kv.getMany('meta', ['format', 'identity', 'salt', 'presets', FRONT_HEADER, QUEUE_COUNTS_HEADER]);
  /** Presets a `changePresets` open adds: queued URLs they map elsewhere are pruned. */
  let added: PresetName[] = [];
  const identity = identityOptions(s.o.normalize);
  // the layout the folder was written in (a new store is written in the current one)
  let layout = STORE_FORMAT_VERSION;
  if (format === undefined) {
    for await (const _ of s.kv.keys('url', { limit: 1 })) {
      throw new StoreError('ERR_STORE_CORRUPT', s.location, { detail: 'URL entries without a meta/format record' });
    }
    if ((await s.kv.isEmpty?.()) === false) {
      throw new StoreError('ERR_STORE_INCOMPATIBLE', s.location, { detail: 'not a urldedup store: the database holds other data and no urldedup meta record' });
    }
    s.salt = s.o.partition?.salt ?? newSalt();
    const now = new Date().toISOString();
    // read-only on an empty database: an empty store that writes nothing (not even its meta)
    if (!s.o.readOnly) await s.kv.write(
      [
        { space: 'meta', key: 'format', value: encodeJson({ store: STORE_FORMAT_VERSION, key: KEY_FORMAT_VERSION }) },
        { space: 'meta', key: 'identity', value: encodeJson(identity) },
        { space: 'meta', key: 'presets', value: encodeJson(s.o.presets) },
        { space: 'meta', key: 'salt', value: s.salt },
        { space: 'meta', key: 'created', value: now },
        { space: 'meta', key: 'synced', value: now },
      ],
      { sync: s.o.sync !== 'never' },
    );
  } else {
    const f = decodeJson<{ store: number; key: number }>(format);
    layout = f.store;
    if (!STORE_FORMATS_READ.includes(f.store)) {
      throw incompatible(s, `layout version ${f.store}, this build reads ${STORE_FORMATS_READ.join(' and ')}`);
    }
    if (f.key !== KEY_FORMAT_VERSION) {
      throw incompatible(s, `key format version ${f.key}, this build writes ${KEY_FORMAT_VERSION}; rebuild the store from its URLs`);
    }
    const stored = decodeJson<{ level: string; keepFragment: boolean }>(storedIdentity ?? '{}');
    if (stored.level !== identity.level || stored.keepFragment !== identity.keepFragment) {
      throw incompatible(s, 
        `keys were made with normalize ${encodeJson(stored)}, not ${encodeJson(identity)}; open it with the same normalize options`,
      );
    }
    const salt = storedSalt;
    if (salt === undefined || !/^[0-9a-f]{64}$/.test(salt)) throw new StoreError('ERR_STORE_CORRUPT', s.location, { detail: 'meta/salt missing' });
    s.salt = salt;
    // the store's presets are its own: an open that names none uses them (read-only opens always
    // do); naming others needs `changePresets`, which prunes and gives back to match
    const raw = storedPresets;
    const recorded: unknown = raw === undefined ? [] : decodeJson<unknown>(raw);
    if (!Array.isArray(recorded) || !recorded.every((p): p is PresetName => typeof p === 'string' && isPresetName(p))) {
      throw incompatible(s, `meta/presets ${raw ?? ''} names a preset this build does not know`);
    }
    if (s.o.readOnly || !s.o.presetsGiven) s.o = { ...s.o, presets: recorded };
    else if (!samePresets(s.o.presets, recorded)) {
      if (!s.o.changePresets) {
        throw incompatible(
          s,
          `the store's presets are [${recorded.join(', ')}], not [${s.o.presets.join(', ')}]: open it naming none (its own are used) or the same, or change them on purpose (changePresets, --change-presets: what they prune is pruned or given back to match)`,
        );
      }
      added = s.o.presets.filter((p) => !recorded.includes(p));
    }
  }

  // counters, rules and the presets hosts suspended: read at once; the per-host queue counts from
  // the snapshot of the last clean close when it still speaks for the counters (queue-counts.ts)
  const [counters, rules] = await Promise.all([readCounters(s, queueCountsHeader), collect(s.kv.entries('rule')), loadSuspendedPresets(s)]);
  s.loadCounters(counters.counts, counters.hosts);
  for (const [, value] of rules) s.rules.remember(decodeJson<RuleRecord>(value));

  // the fronts: as written down at the last clean close when nothing was written since
  // (front-snapshot.ts), else sized from the stored counts and filled from the keys themselves
  const counts = { admitted: s.counters.get(counterNames.admitted), aliases: s.counters.get(counterNames.aliases) };
  const snapshot = await readFrontSnapshot(s.kv, frontHeader, counts, s.o.bloomBitsPerKey);
  if (snapshot !== undefined) {
    s.seen.front = snapshot.url;
    s.seen.aliasFront = snapshot.alias;
    s.seen.source = 'snapshot';
  } else if (s.o.partition !== undefined && counts.admitted + counts.aliases > s.o.frontSnapshotMinKeys) {
    // a fleet partition of a host past the size a clean close writes its fronts down at, taken
    // over from a worker that did not close it: reading every URL the host ever saw would make a
    // takeover cost its history; its fronts know nothing instead, and each lookup is settled by
    // Redis (the keys of one admit are read in one round trip). A smaller host's keys are read,
    // as many as a snapshot would save at most, and its lookups answered in memory.
    s.seen.front = ScalableBloom.unknown();
    s.seen.aliasFront = ScalableBloom.unknown();
    s.seen.source = 'none';
  } else {
    await buildFronts(s);
  }

  if (s.o.readOnly) return;
  // from here on the database changes: a snapshot would no longer speak for it
  await deleteFrontSnapshot(s.kv);
  // an older layout is marked current before anything is written in the current one
  if (layout !== STORE_FORMAT_VERSION) {
    await s.kv.write([{ space: 'meta', key: 'format', value: encodeJson({ store: STORE_FORMAT_VERSION, key: KEY_FORMAT_VERSION }) }], { sync: false });
  }
  await reconcilePruned(s, q);
  if (added.length > 0) await pruneQueued(s, q, (via) => added.some((p) => via === `preset:${p}`));
  await s.kv.write([{ space: 'meta', key: 'presets', value: encodeJson(s.o.presets) }], { sync: false });
}

function samePresets(a: readonly PresetName[], b: readonly PresetName[]): boolean {
  return a.length === b.length && a.every((p) => b.includes(p));
}

/** The per-host queue counts' range of the `counter` space (`frontier:<host>`). */
const PER_HOST = { gte: counterNames.frontier(''), lt: counterNames.frontier('').slice(0, -1) + ';' } as const;

/**
 * Every counter: the store-wide ones, and the per-host ones either from the queue-count snapshot
 * (`hosts`, when its header is there and agrees) or read one record per host (in `counts`).
 */
async function readCounters(s: Pick<EngineParts, 'kv'>, header: string | undefined): Promise<{ counts: [string, number][]; hosts?: Map<string, number> }> {
  const num = (e: [string, string]): [string, number] => [e[0], Number(e[1])];
  if (header === undefined) return { counts: (await collect(s.kv.entries('counter'))).map(num) };
  const [before, after] = await Promise.all([collect(s.kv.entries('counter', { lt: PER_HOST.gte })), collect(s.kv.entries('counter', { gte: PER_HOST.lt }))]);
  const storeWide = [...before, ...after].map(num);
  const hosts = await readQueueCounts(s.kv, header, new Map(storeWide));
  if (hosts !== undefined) return { counts: storeWide, hosts };
  return { counts: [...storeWide, ...(await collect(s.kv.entries('counter', PER_HOST))).map(num)] };
}

/** The presets each host's redirects contradicted (evidence.ts). */
export async function loadSuspendedPresets(s: Pick<EngineParts, 'kv' | 'rules'>): Promise<void> {
  s.rules.suspendedPresets.clear();
  const prefix = evidenceKeys.presetSuspendedPrefix();
  for await (const k of s.kv.keys('evidence', prefixRange(prefix))) {
    // host SEP preset SEP directory (none before directories were kept: the whole host)
    const [host, name, dir] = k.slice(prefix.length).split(SEP) as [string, string, string | undefined];
    s.rules.suspendedPresets.add(host, name, dir ?? '/');
  }
}

/** The Bloom fronts from the `url` and `alias` keys, sized from the stored counts. */
export async function buildFronts(s: Pick<EngineParts, 'counters' | 'kv' | 'o' | 'seen'>): Promise<void> {
  s.seen.front = new ScalableBloom(s.counters.get(counterNames.admitted), s.o.bloomBitsPerKey);
  for await (const k of s.kv.keys('url')) s.seen.front.add(k);
  s.seen.aliasFront = new ScalableBloom(s.counters.get(counterNames.aliases), s.o.bloomBitsPerKey);
  for await (const k of s.kv.keys('alias')) s.seen.aliasFront.add(k);
  s.seen.source = 'database';
}

/**
 * Give back URLs pruned by something no longer in force: a preset the store was opened without,
 * a rule withdrawn (also finishes a give-back that a crash interrupted). One seek per reason.
 */
async function reconcilePruned(s: EngineParts, q: WriteQueue): Promise<void> {
  let from: string | undefined;
  for (;;) {
    let first: string | undefined;
    for await (const k of s.kv.keys('pruned', from === undefined ? { limit: 1 } : { gte: from, limit: 1 })) first = k;
    if (first === undefined) break;
    const [reason] = splitPair(first);
    if (!inForce(s, reason)) await restoreReason(s, q, reason, reason);
    from = reason + SEP_END;
  }
}

/** Hosts with queued URLs from which a clean close writes their counts down (fewer are read at open in a moment). */
export const QUEUE_COUNTS_MIN_HOSTS = 1024;

/**
 * At a clean close: the per-host queue counts and the fronts, for a quick next open; a failure
 * here costs only that (the next open reads the counters and rebuilds the fronts).
 */
export async function writeFrontsAtClose(s: Pick<EngineParts, 'counters' | 'frontier' | 'kv' | 'o' | 'seen'>): Promise<void> {
  if (s.kv.durable && !s.o.readOnly && s.frontier.hostCount >= QUEUE_COUNTS_MIN_HOSTS) {
    await writeQueueCounts(s.kv, s.frontier.queuedCounts, s.counters.asWritten, s.o.sync !== 'never').catch(() => undefined);
  }
  // (fronts that know nothing of what was stored before them are never written down: a snapshot
  // speaks for every key of the database)
  if (s.kv.durable && !s.o.readOnly && s.seen.front.complete && s.seen.aliasFront.complete && s.seen.front.count + s.seen.aliasFront.count >= s.o.frontSnapshotMinKeys) {
    const counts = { admitted: s.counters.asWritten.get(counterNames.admitted) ?? 0, aliases: s.counters.asWritten.get(counterNames.aliases) ?? 0 };
    await writeFrontSnapshot(s.kv, { url: s.seen.front, alias: s.seen.aliasFront }, counts, s.o.sync !== 'never').catch(() => undefined);
  }
}

