/**
 * Metrics in the Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): `# HELP` and `# TYPE` once per
 * family, then `name{label="value",…} value` lines; label values escape `\`, `"` and newline.
 *
 * Service series are kept here; store series are read from `store.stats()` at scrape time.
 * Route labels are the route templates (unknown paths count as `other`), so a scanner cannot
 * grow the series without bound.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreStats } from '../store/index.js';

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type MetricType = 'counter' | 'gauge' | 'histogram';

function escapeLabelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === '\\' ? '\\\\' : c === '"' ? '\\"' : '\\n'));
}

function escapeHelp(v: string): string {
  return v.replace(/[\\\n]/g, (c) => (c === '\\' ? '\\\\' : '\\n'));
}

function labelText(labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels);
  if (names.length === 0) return '';
  return '{' + names.map((n) => `${n}="${escapeLabelValue(labels[n]!)}"`).join(',') + '}';
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** Writes one exposition: each family's HELP and TYPE, then its samples. */
export class Exposition {
  private readonly lines: string[] = [];

  family(name: string, type: MetricType, help: string): this {
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, value: number, labels: Readonly<Record<string, string>> = {}): this {
    this.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
    return this;
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }
}

/** A counter family keyed by its label values (in a fixed label order). */
class LabeledCounter {
  private readonly values = new Map<string, { labels: Record<string, string>; value: number }>();
  constructor(private readonly labelNames: readonly string[]) {}

  inc(labelValues: readonly string[], by = 1): void {
    const k = labelValues.join('\u0000');
    const entry = this.values.get(k);
    if (entry !== undefined) {
      entry.value += by;
      return;
    }
    const labels: Record<string, string> = {};
    this.labelNames.forEach((n, i) => (labels[n] = labelValues[i] ?? ''));
    this.values.set(k, { labels, value: by });
  }

  write(e: Exposition, name: string): void {
    for (const { labels, value } of this.values.values()) e.sample(name, value, labels);
  }
}

/** A histogram per route: cumulative buckets are computed when written. */
class RouteHistogram {
  private readonly byRoute = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(private readonly bounds: readonly number[]) {}

  observe(route: string, seconds: number): void {
    let h = this.byRoute.get(route);
    if (h === undefined) this.byRoute.set(route, (h = { counts: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 }));
    const i = this.bounds.findIndex((b) => seconds <= b);
    if (i !== -1) h.counts[i]!++;
    h.sum += seconds;
    h.count++;
  }

  write(e: Exposition, name: string): void {
    for (const [route, h] of this.byRoute) {
      let cumulative = 0;
      this.bounds.forEach((b, i) => {
        cumulative += h.counts[i]!;
        e.sample(`${name}_bucket`, cumulative, { route, le: String(b) });
      });
      e.sample(`${name}_bucket`, h.count, { route, le: '+Inf' });
      e.sample(`${name}_sum`, h.sum, { route });
      e.sample(`${name}_count`, h.count, { route });
    }
  }
}

/** What the service counts itself. */
export class ServiceMetrics {
  private readonly requests = new LabeledCounter(['route', 'method', 'status']);
  private readonly latency = new RouteHistogram(LATENCY_BUCKETS);
  private readonly admitResults = new LabeledCounter(['reason']);
  private readonly keyResults = new LabeledCounter(['outcome']);
  private readonly evidence = new LabeledCounter(['kind', 'outcome']);
  private readonly started = Date.now();

  request(route: string, method: string, status: string, seconds: number): void {
    this.requests.inc([route, method, status]);
    this.latency.observe(route, seconds);
  }

  /** One `admit` result: `reason` is `new` when admitted, else why not (`seen`, `preset:tracking`, …). */
  admitted(reason: string): void {
    this.admitResults.inc([reason]);
  }

  /** URLs keyed by `/v1/key`: `ok` with a key, `invalid` without (counted per request, not per URL). */
  keyed(ok: number, invalid: number): void {
    if (ok > 0) this.keyResults.inc(['ok'], ok);
    if (invalid > 0) this.keyResults.inc(['invalid'], invalid);
  }

  evidenceRecorded(kind: 'redirect' | 'fetch', outcome: string): void {
    this.evidence.inc([kind, outcome]);
  }

  render(o: { store: StoreStats; storeBytes: number | undefined; inFlight: number; pendingUrls: number; bufferedBytes: number }): string {
    const e = new Exposition();
    e.family('urldedup_http_requests_total', 'counter', 'HTTP requests answered, by route template, method and status.');
    this.requests.write(e, 'urldedup_http_requests_total');
    e.family('urldedup_http_request_duration_seconds', 'histogram', 'Time from the request head to the end of the response, by route.');
    this.latency.write(e, 'urldedup_http_request_duration_seconds');
    e.family('urldedup_http_requests_in_flight', 'gauge', 'Requests being handled now (health and metrics excluded).');
    e.sample('urldedup_http_requests_in_flight', o.inFlight);
    e.family('urldedup_pending_urls', 'gauge', 'URLs being keyed or admitted now.');
    e.sample('urldedup_pending_urls', o.pendingUrls);
    e.family('urldedup_buffered_body_bytes', 'gauge', 'Request body bytes held now.');
    e.sample('urldedup_buffered_body_bytes', o.bufferedBytes);
    e.family('urldedup_admit_results_total', 'counter', 'Results of POST /v1/admit since start, by reason (new = admitted).');
    this.admitResults.write(e, 'urldedup_admit_results_total');
    e.family('urldedup_key_results_total', 'counter', 'URLs keyed by /v1/key since start, by outcome.');
    this.keyResults.write(e, 'urldedup_key_results_total');
    e.family('urldedup_evidence_total', 'counter', 'Evidence items from POST /v1/evidence since start, by kind and outcome.');
    this.evidence.write(e, 'urldedup_evidence_total');

    const s = o.store;
    e.family('urldedup_store_urls', 'gauge', 'URL entries in the store (the seen set), by state.');
    for (const state of ['queued', 'fetched', 'redirected', 'pruned', 'failed'] as const) e.sample('urldedup_store_urls', s.urls[state], { state });
    e.family('urldedup_store_admitted', 'gauge', 'Keys with a URL entry: the size of the seen set.');
    e.sample('urldedup_store_admitted', s.urls.admitted);
    e.family('urldedup_store_pruned', 'gauge', 'URLs pruned onto another key, by reason (rule:<id>, preset:<name>).');
    for (const [reason, n] of Object.entries(s.pruned)) e.sample('urldedup_store_pruned', n, { reason });
    e.family('urldedup_store_aliases', 'gauge', 'Alias entries (from permanent redirects).');
    e.sample('urldedup_store_aliases', s.aliases);
    e.family('urldedup_store_redirect_loops', 'gauge', 'Redirects recorded as closing a loop.');
    e.sample('urldedup_store_redirect_loops', s.loops);
    e.family('urldedup_store_temporary_redirects', 'gauge', 'Temporary redirects recorded as evidence.');
    e.sample('urldedup_store_temporary_redirects', s.temporaryRedirects);
    e.family('urldedup_store_rules', 'gauge', 'Learned host rules, by state.');
    for (const [state, n] of Object.entries(s.rules)) e.sample('urldedup_store_rules', n, { state });
    e.family('urldedup_store_frontier_size', 'gauge', 'Frontier entries waiting to be fetched.');
    e.sample('urldedup_store_frontier_size', s.frontier.size);
    e.family('urldedup_store_frontier_in_flight', 'gauge', 'Frontier entries handed out and not yet recorded.');
    e.sample('urldedup_store_frontier_in_flight', s.frontier.inFlight);
    if (o.storeBytes !== undefined) {
      e.family('urldedup_store_disk_bytes', 'gauge', 'Size of the store folder on disk.');
      e.sample('urldedup_store_disk_bytes', o.storeBytes);
    }

    e.family('process_resident_memory_bytes', 'gauge', 'Resident set size.');
    e.sample('process_resident_memory_bytes', process.memoryUsage.rss());
    e.family('process_start_time_seconds', 'gauge', 'Start time of the service, seconds since the Unix epoch.');
    e.sample('process_start_time_seconds', Math.floor(this.started / 1000));
    return e.text();
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
