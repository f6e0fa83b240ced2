// SURT for archive pipelines: `key --format surt`, the `surt` field of `export --what urls`, and
// `format=surt` on the service's key routes, against the Internet Archive's own test cases
// (test/fixtures/conformance/surt.json, internetarchive/surt tests/test_surt.py).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toSurt } from '../../src/normalize/surt.js';
import { openStore } from '../../src/store/index.js';
import { readTestdata } from '../support/testdata.js';
import { runCli } from '../support/cli.js';
import { errorOf, get, postJson, startHarness } from '../service/support.js';

interface SurtCase {
  readonly input: string | null;
  readonly options: Record<string, unknown>;
  readonly expected: string;
}

/** The IA cases with default options and a one-line URL input (what a line command can be given). */
const cases = readTestdata<{ surt: SurtCase[] }>('surt.json').surt.filter(
  (c): c is SurtCase & { input: string } => typeof c.input === 'string' && c.input.trim() !== '' && Object.keys(c.options).length === 0 && !/[\r\n]/.test(c.input),
);

/** What the library gives (the reference the CLI and the service must repeat), or the error code. */
function library(input: string): string {
  try {
    return toSurt(input);
  } catch (e) {
    return `!${(e as { code: string }).code}`;
  }
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('urldedup key --format surt', () => {
  it("writes each input's IA SURT, as the library does, matching the IA's expected keys where the library does", async () => {
    expect(cases.length).toBe(19);
    const r = await runCli(['key', '--format', 'surt'], cases.map((c) => c.input).join('\n') + '\n');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(cases.length);
    let matchIa = 0;
    cases.forEach((c, i) => {
      const want = library(c.input);
      expect(want.startsWith('!') ? lines[i]!.split('\t')[0] : lines[i], c.input).toBe(want);
      if (lines[i] === c.expected) matchIa++;
    });
    // the IA's cases the library matches (docs/conformance.md lists the rest with their reasons)
    expect(matchIa).toBe(cases.filter((c) => library(c.input) === c.expected).length);
    expect(matchIa).toBeGreaterThanOrEqual(cases.length - 2);
    expect(r.code).toBe(lines.some((l) => l.startsWith('!')) ? 1 : 0);
  });

  it('--json gives {input, ok, surt}; presets and levels are refused beside it (exit 2)', async () => {
    const r = await runCli(['key', '--format', 'surt', '--json', 'http://www.Archive.org/goo/?b&a=1']);
    expect(JSON.parse(r.stdout)).toEqual({ input: 'http://www.Archive.org/goo/?b&a=1', ok: true, surt: 'org,archive)/goo?a=1&b' });
    for (const extra of [['--preset', 'www'], ['--level', 'syntax'], ['--keep-fragment']]) {
      const bad = await runCli(['key', '--format', 'surt', ...extra, 'http://a.example/']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("urldedup key: --format surt uses the Internet Archive's canonicalization");
      expect(bad.stderr).toContain("Run 'urldedup key --help'.");
    }
    const unknown = await runCli(['key', '--format', 'cdx', 'http://a.example/']);
    expect(unknown.code).toBe(2);
  });
});

describe('export --what urls', () => {
  it('gives each URL its IA SURT', async () => {
    const root = mkdtempSync(join(tmpdir(), 'urldedup-surt-'));
    dirs.push(root);
    const db = join(root, 'db');
    const store = await openStore(db);
    await store.admit(['http://www.example.com/a?b=2&a=1', 'https://docs.example.org/Guide/']);
    await store.close();
    const r = await runCli(['export', '--db', db, '--what', 'urls']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { url: string; surt: string | null });
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.surt).toBe(toSurt(row.url));
    expect(rows.map((x) => x.surt).sort()).toEqual(['com,example)/a?a=1&b=2', 'org,example,docs)/guide']);
  });
});

describe('the service, format=surt', () => {
  it('adds surt to each key result (GET and POST); format=key or none leaves it out; another format is a 400', async () => {
    const h = await startHarness();
    try {
      const one = await get(`${h.url}/v1/key?url=${encodeURIComponent('http://www.Archive.org/goo/?b&a=1')}&format=surt`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ ok: true, surt: 'org,archive)/goo?a=1&b' });
      const plain = await get(`${h.url}/v1/key?url=${encodeURIComponent('http://a.example/')}`);
      expect(plain.body).not.toHaveProperty('surt');
      const batch = await postJson(`${h.url}/v1/key?format=surt`, cases.slice(0, 10).map((c) => c.input));
      expect(batch.status).toBe(200);
      const results = (batch.body as { results: { url: string; ok: boolean; surt?: string | null }[] }).results;
      results.forEach((res, i) => {
        if (!res.ok) return;
        const want = library(cases[i]!.input);
        expect(res.surt, cases[i]!.input).toBe(want.startsWith('!') ? null : want);
      });
      const bad = await get(`${h.url}/v1/key?url=${encodeURIComponent('http://a.example/')}&format=cdx`);
      expect(bad.status).toBe(400);
      expect(errorOf(bad).code).toBe('ERR_INVALID_PARAMETER');
    } finally {
      await h.stop();
    }
  });
});
