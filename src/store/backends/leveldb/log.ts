/**
 * LevelDB's write-ahead log (`.log` files; doc/log_format.md): 32 KiB blocks of records, each with
 * a 7-byte header (masked CRC-32C of type and data, length, type: full, first, middle, last).
 *
 * LevelDB's recovery, without `paranoid_checks`, skips a damaged record and reads on. That is
 * right for the tail of a log torn by a crash or a full disk (nothing after it was acknowledged:
 * the store stops writing at the first failed write), and wrong anywhere else: a damaged record
 * followed by intact ones means a flipped bit in an acknowledged write, which recovery would drop
 * without a word. `checkLog` tells the two apart.
 */
import { crc32c, unmask } from './crc32c.js';

const BLOCK = 32 * 1024;
const HEADER = 7;

export interface LogCheck {
  readonly records: number;
  /** Offset of the first damaged record followed by an intact one (acknowledged writes would be lost), if any. */
  readonly damagedAt: number | undefined;
  /** True when the log ends in a torn record (a crash or a full disk mid-write): LevelDB drops it, nothing acknowledged is lost. */
  readonly tornTail: boolean;
}

/** A record header at `pos` with a matching checksum: its end, or `undefined`. */
function intactAt(file: Uint8Array, pos: number): number | undefined {
  const inBlock = BLOCK - (pos % BLOCK);
  if (inBlock < HEADER || pos + HEADER > file.length) return undefined;
  const length = file[pos + 4]! | (file[pos + 5]! << 8);
  const type = file[pos + 6]!;
  if (type < 1 || type > 4 || HEADER + length > inBlock || pos + HEADER + length > file.length) return undefined;
  const stored = (file[pos]! | (file[pos + 1]! << 8) | (file[pos + 2]! << 16) | (file[pos + 3]! << 24)) >>> 0;
  return crc32c(file, pos + 6, pos + HEADER + length) === unmask(stored) ? pos + HEADER + length : undefined;
}

/** Whether an intact record starts anywhere after `from` (at a block start, or after an intact record). */
function intactAfter(file: Uint8Array, from: number): boolean {
  for (let block = Math.ceil(from / BLOCK) * BLOCK; block < file.length; block += BLOCK) {
    if (intactAt(file, block) !== undefined) return true;
  }
  return false;
}

export function checkLog(file: Uint8Array): LogCheck {
  let records = 0;
  let pos = 0;
  while (pos < file.length) {
    const inBlock = BLOCK - (pos % BLOCK);
    // the tail of a block too short for a header is zero padding
    if (inBlock < HEADER) {
      pos += inBlock;
      continue;
    }
    // a zero header: the rest of the block is padding (a preallocated or zeroed region)
    if (pos + HEADER <= file.length && file[pos + 6] === 0 && file[pos + 4] === 0 && file[pos + 5] === 0) {
      pos += inBlock;
      continue;
    }
    const end = intactAt(file, pos);
    if (end === undefined) {
      // where the header's length still points to an intact record, only this one's data is damaged
      const length = pos + 6 <= file.length ? file[pos + 4]! | (file[pos + 5]! << 8) : 0;
      const after = intactAt(file, pos + HEADER + length) !== undefined || intactAfter(file, pos + 1);
      return { records, damagedAt: after ? pos : undefined, tornTail: !after };
    }
    records++;
    pos = end;
  }
  return { records, damagedAt: undefined, tornTail: false };
}
