/**
 * The crawl report as one self-contained HTML page: inline CSS and inline SVG charts drawn here,
 * no script, no font, no request of any kind when it is opened (a Content-Security-Policy of
 * `default-src 'none'` says so to the browser too).
 *
 * Every string that comes from the report (seeds, hosts, rule ids, evidence, error codes, bucket
 * names) is attacker-controlled: a crawled site chooses its URLs. Each goes through `escapeHtml`,
 * in text and in attributes alike.
 *
 * Each headline figure is an element with `data-figure="<name>"` whose text is the figure as
 * shown; tests read them back and compare them with the JSON report.
 */
import type { CrawlReport } from '../crawler/report/report.js';
import type { HostRow, RuleEvent, Timeline, TimelinePoint } from '../crawler/report/timeline.js';

export type ReportWithTimeline = CrawlReport & { readonly timeline?: Timeline };

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML-escapes text for an element's content or a quoted attribute value (HTML §13.1.2.3, §13.5). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** An integer with thousands separators (`12,345`); other numbers to at most 3 decimals. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** A duration as shown: `850 ms`, `4.25 s`, `3 min 20 s`, `2 h 05 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** The ladder's order of the duplicate buckets (report.ts), unknown buckets last. */
function bucketRank(bucket: string): number {
  const fixed = ['same-page', 'exact', 'fragment', 'syntax', 'scheme', 'resolution', 'alias'];
  const i = fixed.indexOf(bucket);
  if (i !== -1) return i;
  if (bucket.startsWith('rule:')) return fixed.length;
  if (bucket.startsWith('preset:')) return fixed.length + 1;
  return fixed.length + 2;
}

const BUCKET_MEANING: Readonly<Record<string, string>> = {
  'same-page': 'the same reference earlier on the page',
  exact: 'equal character for character after resolution',
  fragment: 'equal once the fragment is dropped',
  syntax: 'equal after the syntax rung (case, percent-encoding, dot-segments)',
  scheme: 'equal after the scheme rung (default port, empty path, IDNA)',
  resolution: 'equal only as a browser resolves it',
  alias: 'through a permanent redirect seen earlier',
};

function meaningOf(bucket: string): string {
  if (bucket.startsWith('rule:')) return 'through a learned host rule';
  if (bucket.startsWith('preset:')) return 'through an opt-in policy preset';
  return BUCKET_MEANING[bucket] ?? '';
}

// ---- charts ---------------------------------------------------------------------------------------

/** Round tick steps (1, 2, 5 × 10^k) covering [0, max] in about `count` steps. */
function ticks(max: number, count: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = 0; v < max + step / 2; v += step) out.push(Math.round(v * 1e9) / 1e9);
  if (out[out.length - 1]! < max) out.push(out[out.length - 1]! + step);
  return out;
}

function axisLabel(v: number): string {
  if (v >= 1_000_000) return `${formatNumber(v / 1_000_000)}M`;
  if (v >= 10_000) return `${formatNumber(v / 1000)}k`;
  return formatNumber(v);
}

/** The unit of a time axis spanning `maxMs`: seconds, minutes or hours. */
function timeUnit(maxMs: number): { readonly ms: number; readonly name: string } {
  if (maxMs > 3 * 3_600_000) return { ms: 3_600_000, name: 'hours' };
  if (maxMs > 10 * 60_000) return { ms: 60_000, name: 'minutes' };
  return { ms: 1000, name: 'seconds' };
}

/** `text` cut in the middle to at most `max` characters (the ends of a rule id say the most). */
function middleEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.4);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

interface Series {
  readonly name: string;
  readonly className: string;
  /** [x, y] with x in ms; y null for no value at that x. */
  readonly values: readonly (readonly [number, number | null])[];
}

const W = 640;
const H = 240;
const PAD = { left: 56, right: 16, top: 16, bottom: 36 };

/** A line chart of one or more series over time, as an inline SVG. */
function lineChart(id: string, label: string, xMaxMs: number, series: readonly Series[]): string {
  const ys = series.flatMap((s) => s.values.map(([, y]) => y)).filter((y): y is number => y !== null);
  const yTicks = ticks(Math.max(0, ...ys), 4);
  const yMax = yTicks[yTicks.length - 1]!;
  const unit = timeUnit(xMaxMs);
  const xTicksU = ticks(Math.max(xMaxMs, 1) / unit.ms, 6);
  const xMax = xTicksU[xTicksU.length - 1]! * unit.ms;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const sx = (x: number): number => PAD.left + (x / xMax) * iw;
  const sy = (y: number): number => PAD.top + ih - (y / yMax) * ih;
  const f = (n: number): string => n.toFixed(1);
  const out: string[] = [];
  out.push(`<svg class="chart" id="${id}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(label)}">`);
  for (const t of yTicks) {
    out.push(`<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${f(sy(t))}" y2="${f(sy(t))}"/>`);
    out.push(`<text class="tick" x="${PAD.left - 6}" y="${f(sy(t) + 4)}" text-anchor="end">${escapeHtml(axisLabel(t))}</text>`);
  }
  for (const t of xTicksU) {
    out.push(`<text class="tick" x="${f(sx(t * unit.ms))}" y="${H - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(axisLabel(t))}</text>`);
  }
  out.push(`<text class="axis" x="${PAD.left + iw / 2}" y="${H - 4}" text-anchor="middle">${unit.name} since the start</text>`);
  out.push(`<line class="axisline" x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + ih}"/>`);
  out.push(`<line class="axisline" x1="${PAD.left}" x2="${W - PAD.right}" y1="${PAD.top + ih}" y2="${PAD.top + ih}"/>`);
  for (const s of series) {
    // a gap where the series has no value (requests per document before the first document)
    const runs: string[][] = [[]];
    for (const [x, y] of s.values) {
      if (y === null) {
        if (runs[runs.length - 1]!.length > 0) runs.push([]);
        continue;
      }
      runs[runs.length - 1]!.push(`${f(sx(x))},${f(sy(y))}`);
    }
    for (const run of runs) {
      if (run.length === 1) out.push(`<circle class="${s.className}" cx="${run[0]!.split(',')[0]}" cy="${run[0]!.split(',')[1]}" r="2.5"/>`);
      else if (run.length > 1) out.push(`<polyline class="line ${s.className}" points="${run.join(' ')}"><title>${escapeHtml(s.name)}</title></polyline>`);
    }
  }
  out.push('</svg>');
  if (series.length > 1) {
    out.push(`<p class="legend">${series.map((s) => `<span class="key ${s.className}"></span>${escapeHtml(s.name)}`).join(' ')}</p>`);
  }
  return out.join('');
}

/** A horizontal bar chart with the value at each bar's end. */
function barChart(id: string, label: string, rows: readonly { readonly name: string; readonly value: number; readonly className: string }[]): string {
  const rowH = 24;
  const labelW = 230;
  const valueW = 70;
  const h = rows.length * rowH + 8;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const out: string[] = [`<svg class="chart bars" id="${id}" viewBox="0 0 ${W} ${h}" role="img" aria-label="${escapeHtml(label)}">`];
  rows.forEach((r, i) => {
    const y = 4 + i * rowH;
    const w = Math.max(1, ((W - labelW - valueW) * r.value) / max);
    const name = middleEllipsis(r.name, 27);
    out.push(`<text class="barlabel" x="${labelW - 8}" y="${y + 16}" text-anchor="end">${escapeHtml(name)}<title>${escapeHtml(r.name)}</title></text>`);
    out.push(`<rect class="bar ${r.className}" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}"/>`);
    out.push(`<text class="barvalue" x="${(labelW + w + 6).toFixed(1)}" y="${y + 16}">${escapeHtml(formatNumber(r.value))}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

const CHANGE_CLASS: Readonly<Record<RuleEvent['change'], string>> = { activated: 'ok', narrowed: 'warn', withdrawn: 'bad' };

/** Rule events as marks on a time axis: one lane per change. */
function ruleLanes(events: readonly RuleEvent[], xMaxMs: number): string {
  const lanes: RuleEvent['change'][] = ['activated', 'narrowed', 'withdrawn'];
  const laneH = 28;
  const h = PAD.top + lanes.length * laneH + 40;
  const unit = timeUnit(xMaxMs);
  const xTicksU = ticks(Math.max(xMaxMs, 1) / unit.ms, 6);
  const xMax = xTicksU[xTicksU.length - 1]! * unit.ms;
  const left = 90;
  const iw = W - left - PAD.right;
  const sx = (x: number): number => left + (Math.min(Math.max(x, 0), xMax) / xMax) * iw;
  const out: string[] = [`<svg class="chart" id="chart-rules" viewBox="0 0 ${W} ${h}" role="img" aria-label="rule changes over time">`];
  lanes.forEach((lane, i) => {
    const y = PAD.top + i * laneH + laneH / 2;
    out.push(`<line class="grid" x1="${left}" x2="${W - PAD.right}" y1="${y}" y2="${y}"/>`);
    out.push(`<text class="tick" x="${left - 8}" y="${y + 4}" text-anchor="end">${lane}</text>`);
    for (const e of events) {
      if (e.change !== lane) continue;
      out.push(`<circle class="mark ${CHANGE_CLASS[lane]}" cx="${sx(e.t).toFixed(1)}" cy="${y}" r="6"><title>${escapeHtml(`${e.id} ${e.change} at ${formatDuration(e.t)}`)}</title></circle>`);
    }
  });
  const base = PAD.top + lanes.length * laneH;
  for (const t of xTicksU) out.push(`<text class="tick" x="${sx(t * unit.ms).toFixed(1)}" y="${base + 16}" text-anchor="middle">${escapeHtml(axisLabel(t))}</text>`);
  out.push(`<text class="axis" x="${left + iw / 2}" y="${h - 2}" text-anchor="middle">${unit.name} since the start</text>`);
  out.push('</svg>');
  return out.join('');
}

// ---- sections -------------------------------------------------------------------------------------

function figure(name: string, label: string, value: string, note = ''): string {
  return `<div class="figure"><dt>${escapeHtml(label)}</dt><dd data-figure="${escapeHtml(name)}">${escapeHtml(value)}</dd>${note === '' ? '' : `<small>${escapeHtml(note)}</small>`}</div>`;
}

function sum(map: Readonly<Record<string, number>>): number {
  return Object.values(map).reduce((a, b) => a + b, 0);
}

function headline(r: ReportWithTimeline): string {
  const parts = [
    figure('pagesFetched', 'pages fetched', formatNumber(r.pagesFetched), `${formatNumber(r.pagesOk)} ok`),
    figure('requests', 'requests', formatNumber(r.requests), `${formatNumber(r.redirects)} redirects, ${formatNumber(r.robotsRequests)} robots.txt`),
    figure('documents', 'documents', formatNumber(r.documents), 'distinct contents'),
    figure('requestsPerDocument', 'requests per document', r.requestsPerDocument === null ? '–' : formatNumber(r.requestsPerDocument), '1 is no waste'),
    figure('duplicatesAvoided', 'duplicates avoided', formatNumber(sum(r.links.duplicates)), 'links not fetched again'),
    figure('durationMs', 'duration', formatDuration(r.durationMs), `${formatNumber(r.pagesPerSecond)} pages/s`),
  ];
  return `<section><dl class="figures">${parts.join('')}</dl></section>`;
}

function table(id: string, head: readonly string[], rows: readonly (readonly string[])[], numeric: readonly boolean[]): string {
  const th = head.map((h, i) => `<th${numeric[i] === true ? ' class="n"' : ''}>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((c, i) => `<td${numeric[i] === true ? ' class="n"' : ''}>${c}</td>`).join('')}</tr>`).join('');
  return `<table id="${id}"><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

/** A table of a counter map (already escaped cells). */
function countTable(id: string, title: string, map: Readonly<Record<string, number>>): string {
  const entries = Object.entries(map);
  if (entries.length === 0) return '';
  const rows = entries.map(([k, v]) => [`<code>${escapeHtml(k)}</code>`, escapeHtml(formatNumber(v))]);
  return `<div class="half"><h3>${escapeHtml(title)}</h3>${table(id, ['', 'count'], rows, [false, true])}</div>`;
}

function overTime(t: Timeline | undefined, durationMs: number, pagesFetched: number): string {
  if (t === undefined || t.points.length === 0) {
    return '<section><h2>Over time</h2><p class="note">This report has no timeline (it was written by a urldedup that did not record one): only the totals are shown.</p></section>';
  }
  // a run that fetched nothing has no curve to draw: say so rather than draw empty axes
  if (pagesFetched === 0) {
    return '<section><h2>Over time</h2><p class="note" id="no-pages">No page was fetched in this run: nothing to chart. The statuses and errors below say why.</p></section>';
  }
  const xMax = Math.max(durationMs, ...t.points.map((p) => p.t));
  const pts: readonly TimelinePoint[] = t.points[0]!.t > 0 ? [{ t: 0, requests: 0, documents: 0, fetched: 0, duplicates: 0 }, ...t.points] : t.points;
  const rpd: Series = {
    name: 'requests per document',
    className: 's1',
    values: pts.map((p) => [p.t, p.documents > 0 ? p.requests / p.documents : null] as const),
  };
  const docs: Series = { name: 'documents', className: 's2', values: pts.map((p) => [p.t, p.documents] as const) };
  const fetched: Series = { name: 'pages fetched', className: 's3', values: pts.map((p) => [p.t, p.fetched] as const) };
  return (
    '<section><h2>Over time</h2><div class="charts">' +
    `<div class="half"><h3>Requests per document</h3>${lineChart('chart-requests-per-document', 'requests per document over time', xMax, [rpd])}</div>` +
    `<div class="half"><h3>New documents</h3>${lineChart('chart-documents', 'documents reached over time', xMax, [docs, fetched])}</div>` +
    `</div><p class="note">${formatNumber(t.points.length)} samples.</p></section>`
  );
}

function duplicates(r: ReportWithTimeline): string {
  const entries = Object.entries(r.links.duplicates).sort((a, b) => bucketRank(a[0]) - bucketRank(b[0]) || b[1] - a[1]);
  const total = sum(r.links.duplicates);
  const head = `<section><h2>Duplicates avoided by step</h2><p>${escapeHtml(formatNumber(r.links.found))} links found, ${escapeHtml(formatNumber(r.links.offered))} offered to the store, ${escapeHtml(formatNumber(r.links.admitted))} new; <span data-figure="duplicatesTotal">${escapeHtml(formatNumber(total))}</span> duplicates avoided.</p>`;
  if (entries.length === 0) return `${head}<p class="note">No duplicate links.</p></section>`;
  const bars = barChart(
    'chart-duplicates',
    'duplicates avoided by step',
    entries.map(([name, value]) => ({ name, value, className: bucketRank(name) >= 7 ? 's2' : 's1' })),
  );
  const rows = entries.map(([k, v]) => [`<code>${escapeHtml(k)}</code>`, escapeHtml(meaningOf(k)), `<span data-duplicates="${escapeHtml(k)}">${escapeHtml(formatNumber(v))}</span>`]);
  const rewritten = Object.entries(r.links.rewritten);
  const rewrittenText =
    rewritten.length === 0
      ? ''
      : `<h3>Rewritten before their first fetch (a redirect saved each)</h3>${table('table-rewritten', ['by', 'links'], rewritten.map(([k, v]) => [`<code>${escapeHtml(k)}</code>`, escapeHtml(formatNumber(v))]), [false, true])}`;
  const legend = '<p class="legend"><span class="key s1"></span>the ladder and the alias table <span class="key s2"></span>learned host rules and policy presets</p>';
  return `${head}${bars}${legend}${table('table-duplicates', ['step', 'the link equals a known URL …', 'links'], rows, [false, false, true])}${rewrittenText}</section>`;
}

function rules(r: ReportWithTimeline): string {
  const t = r.timeline;
  const out: string[] = ['<section><h2>Host rules</h2>'];
  if (t !== undefined && t.rules.length > 0) {
    out.push(ruleLanes(t.rules, Math.max(r.durationMs, ...t.rules.map((e) => e.t))));
    const rows = t.rules.map((e) => [
      escapeHtml(formatDuration(Math.max(0, e.t))),
      `<code>${escapeHtml(e.id)}</code>`,
      `<span class="tag ${CHANGE_CLASS[e.change]}">${e.change}</span>`,
      e.scope === undefined ? '' : `<code>${escapeHtml(e.scope)}</code>`,
      `<ul class="evidence">${e.evidence.map((x) => `<li>${escapeHtml(x)}</li>`).join('')}</ul>`,
    ]);
    out.push(table('table-rule-events', ['at', 'rule', 'change', 'scope', 'evidence'], rows, [true, false, false, false, false]));
    if (t.rulesDropped > 0) out.push(`<p class="note">${escapeHtml(formatNumber(t.rulesDropped))} more rule events were not kept.</p>`);
  } else if (t !== undefined) {
    out.push('<p class="note">No rule was learned or withdrawn during this run.</p>');
  }
  if (r.rules.length > 0) {
    out.push('<h3>Active after the run</h3>');
    const rows = r.rules.map((x) => [`<code>${escapeHtml(x.id)}</code>`, x.scopes === undefined ? '' : `<code>${escapeHtml(x.scopes)}</code>`, escapeHtml(formatNumber(x.for))]);
    out.push(table('table-rules', ['rule', 'scope', 'observations for'], rows, [false, false, true]));
  } else {
    out.push('<p class="note">No host rule is active.</p>');
  }
  out.push('</section>');
  return out.join('');
}

function hosts(t: Timeline | undefined, frontierHosts: Readonly<Record<string, number>>): string {
  if (t === undefined || (t.hosts.length === 0 && t.other === undefined)) {
    const queued = Object.entries(frontierHosts);
    if (queued.length === 0) return '';
    return `<section><h2>Hosts</h2><p class="note">Per-host figures need a timeline; the frontier left queued:</p>${table('table-hosts', ['host', 'queued'], queued.map(([h, n]) => [`<code>${escapeHtml(h)}</code>`, escapeHtml(formatNumber(n))]), [false, true])}</section>`;
  }
  const row = (name: string, h: Omit<HostRow, 'host'>, queued: string): string[] => [
    name,
    escapeHtml(formatNumber(h.requests)),
    escapeHtml(formatNumber(h.documents)),
    h.documents > 0 ? escapeHtml(formatNumber(Math.round((h.requests / h.documents) * 100) / 100)) : '–',
    escapeHtml(formatNumber(h.duplicates)),
    escapeHtml(formatNumber(h.errors)),
    queued,
  ];
  const rows = t.hosts.map((h) => row(`<code>${escapeHtml(h.host)}</code>`, h, escapeHtml(formatNumber(frontierHosts[h.host] ?? 0))));
  if (t.other !== undefined) rows.push(row(`<em>${escapeHtml(formatNumber(t.other.hosts))} other hosts</em>`, t.other, ''));
  return `<section><h2>Hosts</h2>${table('table-hosts', ['host', 'requests', 'documents', 'requests/doc', 'duplicates', 'errors', 'queued'], rows, [false, true, true, true, true, true, true])}</section>`;
}

/** What became of each seed (the first 100) and each refused one: where a run that reached nothing went wrong. */
function seedSection(r: ReportWithTimeline): string {
  const rows: string[][] = [];
  for (const [seed, state] of Object.entries(r.seedStates ?? {})) rows.push([`<code>${escapeHtml(seed)}</code>`, `<span data-seed-state>${escapeHtml(state)}</span>`]);
  for (const s of r.invalidSeeds) rows.push([`<code>${escapeHtml(s.seed)}</code>`, `<span data-seed-state>refused: ${escapeHtml(s.code)}</span>`]);
  if (rows.length === 0) return '';
  return `<section><h2>Seeds</h2>${table('table-seeds', ['seed', 'state after the run'], rows, [false, false])}</section>`;
}

function outcomes(r: ReportWithTimeline): string {
  const parts = [
    countTable('table-errors', 'Errors by code', r.errors),
    countTable('table-statuses', 'Final statuses', r.statuses),
    countTable('table-refused', 'Links refused', r.links.refused),
    countTable('table-deferred', 'Left for a later run', r.deferred),
  ].filter((p) => p !== '');
  const none = Object.keys(r.errors).length === 0 ? '<p class="note" id="no-errors">No errors.</p>' : '';
  return `<section><h2>Outcomes</h2>${none}<div class="charts">${parts.join('')}</div></section>`;
}

function storeSection(r: ReportWithTimeline): string {
  const u = r.store.urls;
  const e = r.evidence;
  return (
    `<section><h2>Store after the run</h2><p>${escapeHtml(formatNumber(u.admitted))} URLs: ${escapeHtml(formatNumber(u.fetched))} fetched, ${escapeHtml(formatNumber(u.redirected))} redirected, ${escapeHtml(formatNumber(u.pruned))} pruned, ${escapeHtml(formatNumber(u.failed))} failed, ${escapeHtml(formatNumber(u.queued))} queued; ` +
    `${escapeHtml(formatNumber(r.store.aliases))} aliases; rules: ${escapeHtml(formatNumber(r.store.rules.active))} active, ${escapeHtml(formatNumber(r.store.rules.candidate))} candidates, ${escapeHtml(formatNumber(r.store.rules.withdrawn))} withdrawn.</p>` +
    `<p>Evidence recorded, not merged: rel=canonical ${escapeHtml(formatNumber(e.canonical))} (${escapeHtml(formatNumber(e.canonicalElsewhere))} elsewhere), Content-Location ${escapeHtml(formatNumber(e.contentLocation))} (${escapeHtml(formatNumber(e.contentLocationElsewhere))} elsewhere).</p></section>`
  );
}

const CSS = `
:root{--fg:#1d2330;--muted:#5d6677;--line:#d9dde5;--bg:#fff;--panel:#f5f7fa;--s1:#2f6fdb;--s2:#1a9a6c;--s3:#9a6a1a;--ok:#1a9a6c;--warn:#c98a00;--bad:#c8372d}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1340px;padding:24px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}h3{font-size:14px;margin:12px 0 6px;color:var(--muted)}
header p{margin:2px 0;color:var(--muted)}code{font:12px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;margin:16px 0 0}
.figure{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px 14px}
.figure dt{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}.figure dd{margin:2px 0;font-size:26px;font-weight:600;font-variant-numeric:tabular-nums}.figure small{color:var(--muted)}
.charts{display:flex;flex-wrap:wrap;gap:16px 32px}.half{flex:1 1 560px;min-width:0}
.chart{width:100%;max-width:${W}px;height:auto;display:block}
.chart .grid{stroke:var(--line);stroke-width:1}.chart .axisline{stroke:var(--muted);stroke-width:1}
.chart text{font-size:11px;fill:var(--muted)}.chart .axis{font-size:11px}.chart .barlabel{fill:var(--fg);font-size:12px}.chart .barvalue{fill:var(--fg);font-size:12px;font-weight:600}
.line{fill:none;stroke-width:2}.line.s1{stroke:var(--s1)}.line.s2{stroke:var(--s2)}.line.s3{stroke:var(--s3);stroke-dasharray:5 4}
circle.s1{fill:var(--s1)}circle.s2{fill:var(--s2)}circle.s3{fill:var(--s3)}
.bar.s1{fill:var(--s1)}.bar.s2{fill:var(--s2)}
.mark.ok{fill:var(--ok)}.mark.warn{fill:var(--warn)}.mark.bad{fill:var(--bad)}.mark{stroke:#fff;stroke-width:1.5;fill-opacity:.85}
.legend{color:var(--muted);margin:4px 0}.key{display:inline-block;width:14px;height:3px;vertical-align:middle;margin:0 6px 0 10px}.key.s1{background:var(--s1)}.key.s2{background:var(--s2)}.key.s3{background:var(--s3)}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}th{color:var(--muted);font-weight:600;font-size:12px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.tag{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;color:#fff}.tag.ok{background:var(--ok)}.tag.warn{background:var(--warn)}.tag.bad{background:var(--bad)}
.evidence{margin:0;padding-left:16px}.evidence li{word-break:break-all}.note{color:var(--muted)}
footer{margin-top:32px;color:var(--muted);font-size:12px}
`;

/** The report as one self-contained HTML page (write it to a `.html` file and open it). */
export function renderReportHtml(report: ReportWithTimeline): string {
  const seeds = report.seeds.length === 0 ? '(resumed frontier)' : report.seeds.join(', ');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`urldedup crawl report: ${seeds}`)}</title>`,
    `<style>${CSS}</style></head><body>`,
    `<header><h1>urldedup crawl report</h1><p>Seeds: <code data-figure="seeds">${escapeHtml(seeds)}</code></p>`,
    `<p>Started <time data-figure="startedAt">${escapeHtml(report.startedAt)}</time>; stopped: <span data-figure="stoppedBecause">${escapeHtml(report.stoppedBecause)}</span>.</p></header>`,
    headline(report),
    seedSection(report),
    overTime(report.timeline, report.durationMs, report.pagesFetched),
    duplicates(report),
    rules(report),
    hosts(report.timeline, report.store.frontier.hosts),
    outcomes(report),
    storeSection(report),
    `<footer>Written by urldedup. Bytes: ${escapeHtml(formatNumber(report.bytes.wire))} on the wire, ${escapeHtml(formatNumber(report.bytes.decoded))} decoded.</footer>`,
    '</body></html>',
    '',
  ].join('\n');
}
