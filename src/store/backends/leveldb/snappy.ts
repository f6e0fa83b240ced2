/**
 * Snappy decompression (the format in google/snappy's format_description.txt), for reading the
 * index blocks of LevelDB tables, which LevelDB compresses with Snappy by default. Decompression
 * only: the store never writes Snappy itself. Damaged input is `undefined`, never a wrong output
 * of the stated length.
 */
function readVarint32(src: Uint8Array, pos: number): [value: number, next: number] | undefined {
  let result = 0;
  for (let shift = 0; shift <= 28 && pos < src.length; shift += 7) {
    const b = src[pos++]!;
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result >>> 0, pos];
  }
  return undefined;
}

/** The uncompressed bytes of a Snappy block, or `undefined` when the block is malformed. */
export function snappyDecompress(src: Uint8Array, limit = 64 * 2 ** 20): Uint8Array | undefined {
  const head = readVarint32(src, 0);
  if (head === undefined || head[0] > limit) return undefined;
  const [length] = head;
  let pos = head[1];
  const out = new Uint8Array(length);
  let o = 0;
  while (pos < src.length) {
    const tag = src[pos++]!;
    const kind = tag & 3;
    if (kind === 0) {
      // literal: length-1 in the tag's upper six bits, or in the 1–4 bytes that follow (60–63)
      let len = tag >>> 2;
      if (len >= 60) {
        const bytes = len - 59;
        if (pos + bytes > src.length) return undefined;
        len = 0;
        for (let b = 0; b < bytes; b++) len |= src[pos + b]! << (8 * b);
        len >>>= 0;
        pos += bytes;
      }
      len += 1;
      if (pos + len > src.length || o + len > length) return undefined;
      out.set(src.subarray(pos, pos + len), o);
      pos += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (pos + 1 > src.length) return undefined;
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[pos++]!;
    } else if (kind === 2) {
      if (pos + 2 > src.length) return undefined;
      len = (tag >>> 2) + 1;
      offset = src[pos]! | (src[pos + 1]! << 8);
      pos += 2;
    } else {
      if (pos + 4 > src.length) return undefined;
      len = (tag >>> 2) + 1;
      offset = (src[pos]! | (src[pos + 1]! << 8) | (src[pos + 2]! << 16) | (src[pos + 3]! << 24)) >>> 0;
      pos += 4;
    }
    if (offset === 0 || offset > o || o + len > length) return undefined;
    // copies may overlap their own output (a run): byte by byte
    for (let i = 0; i < len; i++, o++) out[o] = out[o - offset]!;
  }
  return o === length ? out : undefined;
}
