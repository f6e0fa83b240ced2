/**
 * A 64-bit fingerprint of a key, for compact membership checks (Bloom filters, fixed-size tables).
 * Two 32-bit multiply-xorshift lanes over the UTF-16 code units, cross-mixed at the end (the
 * construction of bryc's public-domain cyrb53, kept at the full 64 bits). Not cryptographic: the
 * store always confirms a fingerprint hit against the full key.
 * Deterministic: the same key gives the same fingerprint on every run and machine.
 */
import { stringArgument } from './misuse.js';

const scratch = new Int32Array(2);
const SEED_1 = 0xdeadbeef | 0;
const SEED_2 = 0x41c6ce57;

/** The fingerprint as two unsigned 32-bit words `[high, low]`. */
export function fingerprintWords(key: string): readonly [number, number] {
  if (typeof key !== 'string') stringArgument('fingerprintWords', 'key', key);
  fingerprintInto(key, scratch);
  return [scratch[0]! >>> 0, scratch[1]! >>> 0];
}

/**
 * The fingerprint's words `[high, low]` written into `out[0]` and `out[1]` as signed 32-bit
 * integers (the same bits as `fingerprintWords`), with no array made per call: for hot loops.
 */
export function fingerprintInto(key: string, out: Int32Array): void {
  fingerprintFrom(SEED_1, SEED_2, key, out);
}

/**
 * The two lanes after the code units of `head` (before the final mix): a key that starts with
 * `head` is then fingerprinted from them by `fingerprintFrom(lanes[0], lanes[1], rest, out)`
 * without reading `head` again, with the same result as `fingerprintInto(head + rest, out)`.
 */
export function fingerprintLanes(head: string, lanes: Int32Array): void {
  lanes[0] = SEED_1;
  lanes[1] = SEED_2;
  advance(lanes, head);
}

/** The fingerprint's words (as `fingerprintInto`) of a key whose head left the lanes `h1`, `h2`, followed by `rest`. */
export function fingerprintFrom(h1: number, h2: number, rest: string, out: Int32Array): void {
  out[0] = h1;
  out[1] = h2;
  advance(out, rest);
  h1 = out[0]!;
  h2 = out[1]!;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h2;
  out[1] = h1;
}

/** The lanes `[h1, h2]` advanced over the code units of `text`: the per-unit step of both lanes. */
function advance(lanes: Int32Array, text: string): void {
  let h1 = lanes[0]!;
  let h2 = lanes[1]!;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  lanes[0] = h1;
  lanes[1] = h2;
}

const HEX_BYTE: string[] = [];
for (let b = 0; b < 256; b++) HEX_BYTE.push((b < 16 ? '0' : '') + b.toString(16));

function hex32(w: number): string {
  return HEX_BYTE[w >>> 24]! + HEX_BYTE[(w >>> 16) & 255]! + HEX_BYTE[(w >>> 8) & 255]! + HEX_BYTE[w & 255]!;
}

/** The fingerprint as 16 lowercase hex digits. */
export function fingerprint(key: string): string {
  if (typeof key !== 'string') stringArgument('fingerprint', 'key', key);
  const [high, low] = fingerprintWords(key);
  return hex32(high) + hex32(low);
}
