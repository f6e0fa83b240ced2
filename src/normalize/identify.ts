/**
 * identify: everything the store and the crawler need about a URL, from one scan — its normal form
 * (RFC 3986 §6.2.2–6.2.3, as `normalize` gives it), its canonical key (key.ts, as `key` gives it)
 * with the key's head and rest apart, its scheme, its host[:port] as the store keys its rules and
 * frontier (`hostOf` in store/rules.ts), and the 64-bit fingerprint of the key (fingerprint.ts).
 *
 * An http(s) URL the single pass handles (single-pass.ts) is read in that one scan; any other URL
 * `key` accepts takes the full ladder, once, and the same fields are read from its record. Invalid
 * input throws the `UrlError` `key` throws.
 *
 * `identifyInto(url, out)` writes into a record the caller reuses (the store's admit loop makes one
 * per batch): the single pass's answer then makes no object, and the normal form, which the store
 * rarely reads, is only built when read (`normal` is a getter).
 */
import { fingerprintInto } from './fingerprint.js';
import { parseCount } from './parse-count.js';
import { keyFromRecord } from './key.js';
import { describeValue, urlArgument } from './misuse.js';
import { normalizeWith, resolveNormalizeOptions, type NormalizeOptions, type ResolvedOptions } from './normalize.js';
import { keyFingerprintOf, normalOf, restOf, singlePassScan, SinglePassResult } from './single-pass/single-pass.js';
import { recompose, type UriRecord } from './uri-record.js';

/** Scratch for the fingerprint words. */
const words = new Int32Array(2);

/** What `identify` tells about a URL. Reusable: `identifyInto` overwrites every field. */
export class UrlIdentity {
  /** The canonical key: `key(url, options)`; always `keyHead + keyRest`. */
  key = '';
  /**
   * The key's scheme, host and port part (`com,example)https://`) when the single pass answered,
   * else `''` (and `keyRest` is the whole key): a caller that stores the key in parts avoids
   * flattening the concatenation.
   */
  keyHead = '';
  /** The rest of the key: its path and query (or the whole key, see `keyHead`). */
  keyRest = '';
  /** The scheme, lowercase (§3.1, §6.2.2.1): `'http'` or `'https'` for what a crawler fetches. */
  scheme = '';
  /** host[:port] of the normal form, `''` when it has no host: the store's `hostOf(record)`. */
  hostPort = '';
  /** The key's fingerprint words, as `fingerprintInto(key, out)` writes them (signed 32-bit). */
  fingerprintHigh = 0;
  fingerprintLow = 0;
  /**
   * The ladder's record of the normal form when the single pass declined the URL (a caller that
   * needs the components has them); `undefined` when the single pass answered. Only then can the
   * normal form hold userinfo, since the single pass declines it.
   */
  record: UriRecord | undefined = undefined;
  /** The scan this record was read from, kept for the normal form built on demand. */
  private readonly scanned = new SinglePassResult();
  private url = '';
  private normalForm: string | undefined = undefined;

  /** The normal form: `normalize(url, options)`. Built when first read. */
  get normal(): string {
    return (this.normalForm ??= this.record === undefined ? normalOf(this.scanned, this.url) : recompose(this.record));
  }

  /** Fill from the scan of `url` in `this.scanned`, which handled it. */
  fromScan(url: string): this {
    const r = this.scanned;
    const auth = r.auth;
    const rest = restOf(r, url);
    this.url = url;
    this.normalForm = undefined;
    this.record = undefined;
    this.keyHead = auth.keyHead;
    this.keyRest = rest;
    this.key = auth.keyHead + rest;
    this.scheme = auth.https ? 'https' : 'http';
    this.hostPort = auth.hostPort;
    keyFingerprintOf(r, rest, words);
    this.fingerprintHigh = words[0]!;
    this.fingerprintLow = words[1]!;
    return this;
  }

  /** Fill from the ladder's record of `url`'s normal form. */
  fromRecord(url: string, rec: UriRecord): this {
    const k = keyFromRecord(rec);
    this.url = url;
    this.normalForm = undefined;
    this.record = rec;
    this.keyHead = '';
    this.keyRest = k;
    this.key = k;
    this.scheme = rec.scheme ?? '';
    this.hostPort = rec.port === undefined ? (rec.host ?? '') : `${rec.host ?? ''}:${rec.port}`;
    fingerprintInto(k, words);
    this.fingerprintHigh = words[0]!;
    this.fingerprintLow = words[1]!;
    return this;
  }

  /**
   * The record of the normal form, as `parseUriReference(this.normal)` gives it, without parsing:
   * the ladder's record when it made one, else cut from the scan (scheme, host and port from its
   * authority, path and query from its rest; the single pass declines userinfo and drops the
   * fragment). The store reads it where a preset, a rule or the scope needs components.
   */
  normalRecord(): UriRecord {
    if (this.record !== undefined) return this.record;
    const auth = this.scanned.auth;
    const rest = restOf(this.scanned, this.url);
    const q = rest.indexOf('?');
    return {
      scheme: this.scheme,
      userinfo: undefined,
      host: auth.host,
      port: auth.port === '' ? undefined : auth.port.slice(1),
      path: q === -1 ? rest : rest.slice(0, q),
      query: q === -1 ? undefined : rest.slice(q + 1),
      fragment: undefined,
    };
  }

  /** @internal the scan record `identifyInto` writes into. */
  scanRecord(): SinglePassResult {
    return this.scanned;
  }
}

/** `identifyInto` with options resolved. */
function identifyWith(url: string, out: UrlIdentity, o: ResolvedOptions): UrlIdentity {
  if (o.fast && o.presets.length === 0 && url.length <= o.maxLength) {
    const r = out.scanRecord();
    parseCount.scan++;
    if (singlePassScan(url, r, o.strict)) return out.fromScan(url);
    return out.fromRecord(url, normalizeWith(url, o, true, r.failure));
  }
  return out.fromRecord(url, normalizeWith(url, o, true));
}

/**
 * Identify `url` (a string or a `URL`) into `out` (every field overwritten) and return `out`.
 * Throws `UrlError` for input `key(url, options)` rejects, with the same code.
 */
export function identifyInto(url: string | URL, out: UrlIdentity, options?: NormalizeOptions): UrlIdentity {
  if (typeof url !== 'string') url = urlArgument('identifyInto', 'url', url);
  if (!(out instanceof UrlIdentity)) throw new TypeError(`identifyInto: out must be a UrlIdentity (new UrlIdentity()), not ${describeValue(out)}`);
  return identifyWith(url, out, resolveNormalizeOptions(options, 'identifyInto'));
}

/** Identify `url` (a string or a `URL`, see `UrlIdentity`) in a record of its own. Throws `UrlError` like `key(url, options)`. */
export function identify(url: string | URL, options?: NormalizeOptions): UrlIdentity {
  if (typeof url !== 'string') url = urlArgument('identify', 'url', url);
  return identifyWith(url, new UrlIdentity(), resolveNormalizeOptions(options, 'identify'));
}
