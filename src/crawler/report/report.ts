/**
 * The crawl report: what was fetched, what it cost, and what deduplication saved, by the rung of
 * the ladder that caught each duplicate link.
 *
 * A link that did not become a new frontier entry because its URL was already known is attributed
 * to the lowest step at which the link, as written, equals the stored normal form:
 *
 * | bucket       | the link equals the stored URL …                                                   |
 * |--------------|------------------------------------------------------------------------------------|
 * | `same-page`  | … because the same reference resolved to the same URL earlier on the page          |
 * | `exact`      | … character for character (after RFC 3986 §5.2 resolution of a relative reference) |
 * | `fragment`   | … once the fragment is dropped                                                     |
 * | `syntax`     | … after the syntax rung (§6.2.2: case, percent-encoding, dot-segments)             |
 * | `scheme`     | … after the scheme rung (§6.2.3: default port, empty path, IDNA, IP forms)         |
 * | `resolution` | … only as a browser resolves it (WHATWG: `\`, tabs and newlines, …)               |
 * | `alias`      | … through the alias table (a permanent redirect seen earlier)                      |
 * | `rule:<id>`  | … through a learned host rule (https, www, slash, default document, parameter)     |
 * | `preset:<n>` | … through an opt-in policy preset                                                  |
 *
 * Links admitted under another key (a rule or preset rewrote them before their first fetch) are
 * counted in `rewritten`: each saves the redirect the original URL would have cost.
 */
import { resolve } from '../../normalize/index.js';
import type { RuleRecord, StoreStats } from '../../store/index.js';
import { formatScopes } from '../../store/learning/rule-scope.js';
import type { InvalidSeed } from '../crawl-options.js';
import type { Timeline } from './timeline.js';

export type StopReason = 'done' | 'max-pages' | 'stopped' | 'signal' | 'deferred';

export interface CrawlReport {
  readonly seeds: readonly string[];
  /** Seeds the store refused, with their error codes (`ERR_INVALID_HOST`, …): not crawled. */
  readonly invalidSeeds: readonly InvalidSeed[];
  /**
   * Each seed's state in the store when the run ended (`fetched`, `failed`, `queued`, `redirected`,
   * `pruned`; `seen`: only an equivalent URL is recorded), at most the first 100 seeds.
   */
  readonly seedStates?: Readonly<Record<string, string>>;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly stoppedBecause: StopReason;
  /** Frontier entries whose fetch ended in a response (any status) or an error, this run. */
  readonly pagesFetched: number;
  /** Of those, final answers with a 2xx status. */
  readonly pagesOk: number;
  readonly pagesPerSecond: number;
  /** Every HTTP request sent: pages, redirect hops, robots.txt. */
  readonly requests: number;
  readonly robotsRequests: number;
  /** Redirect responses received. */
  readonly redirects: number;
  /** Distinct content hashes among 2xx pages: the documents reached. */
  readonly documents: number;
  /** `requests / documents` (null before any document). */
  readonly requestsPerDocument: number | null;
  readonly bytes: { readonly wire: number; readonly decoded: number };
  /** Final statuses, by code (0: no response). */
  readonly statuses: Readonly<Record<string, number>>;
  readonly links: {
    /** References found in pages (every kind). */
    readonly found: number;
    /** Links offered to the store. */
    readonly offered: number;
    /** New frontier entries. */
    readonly admitted: number;
    /** In a fleet: links for hosts other workers hold, sent to those hosts' inboxes (judged there). */
    readonly forwarded?: number;
    /** Duplicates avoided, by bucket (see the table above). */
    readonly duplicates: Readonly<Record<string, number>>;
    /** Admitted under a rewritten URL, by the rule or preset that rewrote it. */
    readonly rewritten: Readonly<Record<string, number>>;
    /** Links not offered, by reason: out-of-scope, excluded, not-included, other-scheme, trap:*, depth, nofollow, invalid, dropped. */
    readonly refused: Readonly<Record<string, number>>;
  };
  /** URL patterns refused as `trap:pattern` in this run (traps.ts): their URLs are pruned, `restore('trap:pattern')` gives them back. */
  readonly trapPatterns?: readonly string[];
  /** Frontier entries left queued for a later run, by reason. */
  readonly deferred: Readonly<Record<string, number>>;
  /** Failed fetches and refusals, by code. */
  readonly errors: Readonly<Record<string, number>>;
  /** Evidence recorded but not merged. */
  readonly evidence: {
    readonly canonical: number;
    readonly canonicalElsewhere: number;
    readonly contentLocation: number;
    readonly contentLocationElsewhere: number;
  };
  /** Transient failures (retry.ts): fetches repeated in this run, URLs a retry fetched, URLs left failed for a later run, failed URLs queued again at the start. */
  readonly retries?: { readonly made: number; readonly succeeded: number; readonly pending: number; readonly requeued: number };
  /** The store after the run. */
  readonly store: StoreStats;
  /** The run over time, for the HTML report (timeline.ts); absent in reports written before it existed. */
  readonly timeline?: Timeline;
  /** Host rules active after the run, with where they hold (`/docs/`, `=/search`, ` +query`: rule-scope.ts). */
  readonly rules: readonly { readonly id: string; readonly for: number; readonly scopes?: string }[];
}

function bump(map: Record<string, number>, key: string, n = 1): void {
  if (n !== 0) map[key] = (map[key] ?? 0) + n;
}

function sorted(map: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(map).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

function stripFragment(url: string): string {
  const i = url.indexOf('#');
  return i === -1 ? url : url.slice(0, i);
}

/** A response's Content-Location (RFC 9110 §8.7) resolved against the URL that answered; undefined when it does not resolve. */
export function resolveContentLocation(header: string | string[] | undefined, finalUrl: string): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  if (text === undefined) return undefined;
  try {
    return resolve(text, finalUrl, { mode: 'html' });
  } catch {
    return undefined;
  }
}

/** Counters filled during a crawl (crawl-observers.ts feeds them from the crawl's events). */
export class ReportBuilder {
  readonly started = Date.now();
  /** Seeds the store refused (set by the `seeded` event, after the seeds are admitted). */
  invalidSeeds: readonly InvalidSeed[] = [];
  pagesFetched = 0;
  pagesOk = 0;
  requests = 0;
  robotsRequests = 0;
  redirects = 0;
  wire = 0;
  decoded = 0;
  found = 0;
  offered = 0;
  admitted = 0;
  forwarded = 0;
  readonly statuses: Record<string, number> = {};
  readonly duplicates: Record<string, number> = {};
  readonly rewritten: Record<string, number> = {};
  readonly refused: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly deferred: Record<string, number> = {};
  readonly trapPatterns: string[] = [];
  readonly retries = { made: 0, succeeded: 0, pending: 0, requeued: 0 };
  readonly evidence = { canonical: 0, canonicalElsewhere: 0, contentLocation: 0, contentLocationElsewhere: 0 };
  private readonly contents = new Set<string>();

  status(code: number): void {
    bump(this.statuses, String(code));
  }

  document(hash: string): void {
    this.contents.add(hash);
  }

  get documents(): number {
    return this.contents.size;
  }

  duplicate(bucket: string, n = 1): void {
    bump(this.duplicates, bucket, n);
  }

  rewrite(via: string, n = 1): void {
    bump(this.rewritten, via, n);
  }

  refuse(reason: string, n = 1): void {
    bump(this.refused, reason, n);
  }

  error(code: string): void {
    bump(this.errors, code);
  }

  trapPattern(pattern: string): void {
    if (this.trapPatterns.length < 1000) this.trapPatterns.push(pattern);
  }

  defer(reason: string, n = 1): void {
    bump(this.deferred, reason, n);
  }

  get duplicatesAvoided(): number {
    return Object.values(this.duplicates).reduce((a, b) => a + b, 0);
  }

  /** A page's `rel=canonical` (evidence, not merged): counted, and whether it names another URL. */
  canonical(url: string, page: string): void {
    this.evidence.canonical++;
    if (stripFragment(url) !== page) this.evidence.canonicalElsewhere++;
  }

  /** A response's Content-Location (RFC 9110 §8.7, evidence, not merged), resolved and counted. */
  contentLocation(header: string | string[] | undefined, finalUrl: string): string | undefined {
    const u = resolveContentLocation(header, finalUrl);
    if (u !== undefined) this.resolvedContentLocation(u, finalUrl);
    return u;
  }

  /** A Content-Location already resolved against `finalUrl` (`resolveContentLocation`): counted. */
  resolvedContentLocation(url: string, finalUrl: string): void {
    this.evidence.contentLocation++;
    if (stripFragment(url) !== finalUrl) this.evidence.contentLocationElsewhere++;
  }

  build(seeds: readonly string[], stoppedBecause: StopReason, store: StoreStats, rules: readonly RuleRecord[], seedStates?: Readonly<Record<string, string>>): CrawlReport {
    const durationMs = Date.now() - this.started;
    return {
      seeds,
      invalidSeeds: this.invalidSeeds,
      ...(seedStates === undefined ? {} : { seedStates }),
      startedAt: new Date(this.started).toISOString(),
      durationMs,
      stoppedBecause,
      pagesFetched: this.pagesFetched,
      pagesOk: this.pagesOk,
      pagesPerSecond: durationMs > 0 ? Math.round((this.pagesFetched * 100_000) / durationMs) / 100 : 0,
      requests: this.requests,
      robotsRequests: this.robotsRequests,
      redirects: this.redirects,
      documents: this.documents,
      requestsPerDocument: this.documents > 0 ? Math.round((this.requests / this.documents) * 1000) / 1000 : null,
      bytes: { wire: this.wire, decoded: this.decoded },
      statuses: sorted(this.statuses),
      links: {
        found: this.found,
        offered: this.offered,
        admitted: this.admitted,
        ...(this.forwarded > 0 ? { forwarded: this.forwarded } : {}),
        duplicates: sorted(this.duplicates),
        rewritten: sorted(this.rewritten),
        refused: sorted(this.refused),
      },
      trapPatterns: [...this.trapPatterns],
      deferred: sorted(this.deferred),
      errors: sorted(this.errors),
      evidence: { ...this.evidence },
      retries: { ...this.retries },
      store,
      rules: rules.filter((r) => r.state === 'active').map((r) => ({ id: r.id, for: r.for, scopes: formatScopes(r.scopes ?? []) })),
    };
  }
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lines(title: string, map: Readonly<Record<string, number>>): string[] {
  const entries = Object.entries(map);
  if (entries.length === 0) return [];
  const width = Math.max(...entries.map(([k]) => k.length));
  return [title, ...entries.map(([k, v]) => `  ${pad(k, width)}  ${v}`)];
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms / 1000)} s`;
}

/** The report as text for a terminal. */
export function formatReport(r: CrawlReport): string {
  const out: string[] = [];
  const total = Object.values(r.links.duplicates).reduce((a, b) => a + b, 0);
  out.push(`urldedup crawl of ${r.seeds.join(', ') || '(resumed frontier)'}: ${r.stoppedBecause} after ${seconds(r.durationMs)}`);
  for (const s of r.invalidSeeds) out.push(`invalid seed         ${s.code} ${JSON.stringify(s.seed)}`);
  out.push(`pages fetched        ${r.pagesFetched} (${r.pagesOk} ok), ${r.pagesPerSecond} pages/s`);
  out.push(`requests             ${r.requests} (${r.redirects} redirects, ${r.robotsRequests} robots.txt)`);
  out.push(
    `documents            ${r.documents}${r.requestsPerDocument === null ? '' : `, ${r.requestsPerDocument} requests per document`}`,
  );
  out.push(`links                ${r.links.found} found, ${r.links.offered} offered, ${r.links.admitted} new${r.links.forwarded === undefined ? '' : `, ${r.links.forwarded} sent to other workers`}`);
  out.push(`duplicates avoided   ${total}`);
  for (const l of lines('', r.links.duplicates).slice(1)) out.push(l);
  out.push(...lines('rewritten before the first fetch (a redirect saved each)', r.links.rewritten));
  out.push(...lines('links refused', r.links.refused));
  out.push(...lines('statuses', r.statuses));
  out.push(...lines('errors', r.errors));
  if (r.trapPatterns !== undefined && r.trapPatterns.length > 0) {
    out.push("URL patterns refused as traps (no new content; restore('trap:pattern') gives them back)", ...r.trapPatterns.map((p) => `  ${p}`));
  }
  out.push(...lines('left for a later run', r.deferred));
  const t = r.retries;
  if (t !== undefined && t.made + t.pending + t.requeued > 0) {
    out.push(`retries              ${t.made} made, ${t.succeeded} URLs fetched on a retry, ${t.pending} pending for a later run, ${t.requeued} failed URLs queued again`);
  }
  if (r.evidence.canonical + r.evidence.contentLocation > 0) {
    out.push(
      `evidence (not merged) rel=canonical ${r.evidence.canonical} (${r.evidence.canonicalElsewhere} elsewhere), Content-Location ${r.evidence.contentLocation} (${r.evidence.contentLocationElsewhere} elsewhere)`,
    );
  }
  if (r.rules.length > 0) out.push('learned host rules', ...r.rules.map((x) => `  ${x.id} (${x.for} observations${x.scopes === undefined ? '' : `; holds in ${x.scopes}`})`));
  const u = r.store.urls;
  out.push(
    `store                ${u.admitted} URLs: ${u.fetched} fetched, ${u.redirected} redirected, ${u.pruned} pruned, ${u.failed} failed, ${u.queued} queued; ${r.store.aliases} aliases`,
  );
  return out.join('\n') + '\n';
}
