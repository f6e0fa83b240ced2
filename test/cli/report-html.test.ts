/**
 * The HTML report: every string from the report escaped, the charts drawn, the figures shown equal
 * to the JSON's; then a real crawl of the demo site, its page opened in headless Chromium (Debian's
 * `chromium`, which `npm test` installs): no console error, no page error, no request but the file
 * itself, and the figures read from the DOM equal the JSON report's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.js';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { escapeHtml, formatDuration, formatNumber, renderReportHtml, type ReportWithTimeline } from '../../src/cli/report-html.js';
import { TimelineRecorder } from '../../src/crawler/report/timeline.js';
import { openStore } from '../../src/store/index.js';
import { loopbackAllow, tempDir } from '../crawler/support.js';
import { CHROMIUM as CHROMIUM_NEED, CHROMIUM_PATH, describeWith } from '../support/requirements.js';

const EVIL = '<script>alert(1)</script>';
const START = Date.parse('2026-01-02T03:04:05.000Z');

/** A report with attacker-chosen strings everywhere a crawled site can put one. */
function hostileReport(withTimeline: boolean): ReportWithTimeline {
  const host = `${EVIL}.example`;
  const t = new TimelineRecorder({ start: START, everyPages: 1 });
  for (let i = 1; i <= 40; i++) t.sample(START + i * 100, { requests: i * 3, documents: i, fetched: i * 2, duplicates: i * 5 });
  t.ruleEvent(START + 1000, { id: `${host}/slash-add`, change: 'activated', evidence: [`redirect 301 http://${host}/a → /a/`] });
  t.ruleEvent(START + 2000, { id: `${host}/slash-add`, scope: `/"${EVIL}/`, change: 'narrowed', evidence: ['contradiction'] });
  t.ruleEvent(START + 3000, { id: `h/query-parameter:${EVIL}`, change: 'withdrawn', evidence: [`different content: ${EVIL}`] });
  t.host(host, { requests: 90, documents: 30, duplicates: 150, errors: 2 });
  t.host('plain.example', { requests: 30, documents: 10 });
  const report: CrawlReport = {
    seeds: [`http://${host}/`],
    invalidSeeds: [],
    startedAt: new Date(START).toISOString(),
    durationMs: 4321,
    stoppedBecause: 'done',
    pagesFetched: 80,
    pagesOk: 77,
    pagesPerSecond: 18.51,
    requests: 120,
    robotsRequests: 2,
    redirects: 9,
    documents: 40,
    requestsPerDocument: 3,
    bytes: { wire: 123_456, decoded: 234_567 },
    statuses: { '200': 77, '404': 3 },
    links: {
      found: 1000,
      offered: 700,
      admitted: 150,
      duplicates: { [`rule:${host}/slash-add`]: 4, exact: 120, 'same-page': 60, syntax: 7, alias: 5, fragment: 3, [`preset:${EVIL}`]: 1 },
      rewritten: { [`rule:${host}/slash-add`]: 2 },
      refused: { 'out-of-scope': 100, [EVIL]: 1 },
    },
    deferred: {},
    errors: { ERR_TIMEOUT: 2, [`ERR_${EVIL}`]: 1 },
    evidence: { canonical: 4, canonicalElsewhere: 1, contentLocation: 0, contentLocationElsewhere: 0 },
    store: {
      urls: { admitted: 200, queued: 0, fetched: 77, redirected: 9, pruned: 4, failed: 3 } as CrawlReport['store']['urls'],
      aliases: 9,
      loops: 0,
      temporaryRedirects: 0,
      rules: { candidate: 2, active: 1, withdrawn: 1 },
      pruned: {},
      frontier: { size: 0, inFlight: 0, hostCount: 0, hosts: {} },
      front: { source: 'database', keys: 200, aliasKeys: 9, bytes: 4096 },
    },
    rules: [{ id: `${host}/slash-add`, for: 3 }],
  };
  return withTimeline ? { ...report, timeline: t.toJSON() } : report;
}

/** `data-figure` name → the text shown, read from the markup. */
function figuresOf(html: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of html.matchAll(/data-figure="([^"]*)">([^<]*)</g)) out.set(m[1]!, m[2]!);
  return out;
}

/** The figures the page must show, as the page formats them, from the JSON report. */
function expectedFigures(r: CrawlReport): Record<string, string> {
  return {
    pagesFetched: formatNumber(r.pagesFetched),
    requests: formatNumber(r.requests),
    documents: formatNumber(r.documents),
    requestsPerDocument: r.requestsPerDocument === null ? '–' : formatNumber(r.requestsPerDocument),
    duplicatesAvoided: formatNumber(Object.values(r.links.duplicates).reduce((a, b) => a + b, 0)),
    duplicatesTotal: formatNumber(Object.values(r.links.duplicates).reduce((a, b) => a + b, 0)),
    durationMs: formatDuration(r.durationMs),
    stoppedBecause: r.stoppedBecause,
    startedAt: r.startedAt,
  };
}

describe('renderReportHtml', () => {
  const report = hostileReport(true);
  const html = renderReportHtml(report);

  it('escapes every string from the report: no markup of its own gets through', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(escapeHtml(EVIL));
    // the scope's quote cannot close an attribute, and the bucket name in data-duplicates is escaped
    expect(html).toContain(`/&quot;${escapeHtml(EVIL)}/`);
    expect(html).toContain(`data-duplicates="preset:${escapeHtml(EVIL)}"`);
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('loads nothing: no src, href or url() anywhere, and a CSP that forbids every load', () => {
    expect(html).not.toMatch(/\b(src|href|xlink:href)\s*=/i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('shows the headline figures of the JSON report', () => {
    const shown = figuresOf(html);
    for (const [name, value] of Object.entries(expectedFigures(report))) expect([name, shown.get(name)]).toEqual([name, value]);
    expect(shown.get('requests')).toBe('120');
    expect(shown.get('durationMs')).toBe('4.32 s');
    expect(shown.get('seeds')).toBe(escapeHtml(report.seeds[0]!));
  });

  it('draws the two line charts, one bar per duplicate bucket in ladder order, and a mark per rule event', () => {
    expect(html).toContain('id="chart-requests-per-document"');
    expect(html).toContain('id="chart-documents"');
    expect(html.match(/<polyline class="line s1"/g)?.length).toBe(1); // requests per document
    expect(html.match(/<polyline class="line s2"/g)?.length).toBe(1); // documents
    expect(html.match(/<polyline class="line s3"/g)?.length).toBe(1); // pages fetched
    const bars = html.slice(html.indexOf('id="chart-duplicates"'), html.indexOf('</svg>', html.indexOf('id="chart-duplicates"')));
    expect(bars.match(/<rect class="bar/g)?.length).toBe(Object.keys(report.links.duplicates).length);
    const order = [...html.matchAll(/data-duplicates="([^"]*)">([^<]*)</g)].map((m) => [m[1], m[2]]);
    expect(order).toEqual([
      ['same-page', '60'],
      ['exact', '120'],
      ['fragment', '3'],
      ['syntax', '7'],
      ['alias', '5'],
      [escapeHtml(`rule:${EVIL}.example/slash-add`), '4'],
      [escapeHtml(`preset:${EVIL}`), '1'],
    ]);
    const lanes = html.slice(html.indexOf('id="chart-rules"'));
    expect(lanes.match(/<circle class="mark ok"/g)?.length).toBe(1);
    expect(lanes.match(/<circle class="mark warn"/g)?.length).toBe(1);
    expect(lanes.match(/<circle class="mark bad"/g)?.length).toBe(1);
  });

  it('lists the hosts, errors and rule events of the report', () => {
    const hosts = html.slice(html.indexOf('id="table-hosts"'), html.indexOf('</table>', html.indexOf('id="table-hosts"')));
    expect(hosts).toContain(`<code>${escapeHtml(EVIL)}.example</code></td><td class="n">90</td><td class="n">30</td><td class="n">3</td><td class="n">150</td><td class="n">2</td>`);
    expect(hosts).toContain('<code>plain.example</code>');
    const errors = html.slice(html.indexOf('id="table-errors"'), html.indexOf('</table>', html.indexOf('id="table-errors"')));
    expect(errors).toContain('<code>ERR_TIMEOUT</code></td><td class="n">2</td>');
    expect(html.match(/<span class="tag (ok|warn|bad)">/g)?.length).toBe(3);
  });

  it('shows what an older report has when it carries no timeline', () => {
    const old = hostileReport(false);
    const page = renderReportHtml(old);
    expect(page).toContain('This report has no timeline');
    expect(page).not.toContain('id="chart-requests-per-document"');
    expect(page).toContain('id="chart-duplicates"');
    expect(page).toContain('id="table-rules"');
    const shown = figuresOf(page);
    for (const [name, value] of Object.entries(expectedFigures(old))) expect([name, shown.get(name)]).toEqual([name, value]);
  });

  it('draws no empty charts for a run that fetched nothing, and says why', () => {
    const t = new TimelineRecorder({ start: START, everyPages: 1 });
    t.sample(START + 500, { requests: 2, documents: 0, fetched: 0, duplicates: 0 });
    const nothing: ReportWithTimeline = { ...hostileReport(false), pagesFetched: 0, pagesOk: 0, documents: 0, requestsPerDocument: null, timeline: t.toJSON() };
    const page = renderReportHtml(nothing);
    expect(page).toContain('id="no-pages"');
    expect(page).toContain('No page was fetched in this run');
    expect(page).not.toContain('id="chart-requests-per-document"');
    expect(page).not.toContain('id="chart-documents"');
  });

  it('says what became of each seed, the refused ones too', () => {
    const page = renderReportHtml({ ...hostileReport(false), seedStates: { 'http://a.example/': 'fetched', [`http://${EVIL}/`]: 'failed' }, invalidSeeds: [{ seed: 'http://[x', code: 'ERR_INVALID_HOST' }] });
    expect(page).toContain('id="table-seeds"');
    const states = [...page.matchAll(/<span data-seed-state>([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(states).toEqual(['fetched', 'failed', 'refused: ERR_INVALID_HOST']);
    expect(page).toContain(escapeHtml(`http://${EVIL}/`));
  });

  it('shows a rule withdrawn as a candidate, before it was ever active', async () => {
    // a real store: a parameter rule with support, then contradicted before it reached the threshold
    const store = await openStore(tempDir().path + '/db');
    try {
      const t = new TimelineRecorder({ start: Date.now() - 1 });
      const h = 'http://cand.example';
      const fetches: [string, string][] = [
        [`${h}/a?x=1`, 'A'], [`${h}/a`, 'A'], [`${h}/c?x=2`, 'C'], [`${h}/c`, 'C'],
        [`${h}/b?x=1`, 'B1'], [`${h}/b`, 'B2'], [`${h}/b?x=1`, 'B1'], [`${h}/b`, 'B2'], [`${h}/d?x=3`, 'D1'], [`${h}/d`, 'D2'],
      ];
      for (const [u, hash] of fetches) {
        await store.admit([u]);
        await store.recordFetch(u, { status: 200, contentHash: hash });
      }
      const withdrawn: string[] = [];
      for await (const r of store.rules()) {
        t.ruleRecord(r);
        if (r.state === 'withdrawn' && r.activated === undefined) withdrawn.push(r.id);
      }
      expect(withdrawn.length).toBeGreaterThan(0);
      const page = renderReportHtml({ ...hostileReport(false), timeline: t.toJSON() });
      expect(page).toContain(escapeHtml(withdrawn[0]!));
      expect(page).toContain('withdrawn as a candidate, before it was ever active');
    } finally {
      await store.close();
    }
  });

  it('shows a dash for requests per document before any document', () => {
    const empty: ReportWithTimeline = { ...hostileReport(false), documents: 0, requestsPerDocument: null, links: { ...hostileReport(false).links, duplicates: {} } };
    const page = renderReportHtml(empty);
    expect(figuresOf(page).get('requestsPerDocument')).toBe('–');
    expect(page).toContain('No duplicate links.');
  });
});

// ---- in a real browser --------------------------------------------------------------------------

const CHROMIUM = CHROMIUM_PATH;

interface Opened {
  readonly page: Page;
  /** Console messages of type error, and uncaught page errors. */
  readonly errors: string[];
  /** Every request that was not for a file: URL (each was aborted). */
  readonly offFile: string[];
  readonly dialogs: string[];
}

describeWith([CHROMIUM_NEED], 'the page of a real crawl, in headless Chromium', () => {
  let site: DemoSite;
  let browser: Browser;
  let report: ReportWithTimeline;
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-report-'));

  async function open(html: string, name: string): Promise<Opened> {
    const file = join(dir, name);
    writeFileSync(file, html);
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const errors: string[] = [];
    const offFile: string[] = [];
    const dialogs: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      offFile.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) offFile.push(req.url());
    });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return { page, errors, offFile, dialogs };
  }

  beforeAll(async () => {
    site = await startDemoSite();
    const db = tempDir();
    try {
      // What the crawl loop records, fed here from the crawl's public hooks (one page at a time,
      // so each page's duplicates are the progress delta).
      const timeline = new TimelineRecorder({ everyPages: 1, minIntervalMs: 0 });
      const contents = new Set<string>();
      let duplicatesBefore = 0;
      const c = crawl({
        store: db.path,
        seeds: [site.url],
        allow: loopbackAllow(site.port),
        concurrency: 1,
        perHost: 1,
        onPage: (p) => {
          const progress = c.progress();
          const before = contents.size;
          if (p.status >= 200 && p.status < 300 && p.contentHash !== undefined) contents.add(p.contentHash.slice(0, 16));
          timeline.host(new URL(p.url).host, {
            requests: p.requests,
            documents: contents.size - before,
            duplicates: progress.duplicatesAvoided - duplicatesBefore,
            errors: p.error === undefined ? 0 : 1,
          });
          duplicatesBefore = progress.duplicatesAvoided;
          timeline.sample(Date.now(), { requests: progress.requests, documents: contents.size, fetched: progress.pagesFetched, duplicates: progress.duplicatesAvoided });
        },
      });
      const done = await c.done;
      const store = await openStore(db.path);
      for await (const rule of store.rules()) timeline.ruleRecord(rule);
      await store.close();
      report = { ...done, timeline: timeline.toJSON() };
    } finally {
      db.remove();
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // launch() gives the browser a new, empty user-data-dir of its own
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the crawl learned rules and avoided duplicates, so every section has something to show', () => {
    expect(report.documents).toBeGreaterThan(10);
    expect(Object.keys(report.links.duplicates).length).toBeGreaterThan(3);
    expect(report.timeline!.rules.length).toBeGreaterThan(0);
    expect(report.timeline!.points.length).toBeGreaterThan(10);
  });

  it('opens without console or page errors, loads nothing but the file, and shows the JSON figures', async () => {
    const { page, errors, offFile } = await open(renderReportHtml(report), 'report.html');
    try {
      expect(errors).toEqual([]);
      expect(offFile).toEqual([]);
      const shown = await page.$$eval('[data-figure]', (els) => els.map((e) => [e.getAttribute('data-figure'), e.textContent] as const));
      const byName = new Map(shown);
      for (const [name, value] of Object.entries(expectedFigures(report))) expect([name, byName.get(name)]).toEqual([name, value]);
      // and as numbers, against the JSON itself
      const num = (name: string): number => Number(byName.get(name)!.replaceAll(',', ''));
      expect(num('requests')).toBe(report.requests);
      expect(num('documents')).toBe(report.documents);
      expect(num('pagesFetched')).toBe(report.pagesFetched);
      expect(num('requestsPerDocument')).toBe(report.requestsPerDocument);
      const buckets = await page.$$eval('[data-duplicates]', (els) => els.map((e) => [e.getAttribute('data-duplicates')!, Number(e.textContent!.replaceAll(',', ''))] as const));
      expect(Object.fromEntries(buckets)).toEqual(report.links.duplicates);
      // one host row per host of the timeline, with its requests
      const hostRows = await page.$$eval('#table-hosts tbody tr', (rows) => (rows as HTMLTableRowElement[]).map((r) => [r.cells[0]!.textContent, Number(r.cells[1]!.textContent!.replaceAll(',', ''))] as const));
      expect(hostRows).toEqual(report.timeline!.hosts.map((h) => [h.host, h.requests]));
      expect(await page.locator('#table-rule-events tbody tr').count()).toBe(report.timeline!.rules.length);
      // the charts have drawn size and lines
      for (const id of ['chart-requests-per-document', 'chart-documents', 'chart-duplicates', 'chart-rules']) {
        const box = await page.locator(`#${id}`).boundingBox();
        expect([id, (box?.width ?? 0) > 300 && (box?.height ?? 0) > 50]).toEqual([id, true]);
      }
      expect(await page.locator('#chart-documents polyline').count()).toBe(2);
      const shot = process.env.URLDEDUP_REPORT_SCREENSHOT;
      if (shot !== undefined && shot !== '') await page.screenshot({ path: shot, fullPage: true });
    } finally {
      await page.context().close();
    }
  });

  it('the checks above catch a page that loads something or runs a script (a control)', async () => {
    const loads = await open('<!doctype html><title>x</title><img alt="" src="http://127.0.0.1:9/x.png">', 'loads.html');
    try {
      expect(loads.offFile).toContain('http://127.0.0.1:9/x.png');
    } finally {
      await loads.page.context().close();
    }
    const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`;
    const runs = await open(`<!doctype html>${csp}<title>x</title><script>alert(1)</script>`, 'runs.html');
    try {
      expect(runs.errors.join('\n')).toMatch(/Content Security Policy/);
      expect(runs.dialogs).toEqual([]);
    } finally {
      await runs.page.context().close();
    }
  });

  it('shows attacker-chosen strings as text: no script runs, nothing is loaded', async () => {
    const { page, errors, offFile, dialogs } = await open(renderReportHtml(hostileReport(true)), 'hostile.html');
    try {
      expect(errors).toEqual([]);
      expect(offFile).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('#table-hosts tbody tr').first().locator('td').first().textContent()).toBe(`${EVIL}.example`);
      expect(await page.locator('#table-rule-events tbody tr').nth(2).locator('code').first().textContent()).toBe(`h/query-parameter:${EVIL}`);
    } finally {
      await page.context().close();
    }
  });
});
