/**
 * LevelDB's table (`.ldb`, formerly `.sst`) files, read and checked here rather than through the
 * binding: classic-level opens LevelDB without `paranoid_checks` and reads without
 * `verify_checksums`, so a flipped bit in a table is never noticed by LevelDB itself. It becomes a
 * wrong answer (a key that no longer matches), or an assertion that aborts the process when a
 * compaction meets keys out of order.
 *
 * The format (LevelDB's doc/table_format.md): data blocks, a filter block, a metaindex block and
 * an index block, each followed by a 5-byte trailer (compression type, masked CRC-32C of the block
 * and the type byte); a 48-byte footer ends the file with the handles of the metaindex and index
 * blocks and a magic number. The index block maps each data block's last key to its handle.
 */
import { crc32c, unmask } from './crc32c.js';
import { snappyDecompress } from './snappy.js';

const FOOTER = 48;
const TRAILER = 5;
const MAGIC_LO = 0x8b80fb57;
const MAGIC_HI = 0xdb477524;

interface Handle {
  readonly offset: number;
  readonly size: number;
}

/** A block of a table whose bytes no longer match their checksum (or could not be read). */
export interface DamagedBlock extends Handle {
  readonly what: 'data' | 'index' | 'metaindex' | 'filter' | 'footer';
}

export interface TableCheck {
  /** Data blocks the index names. */
  readonly blocks: number;
  readonly damaged: readonly DamagedBlock[];
}

/** One entry of a data block: the internal key (user key, then 8 bytes of sequence and type) and the value. */
export interface TableRecord {
  readonly key: Uint8Array;
  /** 1: a value; 0: a deletion. */
  readonly type: number;
  readonly sequence: bigint;
  readonly value: Uint8Array;
}

function readVarint(b: Uint8Array, pos: number): [number, number] | undefined {
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10 && pos < b.length; i++) {
    const byte = b[pos++]!;
    result += (byte & 0x7f) * mul;
    if ((byte & 0x80) === 0) return Number.isSafeInteger(result) ? [result, pos] : undefined;
    mul *= 128;
  }
  return undefined;
}

function readHandle(b: Uint8Array, pos: number): [Handle, number] | undefined {
  const off = readVarint(b, pos);
  if (off === undefined) return undefined;
  const size = readVarint(b, off[1]);
  if (size === undefined) return undefined;
  return [{ offset: off[0], size: size[0] }, size[1]];
}

/** Whether a block and its trailer's type byte match the trailer's checksum. */
function intact(file: Uint8Array, h: Handle): boolean {
  const end = h.offset + h.size;
  if (end + TRAILER > file.length) return false;
  const stored = (file[end + 1]! | (file[end + 2]! << 8) | (file[end + 3]! << 16) | (file[end + 4]! << 24)) >>> 0;
  return crc32c(file, h.offset, end + 1) === unmask(stored);
}

/** A block's contents when its checksum holds (uncompressed), else `undefined`. */
function readBlock(file: Uint8Array, h: Handle): Uint8Array | undefined {
  if (!intact(file, h)) return undefined;
  const end = h.offset + h.size;
  const type = file[end]!;
  const raw = file.subarray(h.offset, end);
  if (type === 0) return raw;
  if (type === 1) return snappyDecompress(raw);
  return undefined;
}

/** Entries of a block (prefix-compressed keys, then the restart array), or `undefined` when malformed. */
function blockEntries(block: Uint8Array): { key: Uint8Array; value: Uint8Array }[] | undefined {
  if (block.length < 4) return undefined;
  const view = new DataView(block.buffer, block.byteOffset, block.length);
  const restarts = view.getUint32(block.length - 4, true);
  const limit = block.length - 4 - restarts * 4;
  if (limit < 0) return undefined;
  const out: { key: Uint8Array; value: Uint8Array }[] = [];
  let last = new Uint8Array(0);
  let pos = 0;
  while (pos < limit) {
    const shared = readVarint(block, pos);
    if (shared === undefined) return undefined;
    const unshared = readVarint(block, shared[1]);
    if (unshared === undefined) return undefined;
    const valueLen = readVarint(block, unshared[1]);
    if (valueLen === undefined) return undefined;
    pos = valueLen[1];
    if (shared[0] > last.length || pos + unshared[0] + valueLen[0] > limit) return undefined;
    const key = new Uint8Array(shared[0] + unshared[0]);
    key.set(last.subarray(0, shared[0]));
    key.set(block.subarray(pos, pos + unshared[0]), shared[0]);
    pos += unshared[0];
    out.push({ key, value: block.subarray(pos, pos + valueLen[0]) });
    pos += valueLen[0];
    last = key;
  }
  return out;
}

interface Parsed {
  readonly index: Handle[] | undefined;
  readonly damaged: DamagedBlock[];
}

function parse(file: Uint8Array): Parsed {
  const damaged: DamagedBlock[] = [];
  if (file.length < FOOTER) return { index: undefined, damaged: [{ what: 'footer', offset: 0, size: file.length }] };
  const footerAt = file.length - FOOTER;
  const view = new DataView(file.buffer, file.byteOffset + footerAt, FOOTER);
  const meta = readHandle(file, footerAt);
  const index = meta && readHandle(file, meta[1]);
  if (view.getUint32(40, true) !== MAGIC_LO || view.getUint32(44, true) !== MAGIC_HI || meta === undefined || index === undefined) {
    return { index: undefined, damaged: [{ what: 'footer', offset: footerAt, size: FOOTER }] };
  }
  const metaBlock = readBlock(file, meta[0]);
  const metaEntries = metaBlock && blockEntries(metaBlock);
  if (metaEntries === undefined) damaged.push({ what: 'metaindex', ...meta[0] });
  else {
    for (const e of metaEntries) {
      const h = readHandle(e.value, 0);
      if (h !== undefined && readBlock(file, h[0]) === undefined) damaged.push({ what: 'filter', ...h[0] });
    }
  }
  const indexBlock = readBlock(file, index[0]);
  const entries = indexBlock && blockEntries(indexBlock);
  if (entries === undefined) {
    damaged.push({ what: 'index', ...index[0] });
    return { index: undefined, damaged };
  }
  const handles: Handle[] = [];
  for (const e of entries) {
    const h = readHandle(e.value, 0);
    if (h === undefined) {
      damaged.push({ what: 'index', ...index[0] });
      return { index: undefined, damaged };
    }
    handles.push(h[0]);
  }
  return { index: handles, damaged };
}

/** Check every block of a table against its checksum. A damaged footer or index leaves `blocks` 0. */
export function checkTable(file: Uint8Array): TableCheck {
  const { index, damaged } = parse(file);
  if (index === undefined) return { blocks: 0, damaged };
  // the checksum covers the block as stored (compressed): no need to decompress it to check it
  for (const h of index) if (!intact(file, h)) damaged.push({ what: 'data', ...h });
  return { blocks: index.length, damaged };
}

/** The records of every intact data block (what a repair can salvage from a damaged table), in file order. */
export function* tableRecords(file: Uint8Array): Generator<TableRecord> {
  const { index } = parse(file);
  if (index === undefined) return;
  for (const h of index) {
    const block = readBlock(file, h);
    const entries = block && blockEntries(block);
    if (entries === undefined) continue;
    for (const e of entries) {
      if (e.key.length < 8) continue;
      const tail = new DataView(e.key.buffer, e.key.byteOffset + e.key.length - 8, 8).getBigUint64(0, true);
      yield { key: e.key.subarray(0, e.key.length - 8), type: Number(tail & 0xffn), sequence: tail >> 8n, value: e.value };
    }
  }
}
