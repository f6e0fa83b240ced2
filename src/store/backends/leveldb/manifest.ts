/**
 * The live files of a LevelDB folder, from its manifest (named by `CURRENT`): the manifest is a log
 * (log.ts's record format) of version edits (db/version_edit.cc), each adding or deleting table
 * files and setting the log number. Files the manifest does not name are not part of the database:
 * the output of a compaction cut short by a close, an old log not yet deleted. LevelDB deletes
 * them at its next open; a check must not take them for damage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c, unmask } from './crc32c.js';

const BLOCK = 32 * 1024;

export interface LiveFiles {
  /** Table file numbers. */
  readonly tables: ReadonlySet<number>;
  /** Logs numbered at least this are replayed at open; older ones are obsolete. */
  readonly minLog: number;
}

/** The records of a log-format file, fragments joined; `undefined` at the first damaged one. */
function records(file: Uint8Array): Uint8Array[] | undefined {
  const out: Uint8Array[] = [];
  let parts: Uint8Array[] = [];
  let pos = 0;
  while (pos + 7 <= file.length) {
    const left = BLOCK - (pos % BLOCK);
    if (left < 7) {
      pos += left;
      continue;
    }
    const length = file[pos + 4]! | (file[pos + 5]! << 8);
    const type = file[pos + 6]!;
    if (type === 0 && length === 0) {
      pos += left;
      continue;
    }
    if (pos + 7 + length > file.length || 7 + length > left) return undefined;
    const stored = (file[pos]! | (file[pos + 1]! << 8) | (file[pos + 2]! << 16) | (file[pos + 3]! << 24)) >>> 0;
    if (crc32c(file, pos + 6, pos + 7 + length) !== unmask(stored)) return undefined;
    const data = file.subarray(pos + 7, pos + 7 + length);
    pos += 7 + length;
    if (type === 1) out.push(data);
    else if (type === 2) parts = [data];
    else if (type === 3) parts.push(data);
    else if (type === 4) {
      parts.push(data);
      out.push(Buffer.concat(parts));
      parts = [];
    } else return undefined;
  }
  return out;
}

function varint(b: Uint8Array, at: { pos: number }): number {
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (at.pos >= b.length) throw new RangeError('truncated');
    const byte = b[at.pos++]!;
    result += (byte & 0x7f) * mul;
    if ((byte & 0x80) === 0) return result;
    mul *= 128;
  }
  throw new RangeError('varint too long');
}

function skipSlice(b: Uint8Array, at: { pos: number }): void {
  const length = varint(b, at); // (read first: `at.pos += varint(…)` would add to the old position)
  at.pos += length;
}

/** The live files, or `undefined` when there is no readable manifest (LevelDB's open then says why). */
export function liveFiles(location: string): LiveFiles | undefined {
  let manifest: Uint8Array;
  try {
    const name = readFileSync(join(location, 'CURRENT'), 'utf8').trim();
    if (!/^MANIFEST-\d+$/.test(name)) return undefined;
    manifest = readFileSync(join(location, name));
  } catch {
    return undefined;
  }
  const edits = records(manifest);
  if (edits === undefined) return undefined;
  const tables = new Set<number>();
  let logNumber = 0;
  let prevLog = 0;
  try {
    for (const e of edits) {
      const at = { pos: 0 };
      while (at.pos < e.length) {
        const tag = varint(e, at);
        if (tag === 1) skipSlice(e, at);
        else if (tag === 2) logNumber = varint(e, at);
        else if (tag === 3 || tag === 4) varint(e, at);
        else if (tag === 5) {
          varint(e, at);
          skipSlice(e, at);
        } else if (tag === 6) {
          varint(e, at);
          tables.delete(varint(e, at));
        } else if (tag === 7) {
          varint(e, at);
          tables.add(varint(e, at));
          varint(e, at);
          skipSlice(e, at);
          skipSlice(e, at);
        } else if (tag === 9) prevLog = varint(e, at);
        else return undefined;
      }
    }
  } catch {
    return undefined;
  }
  return { tables, minLog: prevLog !== 0 ? Math.min(prevLog, logNumber) : logNumber };
}
