/**
 * The crawl's timeline: what the HTML report draws over time. A bounded recorder the crawl's
 * events feed as it goes (crawl-observers.ts); `toJSON()` is what the report carries as its
 * `timeline` field.
 *
 * Bounds, whatever the crawl's length:
 * - samples: at most `maxPoints`. A sample is kept when `minIntervalMs` passed or `everyPages`
 *   pages were fetched since the last kept one; when the buffer is full every other point is
 *   dropped (the first is kept) and both spacings double, so the points stay evenly spread over
 *   the whole run. The latest sample is always kept as the last point.
 * - rule events: at most `maxRuleEvents`, each with at most `maxEvidence` evidence lines of at
 *   most `maxTextLength` characters; the rest is counted in `rulesDropped`.
 * - hosts: the first `maxHosts` hosts seen have a row each; later hosts add up in `other`.
 */
import { urlFromKey } from '../../normalize/index.js';
import type { Observation, RuleRecord } from '../../store/index.js';
import { formatScopes } from '../../store/learning/rule-scope.js';

/** The crawl's running totals at one moment (the report's figures of the same names). */
export interface TimelineFigures {
  /** Every HTTP request sent so far. */
  readonly requests: number;
  /** Distinct documents reached so far. */
  readonly documents: number;
  /** Pages fetched so far. */
  readonly fetched: number;
  /** Duplicate links avoided so far. */
  readonly duplicates: number;
}

export interface TimelinePoint extends TimelineFigures {
  /** Milliseconds since the timeline's start. */
  readonly t: number;
}

export type RuleChange = 'activated' | 'narrowed' | 'withdrawn';

export interface RuleEvent {
  /** Milliseconds since the timeline's start. */
  readonly t: number;
  /** The rule's id (`host/spec`). */
  readonly id: string;
  /** Where the rule holds after the change (a path pattern), when known. */
  readonly scope?: string;
  readonly change: RuleChange;
  /** What made the change, one line each. */
  readonly evidence: readonly string[];
}

export interface HostFigures {
  readonly requests: number;
  readonly documents: number;
  readonly duplicates: number;
  readonly errors: number;
}

export interface HostRow extends HostFigures {
  readonly host: string;
}

/** The timeline as the report carries it (`CrawlReport.timeline`). */
export interface Timeline {
  /** When the timeline started, ISO 8601 (the crawl's start). */
  readonly startedAt: string;
  readonly points: readonly TimelinePoint[];
  readonly rules: readonly RuleEvent[];
  /** Rule events not kept (over `maxRuleEvents`). */
  readonly rulesDropped: number;
  /** Hosts by requests, most first. */
  readonly hosts: readonly HostRow[];
  /** The hosts past `maxHosts`, added up (absent when there were none). */
  readonly other?: HostFigures & { readonly hosts: number };
}

export interface TimelineOptions {
  /** The crawl's start, epoch ms. @default Date.now() */
  readonly start?: number;
  /** Samples kept at most. @default 500 @example 500 points over a 10-hour crawl: one every 72 s */
  readonly maxPoints?: number;
  /** Least time between two kept samples at first (doubles at each downsampling). @default 250 */
  readonly minIntervalMs?: number;
  /** Or least pages between two kept samples at first (doubles at each downsampling). @default 10 */
  readonly everyPages?: number;
  /** @default 1000 */
  readonly maxRuleEvents?: number;
  /** Evidence lines kept per rule event. @default 8 */
  readonly maxEvidence?: number;
  /** Longest evidence line or scope kept, characters. @default 300 */
  readonly maxTextLength?: number;
  /** Hosts with a row of their own. @default 200 */
  readonly maxHosts?: number;
  /** Distinct hosts counted in `other.hosts` at most (past it the count stops growing). @default 10_000 */
  readonly maxOtherHostsCounted?: number;
}

export const defaultTimelineOptions: Required<Omit<TimelineOptions, 'start'>> = {
  maxPoints: 500,
  minIntervalMs: 250,
  everyPages: 10,
  maxRuleEvents: 1000,
  maxEvidence: 8,
  maxTextLength: 300,
  maxHosts: 200,
  maxOtherHostsCounted: 10_000,
};

interface MutableHost {
  requests: number;
  documents: number;
  duplicates: number;
  errors: number;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function urlOrKey(keyOrUrl: string): string {
  try {
    return urlFromKey(keyOrUrl);
  } catch {
    return keyOrUrl;
  }
}

/** One line of evidence for an observation, e.g. `redirect 301 http://a/x → http://a/x/`. */
export function describeObservation(o: Observation): string {
  const from = urlOrKey(o.source);
  const to = o.to === undefined ? '' : ` → ${urlOrKey(o.to)}`;
  switch (o.how) {
    case 'redirect':
      return `redirect${o.status === undefined ? '' : ` ${o.status}`} ${from}${to}`;
    case 'inverse-redirect':
      return `redirect the other way${o.status === undefined ? '' : ` (${o.status})`} ${from}${to}`;
    case 'content':
      return `${o.v === 'for' ? 'same' : 'different'} content: ${from}${o.to === undefined ? '' : ` and ${urlOrKey(o.to)}`}`;
    case 'content-location':
      return `Content-Location: ${from} answered with the representation of ${o.to === undefined ? '' : urlOrKey(o.to)}`;
    case 'canonical':
      return `rel=canonical: ${from} names ${o.to === undefined ? '' : urlOrKey(o.to)} as its URL`;
    case 'sample':
      return `${o.v === 'for' ? 'same' : 'different'} content, a rewritten URL fetched as itself: ${from}${o.to === undefined ? '' : ` and ${urlOrKey(o.to)}`}`;
    case 'rewrite':
      return `rewrite failed${o.status === undefined ? '' : ` (${o.status})`}: ${from}${to}`;
    case 'operator':
      return 'withdrawn by an operator';
  }
}

/** The bounded recorder the crawl's events feed. */
export class TimelineRecorder {
  readonly start: number;
  private readonly o: Required<Omit<TimelineOptions, 'start'>>;
  private points: TimelinePoint[] = [];
  /** The newest sample, kept or not: it closes the series. */
  private latest: TimelinePoint | undefined;
  private intervalMs: number;
  private everyPages: number;
  private readonly events: RuleEvent[] = [];
  private dropped = 0;
  private readonly hosts = new Map<string, MutableHost>();
  private other: MutableHost | undefined;
  private readonly otherNames = new Set<string>();

  constructor(options: TimelineOptions = {}) {
    this.start = options.start ?? Date.now();
    const { start: _start, ...rest } = options;
    this.o = { ...defaultTimelineOptions, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) };
    if (!(this.o.maxPoints >= 2) || !(this.o.maxHosts >= 0) || !(this.o.maxTextLength >= 2)) {
      throw new TypeError('timeline: maxPoints must be >= 2, maxHosts >= 0, maxTextLength >= 2');
    }
    this.intervalMs = this.o.minIntervalMs;
    this.everyPages = this.o.everyPages;
  }

  /** The running totals at `now` (epoch ms). Cheap when not kept: call it after every page. */
  sample(now: number, figures: TimelineFigures): void {
    const p: TimelinePoint = {
      t: Math.max(0, now - this.start),
      requests: figures.requests,
      documents: figures.documents,
      fetched: figures.fetched,
      duplicates: figures.duplicates,
    };
    this.latest = p;
    const last = this.points[this.points.length - 1];
    if (last !== undefined && p.t - last.t < this.intervalMs && p.fetched - last.fetched < this.everyPages) return;
    if (this.points.length >= this.o.maxPoints - 1) this.downsample(); // one place left for `latest`
    this.points.push(p);
  }

  private downsample(): void {
    this.points = this.points.filter((_, i) => i % 2 === 0);
    this.intervalMs *= 2;
    this.everyPages *= 2;
  }

  /** A rule activated, narrowed or withdrawn at `t` (epoch ms). */
  ruleEvent(t: number, event: Omit<RuleEvent, 't'>): void {
    if (this.events.length >= this.o.maxRuleEvents) {
      this.dropped++;
      return;
    }
    const max = this.o.maxTextLength;
    const evidence = event.evidence.slice(0, this.o.maxEvidence).map((e) => clip(e, max));
    if (event.evidence.length > this.o.maxEvidence) evidence.push(`… and ${event.evidence.length - this.o.maxEvidence} more`);
    this.events.push({
      t: t - this.start,
      id: clip(event.id, max),
      ...(event.scope === undefined ? {} : { scope: clip(event.scope, max) }),
      change: event.change,
      evidence,
    });
  }

  /**
   * The changes a stored rule went through during this run (`activated` and `withdrawn` at or after
   * the start), with the evidence its record keeps. Call it for each of `store.rules()` at the end.
   */
  ruleRecord(rule: RuleRecord): void {
    if (rule.activated !== undefined && rule.activated >= this.start) {
      this.ruleEvent(rule.activated, {
        id: rule.id,
        change: 'activated',
        ...(rule.scopes === undefined ? {} : { scope: formatScopes(rule.scopes) }),
        evidence: [`${rule.for} observation${rule.for === 1 ? '' : 's'} for, from distinct URLs; none against`],
      });
    }
    if (rule.withdrawn !== undefined && rule.withdrawn >= this.start) {
      const evidence = [`${rule.for} for, ${rule.against} against${rule.activated === undefined ? '; withdrawn as a candidate, before it was ever active' : ''}`];
      if (rule.contradiction !== undefined) evidence.unshift(`contradicted by ${describeObservation(rule.contradiction)}`);
      this.ruleEvent(rule.withdrawn, { id: rule.id, change: 'withdrawn', evidence });
    }
  }

  /** Add `delta` to `host`'s counters (the page's own requests, new documents, duplicates, errors). */
  host(host: string, delta: Partial<HostFigures>): void {
    let row = this.hosts.get(host);
    if (row === undefined) {
      if (this.hosts.size < this.o.maxHosts) {
        row = { requests: 0, documents: 0, duplicates: 0, errors: 0 };
        this.hosts.set(host, row);
      } else {
        row = this.other ??= { requests: 0, documents: 0, duplicates: 0, errors: 0 };
        if (this.otherNames.size < this.o.maxOtherHostsCounted) this.otherNames.add(host);
      }
    }
    row.requests += delta.requests ?? 0;
    row.documents += delta.documents ?? 0;
    row.duplicates += delta.duplicates ?? 0;
    row.errors += delta.errors ?? 0;
  }

  toJSON(): Timeline {
    const last = this.points[this.points.length - 1];
    const points = this.latest !== undefined && this.latest !== last ? [...this.points, this.latest] : [...this.points];
    const hosts = [...this.hosts]
      .map(([host, f]) => ({ host, ...f }))
      .sort((a, b) => b.requests - a.requests || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
    return {
      startedAt: new Date(this.start).toISOString(),
      points,
      rules: [...this.events].sort((a, b) => a.t - b.t),
      rulesDropped: this.dropped,
      hosts,
      ...(this.other === undefined ? {} : { other: { hosts: this.otherNames.size, ...this.other } }),
    };
  }
}
