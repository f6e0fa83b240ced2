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
 */
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';

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
