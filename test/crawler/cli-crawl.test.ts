/**
 * `urldedup crawl` (runCrawlCommand): flags and usage errors, the demo crawl with no URL, exit
 * codes for a locked store, SIGINT and SIGTERM (in-flight pages finished, store closed, 130/143),
 * and a SIGKILL mid-crawl followed by a resume that re-fetches at most the in-flight pages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawlCommand } from '../../src/cli/commands/crawl.js';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { openStore } from '../../src/store/index.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

const RUNNER = fileURLToPath(new URL('../fixtures/crawl-cli.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/src/cli/commands/crawl.js', import.meta.url));

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => (stdout += d.toString()));
  err.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await runCrawlCommand(argv, { stdout: out, stderr: err, handleSignals: false });
  return { code, stdout, stderr };
}

describe('runCrawlCommand', () => {
  it('--help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: urldedup crawl \[URL\.\.\.\]/);
    for (const flag of ['--db', '--concurrency', '--per-host', '--delay-ms', '--max-pages', '--max-depth', '--scope', '--include', '--exclude', '--allow-private', '--preset', '--report', '--log-level', '--max-retries', '--retry-cooldown', '--retry-failed']) {
      expect(r.stdout).toContain(flag);
    }
  });

  it.each([
    [['--scope', 'planet']],
    [['--preset', 'nope']],
    [['--concurrency', '0']],
    [['--max-pages', '-1']],
    [['--report', 'xml']],
    [['--report', 'html']],
    [['--report', 'html', '--db', 'x']],
    [['--max-retries', '-1']],
    [['--retry-cooldown', 'soon']],
    [['--include', '(']],
    [['--log-level', 'loud']],
    [['--bogus']],
    [['ftp://example.com/']],
    [['not a url']],
  ])('usage error %j → 2', async (argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^urldedup crawl: /);
  });

  it('with no URL: crawls the demo site and prints the report; again: resumes on the same port, nothing to fetch', async () => {
    const db = tempDir();
    try {
      const first = await run(['--db', `${db.path}/db`, '--report', 'json', '--preset', 'tracking,session-ids', '--log-level', 'error']);
      expect(first.code).toBe(0);
      // the notice is a log record (JSON off a terminal), at info whatever --log-level says but silent
      const notice = JSON.parse(first.stderr.split('\n').find((l) => l.includes('crawling the built-in demo site'))!) as { msg: string; level: number };
      expect(notice).toMatchObject({ level: 30, msg: expect.stringMatching(/^crawling the built-in demo site http:\/\/demo\.localhost:\d+\//) });
      const report = JSON.parse(first.stdout) as CrawlReport;
      expect(report.stoppedBecause).toBe('done');
      expect(report.seedStates).toEqual({ [report.seeds[0]!]: 'fetched' });
      expect(report.pagesOk).toBeGreaterThan(40);
      expect(report.links.duplicates['preset:tracking']).toBeGreaterThan(0);
      const second = await run(['--db', `${db.path}/db`, '--preset', 'tracking,session-ids', '--log-level', 'warn']);
      expect(second.code).toBe(0);
      expect(second.stderr).toContain(`http://demo.localhost:${new URL(report.seeds[0]!).port}/`);
      expect(second.stdout).toMatch(/^urldedup crawl of http:\/\/demo\.localhost:\d+\/: done/);
      expect(second.stdout).toMatch(/pages fetched +0 /);
    } finally {
      db.remove();
    }
  });

  it('--max-links N takes at most N distinct links from a page; the rest are counted as dropped', async () => {
    const db = tempDir();
    try {
      const few = await run(['--db', `${db.path}/a`, '--report', 'json', '--max-links', '3', '--log-level', 'silent']);
      const many = await run(['--db', `${db.path}/b`, '--report', 'json', '--log-level', 'silent']);
      expect(few.code).toBe(0);
      const a = JSON.parse(few.stdout) as CrawlReport;
      const b = JSON.parse(many.stdout) as CrawlReport;
      expect(a.links.refused.dropped).toBeGreaterThan(0);
      expect(b.links.refused.dropped ?? 0).toBe(0);
      expect(a.links.found).toBeLessThan(b.links.found);
      expect((await run(['--max-links', '0'])).code).toBe(2);
    } finally {
      db.remove();
    }
  });

  it('a demo crawl refused by a locked store keeps the port the store’s URLs name', async () => {
    const db = tempDir();
    try {
      const first = await run(['--db', `${db.path}/db`, '--report', 'json', '--max-pages', '3', '--log-level', 'silent']);
      expect(first.code).toBe(0);
      const port = new URL((JSON.parse(first.stdout) as CrawlReport).seeds[0]!).port;
      const holder = await openStore(`${db.path}/db`);
      try {
        // a busy remembered port would move the demo; a held store must not make that stick
        const refused = await run(['--db', `${db.path}/db`, '--demo-port', '0', '--log-level', 'silent']);
        expect(refused.code).toBe(3);
        expect(refused.stderr).toContain('ERR_STORE_LOCKED');
      } finally {
        await holder.close();
      }
      const resumed = await run(['--db', `${db.path}/db`, '--report', 'json', '--log-level', 'silent']);
      expect(resumed.code).toBe(0);
      const report = JSON.parse(resumed.stdout) as CrawlReport;
      expect(new URL(report.seeds[0]!).port).toBe(port);
      expect(report.errors['ERR_BLOCKED_ADDRESS'] ?? 0).toBe(0);
      expect(report.stoppedBecause).toBe('done');
    } finally {
      db.remove();
    }
  });

  it('every seed failing → 4, after the report; an html report into a missing folder → 2, before any fetch', async () => {
    const db = tempDir();
    const gone = await httpServer((_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>gone'));
    try {
      // every seed answers 404
      const r = await run([`${gone.origin}/`, `${gone.origin}/x`, '--db', db.path, '--allow-private']);
      expect(r.code).toBe(4);
      expect(r.stdout).toContain('pages fetched');
      expect(r.stderr).toContain('no page was fetched successfully');
      const missing = await run(['http://127.0.0.1:9/', '--db', db.path, '--allow-private', '--report', 'html', '/no/such/folder/report.html']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('/no/such/folder');
    } finally {
      await gone.close();
      db.remove();
    }
  });

  it('a locked store → 3', async () => {
    const db = tempDir();
    const holder = await openStore(db.path);
    try {
      const r = await run(['http://127.0.0.1:9/', '--db', db.path, '--allow-private']);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('ERR_STORE_LOCKED');
    } finally {
      await holder.close();
      db.remove();
    }
  });
});

/** A 121-page tree served slowly, so a crawl can be interrupted in the middle. */
async function slowTree(delayMs: number): Promise<TestServer> {
  return httpServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    const n = Number(/^\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    const links = [1, 2, 3].map((k) => `<a href="/p${n * 3 + k}">x</a>`).join('');
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html(n < 40 ? links : '')), delayMs);
  });
}

function child(args: string[]): { proc: ChildProcess; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const proc = spawn(process.execPath, [RUNNER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { proc, exit };
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('signals and kills (the built CLI in a child process)', () => {
  let server: TestServer;
  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npx tsc -p tsconfig.build.json\` (npm test builds first)`);
    server = await slowTree(20);
  });
  afterAll(async () => server.close());

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: in-flight pages finished and recorded, store closed, exit %i; the next run completes', async (sig, code) => {
    const db = tempDir();
    try {
      const from = server.requests.length;
      const c = child([`${server.origin}/p0`, '--db', db.path, '--allow-private', '--concurrency', '4', '--per-host', '4', '--report', 'json']);
      await until(() => server.requests.length - from >= 15);
      c.proc.kill(sig);
      const r = await c.exit;
      expect(r.code, r.stderr).toBe(code);
      const report = JSON.parse(r.stdout) as CrawlReport;
      expect(report.stoppedBecause).toBe('signal');
      const served = server.requests.slice(from).filter((p) => p !== '/robots.txt');
      expect(report.pagesFetched).toBe(served.length); // every page served was recorded
      const mid = server.requests.length;
      const second = await runCrawl({ store: db.path, seeds: [`${server.origin}/p0`], allow: server.allow, concurrency: 4, perHost: 4 });
      expect(second.stoppedBecause).toBe('done');
      const again = server.requests.slice(mid).filter((p) => p !== '/robots.txt' && served.includes(p));
      expect(again).toEqual([]);
    } finally {
      db.remove();
    }
  });

  it('SIGKILL mid-crawl: the resume re-fetches at most the pages that were in flight (≤ concurrency)', async () => {
    const db = tempDir();
    try {
      const from = server.requests.length;
      const c = child([`${server.origin}/p0`, '--db', db.path, '--allow-private', '--concurrency', '4', '--per-host', '4']);
      await until(() => server.requests.length - from >= 20);
      c.proc.kill('SIGKILL');
      const r = await c.exit;
      expect(r.signal).toBe('SIGKILL');
      const before = server.requests.slice(from).filter((p) => p !== '/robots.txt');
      const mid = server.requests.length;
      const second = await runCrawl({ store: db.path, seeds: [`${server.origin}/p0`], allow: server.allow, concurrency: 4, perHost: 4 });
      expect(second.stoppedBecause).toBe('done');
      const after = server.requests.slice(mid).filter((p) => p !== '/robots.txt');
      const refetched = after.filter((p) => before.includes(p));
      expect(refetched.length).toBeLessThanOrEqual(4);
      expect(new Set([...before, ...after]).size).toBe(121);
      const store = await openStore(db.path);
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    } finally {
      db.remove();
    }
  });
});
