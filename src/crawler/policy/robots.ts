/**
 * RFC 9309, the Robots Exclusion Protocol: parsing, matching and a per-origin cache.
 *
 * Parsing (§2.1, §2.2): lines of `key: value`, `#` comments; groups are one or more `user-agent`
 * lines followed by rules; rules before any `user-agent` line belong to no group. Keys are
 * case-insensitive. `crawl-delay` (not in the RFC, widely used) belongs to its group; `sitemap`
 * lines are collected. Only the first 500 KiB are parsed (§2.5).
 *
 * Group selection (§2.2.1): every group naming our product token (case-insensitively, the leading
 * token of the line's value) is combined; without one, every `*` group is combined; without one,
 * everything is allowed.
 *
 * Matching (§2.2.2, §2.2.3): each rule's path pattern is matched against the URL's path and query,
 * both in the same percent-encoded form (unreserved characters decoded, hex in uppercase, other
 * octets encoded, RFC 3986 §6.2.2); `*` matches any sequence of characters and a final `$` anchors
 * the end. The longest matching pattern (in octets) wins; on a tie, `allow` wins. An empty
 * pattern matches nothing. `/robots.txt` is always allowed.
 *
 * Fetching (§2.3.1): 2xx is parsed; redirects are followed (at most 5, the RFC's minimum), more is
 * "unavailable"; 4xx is "unavailable" and allows everything; 5xx and network errors are
 * "unreachable" and disallow everything until a retry. Departure: 429 (Too Many Requests) is taken
 * as unreachable, not unavailable, because the server asks us to come back later. A fetched file is
 * cached for `ttlMs` (24 h, §2.4).
 */
import { PRODUCT_TOKEN } from '../http/user-agent.js';
import type { Fetcher, FetchResult } from '../http/fetch.js';
import { nodeUrl } from '../../normalize/parse-count.js';

export interface RobotsRule {
  readonly allow: boolean;
  /** The pattern in normal form (see `normalizePattern`). */
  readonly pattern: string;
}

export interface RobotsGroup {
  /** The user-agent values, lowercased. */
  readonly agents: readonly string[];
  readonly rules: readonly RobotsRule[];
  /** Crawl-delay, in seconds, when given. */
  readonly crawlDelay?: number;
}

export interface RobotsFile {
  readonly groups: readonly RobotsGroup[];
  readonly sitemaps: readonly string[];
}

/** §2.5: parsers must read at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Patterns longer than this are ignored (bounded matching work). */
const MAX_PATTERN_LENGTH = 2048;

const HEX = '0123456789ABCDEF';

function isUnreserved(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * The form patterns and paths are compared in (RFC 9309 §2.2.2 with RFC 3986 §6.2.2.1-2):
 * `%xx` of an unreserved character decoded, other `%xx` in uppercase, and every octet that may not
 * appear in a URI (controls, space, non-ASCII as UTF-8, `"<>\^`{|}`) percent-encoded.
 */
export function normalizePattern(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25 && i + 2 < bytes.length && hexValue(bytes[i + 1]!) >= 0 && hexValue(bytes[i + 2]!) >= 0) {
      const v = hexValue(bytes[i + 1]!) * 16 + hexValue(bytes[i + 2]!);
      out += isUnreserved(v) ? String.fromCharCode(v) : '%' + HEX[v >> 4] + HEX[v & 15];
      i += 2;
    } else if (c <= 0x20 || c >= 0x7f || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x5c || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7c || c === 0x7d || c === 0x25) {
      out += '%' + HEX[c >> 4] + HEX[c & 15];
    } else {
      out += String.fromCharCode(c);
    }
  }
  return out;
}

/** The leading product token of a user-agent line value (`Googlebot/2.1` → `googlebot`). */
function productToken(value: string): string {
  const m = /^[A-Za-z_*-]+/.exec(value.trim());
  return m === null ? '' : m[0].toLowerCase();
}

/** Parse a robots.txt body (the first `ROBOTS_MAX_BYTES` of it). */
export function parseRobots(text: string): RobotsFile {
  const groups: { agents: string[]; rules: RobotsRule[]; crawlDelay?: number }[] = [];
  const sitemaps: string[] = [];
  let current: { agents: string[]; rules: RobotsRule[]; crawlDelay?: number } | undefined;
  let inAgentLines = false;
  const body = text.length > ROBOTS_MAX_BYTES ? text.slice(0, ROBOTS_MAX_BYTES) : text;
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = (hash === -1 ? rawLine : rawLine.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (key) {
      case 'user-agent':
      case 'useragent':
      case 'user agent': {
        if (!inAgentLines || current === undefined) {
          current = { agents: [], rules: [] };
          groups.push(current);
          inAgentLines = true;
        }
        const token = productToken(value);
        if (token !== '') current.agents.push(token);
        break;
      }
      case 'allow':
      case 'disallow': {
        inAgentLines = false;
        if (current === undefined || value === '' || value.length > MAX_PATTERN_LENGTH) break;
        current.rules.push({ allow: key === 'allow', pattern: normalizePattern(value) });
        break;
      }
      case 'crawl-delay': {
        inAgentLines = false;
        const seconds = Number(value);
        if (current !== undefined && Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds;
        break;
      }
      case 'sitemap':
        sitemaps.push(value);
        break;
      default:
        break;
    }
  }
  return { groups, sitemaps };
}

/**
 * §2.2.2: does `pattern` (normal form, `*` wildcards, optional final `$`) match `path` from its
 * start? The literal pieces between the `*`s are found in order, each at its leftmost occurrence
 * after the previous one (leftmost is always safe: `*` matches any run, so an earlier end leaves
 * every later choice open); the first piece must start the path, and with `$` the last must end
 * it. Each piece is one forward search from where the previous one ended, with no backtracking, so
 * a hostile robots.txt of long `/*a*a*…b` patterns costs about one pass over the path per rule
 * (a backtracking matcher is O(pattern × path) per rule: 77 s for one 16 KiB path against 240
 * rules of 2 KiB, all within the size caps).
 */
export function patternMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = pieces[0]!;
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  for (let k = 1; k < pieces.length - 1; k++) {
    const piece = pieces[k]!;
    if (piece === '') continue;
    const found = path.indexOf(piece, at);
    if (found === -1) return false;
    at = found + piece.length;
  }
  const last = pieces[pieces.length - 1]!;
  if (!anchored) return last === '' || path.indexOf(last, at) !== -1;
  return path.length - last.length >= at && path.endsWith(last);
}

/** The rules that apply to one user agent. */
export class RobotsPolicy {
  constructor(
    readonly rules: readonly RobotsRule[],
    /** Crawl-delay in seconds, when the selected groups give one (the largest). */
    readonly crawlDelay?: number,
  ) {}

  /** §2.2.2: the longest match decides, `allow` wins a tie; `/robots.txt` is always allowed. */
  isAllowed(pathAndQuery: string): boolean {
    const path = normalizePattern(pathAndQuery);
    if (path === '/robots.txt') return true;
    let best: RobotsRule | undefined;
    for (const rule of this.rules) {
      const longer = best === undefined || rule.pattern.length > best.pattern.length;
      const tieWon = best !== undefined && rule.pattern.length === best.pattern.length && rule.allow && !best.allow;
      if ((longer || tieWon) && patternMatches(rule.pattern, path)) best = rule;
    }
    return best === undefined || best.allow;
  }
}

export const ALLOW_ALL = new RobotsPolicy([]);
export const DISALLOW_ALL = new RobotsPolicy([{ allow: false, pattern: '/' }]);

/** §2.2.1: the combined groups for `token`, else the combined `*` groups, else allow all. */
export function policyFor(file: RobotsFile, token: string = PRODUCT_TOKEN): RobotsPolicy {
  const t = token.toLowerCase();
  let selected = file.groups.filter((g) => g.agents.includes(t));
  if (selected.length === 0) selected = file.groups.filter((g) => g.agents.includes('*'));
  if (selected.length === 0) return ALLOW_ALL;
  const delays = selected.map((g) => g.crawlDelay).filter((d): d is number => d !== undefined);
  return new RobotsPolicy(
    selected.flatMap((g) => g.rules),
    delays.length === 0 ? undefined : Math.max(...delays),
  );
}

// ---- the cache ---------------------------------------------------------------------------------

/** `ok`: parsed; `unavailable`: 4xx or too many redirects (allow all); `unreachable`: 5xx, 429 or no answer (disallow all). */
export type RobotsState = 'ok' | 'unavailable' | 'unreachable';

export interface RobotsEntry {
  readonly origin: string;
  readonly state: RobotsState;
  readonly policy: RobotsPolicy;
  readonly status: number;
  /** Until when the entry is used (epoch ms). */
  readonly expires: number;
  /** Unreachable fetches in a row. */
  readonly failures: number;
  readonly error?: string;
}

export interface RobotsVerdict {
  readonly allowed: boolean;
  readonly entry: RobotsEntry;
}

export interface RobotsCacheOptions {
  readonly fetcher: Fetcher;
  /** The product token matched against user-agent lines. @default 'urldedup' */
  readonly token?: string;
  /** How long a fetched robots.txt is used (§2.4). @default 86_400_000 (24 h) */
  readonly ttlMs?: number;
  /** How long an unreachable robots.txt disallows everything before it is fetched again. @default 60_000 */
  readonly unreachableRetryMs?: number;
  /** Runs the robots.txt request in the crawl's politeness slot for the host. @default run at once */
  readonly schedule?: <T>(host: string, task: () => Promise<T>) => Promise<T>;
  /** Told about every robots.txt fetch (for the report). */
  readonly onFetch?: (origin: string, result: FetchResult) => void;
  readonly signal?: AbortSignal;
}

/** Fetched once per origin (scheme, host and port), through the crawl's fetch path, then cached. */
export class RobotsCache {
  private readonly entries = new Map<string, RobotsEntry>();
  private readonly pending = new Map<string, Promise<RobotsEntry>>();
  private readonly o: Required<Omit<RobotsCacheOptions, 'signal' | 'onFetch'>> & Pick<RobotsCacheOptions, 'signal' | 'onFetch'>;

  constructor(options: RobotsCacheOptions) {
    this.o = {
      token: PRODUCT_TOKEN,
      ttlMs: 86_400_000,
      unreachableRetryMs: 60_000,
      schedule: (_host, task) => task(),
      ...options,
    };
  }

  /** The cached entry for `origin`, if fresh. */
  peek(origin: string): RobotsEntry | undefined {
    const e = this.entries.get(origin);
    return e !== undefined && e.expires > Date.now() ? e : undefined;
  }

  /** Is `url` allowed? Fetches the origin's robots.txt first when it is not cached or stale. */
  async check(url: string): Promise<RobotsVerdict> {
    const u = nodeUrl(url);
    const entry = await this.entry(u.origin, u.host);
    return { allowed: entry.policy.isAllowed(u.pathname + u.search), entry };
  }

  /** The entry for an origin, fetching it once when missing or stale (concurrent callers share one fetch). */
  entry(origin: string, host: string): Promise<RobotsEntry> {
    const fresh = this.peek(origin);
    if (fresh !== undefined) return Promise.resolve(fresh);
    let p = this.pending.get(origin);
    if (p === undefined) {
      p = this.o.schedule(host, () => this.load(origin)).finally(() => this.pending.delete(origin));
      this.pending.set(origin, p);
    }
    return p;
  }

  private async load(origin: string): Promise<RobotsEntry> {
    const previous = this.entries.get(origin);
    const result = await this.o.fetcher.fetch(`${origin}/robots.txt`, {
      accept: 'text/plain,*/*;q=0.5',
      maxRedirects: 5,
      maxDecodedBytes: ROBOTS_MAX_BYTES,
      truncate: true,
      keepBody: true,
      ...(this.o.signal === undefined ? {} : { signal: this.o.signal }),
    });
    this.o.onFetch?.(origin, result);
    const now = Date.now();
    const s = result.status;
    let entry: RobotsEntry;
    if (result.error === undefined && s >= 200 && s < 300) {
      const text = (result.body ?? Buffer.alloc(0)).toString('utf8');
      entry = { origin, state: 'ok', policy: policyFor(parseRobots(text), this.o.token), status: s, expires: now + this.o.ttlMs, failures: 0 };
    } else if ((result.error === undefined || result.error.code === 'ERR_TOO_MANY_REDIRECTS') && s >= 300 && s < 500 && s !== 429) {
      entry = { origin, state: 'unavailable', policy: ALLOW_ALL, status: s, expires: now + this.o.ttlMs, failures: 0 };
    } else {
      const failures = (previous?.state === 'unreachable' ? previous.failures : 0) + 1;
      entry = {
        origin,
        state: 'unreachable',
        policy: DISALLOW_ALL,
        status: s,
        expires: now + this.o.unreachableRetryMs,
        failures,
        ...(result.error === undefined ? {} : { error: result.error.code }),
      };
    }
    this.entries.set(origin, entry);
    return entry;
  }
}
