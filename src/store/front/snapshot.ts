/**
 * The Bloom fronts written down at a clean close and read back at the next open, so that opening a
 * large store does not read every `url` and `alias` key to build them again (18 s and every table
 * file paged in, at 10 million URLs). The database stays the truth: a snapshot is only ever a
 * faithful copy of fronts that were built from it, and it is used only when nothing can have been
 * written since it was taken:
 *
 *   - it is written by `close()` after the last batch, the bit arrays first (in chunks) and the
 *     header that describes them last, so a close cut short leaves no header and is never read;
 *   - an open for writing deletes it before it writes anything else, so a store that was written to
 *     after that open (and perhaps killed) has none, and is rebuilt from its keys as before;
 *   - the header holds the `admitted` and `aliases` counters at close (kept in the same batches as
 *     the keys they count; `url` and `alias` keys are never deleted, so any key added since, by an
 *     older build that knows nothing of snapshots for one, changes a counter) and a checksum of the
 *     bits; a mismatch of either, a layer of the wrong shape or a byte order other than this
 *     machine's means a rebuild, never a wrong front;
 *   - `repair` rebuilds the fronts from the keys (engine/rebuild.ts, `rebuildDerived`).
 * A front may only ever hold more keys than the database (a Bloom "maybe" is confirmed by a read),
 * never fewer: what a snapshot holds is exactly what the closed store's fronts held.
 *
 * Layout, in the `meta` sublevel: `front` = JSON header; `front:NNNNNN` = base64 of the next 64 KiB of
 * the layers' bit arrays (the `url` front's layers, then the `alias` front's), in this machine's
 * byte order (recorded in the header).
 */
import { endianness } from 'node:os';
import type { BloomLayerSnapshot } from './bloom.js';
import { ScalableBloom } from './bloom.js';
import type { Kv, KvOp } from '../backends/kv.js';

/** The header's layout version. */
const SNAPSHOT_VERSION = 1;
/** The meta key of a snapshot's header (its chunks are `front:NNNNNN`). */
export const FRONT_HEADER = 'front';
/**
 * Bytes of bit array per chunk value: small enough that a chunk's base64 text and its UTF-8 copy
 * are ordinary young-generation garbage (under V8's large-object size), not large objects that
 * pile up until a full collection (1 MiB chunks raised the peak RSS of a 10M store's close by 40 MiB).
 */
const CHUNK_BYTES = 1 << 16;
/** Every snapshot key: `front` and `front:…` (";" sorts right after ":"). */
const RANGE = { gte: FRONT_HEADER, lt: FRONT_HEADER + ';' } as const;

interface LayerHeader {
  readonly capacity: number;
  readonly hashes: number;
  readonly count: number;
  /** 32-bit words in the bit array. */
  readonly words: number;
}

interface Header {
  readonly v: number;
  readonly endianness: string;
  readonly admitted: number;
  readonly aliases: number;
  readonly chunks: number;
  /** FNV-1a over the words of every layer, in order, as 8 hex digits. */
  readonly check: string;
  readonly url: readonly LayerHeader[];
  readonly alias: readonly LayerHeader[];
}

/** The counters a snapshot must agree with. */
export interface FrontCounts {
  readonly admitted: number;
  readonly aliases: number;
}

export interface Fronts {
  readonly url: ScalableBloom;
  readonly alias: ScalableBloom;
}

function chunkKey(i: number): string {
  return `${FRONT_HEADER}:${String(i).padStart(6, '0')}`;
}

/** FNV-1a, word by word, over the layers' bit arrays. */
function checksum(layers: readonly BloomLayerSnapshot[]): string {
  let h = 0x811c9dc5;
  for (const layer of layers) {
    const w = layer.words;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w[i]!, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A layer of a plausible shape: a power of two of words, from one 512-bit block to the 2³¹ bits `BloomFilter` makes at most, 1–16 hashes. */
function wellFormed(l: LayerHeader): boolean {
  return (
    Number.isSafeInteger(l.capacity) && l.capacity >= 1 &&
    Number.isInteger(l.hashes) && l.hashes >= 1 && l.hashes <= 16 &&
    Number.isSafeInteger(l.count) && l.count >= 0 &&
    Number.isInteger(l.words) && l.words >= 16 && l.words <= 2 ** 26 && (l.words & (l.words - 1)) === 0
  );
}

/** The `i`-th chunk of the layers' bytes, laid end to end (a chunk may span layers). */
function chunkOf(layers: readonly BloomLayerSnapshot[], i: number, total: number): Buffer {
  const from = i * CHUNK_BYTES;
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, total - from));
  let layerStart = 0;
  for (const l of layers) {
    const bytes = new Uint8Array(l.words.buffer, l.words.byteOffset, l.words.byteLength);
    const layerEnd = layerStart + bytes.length;
    const start = Math.max(from, layerStart);
    const end = Math.min(from + chunk.length, layerEnd);
    if (start < end) chunk.set(bytes.subarray(start - layerStart, end - layerStart), start - from);
    layerStart = layerEnd;
  }
  return chunk;
}

/**
 * Write the fronts down (the store is closing and has nothing more to write): one chunk per batch,
 * so only one chunk is ever held in memory beside the fronts, then the header in a last batch,
 * with `sync`.
 */
export async function writeFrontSnapshot(kv: Kv, fronts: Fronts, counts: FrontCounts, sync: boolean): Promise<void> {
  const url = fronts.url.snapshot();
  const alias = fronts.alias.snapshot();
  const layers = [...url, ...alias];
  let total = 0;
  for (const l of layers) total += l.words.byteLength;
  const chunks = Math.ceil(total / CHUNK_BYTES);
  for (let i = 0; i < chunks; i++) {
    await kv.write([{ space: 'meta', key: chunkKey(i), value: chunkOf(layers, i, total).toString('base64') }], { sync: false });
  }
  const shape = (l: BloomLayerSnapshot): LayerHeader => ({ capacity: l.capacity, hashes: l.hashes, count: l.count, words: l.words.length });
  const header: Header = {
    v: SNAPSHOT_VERSION,
    endianness: endianness(),
    admitted: counts.admitted,
    aliases: counts.aliases,
    chunks,
    check: checksum(layers),
    url: url.map(shape),
    alias: alias.map(shape),
  };
  await kv.write([{ space: 'meta', key: FRONT_HEADER, value: JSON.stringify(header) }], { sync });
}

/**
 * A snapshot header's record as an object, or `undefined` when there is none or it is not JSON of
 * an object (its fields are the caller's to check: the record may be damaged).
 */
export function parseSnapshotHeader<T extends object>(raw: string | undefined): T | undefined {
  if (raw === undefined) return undefined;
  try {
    const header: unknown = JSON.parse(raw);
    return typeof header === 'object' && header !== null ? (header as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fronts written down at the last clean close, when they still speak for the database: same
 * counters, same checksum, same byte order. `undefined` when there is none or it does not fit.
 * Read a chunk at a time, straight into the layers' bit arrays. `raw` is the header's record
 * (`meta` `FRONT_HEADER`), which the open reads with the other meta records.
 */
export async function readFrontSnapshot(kv: Kv, raw: string | undefined, counts: FrontCounts, bitsPerKey: number): Promise<Fronts | undefined> {
  const header = parseSnapshotHeader<Header>(raw);
  if (
    header === undefined ||
    header.v !== SNAPSHOT_VERSION || header.endianness !== endianness() ||
    header.admitted !== counts.admitted || header.aliases !== counts.aliases ||
    !Array.isArray(header.url) || !Array.isArray(header.alias) || header.url.length === 0 || header.alias.length === 0
  ) {
    return undefined;
  }
  const shapes = [...header.url, ...header.alias];
  if (!shapes.every(wellFormed)) return undefined;
  // the chunks must hold exactly the layers described, before any bit array is allocated
  let total = 0;
  for (const l of shapes) total += l.words * 4;
  if (header.chunks !== Math.ceil(total / CHUNK_BYTES)) return undefined;
  const layer = (l: LayerHeader): BloomLayerSnapshot => ({ capacity: l.capacity, hashes: l.hashes, count: l.count, words: new Uint32Array(l.words) });
  const url = header.url.map(layer);
  const alias = header.alias.map(layer);
  const layers = [...url, ...alias];
  let li = 0; // the layer being filled, and the next byte of it
  let at = 0;
  for (let i = 0; i < header.chunks; i++) {
    const value = await kv.get('meta', chunkKey(i));
    if (value === undefined) return undefined;
    const chunk = Buffer.from(value, 'base64');
    if (chunk.length !== Math.min(CHUNK_BYTES, total - i * CHUNK_BYTES)) return undefined;
    for (let c = 0; c < chunk.length; ) {
      const l = layers[li]!.words;
      const bytes = new Uint8Array(l.buffer, l.byteOffset, l.byteLength);
      const n = Math.min(bytes.length - at, chunk.length - c);
      bytes.set(chunk.subarray(c, c + n), at);
      c += n;
      at += n;
      if (at === bytes.length) {
        li++;
        at = 0;
      }
    }
  }
  if (checksum(layers) !== header.check) return undefined;
  return { url: new ScalableBloom(0, bitsPerKey, url), alias: new ScalableBloom(0, bitsPerKey, alias) };
}

/**
 * Delete every snapshot key (a whole snapshot, or the chunks of one cut short); true when there
 * were any. Synced: no later write may reach the disk without this one, even across a power loss.
 */
export async function deleteFrontSnapshot(kv: Kv): Promise<boolean> {
  const ops: KvOp[] = [];
  for await (const key of kv.keys('meta', RANGE)) ops.push({ space: 'meta', key, value: undefined });
  if (ops.length === 0) return false;
  await kv.write(ops, { sync: kv.durable });
  return true;
}
