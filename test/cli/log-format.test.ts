// `--log-format pretty` gives human text on stderr (pino-pretty); JSON, one object per line, stays
// the default. The built CLI as a child process: filter, and serve until a real SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli.js';

const isJson = (line: string): boolean => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};
const nonEmpty = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

describe('--log-format', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'urldedup-logs-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('filter: JSON by default, human text with pretty; stdout untouched', async () => {
    const json = await runCli(['filter', '--db', join(dir, 'a'), '--log-level', 'info'], 'http://a.example/\n');
    expect(json.stdout).toBe('http://a.example/\n');
    const lines = nonEmpty(json.stderr);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(isJson(l), l).toBe(true);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: 30, msg: 'done', lines: 1, delivered: 1 });

    const pretty = await runCli(['filter', '--db', join(dir, 'b'), '--log-level', 'info', '--log-format', 'pretty'], 'http://a.example/\n');
    expect(pretty.stdout).toBe('http://a.example/\n');
    const text = nonEmpty(pretty.stderr);
    expect(text.some(isJson)).toBe(false);
    expect(text[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(urldedup\): done$/);
    expect(pretty.stderr).toMatch(/^ +delivered: 1$/m);
    expect(pretty.stderr).not.toContain('\u001b['); // not a terminal: no colours
  });

  it('crawl: human text with pretty (the demo site, three pages)', async () => {
    const r = await runCli(['crawl', '--db', join(dir, 'crawl'), '--max-pages', '3', '--log-level', 'info', '--log-format', 'pretty', '--report', 'json'], '');
    expect(r.code).toBe(0);
    const text = nonEmpty(r.stderr).filter((l) => !l.startsWith('crawling the built-in demo site'));
    expect(text.length).toBeGreaterThan(0);
    expect(text.some(isJson)).toBe(false);
    expect(r.stderr).toMatch(/INFO \(urldedup\): crawl ended/);
    expect(JSON.parse(r.stdout)).toMatchObject({ stoppedBecause: 'max-pages' });
  });

  it('a wrong format is a usage error (exit 2)', async () => {
    const r = await runCli(['filter', '--db', join(dir, 'c'), '--log-format', 'yaml'], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--log-format must be json or pretty');
  });

  it.each([
    [[] as string[], true],
    [['--log-format', 'pretty'], false],
  ])('serve %j: lifecycle logs on stderr until SIGTERM', async (extra, json) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--db', join(dir, `serve-${json}`), '--port', '0', '--verbose', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('\n')) resolve();
      }),
    );
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ event: 'listening' }); // stdout keeps its JSON line
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(143);
    const lines = nonEmpty(stderr);
    expect(lines.some((l) => l.includes('shutting down'))).toBe(true);
    if (json) for (const l of lines) expect(isJson(l), l).toBe(true);
    else {
      expect(lines.some(isJson)).toBe(false);
      expect(stderr).toMatch(/INFO \(urldedup\): shutting down/);
    }
  }, 30_000);
});
