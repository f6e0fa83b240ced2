// Progress people can read (`urldedup crawl`): on a terminal, a live line that fits its width
// (tested under a real pseudo-terminal, util-linux `script`, at 80 and 50 columns); off a terminal
// (a pipe, as under nohup, systemd or CI), a 'crawl progress' log record every --stats-interval
// seconds; and the SIGINT notice a log record in the log's own format, not text inside JSON.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CrawlProgress } from '../../src/crawler/index.js';
import { progressFigures, progressLine } from '../../src/cli/progress.js';
import { CLI } from '../support/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function db(): string {
  const d = mkdtempSync(join(tmpdir(), 'urldedup-progress-'));
  dirs.push(d);
  return join(d, 'db');
}

const SAMPLE: CrawlProgress = { pagesFetched: 123456, requests: 130000, documents: 120000, queued: 9876543, inFlight: 16, duplicatesAvoided: 4567890, pruned: 12, errors: 321, pagesPerSecond: 1234.5, elapsedMs: 100_000 };

describe('the progress line', () => {
  it.each([20, 40, 50, 60, 80, 120, 200])('fits %i columns, pages/s first', (columns) => {
    for (const scale of [0, 1, 1000, 1e6]) {
      const p = { ...SAMPLE, pagesFetched: Math.round(SAMPLE.pagesFetched * scale), queued: Math.round(SAMPLE.queued * scale) };
      const line = progressLine(p, columns);
      expect(line.length).toBeLessThanOrEqual(columns - 1);
      expect(line).toMatch(/^1234\.5 pages\/s/);
    }
  });

  it('gives requests per document and an ETA (a floor: the queue grows as pages are found) where known', () => {
    expect(progressFigures(SAMPLE)).toMatchObject({ requestsPerDocument: 1.08, eta: '2h13m', fetched: 123456, queued: 9876543 });
    const early = progressFigures({ ...SAMPLE, documents: 0, pagesPerSecond: 0 });
    expect(early).not.toHaveProperty('requestsPerDocument');
    expect(early).not.toHaveProperty('eta');
    expect(progressLine({ ...SAMPLE, documents: 0 }, 200)).not.toContain('req/doc');
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('on a real terminal', () => {
  it.skipIf(!hasScript)('redraws one line that fits the terminal, at 80 and at 50 columns', async () => {
    for (const cols of [80, 50]) {
      const cmd = `stty cols ${cols} rows 24; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} crawl --db ${JSON.stringify(db())} --delay-ms 40 --max-pages 80 --report json`;
      const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // the live line: what follows each "erase the line" before the next one or a newline
      const redraws = r.stdout.split('\r\x1b[K').slice(1).map((seg) => seg.split(/[\r\n]/)[0]!).filter((l) => l.includes('pages/s'));
      expect(redraws.length, r.stdout.slice(0, 400)).toBeGreaterThan(0);
      for (const l of redraws) expect(l.length, l).toBeLessThanOrEqual(cols - 1);
    }
  }, 120_000);
});

describe('off a terminal', () => {
  it("logs a 'crawl progress' record every --stats-interval seconds; SIGINT's notice is a log record too", async () => {
    const proc = spawn(process.execPath, [CLI, 'crawl', '--db', db(), '--delay-ms', '60', '--stats-interval', '1', '--report', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.resume();
    const progressRecords = (): { msg: string; fetched: number; queued: number; pagesPerSecond: number; level: number }[] =>
      stderr.split('\n').filter((l) => l.includes('"crawl progress"')).map((l) => JSON.parse(l));
    for (const t0 = Date.now(); progressRecords().length < 2; await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() - t0 > 20_000) throw new Error(`no progress records: ${stderr.slice(0, 500)}`);
    }
    proc.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
    expect(code).toBe(130);
    // every stderr line is one JSON record: no plain text inside the log
    const lines = stderr.split('\n').filter((l) => l !== '');
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    const [first] = progressRecords();
    expect(first).toMatchObject({ level: 30, msg: 'crawl progress' });
    expect(first!.fetched).toBeGreaterThan(0);
    expect(typeof first!.pagesPerSecond).toBe('number');
    const sigint = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).find((x) => x.msg.startsWith('SIGINT'));
    expect(sigint).toMatchObject({ level: 40, msg: expect.stringContaining('finishing in-flight pages') });
  }, 60_000);
});
