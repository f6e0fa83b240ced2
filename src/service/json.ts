/**
 * JSON text (RFC 8259) of the `/v1/key` results, written by hand: the same text `JSON.stringify`
 * gives for the same object, field for field and byte for byte, without building an object per
 * URL. A 10,000-URL reply is 10,000 objects of 8 or 9 fields; `JSON.stringify` walks each one,
 * and the objects themselves are garbage a moment later. Each result is encoded to UTF-8 as soon
 * as it is written (`Utf8Builder`), so no 10,000-piece string is kept, flattened and encoded at
 * the end: the text of one result is short-lived and dies young.
 */
import { fingerprint, toSurt, urlFromKey } from '../normalize/index.js';
import type { CanonicalFailure, CanonicalResult } from '../store/index.js';

/**
 * RFC 8259 §7: what a string must escape (`"`, `\`, U+0000–U+001F), and surrogates, of which
 * `JSON.stringify` escapes the lone ones (ECMA-262 `QuoteJSONString`). Strings with none of them
 * are written as they are; the rest go through `JSON.stringify`, so the text is always its text.
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(s)` for a string `s`. */
export function jsonString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/**
 * One `/v1/key` result (`KeyItem` in routes.ts) as JSON text: `{url, ok, normal, key,
 * canonicalKey, canonicalUrl, fingerprint, state, via?, surt?}` (`surt` with `format=surt`: the
 * Internet Archive SURT of `url`), or `{url, ok: false, code}` for a URL the store cannot key.
 * `normal` is `urlFromKey(key)`, which is `canonicalUrl` when the key is its own canonical key
 * (the key is a bijection of the normal form), so it is computed only when they differ.
 */
export function keyResultJson(url: string, c: CanonicalResult | CanonicalFailure, surt = false): string {
  if ('ok' in c) return '{"url":' + jsonString(url) + ',"ok":false,"code":' + jsonString(c.code) + '}';
  const tail = surt ? ',"surt":' + surtJson(url) + '}' : '}';
  const same = c.canonicalKey === c.key;
  const key = jsonString(c.key);
  const canonicalUrl = jsonString(c.canonicalUrl);
  return (
    '{"url":' + jsonString(url) +
    ',"ok":true,"normal":' + (same ? canonicalUrl : jsonString(urlFromKey(c.key))) +
    ',"key":' + key +
    ',"canonicalKey":' + (same ? key : jsonString(c.canonicalKey)) +
    ',"canonicalUrl":' + canonicalUrl +
    ',"fingerprint":"' + fingerprint(c.canonicalKey) +
    '","state":' + jsonString(c.state) +
    (c.via === undefined ? tail : ',"via":' + jsonString(c.via) + tail)
  );
}

/** The Internet Archive SURT of `url` as JSON text (`null` where the IA's canonicalizer refuses it). */
function surtJson(url: string): string {
  try {
    return jsonString(toSurt(url));
  } catch {
    return 'null';
  }
}

/**
 * UTF-8 bytes appended to one growing Buffer: a reply encoded piece by piece. The Buffer lives
 * outside the JavaScript heap, so the garbage collector neither scans nor moves a large reply
 * while it waits for its last lookups.
 */
export class Utf8Builder {
  private buf: Buffer;
  private used = 0;

  /** `sizeHint`: the expected length in bytes (it grows past it by doubling). */
  constructor(sizeHint: number) {
    this.buf = Buffer.allocUnsafe(Math.max(1024, sizeHint));
  }

  append(text: string): void {
    // RFC 3629: at most 3 bytes per UTF-16 code unit (a surrogate pair, 2 units, is 4 bytes)
    const need = this.used + text.length * 3;
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, 0, 0, this.used);
      this.buf = bigger;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }
}
