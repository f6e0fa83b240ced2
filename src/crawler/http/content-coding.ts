/**
 * RFC 9110 §8.4 Content-Encoding: decoding a response body, with bounds.
 *
 * The codings are listed "in the order in which they were applied", so they are undone in reverse.
 * Supported: `gzip` (`x-gzip`, RFC 9110 §8.4.1.3), `deflate` (§8.4.1.2: the zlib format; a raw
 * DEFLATE stream, which some servers send and every browser accepts, is detected from the first
 * bytes of the outermost coding), `br` (RFC 7932), and `identity`. Streams are decoded chunk by
 * chunk with backpressure, so a decompression bomb costs at most one zlib output chunk per stage
 * of memory before the caller's decoded-byte cap stops it. Truncated streams decode as far as they
 * go (a sync flush at the end, as browsers do).
 *
 * One exception to "one output chunk": a brotli decoder holds the stream's whole window, which the
 * stream itself declares (RFC 7932 §9.1, up to 2^24 bytes; about 30 MiB of RSS each at 24 bits).
 * `brotliWindowGuard` reads that declaration from the first byte of each br layer and refuses a
 * window larger than the caller's limit before the decoder sees a byte.
 */
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { Transform } from 'node:stream';

export type ContentCoding = 'gzip' | 'deflate' | 'br';

export interface ParsedCodings {
  /** The codings to undo, in the order they were applied (identity removed). */
  readonly codings: readonly ContentCoding[];
  /** Codings we cannot decode (the body is then opaque). */
  readonly unknown: readonly string[];
}

/** Parse the `Content-Encoding` field value(s): a comma-separated list, case-insensitive (§8.4). */
export function parseContentEncoding(value: string | readonly string[] | undefined): ParsedCodings {
  if (value === undefined) return { codings: [], unknown: [] };
  const text = typeof value === 'string' ? value : value.join(',');
  const codings: ContentCoding[] = [];
  const unknown: string[] = [];
  for (const raw of text.split(',')) {
    const c = raw.trim().toLowerCase();
    if (c === '' || c === 'identity') continue;
    if (c === 'gzip' || c === 'x-gzip') codings.push('gzip');
    else if (c === 'deflate') codings.push('deflate');
    else if (c === 'br') codings.push('br');
    else unknown.push(c);
  }
  return { codings, unknown };
}

/**
 * RFC 1950 §2.2: a zlib stream starts with CMF (method 8 = deflate, window ≤ 32 KiB) and FLG, and
 * CMF·256 + FLG is a multiple of 31. Anything else is taken for raw DEFLATE (RFC 1951).
 */
export function looksLikeZlib(first: Uint8Array): boolean {
  if (first.length < 2) return true;
  const cmf = first[0]!;
  const flg = first[1]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 === 0;
}

/** A streaming decoder for one coding. `raw` picks raw DEFLATE for `deflate`. */
export function createDecoder(coding: ContentCoding, raw = false): Transform {
  switch (coding) {
    case 'gzip':
      return createGunzip({ finishFlush: constants.Z_SYNC_FLUSH });
    case 'deflate':
      return raw ? createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH }) : createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
  }
}

/**
 * Undo one gzip or deflate coding of a whole body in one call, with the streaming decoder's
 * end-of-stream rule (a sync flush: a truncated stream decodes as far as it goes). Throws when the
 * body does not decode, or when it decodes to more than `maxOutputLength` bytes.
 */
export function decodeWhole(coding: 'gzip' | 'deflate', raw: boolean, body: Buffer, maxOutputLength: number): Buffer {
  const options = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength };
  if (coding === 'gzip') return gunzipSync(body, options);
  return raw ? inflateRawSync(body, options) : inflateSync(body, options);
}

/**
 * RFC 7932 §9.1 "Format of the Stream Header": the window size WBITS a brotli stream declares in
 * the low bits of its first byte (the window is 2^WBITS − 16 bytes). `undefined` for the reserved
 * value (the large-window extension), which the decoder refuses by itself.
 */
export function brotliWindowBits(firstByte: number): number | undefined {
  // 1 bit: 0 means WBITS = 16
  if ((firstByte & 1) === 0) return 16;
  // 3 bits: a nonzero value n means WBITS = 17 + n
  const n = (firstByte >> 1) & 7;
  if (n !== 0) return 17 + n;
  // 3 more bits: 1 is reserved, another nonzero m means WBITS = 8 + m, 0 means WBITS = 17
  const m = (firstByte >> 4) & 7;
  if (m === 1) return undefined;
  return m === 0 ? 17 : 8 + m;
}

/**
 * Passes a brotli stream through unchanged after checking the window its header declares: a window
 * over `maxWindowBits` fails the stream with `refuse(bits)` before any decoding (and any window
 * allocation) happens. Put it in front of each br decoder.
 */
export function brotliWindowGuard(maxWindowBits: number, refuse: (windowBits: number) => Error): Transform {
  let checked = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (!checked && chunk.length > 0) {
        checked = true;
        const bits = brotliWindowBits(chunk[0]!);
        if (bits !== undefined && bits > maxWindowBits) return callback(refuse(bits));
      }
      callback(null, chunk);
    },
  });
}
