/**
 * The per-host queue counts (`counter` space, `frontier:<host>`) written down at a clean close
 * beside the front snapshot (snapshot.ts), so that opening a store of many hosts does not read a
 * counter record per host: at a million hosts that read was most of an open (about 7 s on this
 * machine, of which LevelDB iteration, the strings it makes and their garbage took nearly all).
 *
 * The counters stay the truth, and the snapshot is only read when it cannot differ from them:
 *   - it is written by `close()` after the last batch, its chunks first and its header last, so a
 *     close cut short leaves no header and is never read;
 *   - its keys lie in the front snapshot's range (`front:q…`), which every open for writing deletes
 *     before it writes anything else, as this build and every earlier one that had a front
 *     snapshot does: a store written after its close has none;
 *   - the header holds every store-wide counter as it was at close (the URLs per state, the block
 *     sequence, …: a batch that moves a URL into or out of a host's queue changes one of them),
 *     the number of hosts, the sum of their counts and a checksum of the text; the open compares
 *     them all with what it reads, and on any difference reads the counters themselves;
 *   - the sum of the hosts' counts is the store's count of queued URLs (`state:queued`: every
 *     queued URL is on one host's queue, as `verify` checks), so a copy whose chunks and header
 *     agree with each other but name a host too many or a count too high is not read either.
 * A wrong count could hide a host's queue from `next()`, so nothing here is trusted without those
 * checks; a store opened read-only reads the snapshot but never deletes it.
 *
 * Layout, in the `meta` sublevel: `front:q` = JSON header; `front:q:NNNNNN` = lines
 * `count SP host`, separated by LF, at most about 64 KiB each, hosts in the frontier's order
 * (which the open keeps: its round-robin walk goes on in the order it had). Version 1 (hosts
 * sorted, an FNV-1a check) is not read: the counters are, once.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Kv } from '../backends/kv.js';
import { counterNames } from '../keys.js';
import { parseSnapshotHeader } from './snapshot.js';

const VERSION = 2;
/** The header's key; its chunks are `front:q:NNNNNN` (in the range front snapshots are deleted by). */
export const QUEUE_COUNTS_HEADER = 'front:q';
/** Characters of lines per chunk, at most (a chunk always holds whole lines). */
const CHUNK_CHARS = 1 << 16;
/** Chunks read in one `getMany`. */
const CHUNKS_PER_READ = 16;

interface Header {
  readonly v: number;
  readonly hosts: number;
  readonly total: number;
  readonly chunks: number;
  /** SHA-1 of the chunks' text (UTF-8), in order, as hex. */
  readonly check: string;
  /** Every store-wide counter at close (not the per-host ones). */
  readonly counters: Record<string, number>;
}

function chunkKey(i: number): string {
  return `${QUEUE_COUNTS_HEADER}:${String(i).padStart(6, '0')}`;
}

/** The check of the chunks' text: native, where a loop over a million hosts' characters in JavaScript took a tenth of an open. */
function newCheck(): Hash {
  return createHash('sha1');
}

/**
 * Write the per-host counts down (the store is closing and has nothing more to write), a chunk per
 * batch, then the header with `sync`. `storeWide` is every store-wide counter as written.
 */
export async function writeQueueCounts(kv: Kv, counts: ReadonlyMap<string, number>, storeWide: ReadonlyMap<string, number>, sync: boolean): Promise<void> {
  // (a host with 0 has none: the frontier keeps it until its ring is compacted)
  const hosts: string[] = [];
  for (const [host, n] of counts) if (n > 0) hosts.push(host);
  const h = newCheck();
  let total = 0;
  let chunks = 0;
  let lines: string[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    const text = lines.join('\n');
    h.update(text);
    await kv.write([{ space: 'meta', key: chunkKey(chunks++), value: text }], { sync: false });
    lines = [];
    chars = 0;
  };
  for (const host of hosts) {
    const n = counts.get(host)!;
    const line = `${n} ${host}`;
    if (chars > 0 && chars + line.length + 1 > CHUNK_CHARS) await flush();
    lines.push(line);
    chars += line.length + 1;
    total += n;
  }
  if (lines.length > 0) await flush();
  const header: Header = { v: VERSION, hosts: hosts.length, total, chunks, check: h.digest('hex'), counters: Object.fromEntries(storeWide) };
  await kv.write([{ space: 'meta', key: QUEUE_COUNTS_HEADER, value: JSON.stringify(header) }], { sync });
}

/** The same store-wide counters, a missing one taken for 0. */
function sameCounters(a: Record<string, unknown>, b: ReadonlyMap<string, number>): boolean {
  for (const [name, v] of b) if (v !== 0 && a[name] !== v) return false;
  for (const name of Object.keys(a)) if (a[name] !== (b.get(name) ?? 0)) return false;
  return true;
}

/**
 * The per-host counts written down at the last clean close, when they still speak for the
 * database: `raw` is the header's record (read with the open's other meta records), `storeWide`
 * the store-wide counters the open read. `undefined` when there is none or anything disagrees.
 * A host's name is a slice of its chunk: the chunks held alive are at most the snapshot's size.
 */
export async function readQueueCounts(kv: Kv, raw: string | undefined, storeWide: ReadonlyMap<string, number>): Promise<Map<string, number> | undefined> {
  const header = parseSnapshotHeader<Header>(raw);
  if (
    header === undefined || header.v !== VERSION ||
    !Number.isSafeInteger(header.hosts) || !Number.isSafeInteger(header.total) || !Number.isSafeInteger(header.chunks) ||
    typeof header.counters !== 'object' || header.counters === null || !sameCounters(header.counters, storeWide) ||
    header.total !== (storeWide.get(counterNames.state('queued')) ?? 0)
  ) {
    return undefined;
  }
  const out = new Map<string, number>();
  const h = newCheck();
  let total = 0;
  for (let i = 0; i < header.chunks; i += CHUNKS_PER_READ) {
    const keys: string[] = [];
    for (let j = i; j < Math.min(header.chunks, i + CHUNKS_PER_READ); j++) keys.push(chunkKey(j));
    for (const text of await kv.getMany('meta', keys)) {
      if (text === undefined) return undefined;
      h.update(text);
      if (!parseChunk(text, out)) return undefined;
    }
  }
  // (a host named twice would leave fewer entries than the header counts)
  for (const n of out.values()) total += n;
  if (h.digest('hex') !== header.check || out.size !== header.hosts || total !== header.total) return undefined;
  return out;
}

/** Lines `count SP host` into `out`; false for a line of another shape (an empty one too). */
export function parseChunk(text: string, out: Map<string, number>): boolean {
  const end = text.length;
  if (end === 0 || text.charCodeAt(end - 1) === 0x0a) return false;
  let at = 0;
  while (at < end) {
    let nl = text.indexOf('\n', at);
    if (nl === -1) nl = end;
    // the count: decimal digits, then one space (read in place: no slice a line)
    let n = 0;
    let i = at;
    for (; i < nl; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x20) break;
      if (c < 0x30 || c > 0x39) return false;
      n = n * 10 + (c - 0x30);
    }
    if (i === at || i >= nl - 1 || n <= 0 || !Number.isSafeInteger(n)) return false;
    out.set(text.slice(i + 1, nl), n);
    at = nl + 1;
  }
  return true;
}
