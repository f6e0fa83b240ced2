/**
 * `verify` (fsck; docs/reliability.md oracle O3): walks every sublevel and checks what the batches keep in
 * step. Each queued URL is a line of the frontier block its entry names; the `pruned` index matches
 * the pruned entries and names a reason in force; every alias target is a key that is not itself an
 * alias source (no chains, no cycles) and `aliasrev` mirrors the aliases; the counters equal their
 * recount; admitted = the sum of the states (O4); the Bloom fronts have no false negative (O5); and
 * the backend's files pass their own checksums, every one of them (LevelDB tables and logs).
 */
import { counterNames, decodeJson, decodeUrlEntry, frontierKey, prunedKey, SEP, splitPair, URL_STATES, type AliasEntry } from '../keys.js';
import { parseBlock } from '../frontier.js';
import { hostOf, type RuleRecord } from '../rules.js';
import type { VerifyReport } from '../seen-store.js';
import { StoreError } from '../errors.js';
import { inForce } from './give-back.js';
import type { EngineParts } from './parts.js';
import { recordOfKey } from './url-state.js';

export async function verify(s: Pick<EngineParts, 'counters' | 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>): Promise<VerifyReport> {
  const problems: string[] = [];
  const problem = (p: string): void => {
    if (problems.length < 100) problems.push(p);
  };
  // the files themselves first (LevelDB: every table and log against its checksums,
  // leveldb/folder-check.ts); a record that fails its own checksum ends the walk as a problem
  for (const p of (await s.kv.checkFiles?.()) ?? []) problem(p);
  try {
    return await walk(s, problems, problem);
  } catch (e) {
    if (!(e instanceof StoreError) || e.code !== 'ERR_STORE_CORRUPT') throw e;
    problem(e.message);
    return { ok: false, problems, counted: {} };
  }
}

async function walk(s: Pick<EngineParts, 'counters' | 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, problems: string[], problem: (p: string) => void): Promise<VerifyReport> {
  const counted = new Map<string, number>();
  const bump = (name: string, d = 1): void => {
    counted.set(name, (counted.get(name) ?? 0) + d);
  };
  const queued = new Map<string, string>();
  const pruned = new Map<string, string>();
  for await (const [key, value] of s.kv.entries('url')) {
    const e = decodeUrlEntry(value);
    bump(counterNames.admitted);
    bump(counterNames.state(e.s));
    if (!s.seen.front.has(key)) problem(`front: false negative for ${key}`);
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
        if (!inForce(s, e.by, hostOf(recordOfKey(key)), recordOfKey(key))) problem(`url ${key}: pruned by ${e.by}, which is not in force`);
      }
    }
  }
  // every queued URL is a line of the block its entry names; blocks may hold lines no longer live
  for await (const [fk, value] of s.kv.entries('frontier')) {
    for (const { key } of parseBlock(value)) if (queued.get(fk + SEP + key) !== undefined) queued.delete(fk + SEP + key);
  }
  for (const [, key] of queued) problem(`url ${key}: queued, but not in the frontier block its entry names`);
  for await (const [pk, to] of s.kv.entries('pruned')) {
    if (pruned.get(pk) !== to) problem(`pruned ${JSON.stringify(pk)}: no matching url entry`);
    pruned.delete(pk);
  }
  for (const [pk] of pruned) problem(`pruned index entry missing: ${JSON.stringify(pk)}`);
  const sources = new Map<string, string>();
  for await (const [from, value] of s.kv.entries('alias')) {
    sources.set(from, decodeJson<AliasEntry>(value).to);
    bump(counterNames.aliases);
    if (!s.seen.aliasFront.has(from)) problem(`alias front: false negative for ${from}`);
  }
  for (const [from, to] of sources) {
    if (to === from) problem(`alias ${from} points at itself`);
    if (sources.has(to)) problem(`alias ${from} → ${to} is a chain (target is a source): not compressed`);
  }
  let revs = 0;
  for await (const rk of s.kv.keys('aliasrev')) {
    const [to, from] = splitPair(rk);
    revs++;
    if (sources.get(from) !== to) problem(`aliasrev ${JSON.stringify(rk)} does not match alias ${from}`);
  }
  if (revs !== sources.size) problem(`aliasrev has ${revs} entries for ${sources.size} aliases`);
  for await (const [id, value] of s.kv.entries('rule')) {
    const r = decodeJson<RuleRecord>(value);
    if (r.id !== id) problem(`rule ${id}: id mismatch`);
    bump(counterNames.rules(r.state));
  }
  for await (const k of s.kv.keys('evidence')) {
    if (k.startsWith('l' + SEP)) bump(counterNames.loops);
    else if (k.startsWith('t' + SEP)) bump(counterNames.temporary);
  }
  const names = new Set([...counted.keys(), ...[...s.counters.names()].filter((n) => n !== counterNames.seq), ...[...s.frontier.queuedHosts()].map(counterNames.frontier)]);
  for (const name of names) {
    const want = counted.get(name) ?? 0;
    const have = s.counters.get(name);
    if (want !== have) problem(`counter ${name} = ${have}, recount ${want}`);
  }
  const sumStates = URL_STATES.reduce((s, st) => s + (counted.get(counterNames.state(st)) ?? 0), 0);
  if (sumStates !== (counted.get(counterNames.admitted) ?? 0)) problem('conservation: admitted ≠ the sum of the states');
  return { ok: problems.length === 0, problems, counted: Object.fromEntries(counted) };
}
