/**
 * A normalizer bound to one set of options, with an optional memo of recent inputs.
 *
 * A crawl meets the same link strings over and over (navigation menus, footers): the memo answers
 * a repeated input with one hash lookup. It is two generations of a Map, each at most `cacheSize / 2`
 * entries; when the young one fills, it becomes the old one and the old one is dropped, so memory
 * stays bounded and recently used entries survive (an approximate LRU with no per-hit bookkeeping).
 * The memo stores results only, never errors (an error's message and stack cost more to keep than
 * to make again).
 */
import { normalizeAndKeyWith } from './key.js';
import { resolveNormalizeOptions, type NormalizeOptions } from './normalize.js';

export interface NormalizerOptions extends NormalizeOptions {
  /**
   * Inputs remembered (0 turns the memo off). Each entry costs the input, its normal form and its
   * key, about 250 bytes for a typical URL.
   * @default 65536
   */
  readonly cacheSize?: number;
}

export interface NormalAndKey {
  readonly normal: string;
  readonly key: string;
}

export interface Normalizer {
  readonly options: NormalizeOptions;
  normalize(url: string): string;
  key(url: string): string;
  normalizeAndKey(url: string): NormalAndKey;
  /** Memo hits and misses since creation. */
  readonly stats: { readonly hits: number; readonly misses: number };
}

export function createNormalizer(options: NormalizerOptions = {}): Normalizer {
  const { cacheSize = 65536, ...normalizeOptions } = options;
  const resolved = resolveNormalizeOptions(normalizeOptions); // rejects bad options now, not on the first URL
  const half = Math.max(1, Math.floor(cacheSize / 2));
  let young = new Map<string, NormalAndKey>();
  let old = new Map<string, NormalAndKey>();
  const stats = { hits: 0, misses: 0 };

  function lookup(url: string): NormalAndKey {
    if (cacheSize <= 0) return normalizeAndKeyWith(url, resolved);
    let hit = young.get(url);
    if (hit === undefined) {
      hit = old.get(url);
      if (hit === undefined) {
        stats.misses++;
        hit = normalizeAndKeyWith(url, resolved);
      } else {
        stats.hits++;
      }
      if (young.size >= half) {
        old = young;
        young = new Map();
      }
      young.set(url, hit);
    } else {
      stats.hits++;
    }
    return hit;
  }

  return {
    options: normalizeOptions,
    normalize: (url) => lookup(url).normal,
    key: (url) => lookup(url).key,
    normalizeAndKey: lookup,
    stats,
  };
}
