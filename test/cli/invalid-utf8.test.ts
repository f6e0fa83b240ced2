// docs/reliability.md input/invalid-utf8: stdin bytes that are not UTF-8 never share a key. Before, the CLI
// decoded `caf\xE9` and `caf\xE8` with U+FFFD and gave both one key (exit 0); now each such line is
// answered `!ERR_INVALID_UTF8<TAB>` and its exact bytes percent-encoded, in its place (exit 1).
// Real bytes through the built CLI in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';

function run(args: string[], input: Buffer): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { input });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

// caf\xE9, caf\xE8 (Latin-1, not UTF-8), a valid line, an overlong '/', a truncated sequence with
// '%' and a space around it, a real U+FFFD (valid UTF-8), a valid line after a CR LF
const INPUT = bytes(
  'http://a.example/caf', [0xe9], '\n',
  'http://a.example/caf', [0xe8], '\n',
  'http://a.example/caf\u00e9\n',
  'http://a.example/', [0xc0, 0xaf], 'x\n',
  'http://a.example/%41 ', [0xe0, 0xa4], '\r\n',
  'http://a.example/\ufffd\n',
  'http://b.example/\n',
);

describe('input/invalid-utf8', () => {
  it.each(['normalize', 'key'])('%s: an error line with the exact bytes, in place, exit 1', (command) => {
    const r = run([command], INPUT);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe('!ERR_INVALID_UTF8\thttp://a.example/caf%E9');
    expect(lines[1]).toBe('!ERR_INVALID_UTF8\thttp://a.example/caf%E8');
    expect(lines[2]).not.toMatch(/^!/); // é as UTF-8 is fine
    expect(lines[3]).toBe('!ERR_INVALID_UTF8\thttp://a.example/%C0%AFx');
    expect(lines[4]).toBe('!ERR_INVALID_UTF8\thttp://a.example/%2541%20%E0%A4');
    expect(lines[5]).not.toMatch(/^!/);
    expect(lines[6]).not.toMatch(/^!/);
    for (const i of [0, 1, 3, 4]) expect(lines[i]).not.toContain('\ufffd');
    expect(r.code).toBe(1);
  });

  it('key --json: {input, ok: false, code}', () => {
    const r = run(['key', '--json'], bytes('http://a.example/caf', [0xe9], '\n'));
    expect(JSON.parse(r.stdout)).toEqual({ input: 'http://a.example/caf%E9', ok: false, code: 'ERR_INVALID_UTF8' });
    expect(r.code).toBe(1);
  });

  it('resolve: the same', () => {
    const r = run(['resolve', 'http://a.example/b/'], bytes('caf', [0xe9], '\ncaf', [0xe8], '\n../x\n'));
    expect(r.stdout).toBe('!ERR_INVALID_UTF8\tcaf%E9\n!ERR_INVALID_UTF8\tcaf%E8\nhttp://a.example/x\n');
    expect(r.code).toBe(1);
  });

  it('filter: never admitted under one key; the error on stderr (--explain: on its stdout line)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'urldedup-utf8-'));
    try {
      const input = bytes('http://a.example/caf', [0xe9], '\nhttp://a.example/caf', [0xe8], '\nhttp://a.example/ok\n');
      const r = run(['filter', '--db', join(dir, 'db')], input);
      expect(r.stdout).toBe('http://a.example/ok\n');
      expect(r.stderr).toBe('!ERR_INVALID_UTF8\thttp://a.example/caf%E9\n!ERR_INVALID_UTF8\thttp://a.example/caf%E8\n');
      expect(r.code).toBe(1);
      const explain = run(['filter', '--db', join(dir, 'db2'), '--explain'], input);
      const lines = explain.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.slice(0, 2)).toEqual([
        { url: 'http://a.example/caf%E9', key: null, admitted: false, reason: 'invalid:ERR_INVALID_UTF8' },
        { url: 'http://a.example/caf%E8', key: null, admitted: false, reason: 'invalid:ERR_INVALID_UTF8' },
      ]);
      expect(lines[2]).toMatchObject({ url: 'http://a.example/ok', admitted: true, reason: 'new' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
