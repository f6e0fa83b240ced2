/**
 * `rebuildDerived` (after `urldedup repair`): what LevelDB's repairer cannot know is rebuilt from
 * the `url` entries, which are the truth: the counters (their recount), the frontier blocks (live
 * lines kept in order, missing ones added, a position for queued URLs without one), the `pruned`
 * index, the learner's rewrite index and the `aliasrev` mirror. Written in batches of
 * `restoreBatchSize`; the in-memory state then follows (counters, a frontier loaded afresh, fronts
 * built from the keys, an empty cache).
 */
import { BLOCK_LINES, blockLine, parseBlock, wholeLines } from '../frontier.js';
import { aliasRevKey, counterNames, decodeJson, decodeUrlEntry, encodeUrlEntry, evidenceKeys, frontierKey, parseFrontierKey, prunedKey, SEP, splitPair, type AliasEntry, type Space, type UrlEntry } from '../keys.js';
import type { KvOp } from '../backends/kv.js';
import { hostOf, type RuleRecord } from '../rules.js';
import type { RebuildReport } from '../seen-store.js';
import { buildFronts } from './open.js';
import type { EngineParts } from './parts.js';
import { makeEntry, recordOfKey } from './url-state.js';

export async function rebuildDerived(s: EngineParts): Promise<RebuildReport> {
  let ops: KvOp[] = [];
  const flush = async (sync: boolean): Promise<void> => {
    if (ops.length === 0) return;
    const batch = ops;
    ops = [];
    await s.kv.write(batch, { sync });
  };
  const put = async (space: Space, key: string, value: string | undefined): Promise<void> => {
    ops.push({ space, key, value });
    if (ops.length >= s.o.restoreBatchSize) await flush(false);
  };
  const counted = new Map<string, number>();
  const bump = (name: string, d = 1): void => {
    counted.set(name, (counted.get(name) ?? 0) + d);
  };
  // 1. the url sublevel: counts, the lines each frontier block should hold, the pruned index
  const want = new Map<string, Map<string, string>>(); // block → key → line
  const unplaced: [string, UrlEntry][] = [];
  const prunedWant = new Map<string, string>();
  /** The learner's rewrite index (learner.ts): URLs a rule pruned, under their rewrite. */
  const rewriteWant = new Map<string, string>();
  let maxSeq = -1;
  for await (const [key, value] of s.kv.entries('url')) {
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
      if (e.by.startsWith('rule:')) rewriteWant.set(evidenceKeys.rewrite(e.to, key), e.by);
      bump(counterNames.pruned(e.by));
    }
  }
  // 2. frontier blocks: keep the live lines in their order, add the missing ones, drop the rest
  let blocks = 0;
  for await (const [block, value] of s.kv.entries('frontier')) {
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
  let seq = Math.max(s.counters.get(counterNames.seq), maxSeq + 1);
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
  for await (const [pk, to] of s.kv.entries('pruned')) {
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
  // the rewrite index: an entry for every URL a rule pruned, none other
  for await (const [k, reason] of s.kv.entries('evidence', { gte: 'w' + SEP, lt: 'w' + '\u0001' })) {
    if (rewriteWant.get(k) === reason) rewriteWant.delete(k);
    else {
      await put('evidence', k, undefined);
      indexEntries++;
    }
  }
  for (const [k, reason] of rewriteWant) {
    await put('evidence', k, reason);
    indexEntries++;
  }
  // 4. aliases: the count and the aliasrev mirror
  const sources = new Map<string, string>();
  for await (const [from, value] of s.kv.entries('alias')) {
    sources.set(from, decodeJson<AliasEntry>(value).to);
    bump(counterNames.aliases);
  }
  const mirrored = new Set<string>();
  for await (const rk of s.kv.keys('aliasrev')) {
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
  for await (const [, value] of s.kv.entries('rule')) bump(counterNames.rules(decodeJson<RuleRecord>(value).state));
  for await (const k of s.kv.keys('evidence')) {
    if (k.startsWith('l' + SEP)) bump(counterNames.loops);
    else if (k.startsWith('t' + SEP)) bump(counterNames.temporary);
  }
  // 6. the counters: the recount, and a sequence number past every block
  let counterWrites = 0;
  const names = new Set([...counted.keys(), ...s.counters.names(), ...[...s.frontier.queuedHosts()].map(counterNames.frontier)]);
  names.delete(counterNames.seq);
  for (const name of names) {
    const n = counted.get(name) ?? 0;
    if (n === s.counters.get(name)) continue;
    await put('counter', name, n === 0 ? undefined : String(n));
    counterWrites++;
  }
  if (seq !== s.counters.get(counterNames.seq)) {
    await put('counter', counterNames.seq, String(seq));
    counterWrites++;
  }
  await flush(s.o.sync !== 'never');
  // the in-memory state follows: counters, and a frontier loaded afresh (in-flight entries forgotten)
  const counters = new Map([...counted].filter(([, n]) => n !== 0));
  if (seq !== 0) counters.set(counterNames.seq, seq);
  s.loadCounters(counters);
  // entries were rewritten outside the batch path: the cache starts afresh, and the fronts are
  // built from the keys a repair left (it may have dropped some, or brought back older ones)
  await buildFronts(s);
  s.seen.forget();
  s.rules.forget();
  return { counters: counterWrites, blocks, placed: unplaced.length, indexEntries };
}
