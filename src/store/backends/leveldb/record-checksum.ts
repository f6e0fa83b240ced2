/**
 * A checksum of our own on every record the store writes to LevelDB: the binding (classic-level)
 * reads without `verify_checksums`, so LevelDB's block checksums are never checked on a read, and a
 * flipped bit in a table would be read back as a different value. Each value is stored with six
 * characters appended: a 32-bit hash of the record's full key (sublevel prefix included) and its
 * value. A value read back is checked against its key; a mismatch is `ERR_STORE_CORRUPT`, never an
 * answer. Covering the key too means a value found under another key (a damaged key in an
 * iteration) fails as well.
 *
 * The hash is a multiply-xorshift over pairs of UTF-16 code units with a final avalanche (MurmurHash3's
 * fmix32): not cryptographic, and not meant to be; a random change goes unnoticed with
 * probability 2^-32. Its cost is in docs/benchmarks.md ("checked reads").
 */

/** The root key (outside every sublevel) whose value `done` says the store's values carry checksums. */
export const CHECKED_MARK = 'urldedup:checked-records';

/** Characters appended to each value. */
export const SEAL_LENGTH = 6;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function mix(h: number, s: string, end: number): number {
  // two UTF-16 code units per step
  let i = 0;
  for (; i + 1 < end; i += 2) {
    h = Math.imul(h ^ (s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16)), 0x5bd1e995);
    h ^= h >>> 15;
  }
  if (i < end) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h;
}

function hash(key: string, value: string, valueEnd: number): number {
  let h = mix(0x9747b28c ^ key.length, key, key.length);
  h = mix(Math.imul(h ^ valueEnd, 0xcc9e2d51), value, valueEnd);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function encode(h: number): string {
  // 32 bits as six base-64 digits (the last carries two bits)
  return (
    ALPHABET[h & 63]! +
    ALPHABET[(h >>> 6) & 63]! +
    ALPHABET[(h >>> 12) & 63]! +
    ALPHABET[(h >>> 18) & 63]! +
    ALPHABET[(h >>> 24) & 63]! +
    ALPHABET[h >>> 30]!
  );
}

/** The value as stored: `value` and its checksum over `fullKey` and `value`. */
export function seal(fullKey: string, value: string): string {
  return value + encode(hash(fullKey, value, value.length));
}

/** The value a stored record holds, or `undefined` when the record fails its checksum. */
export function unseal(fullKey: string, stored: string): string | undefined {
  const end = stored.length - SEAL_LENGTH;
  if (end < 0) return undefined;
  const h = hash(fullKey, stored, end);
  for (let k = 0; k < SEAL_LENGTH; k++) {
    const digit = k === SEAL_LENGTH - 1 ? h >>> 30 : (h >>> (6 * k)) & 63;
    if (stored.charCodeAt(end + k) !== ALPHABET.charCodeAt(digit)) return undefined;
  }
  return stored.slice(0, end);
}
