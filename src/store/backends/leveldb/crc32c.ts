/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum LevelDB writes after every
 * table block and log record, with LevelDB's mask (`crc32c::Mask` in util/crc32c.h): a CRC stored
 * inside data that is itself checksummed is rotated and offset so it does not checksum to itself.
 * Slicing by four: four table lookups per 32-bit word.
 */
const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t0[i] = c >>> 0;
  }
  const tables = [t0];
  for (let n = 1; n < 4; n++) {
    const prev = tables[n - 1]!;
    const t = new Uint32Array(256);
    for (let i = 0; i < 256; i++) t[i] = (prev[i]! >>> 8) ^ t0[prev[i]! & 0xff]!;
    tables.push(t);
  }
  return tables;
})();

/** CRC-32C of `bytes[start, end)`, continuing from `crc` (0 to start). */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  const [t0, t1, t2, t3] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~crc >>> 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c = t3[c & 0xff]! ^ t2[(c >>> 8) & 0xff]! ^ t1[(c >>> 16) & 0xff]! ^ t0[c >>> 24]!;
  }
  for (; i < end; i++) c = t0[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const MASK_DELTA = 0xa282ead8;

/** LevelDB's `crc32c::Unmask`: the CRC a stored, masked one stands for. */
export function unmask(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}
