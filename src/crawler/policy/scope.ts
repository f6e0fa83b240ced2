/**
 * Crawl scope: which discovered URLs are crawled at all.
 *
 * - `host` (default): the seeds' host names, with or without a leading `www.`, any scheme and
 *   port (so `http://example.com/` reaches `https://www.example.com/`, the aliases a site has);
 * - `domain`: those host names and every name under them (`docs.example.com` for a seed on
 *   `example.com`; a `www.` seed stands for its parent);
 * - `any`: every host.
 *
 * Then `include` (any of them must match, when given) and `exclude` (none may match), regular
 * expressions tested against the URL's normal form. Schemes other than http and https are never
 * in scope.
 */
import type { WhatwgUrl } from '../../normalize/index.js';
import { nodeUrl } from '../../normalize/parse-count.js';
import type { UriRecord } from '../../normalize/uri-record.js';
import { comparableHost, ScopeTest, withoutWww } from '../../store/admission-scope.js';
import type { AdmissionScope } from '../../store/seen-store.js';
import { defaultTrapOptions, type TrapOptions } from './traps.js';

export type ScopeMode = 'host' | 'domain' | 'any';

export interface ScopeOptions {
  /** @default 'host' */
  readonly mode?: ScopeMode;
  /** The seed URLs whose hosts define the scope. */
  readonly seeds: readonly string[];
  /** @example [/\/docs\//] */
  readonly include?: readonly RegExp[];
  /** @example [/\?replytocom=/] */
  readonly exclude?: readonly RegExp[];
}

function hostnameOf(url: string): string | undefined {
  try {
    const u = nodeUrl(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return comparableHost(u.hostname);
  } catch {
    return undefined;
  }
}

/** The same from a URL record already parsed: URL Standard §4.1, `hostname` is the serialized host. */
function hostnameOfRecord(record: Readonly<WhatwgUrl>): string | undefined {
  if (record.scheme !== 'http' && record.scheme !== 'https') return undefined;
  return comparableHost(record.host ?? '');
}

export type ScopeVerdict = 'in' | 'out-of-scope' | 'excluded' | 'not-included' | 'other-scheme';

/**
 * A compiled scope test: the store's admission scope (admission-scope.ts) built from the seeds'
 * hosts, so the crawl and the store read one scope alike (`admission` hands it to the store).
 */
export class CrawlScope {
  readonly mode: ScopeMode;
  private readonly roots: readonly string[];
  private readonly test: ScopeTest;

  constructor(options: ScopeOptions) {
    this.mode = options.mode ?? 'host';
    if (this.mode !== 'host' && this.mode !== 'domain' && this.mode !== 'any') throw new TypeError(`scope: mode must be host, domain or any`);
    const roots = new Set<string>();
    for (const s of options.seeds) {
      const h = hostnameOf(s);
      if (h !== undefined) roots.add(withoutWww(h));
    }
    this.roots = [...roots];
    this.test = new ScopeTest({
      ...(this.mode === 'any' ? {} : { hosts: this.roots, hostMatch: this.mode === 'host' ? 'www' : 'subdomains' }),
      ...(options.include === undefined ? {} : { include: options.include }),
      ...(options.exclude === undefined ? {} : { exclude: options.exclude }),
    });
  }

  /** The host names the scope is built on (without `www.`). */
  get hosts(): readonly string[] {
    return this.roots;
  }

  hostInScope(hostname: string): boolean {
    return this.test.hostIn(hostname);
  }

  /**
   * The store's admission scope for this crawl: these hosts, patterns and the path-trap limits,
   * with `seeds` admitted whatever they say (a seed is crawled whatever include and exclude say).
   */
  admission(seeds: readonly string[], traps: TrapOptions = {}, maxDepth = Infinity): AdmissionScope {
    return {
      ...this.test.scope,
      schemes: ['http', 'https'],
      always: seeds,
      maxPathDepth: traps.maxPathDepth ?? defaultTrapOptions.maxPathDepth,
      maxRepeats: traps.maxRepeats ?? defaultTrapOptions.maxRepeats,
      ...(Number.isFinite(maxDepth) ? { maxDepth } : {}),
    };
  }

  /** The verdict on an absolute URL (normal form preferred: the regexes see what they are given). */
  check(url: string): ScopeVerdict {
    return this.verdict(hostnameOf(url), url);
  }

  /**
   * `check(url)` for `url` parsed by Node's URL into `u` (the crawler's one parse of a frontier
   * entry); `u` undefined: it did not parse (`check` would say `other-scheme` too).
   */
  checkParsed(u: URL | undefined, url: string): ScopeVerdict {
    return this.verdict(u !== undefined && (u.protocol === 'http:' || u.protocol === 'https:') ? comparableHost(u.hostname) : undefined, url);
  }

  /** `check(url)` for a URL whose record is at hand (`url` is its serialization): no second parse. */
  checkRecord(record: Readonly<WhatwgUrl>, url: string): ScopeVerdict {
    return this.verdict(hostnameOfRecord(record), url);
  }

  /**
   * `check(url)` for a URL the RFC ladder normalized (`url` is its normal form, `record` that form's
   * record): the ladder's host is what the URL Standard's `hostname` gives for http(s) (lower case,
   * IDNA to ASCII, IP literals in brackets), so no parse is needed.
   */
  checkNormal(record: UriRecord, url: string): ScopeVerdict {
    const scheme = record.scheme?.toLowerCase();
    return this.verdict(scheme === 'http' || scheme === 'https' ? comparableHost(record.host ?? '') : undefined, url);
  }

  private verdict(h: string | undefined, url: string): ScopeVerdict {
    return h === undefined ? 'other-scheme' : this.test.verdict(h, url);
  }

  has(url: string): boolean {
    return this.check(url) === 'in';
  }
}
