/**
 * Metrics in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), written by prom-client: the
 * ecosystem's client, which also gives the standard process and Node.js runtime families
 * (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_start_time_seconds`,
 * `nodejs_eventloop_lag_seconds`, `nodejs_gc_duration_seconds`, heap sizes, …).
 *
 * Each service has its own registry (several services may run in one process); the process and
 * runtime families are collected once per process, in a registry the services share, and merged
 * into each scrape. Service series are counted as requests are answered; store series are read
 * from `store.stats()` at scrape time.
 *
 * Label cardinality is bounded, so a crawl of many hosts (or a scanner) cannot grow the series:
 * - `route` is a route template; unknown paths count as `other`.
 * - `reason` (admit results, pruned URLs) is `new`, `seen`, `alias`, `duplicate-in-batch`,
 *   `out-of-scope`, `preset:<name>`, `trap:<name>`, `invalid:<code>` — each from a fixed set —
 *   or, for a learned host rule, `rule:<kind>` (`rule:https`, `rule:query-parameter`, …). A rule id
 *   names a host (`example.com/https`), so `rule:<id>` labels are opt-in (`metricsRuleIds`) and
 *   capped: the first N rule ids met keep their own label, later ones count under their kind.
 * - The frontier's per-host counts (`stats.frontier.hosts`) are not exported.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { parseRuleId, type StoreStats } from '../store/index.js';

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `Content-Type` of the exposition. */
export const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface MetricsOptions {
  /**
   * Rule ids kept as their own `reason` label (`rule:example.com/https`); rules past this many
   * count under `rule:<kind>`. A rule id names a host: each one is a new series. @default 0
   */
  readonly ruleIdLabels?: number;
  /** Export `urldedup_store_disk_bytes` (the store is a folder). @default false */
  readonly storeOnDisk?: boolean;
}

/** What a scrape reads besides the counters. */
export interface ScrapeState {
  readonly store: StoreStats;
  readonly storeBytes: number | undefined;
  readonly inFlight: number;
  readonly pendingUrls: number;
  readonly bufferedBytes: number;
}

/** Maps reasons to bounded label values (see the module comment). */
export class ReasonLabels {
  private readonly kept = new Set<string>();
  constructor(private readonly ruleIdLabels: number) {}

  label(reason: string): string {
    if (!reason.startsWith('rule:')) return reason;
    if (this.kept.has(reason)) return reason;
    if (this.kept.size < this.ruleIdLabels) {
      this.kept.add(reason);
      return reason;
    }
    const rule = parseRuleId(reason.slice(5));
    return rule === undefined ? 'rule:other' : `rule:${rule.spec.kind}`;
  }
}

let processRegistry: Registry | undefined;

/** The process and Node.js families, collected once per process (their collectors never stop). */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const URL_STATES = ['queued', 'fetched', 'redirected', 'pruned', 'failed'] as const;

/** What the service counts itself, and the store's counts at scrape time. */
export class ServiceMetrics {
  /** The service's own families (the process and Node.js ones are merged in at scrape time). */
  readonly registry = new Registry();
  private readonly reasons: ReasonLabels;
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly admitResults: Counter<'reason'>;
  private readonly keyResults: Counter<'outcome'>;
  private readonly evidence: Counter<'kind' | 'outcome'>;
  private readonly scrape: {
    inFlight: Gauge;
    pendingUrls: Gauge;
    bufferedBytes: Gauge;
    urls: Gauge<'state'>;
    admitted: Gauge;
    pruned: Gauge<'reason'>;
    aliases: Gauge;
    loops: Gauge;
    temporaryRedirects: Gauge;
    rules: Gauge<'state'>;
    frontierSize: Gauge;
    frontierInFlight: Gauge;
    diskBytes: Gauge | undefined;
  };

  constructor(o: MetricsOptions = {}) {
    const registers = [this.registry];
    this.reasons = new ReasonLabels(o.ruleIdLabels ?? 0);
    processMetrics();
    this.requests = new Counter({ name: 'urldedup_http_requests_total', help: 'HTTP requests answered, by route template, method and status.', labelNames: ['route', 'method', 'status'], registers });
    this.latency = new Histogram({ name: 'urldedup_http_request_duration_seconds', help: 'Time from the request head to the end of the response, by route.', labelNames: ['route'], buckets: [...LATENCY_BUCKETS], registers });
    this.admitResults = new Counter({ name: 'urldedup_admit_results_total', help: 'Results of POST /v1/admit since start, by reason (new = admitted; rule:<kind> for learned host rules).', labelNames: ['reason'], registers });
    this.keyResults = new Counter({ name: 'urldedup_key_results_total', help: 'URLs keyed by /v1/key since start, by outcome.', labelNames: ['outcome'], registers });
    this.evidence = new Counter({ name: 'urldedup_evidence_total', help: 'Evidence items from POST /v1/evidence since start, by kind and outcome.', labelNames: ['kind', 'outcome'], registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> => new Gauge<L>({ name, help, labelNames, registers });
    this.scrape = {
      inFlight: gauge('urldedup_http_requests_in_flight', 'Requests being handled now (health and metrics excluded).'),
      pendingUrls: gauge('urldedup_pending_urls', 'URLs being keyed or admitted now.'),
      bufferedBytes: gauge('urldedup_buffered_body_bytes', 'Request body bytes held now.'),
      urls: gauge('urldedup_store_urls', 'URL entries in the store (the seen set), by state.', ['state']),
      admitted: gauge('urldedup_store_admitted', 'Keys with a URL entry: the size of the seen set.'),
      pruned: gauge('urldedup_store_pruned', 'URLs pruned onto another key, by reason (rule:<kind>, preset:<name>, trap:<name>).', ['reason']),
      aliases: gauge('urldedup_store_aliases', 'Alias entries (from permanent redirects).'),
      loops: gauge('urldedup_store_redirect_loops', 'Redirects recorded as closing a loop.'),
      temporaryRedirects: gauge('urldedup_store_temporary_redirects', 'Temporary redirects recorded as evidence.'),
      rules: gauge('urldedup_store_rules', 'Learned host rules, by state.', ['state']),
      frontierSize: gauge('urldedup_store_frontier_size', 'Frontier entries waiting to be fetched.'),
      frontierInFlight: gauge('urldedup_store_frontier_in_flight', 'Frontier entries handed out and not yet recorded.'),
      diskBytes: o.storeOnDisk === true ? gauge('urldedup_store_disk_bytes', 'Size of the store folder on disk.') : undefined,
    };
  }

  request(route: string, method: string, status: string, seconds: number): void {
    this.requests.inc({ route, method, status });
    this.latency.observe({ route }, seconds);
  }

  /** One `admit` result: `reason` is `new` when admitted, else why not (`seen`, `preset:tracking`, …). */
  admitted(reason: string): void {
    this.admitResults.inc({ reason: this.reasons.label(reason) });
  }

  /** URLs keyed by `/v1/key`: `ok` with a key, `invalid` without (counted per request, not per URL). */
  keyed(ok: number, invalid: number): void {
    if (ok > 0) this.keyResults.inc({ outcome: 'ok' }, ok);
    if (invalid > 0) this.keyResults.inc({ outcome: 'invalid' }, invalid);
  }

  evidenceRecorded(kind: 'redirect' | 'fetch', outcome: string): void {
    this.evidence.inc({ kind, outcome });
  }

  /** The exposition, with the scrape-time gauges set from `o`. */
  async render(o: ScrapeState): Promise<string> {
    const g = this.scrape;
    const s = o.store;
    g.inFlight.set(o.inFlight);
    g.pendingUrls.set(o.pendingUrls);
    g.bufferedBytes.set(o.bufferedBytes);
    for (const state of URL_STATES) g.urls.set({ state }, s.urls[state]);
    g.admitted.set(s.urls.admitted);
    // reasons are summed by label (several rules of one kind share `rule:<kind>`); one gone since
    // the last scrape is dropped
    const pruned = new Map<string, number>();
    for (const [reason, n] of Object.entries(s.pruned)) {
      const label = this.reasons.label(reason);
      pruned.set(label, (pruned.get(label) ?? 0) + n);
    }
    g.pruned.reset();
    for (const [reason, n] of pruned) g.pruned.set({ reason }, n);
    g.aliases.set(s.aliases);
    g.loops.set(s.loops);
    g.temporaryRedirects.set(s.temporaryRedirects);
    g.rules.reset();
    for (const [state, n] of Object.entries(s.rules)) g.rules.set({ state }, n);
    g.frontierSize.set(s.frontier.size);
    g.frontierInFlight.set(s.frontier.inFlight);
    if (g.diskBytes !== undefined && o.storeBytes !== undefined) g.diskBytes.set(o.storeBytes);
    return Registry.merge([processMetrics(), this.registry]).metrics();
  }
}

/** Bytes of the files in a folder (LevelDB keeps its files flat), or `undefined` when unreadable. */
export async function folderBytes(dir: string): Promise<number | undefined> {
  try {
    const names = await readdir(dir);
    let total = 0;
    for (const n of names) {
      const s = await stat(join(dir, n)).catch(() => undefined);
      if (s?.isFile() === true) total += s.size;
    }
    return total;
  } catch {
    return undefined;
  }
}
