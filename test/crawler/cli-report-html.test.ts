/**
 * `urldedup crawl --report html FILE` (docs/report.md), run from the build as its own process on the
 * demo site: the file is written and holds the run's figures — the headline, the per-host table the
 * timeline fills (its requests plus robots.txt add up to the headline's requests), the points of the
 * charts over time, and the store's figures, checked against the store opened again after the run.
 * Rendering itself is covered in headless Chromium by report-html.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCrawlCommand } from '../../src/cli/commands/crawl.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from './support.js';

const RUNNER = fileURLToPath(new URL('../fixtures/crawl-cli.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/src/cli/commands/crawl.js', import.meta.url));

function runBuilt(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

const num = (text: string): number => Number(text.replace(/,/g, ''));

function figure(page: string, name: string): string {
  const m = new RegExp(`data-figure="${name}">([^<]*)<`).exec(page);
  if (m === null) throw new Error(`no figure ${name}`);
  return m[1]!;
}

describe('crawl --report html FILE', () => {
  beforeAll(() => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\``);
  });

  it('usage: html without a FILE is exit 2', async () => {
    const err = new PassThrough();
    let stderr = '';
    err.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await runCrawlCommand(['--report', 'html'], { stdout: new PassThrough(), stderr: err, handleSignals: false });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^urldedup crawl: --report html needs a FILE/);
  });

  it('the built CLI on the demo site writes the page with the report figures', async () => {
    const dir = tempDir();
    try {
      const db = join(dir.path, 'db');
      const file = join(dir.path, 'crawl.html');
      const r = await runBuilt(['--db', db, '--report', 'html', file, '--log-level', 'error']);
      expect(r.code, r.stderr).toBe(0);
      // a notice in the log's own format (JSON off a terminal), logged whatever the level but silent
      const notice = r.stderr.split('\n').filter((l) => l.includes('report written')).map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(notice).toEqual([expect.objectContaining({ level: 30, msg: `report written to ${file}` })]);
      expect(r.stdout).toBe('');
      const page = readFileSync(file, 'utf8');
      expect(page.startsWith('<!doctype html>')).toBe(true);
      expect(figure(page, 'stoppedBecause')).toBe('done');
      const seeds = figure(page, 'seeds');
      expect(seeds).toMatch(/^http:\/\/demo\.localhost:\d+\/$/);
      const pages = num(figure(page, 'pagesFetched'));
      const requests = num(figure(page, 'requests'));
      expect(pages).toBeGreaterThan(40);
      expect(num(figure(page, 'documents'))).toBeGreaterThan(40);
      expect(num(figure(page, 'duplicatesAvoided'))).toBeGreaterThan(0);
      // the per-host table (the timeline's hosts): the demo host's requests + robots.txt = requests
      const hostTable = /<table id="table-hosts">(.*?)<\/table>/s.exec(page)?.[1];
      expect(hostTable, 'hosts table').toBeDefined();
      const rows = [...hostTable!.matchAll(/<tr><td><code>([^<]*)<\/code><\/td><td class="n">([\d,]+)<\/td>/g)];
      expect(rows.map((m) => m[1])).toContain(new URL(seeds).host);
      const robots = num(/([\d,]+) robots\.txt<\/small>/.exec(page)![1]!);
      expect(rows.reduce((a, m) => a + num(m[2]!), 0) + robots).toBe(requests);
      expect(page).not.toContain('need a timeline');
      // the store after the run, as the page states it, is the store opened again
      const store = await openStore(db, { readOnly: true });
      const s = await store.stats();
      await store.close();
      const u = s.urls;
      expect(page).toContain(`${u.admitted.toLocaleString('en-US')} URLs: ${u.fetched.toLocaleString('en-US')} fetched, ${u.redirected} redirected, ${u.pruned} pruned, ${u.failed} failed, ${u.queued} queued`);
      expect(u.fetched).toBeLessThanOrEqual(pages);
    } finally {
      dir.remove();
    }
  }, 120_000);
});
