// `urldedup normalize | key | resolve`: one line out per line in, in order; errors on their line.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('urldedup normalize / key', () => {
  it('writes one line per input, in order, with error lines, exit 1 on invalid input', async () => {
    const input = ['HTTP://Example.COM:80/a/./b/../c#top', 'http://a:99999/', '', 'http://example.com/?'].join('\n') + '\n';
    const r = await runCli(['normalize'], input);
    expect(r.stdout.split('\n')).toEqual(['http://example.com/a/c', '!ERR_INVALID_PORT\thttp://a:99999/', '!ERR_RELATIVE_URL\t', 'http://example.com/?', '']);
    expect(r.code).toBe(1);
  });
  it('exit 0 when every input is valid; keys sort by host', async () => {
    const r = await runCli(['key'], 'https://www.example.com/x\nhttp://example.com\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('com,example,www)https:///x\ncom,example)http:///\n');
  });
  it('--preset and --json', async () => {
    const r = await runCli(['key', '--json', '--preset', 'tracking'], 'http://a.com/?utm_source=x&id=1\nnot a url\n');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ input: 'http://a.com/?utm_source=x&id=1', ok: true, normal: 'http://a.com/?id=1', key: 'com,a)http:///?id=1' });
    expect(lines[0]!.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(lines[1]).toEqual({ input: 'not a url', ok: false, code: 'ERR_RELATIVE_URL' });
  });
  it('--strict', async () => {
    const r = await runCli(['normalize', '--strict'], 'http://a/b c\n');
    expect(r.stdout).toBe('!ERR_INVALID_CHARACTER\thttp://a/b c\n');
  });
  it('usage errors exit 2; --help exits 0 with an example', async () => {
    expect((await runCli(['normalize', '--preset', 'nope'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
    const help = await runCli(['key', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example:');
  });
  it('streams 200k lines in order', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `http://h${i % 97}.example/p/${i}`);
    const r = await runCli(['normalize'], lines.join('\n') + '\n');
    const out = r.stdout.split('\n');
    expect(out.length).toBe(200_001);
    expect(out[123_456]).toBe(lines[123_456]);
  }, 60_000);
});

describe('urldedup resolve', () => {
  it('rfc3986 (default) and html modes', async () => {
    const refs = '../g\nhttp:g\n\\\\x\\y\n';
    const rfc = await runCli(['resolve', 'http://a/b/c/d;p?q'], refs);
    expect(rfc.stdout.split('\n').slice(0, 2)).toEqual(['http://a/b/g', 'http:g']);
    const html = await runCli(['resolve', 'http://a/b/c/d;p?q', '--mode', 'html'], refs);
    expect(html.stdout.split('\n').slice(0, 3)).toEqual(['http://a/b/g', 'http://a/b/c/g', 'http://x/y']);
  });
});

describe('URLs as arguments, and --version', () => {
  it('normalize and key take URLs as arguments: one line each, as for stdin', async () => {
    const urls = ['HTTP://Example.COM:80/a/./b/../c#top', 'http://a:99999/', 'http://example.com/?'];
    const fromArgs = await runCli(['normalize', ...urls]);
    const fromStdin = await runCli(['normalize'], urls.join('\n') + '\n');
    expect(fromArgs.stdout).toBe('http://example.com/a/c\n!ERR_INVALID_PORT\thttp://a:99999/\nhttp://example.com/?\n');
    expect(fromArgs.stdout).toBe(fromStdin.stdout);
    expect(fromArgs.code).toBe(1);
    const keys = await runCli(['key', '--json', 'https://www.example.com/x']);
    expect(JSON.parse(keys.stdout)).toMatchObject({ input: 'https://www.example.com/x', ok: true, key: 'com,example,www)https:///x' });
    expect(keys.code).toBe(0);
  });
  it('resolve BASE REF…', async () => {
    const r = await runCli(['resolve', 'http://a/b/c/d;p?q', '../g', '?y', '#s']);
    expect(r.stdout).toBe('http://a/b/g\nhttp://a/b/c/d;p?y\nhttp://a/b/c/d;p?q#s\n');
    expect(r.code).toBe(0);
    expect((await runCli(['resolve'])).code).toBe(2);
  });
  it('--version and -v print the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});
