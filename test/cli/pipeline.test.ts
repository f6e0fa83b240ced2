// `urldedup filter | export | stats` on a real LevelDB store in a temp folder: filter dedups a
// stream across runs, --explain gives every decision, export streams each kind as JSONL, stats
// prints human-readable or JSON, and a store held by another process gives exit 3.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../src/cli/commands/export.js';
import { runFilterCommand } from '../../src/cli/commands/filter.js';
import { runServeCommand } from '../../src/cli/commands/serve.js';
import { runStatsCommand } from '../../src/cli/commands/stats.js';
import { openStore } from '../../src/store/index.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function filter(args: string[], input: string): Promise<Run> {
  const out = new Sink();
  const err = new Sink();
  const code = await runFilterCommand(args, Readable.from([input]), out, err);
  return { code, stdout: out.text, stderr: err.text };
}

async function exportKind(args: string[]): Promise<Run> {
  const out = new Sink();
  const err = new Sink();
  const code = await runExportCommand(args, out, err);
  return { code, stdout: out.text, stderr: err.text };
}

async function stats(args: string[]): Promise<Run> {
  const out = new Sink();
  const err = new Sink();
  const code = await runStatsCommand(args, out, err);
  return { code, stdout: out.text, stderr: err.text };
}

const jsonl = (text: string): Record<string, unknown>[] =>
  text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let dir: string;
let db: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'urldedup-pipeline-'));
  db = join(dir, 'nested', 'seen');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('urldedup filter', () => {
  it('writes the new URLs as given, in order; a second run over repeated URLs writes nothing', async () => {
    const day1 = ['https://a.example/x', 'https://A.EXAMPLE:443/x', 'https://a.example/y?utm_source=z', 'https://b.example/', 'https://a.example/y'];
    const r1 = await filter(['--db', db, '--preset', 'tracking'], day1.join('\n') + '\n');
    expect(r1).toEqual({ code: 0, stdout: 'https://a.example/x\nhttps://a.example/y?utm_source=z\nhttps://b.example/\n', stderr: '' });
    const day2 = ['https://b.example/', 'https://c.example/new', 'https://a.example/x#top', 'https://a.example/y'];
    const r2 = await filter(['--db', db, '--preset', 'tracking'], day2.join('\n'));
    expect(r2).toEqual({ code: 0, stdout: 'https://c.example/new\n', stderr: '' });
    const r3 = await filter(['--db', db, '--preset', 'tracking'], [...day1, ...day2].join('\n'));
    expect(r3).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('invalid lines go to stderr as !CODE<TAB>line, exit 1, the rest goes on', async () => {
    const r = await filter(['--db', db, '--preset', 'tracking'], 'not a url\nhttps://d.example/\nhttp://[x/\n');
    expect(r.stdout).toBe('https://d.example/\n');
    expect(r.stderr).toBe('!ERR_RELATIVE_URL\tnot a url\n!ERR_INVALID_HOST\thttp://[x/\n');
    expect(r.code).toBe(1);
  });

  it('--explain writes every input as {url, key, admitted, reason}', async () => {
    const r = await filter(['--db', db, '--explain', '--preset', 'tracking'], 'https://e.example/\nhttps://E.example/\nhttps://a.example/x\nnope\n');
    expect(r.code).toBe(1);
    expect(jsonl(r.stdout)).toEqual([
      { url: 'https://e.example/', key: 'example,e)https:///', admitted: true, reason: 'new' },
      { url: 'https://E.example/', key: 'example,e)https:///', admitted: false, reason: 'duplicate-in-batch' },
      { url: 'https://a.example/x', key: 'example,a)https:///x', admitted: false, reason: 'seen' },
      { url: 'nope', key: null, admitted: false, reason: 'invalid:ERR_RELATIVE_URL' },
    ]);
    expect(r.stderr).toBe('');
  });

  it('many batches: order kept across batch boundaries, each URL once', async () => {
    const lines = Array.from({ length: 2600 }, (_, i) => `https://many.example/${i % 1300}`);
    const r = await filter(['--db', db, '--batch', '250', '--preset', 'tracking'], lines.join('\n'));
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, -1)).toEqual(lines.slice(0, 1300));
  });
});

describe('urldedup export', () => {
  beforeAll(async () => {
    // evidence for aliases (a 301) and a rule candidate
    const store = await openStore(db, { presets: ['tracking'] });
    await store.recordRedirect('https://b.example/', 'https://b.example/home', 301);
    await store.recordFetch('https://b.example/home', { status: 200 });
    await store.close();
  });

  it('--what urls (the default): the canonical URL set as JSONL', async () => {
    const r = await exportKind(['--db', db, '--preset', 'tracking']);
    expect(r.code).toBe(0);
    const urls = jsonl(r.stdout);
    const byUrl = new Map(urls.map((u) => [u.url, u]));
    expect(byUrl.get('https://a.example/x')).toMatchObject({ key: 'example,a)https:///x', state: 'queued', depth: 0 });
    expect(byUrl.get('https://b.example/home')).toMatchObject({ state: 'fetched', status: 200 });
    expect(byUrl.has('https://b.example/')).toBe(false); // redirected: an alias, not canonical
    expect(byUrl.has('https://many.example/1299')).toBe(true);
    expect(urls.length).toBe(new Set(urls.map((u) => u.key)).size);
  });

  it('--what aliases and --what rules', async () => {
    const aliases = await exportKind(['--db', db, '--what', 'aliases', '--preset', 'tracking']);
    expect(aliases.code).toBe(0);
    expect(jsonl(aliases.stdout)).toEqual([
      { from: 'example,b)https:///', to: 'example,b)https:///home', fromUrl: 'https://b.example/', toUrl: 'https://b.example/home', status: 301 },
    ]);
    const rules = await exportKind(['--db', db, '--what', 'rules', '--preset', 'tracking']);
    expect(rules.code).toBe(0);
    for (const rule of jsonl(rules.stdout)) expect(rule).toMatchObject({ id: expect.any(String), state: expect.any(String) });
  });

  it('usage: a bad --what is exit 2; a folder without a store is exit 3', async () => {
    expect((await exportKind(['--db', db, '--what', 'everything'])).code).toBe(2);
    const r = await exportKind(['--db', join(dir, 'no-such-store')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('ERR_STORE_IO');
  });
});

describe('urldedup stats', () => {
  it('human-readable and --json', async () => {
    const human = await stats(['--db', db, '--preset', 'tracking']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^store +\S+seen\n/m);
    expect(human.stdout).toMatch(/^urls seen +\d+ \(queued \d+, fetched 1, redirected 1, pruned 1, failed 0\)$/m);
    expect(human.stdout).toMatch(/^aliases +1$/m);
    expect(human.stdout).toMatch(/^pruned +preset:tracking 1$/m);
    const json = await stats(['--db', db, '--json', '--preset', 'tracking']);
    expect(json.code).toBe(0);
    const s = JSON.parse(json.stdout) as { urls: { admitted: number; fetched: number }; aliases: number };
    expect(s.aliases).toBe(1);
    expect(s.urls.fetched).toBe(1);
    expect(s.urls.admitted).toBeGreaterThan(1300);
  });
});

describe('help and usage', () => {
  it('--help of each command has an example; bad flags are exit 2', async () => {
    for (const run of [
      (a: string[]) => filter(a, ''),
      exportKind,
      stats,
      async (a: string[]): Promise<Run> => {
        const out = new Sink();
        const err = new Sink();
        return { code: await runServeCommand(a, { stdout: out, stderr: err }), stdout: out.text, stderr: err.text };
      },
    ]) {
      const help = await run(['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Example');
      expect((await run(['--no-such-flag'])).code).toBe(2);
    }
    expect((await filter(['--db', db, '--preset', 'nope'], '')).code).toBe(2);
  });
});

describe('a store held by another process', () => {
  it('filter, export, stats and serve exit 3 with ERR_STORE_LOCKED', async () => {
    const fixture = fileURLToPath(new URL('../service/fixtures/serve.mjs', import.meta.url));
    expect(existsSync(fileURLToPath(new URL('../../dist/src/store/index.js', import.meta.url))), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
    const held = join(dir, 'held');
    const holder = spawn(process.execPath, [fixture, 'hold', held], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: holder.stdout }).once('line', () => resolve());
        holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
      });
      const f = await filter(['--db', held], 'https://a.example/\n');
      expect(f.code).toBe(3);
      expect(f.stderr).toContain('ERR_STORE_LOCKED');
      expect((await exportKind(['--db', held])).code).toBe(3);
      expect((await stats(['--db', held])).code).toBe(3);
      const err = new Sink();
      expect(await runServeCommand(['--db', held, '--port', '0'], { stdout: new Sink(), stderr: err })).toBe(3);
      expect(err.text).toContain('ERR_STORE_LOCKED');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
