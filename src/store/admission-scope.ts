/**
 * A store's admission scope (`StoreOptions.scope`, seen-store.ts `AdmissionScope`), compiled once:
 * which URLs `admit` takes, and which redirect targets the store queues by itself. All of it is
 * data (a crawl hands its scope and path limits to the store as options, not as a callback into
 * the crawler), read off the normal form's record the store has already made; only `filter`, a
 * library caller's last say, is code.
 *
 * In order: the link depth, the scheme; then a URL given in `always` is admitted (a crawl's seeds,
 * crawled whatever its include and exclude say); then the host (`hosts`, `hostMatch`), `include`
 * (any must match), `exclude` (none may), the path limits and `filter`.
 *
 * The crawler's scope (crawler/policy/scope.ts) tests hosts, include and exclude with this same
 * code, so the store and the crawl never disagree on a URL.
 */
import { normalize, recompose, type NormalizeOptions, type UriRecord } from '../normalize/index.js';
import type { AdmissionScope } from './seen-store.js';

/** What the host, include and exclude tests say of a URL. */
export type HostVerdict = 'in' | 'out-of-scope' | 'not-included' | 'excluded';

/** Why a path is out of the path limits. */
export type PathShape = 'path-depth' | 'repeated-segments';

/** A host name compared without case and without a trailing dot (`Example.COM.` → `example.com`). */
export function comparableHost(hostname: string): string {
  const h = hostname.toLowerCase();
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** `www.example.com` → `example.com`. */
export function withoutWww(host: string): string {
  return host.startsWith('www.') && host.length > 4 ? host.slice(4) : host;
}

/** The path segments of an absolute path (`/a/b/` → `['a', 'b', '']`, URL Standard §4.1). */
export function pathSegments(path: string): string[] {
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

/**
 * The path limit a path's segments (`/a/b/` is `['a', 'b', '']`, URL Standard §4.1) break, if
 * any: more than `maxPathDepth` segments, or a segment or run of segments repeated back to back
 * more than `maxRepeats` times (`/a/b/a/b/a/b/`: what a relative link on a page served for any
 * path produces, in the manner of Heritrix's PathologicalPath rule).
 */
export function pathShape(segments: readonly string[], maxPathDepth: number, maxRepeats: number): PathShape | undefined {
  const depth = segments.length > 0 && segments[segments.length - 1] === '' ? segments.length - 1 : segments.length;
  if (depth > maxPathDepth) return 'path-depth';
  // segments beyond the depth cap were refused above, so this check is O(maxPathDepth² · repeats)
  if (hasRepeatedSegments(segments, maxRepeats)) return 'repeated-segments';
  return undefined;
}

/** A global or sticky regex keeps `lastIndex` between calls: reset it so each test starts at 0. */
function testRegex(re: RegExp, s: string): boolean {
  re.lastIndex = 0;
  return re.test(s);
}

/** Throws a `TypeError` (programmer misuse) for a scope that is not one. */
function check(scope: AdmissionScope): void {
  const { hostMatch, maxDepth, maxPathDepth, maxRepeats } = scope;
  if (hostMatch !== undefined && hostMatch !== 'subdomains' && hostMatch !== 'www') throw new TypeError("store: scope.hostMatch must be 'subdomains' or 'www'");
  if (maxDepth !== undefined && !(maxDepth >= 0)) throw new TypeError('store: scope.maxDepth must be >= 0');
  for (const [name, v] of [['maxPathDepth', maxPathDepth], ['maxRepeats', maxRepeats]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) throw new TypeError(`store: scope.${name} must be an integer >= 1`);
  }
  for (const [name, list] of [['include', scope.include], ['exclude', scope.exclude]] as const) {
    if (list !== undefined && !list.every((re) => re instanceof RegExp)) throw new TypeError(`store: scope.${name} must be regular expressions`);
  }
}

/** An `AdmissionScope` compiled: the store's test and the crawler's host, include and exclude test. */
export class ScopeTest {
  readonly maxDepth: number;
  readonly schemes: ReadonlySet<string>;
  /** True when a URL's record is read beyond its scheme: hosts, patterns, path limits or `filter` (`always` only lifts those). */
  readonly needsRecord: boolean;
  private readonly roots: ReadonlySet<string> | undefined;
  private readonly www: boolean;
  private readonly include: readonly RegExp[];
  private readonly exclude: readonly RegExp[];
  private readonly maxPathDepth: number;
  private readonly maxRepeats: number;
  private readonly filter: ((record: UriRecord) => boolean) | undefined;
  private readonly alwaysUrls: readonly string[];
  private alwaysForms: ReadonlySet<string> | undefined;

  constructor(
    readonly scope: AdmissionScope,
    defaultSchemes: readonly string[] = ['http', 'https'],
    private readonly normalizeOptions?: NormalizeOptions,
  ) {
    check(scope);
    this.maxDepth = scope.maxDepth ?? Infinity;
    this.schemes = new Set((scope.schemes ?? defaultSchemes).map((s) => s.toLowerCase()));
    this.www = scope.hostMatch === 'www';
    this.roots = scope.hosts === undefined ? undefined : new Set(scope.hosts.map((h) => (this.www ? withoutWww(comparableHost(h)) : comparableHost(h))));
    this.include = scope.include ?? [];
    this.exclude = scope.exclude ?? [];
    this.maxPathDepth = scope.maxPathDepth ?? Infinity;
    this.maxRepeats = scope.maxRepeats ?? Infinity;
    this.filter = scope.filter;
    this.alwaysUrls = scope.always ?? [];
    this.needsRecord =
      this.roots !== undefined || this.include.length > 0 || this.exclude.length > 0 || scope.maxPathDepth !== undefined || scope.maxRepeats !== undefined || this.filter !== undefined;
  }

  /** Is `hostname` one of `hosts` (or under one, or its `www.` form, by `hostMatch`)? */
  hostIn(hostname: string): boolean {
    if (this.roots === undefined) return true;
    const h = comparableHost(hostname);
    if (this.www) return this.roots.has(withoutWww(h));
    if (this.roots.has(h)) return true;
    for (const r of this.roots) if (h.endsWith('.' + r)) return true;
    return false;
  }

  /** The host, include and exclude verdict on `url` (its normal form, as the patterns see it), whose host is `hostname`. */
  verdict(hostname: string, url: string): HostVerdict {
    if (!this.hostIn(hostname)) return 'out-of-scope';
    if (this.include.length > 0 && !this.include.some((re) => testRegex(re, url))) return 'not-included';
    if (this.exclude.some((re) => testRegex(re, url))) return 'excluded';
    return 'in';
  }

  /** The path limit `path` breaks, if any. */
  pathShape(path: string): PathShape | undefined {
    if (this.maxPathDepth === Infinity && this.maxRepeats === Infinity) return undefined;
    return pathShape(pathSegments(path), this.maxPathDepth, this.maxRepeats);
  }

  /** The store's whole test on a URL's normal-form record, found at link depth `depth`. */
  admits(rec: UriRecord, depth: number): boolean {
    if (depth > this.maxDepth) return false;
    if (!this.schemes.has(rec.scheme ?? '')) return false;
    if (!this.needsRecord) return true;
    const url = recompose(rec);
    if (this.alwaysUrls.length > 0 && this.always().has(url)) return true;
    if (this.verdict(rec.host ?? '', url) !== 'in') return false;
    if (this.pathShape(rec.path) !== undefined) return false;
    return this.filter === undefined || this.filter(rec);
  }

  /** `always`, as normal forms (made on first use: a URL that does not parse is left out). */
  private always(): ReadonlySet<string> {
    if (this.alwaysForms === undefined) {
      const forms = new Set<string>();
      for (const u of this.alwaysUrls) {
        try {
          forms.add(normalize(u, this.normalizeOptions));
        } catch {
          // an invalid URL: admit() reports it when it is given
        }
      }
      this.alwaysForms = forms;
    }
    return this.alwaysForms;
  }
}
