/**
 * Crawler traps: URL spaces a server generates without end (relative links that deepen the path
 * on every page, calendars, session ids in every link). Three rules, each with a name that ends up
 * in the report:
 *
 * - `trap:repeated-segments`: a path segment, or a run of segments, repeated back to back more
 *   than `maxRepeats` times (`/a/b/a/b/a/b/`) — what a relative link like `a/b/` on a page that
 *   is served for any path produces (in the manner of Heritrix's PathologicalPath rule);
 * - `trap:path-depth`: more than `maxPathDepth` segments;
 * - `trap:host-budget`: more than `maxPagesPerHost` pages fetched from one host in this run
 *   (calendars and other endless query spaces); the rest of that host's frontier is left for a
 *   later run.
 */

export interface TrapOptions {
  /** Consecutive repeats of a segment or run of segments allowed. @default 2 */
  readonly maxRepeats?: number;
  /** Path segments allowed. @default 20 */
  readonly maxPathDepth?: number;
  /** Pages fetched per host per run. @default 50_000 */
  readonly maxPagesPerHost?: number;
}

export const defaultTrapOptions = {
  maxRepeats: 2,
  maxPathDepth: 20,
  maxPagesPerHost: 50_000,
} as const satisfies Required<TrapOptions>;

export type TrapReason = 'trap:repeated-segments' | 'trap:path-depth' | 'trap:host-budget';

/** The path segments of an absolute path (`/a/b/` → `['a', 'b', '']`). */
function segmentsOf(path: string): string[] {
  return path.split('/').slice(1);
}

/** Is some run of `g` segments repeated back to back more than `maxRepeats` times? */
export function hasRepeatedSegments(segments: readonly string[], maxRepeats: number): boolean {
  const n = segments.length;
  const times = maxRepeats + 1;
  for (let g = 1; g * times <= n; g++) {
    for (let i = 0; i + g * times <= n; i++) {
      let repeated = true;
      for (let k = 1; k < times && repeated; k++) {
        for (let j = 0; j < g; j++) {
          if (segments[i + j] !== segments[i + k * g + j]) {
            repeated = false;
            break;
          }
        }
      }
      // a trailing empty segment (`/a/`) is not a repeat of anything
      if (repeated && !(g === 1 && segments[i] === '')) return true;
    }
  }
  return false;
}

/** Path-shape rules on one URL's path: the trap it falls into, if any. */
export function pathTrap(path: string, options: TrapOptions = {}): TrapReason | undefined {
  return segmentsTrap(segmentsOf(path), options);
}

/**
 * `pathTrap` on a path already split into its segments (a URL record's path list, URL Standard
 * §4.1: `/a/b/` is `['a', 'b', '']`).
 */
export function segmentsTrap(segments: readonly string[], options: TrapOptions = {}): TrapReason | undefined {
  const maxPathDepth = options.maxPathDepth ?? defaultTrapOptions.maxPathDepth;
  const maxRepeats = options.maxRepeats ?? defaultTrapOptions.maxRepeats;
  const depth = segments.length > 0 && segments[segments.length - 1] === '' ? segments.length - 1 : segments.length;
  if (depth > maxPathDepth) return 'trap:path-depth';
  // segments beyond the depth cap were refused above, so this check is O(maxPathDepth² · repeats)
  if (hasRepeatedSegments(segments, maxRepeats)) return 'trap:repeated-segments';
  return undefined;
}

/** Pages fetched per host in this run, against the budget. */
export class HostBudget {
  private readonly used = new Map<string, number>();
  constructor(readonly maxPagesPerHost: number = defaultTrapOptions.maxPagesPerHost) {}

  /** Take one page from `host`'s budget; false when it is spent. */
  take(host: string): boolean {
    const n = this.used.get(host) ?? 0;
    if (n >= this.maxPagesPerHost) return false;
    this.used.set(host, n + 1);
    return true;
  }

  spent(host: string): boolean {
    return (this.used.get(host) ?? 0) >= this.maxPagesPerHost;
  }
}
