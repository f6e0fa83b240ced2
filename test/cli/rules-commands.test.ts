// `urldedup explain` and `urldedup rules` (withdraw, block) on a real LevelDB store in a temp
// folder, run as the built CLI: a rule learned from three redirects under /docs/ shows up in the
// chain of a URL it rewrites, with its scope and evidence; withdrawing it gives its URLs back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A store where `h.example/https` is active under /docs/ and has pruned three http URLs (of the
 * five queued under /docs/, it checked two before pruning: they stay queued as themselves).
 */
async function storeWithRule(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'urldedup-rules-'));
  dirs.push(root);
  const db = join(root, 'db');
  const store = await openStore(db);
  await store.admit(['http://h.example/docs/x', 'http://h.example/docs/y', 'http://h.example/docs/z/w', 'http://h.example/docs/x2', 'http://h.example/docs/y2', 'http://h.example/api/v']);
  for (const p of ['a', 'b', 'c/d']) await store.recordRedirect(`http://h.example/docs/${p}`, `https://h.example/docs/${p}`, 301);
  expect((await store.stats()).pruned['rule:h.example/https']).toBe(3);
  await store.close();
  return db;
}

interface Step {
  via: string;
  url: string;
  rule?: { id: string; state: string; scopes: { at: string; query: boolean }[]; for: number; against: number };
  observations?: { how: string; v: string; status?: number; source: string; to?: string }[];
}

describe('urldedup explain', () => {
  it('shows the rule step with its scope, counts and observations, then the canonical URL (text)', async () => {
    const db = await storeWithRule();
    const r = await runCli(['explain', '--db', db, 'http://h.example/docs/q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('normal     http://h.example/docs/q');
    expect(r.stdout).toContain('step       rule:h.example/https -> https://h.example/docs/q');
    expect(r.stdout).toContain('active, scopes /docs/, for 3, against 0');
    expect(r.stdout).toContain('redirect for 301 http://h.example/docs/a -> https://h.example/docs/a');
    expect(r.stdout).toContain('canonical  https://h.example/docs/q');
    expect(r.stdout).toContain('via rule:h.example/https');
  });

  it('--json: one explanation per URL; outside the scope no rule step; an invalid URL fails alone (exit 1)', async () => {
    const db = await storeWithRule();
    const r = await runCli(['explain', '--db', db, '--json', 'http://h.example/docs/q', 'http://[x', 'http://h.example/api/q']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { input: string; steps?: Step[]; canonical?: { canonicalUrl: string; via?: string }; ok?: false; code?: string });
    expect(lines).toHaveLength(3);
    const [docs, bad, api] = lines;
    expect(docs!.steps).toHaveLength(1);
    const step = docs!.steps![0]!;
    expect(step.via).toBe('rule:h.example/https');
    expect(step.url).toBe('https://h.example/docs/q');
    expect(step.rule).toMatchObject({ id: 'h.example/https', state: 'active', for: 3, against: 0, scopes: [{ at: '/docs/', query: false }] });
    expect(step.observations).toHaveLength(3);
    expect(step.observations![0]).toMatchObject({ how: 'redirect', v: 'for', status: 301 });
    expect(docs!.canonical).toMatchObject({ canonicalUrl: 'https://h.example/docs/q', via: 'rule:h.example/https' });
    expect(bad).toEqual({ input: 'http://[x', ok: false, code: 'ERR_INVALID_HOST' });
    expect(api!.steps).toEqual([]);
    expect(api!.canonical!.canonicalUrl).toBe('http://h.example/api/q');
  });

  it('an invalid URL in text gives !CODE<TAB>URL; no URL is a usage error; --help has an example', async () => {
    const db = await storeWithRule();
    const r = await runCli(['explain', '--db', db, 'http://[x']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('!ERR_INVALID_HOST\thttp://[x\n');
    expect((await runCli(['explain', '--db', db])).code).toBe(2);
    const help = await runCli(['explain', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example:');
  });
});

describe('urldedup rules', () => {
  it('lists the learned rule as active with its scope, in text and NDJSON, filtered by --state', async () => {
    const db = await storeWithRule();
    const text = await runCli(['rules', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('h.example/https\tactive, scopes /docs/, for 3, against 0\n');
    const json = await runCli(['rules', '--db', db, '--json']);
    const rules = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; state: string; scopes: { at: string }[] });
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ id: 'h.example/https', state: 'active', scopes: [{ at: '/docs/' }] });
    expect((await runCli(['rules', '--db', db, '--state', 'withdrawn'])).stdout).toBe('');
    expect((await runCli(['rules', '--db', db, '--state', 'active'])).stdout).toContain('h.example/https');
    expect((await runCli(['rules', '--db', db, '--state', 'gone'])).code).toBe(2);
  });

  it('a contradiction: the rule line shows it withdrawn and the last contradiction in short', async () => {
    const db = await storeWithRule();
    const store = await openStore(db);
    // the host maps the other way under /docs/: the only scope is covered, the rule is withdrawn
    await store.recordRedirect('https://h.example/docs/zz', 'http://h.example/docs/zz', 301);
    await store.close();
    const r = await runCli(['rules', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^h\.example\/https\twithdrawn, scopes \(none\), for 3, against 1\tlast contradiction \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: inverse-redirect against 301 https:\/\/h\.example\/docs\/zz -> http:\/\/h\.example\/docs\/zz\n$/);
  });

  it('withdraw: the rule as stored (withdrawn, manual), its URLs back; explain no longer applies it', async () => {
    const db = await storeWithRule();
    const r = await runCli(['rules', 'withdraw', 'h.example/https', '--db', db]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('h.example/https\twithdrawn (manual), scopes (none), for 3, against 0\n3 URLs back to the frontier\n');
    const listed = await runCli(['rules', '--db', db, '--json', '--state', 'withdrawn']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ id: 'h.example/https', state: 'withdrawn', manual: true });
    const e = JSON.parse((await runCli(['explain', '--db', db, '--json', 'http://h.example/docs/x'])).stdout) as { steps: Step[]; canonical: { state: string } };
    expect(e.steps).toEqual([]);
    expect(e.canonical.state).toBe('queued');
    const store = await openStore(db, { readOnly: true });
    try {
      const stats = await store.stats();
      expect(stats.pruned['rule:h.example/https'] ?? 0).toBe(0);
      expect(stats.urls.queued).toBeGreaterThanOrEqual(4);
    } finally {
      await store.close();
    }
  });

  it('withdraw --json: {rule, restored}; a wrong id is a usage error (exit 2)', async () => {
    const db = await storeWithRule();
    const r = await runCli(['rules', 'withdraw', 'h.example/https', '--db', db, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rule: { id: 'h.example/https', state: 'withdrawn' }, restored: 3 });
    const bad = await runCli(['rules', 'withdraw', 'not-a-rule-id', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a rule id');
    expect((await runCli(['rules', 'withdraw', '--db', db])).code).toBe(2);
  });

  it('block HOST SPEC: an active rule is withdrawn and its URLs come back; a new one is kept from being learned', async () => {
    const db = await storeWithRule();
    const active = await runCli(['rules', 'block', 'h.example', 'https', '--db', db, '--json']);
    expect(active.code).toBe(0);
    expect(JSON.parse(active.stdout)).toMatchObject({ rule: { id: 'h.example/https', state: 'withdrawn', manual: true }, restored: 3 });
    const fresh = await runCli(['rules', 'block', 'h.example', 'slash-add', '--db', db]);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toBe('h.example/slash-add\twithdrawn (manual), scopes (none), for 0, against 0\n0 URLs back to the frontier\n');
    // three redirects that would teach slash-add teach nothing now
    const store = await openStore(db);
    for (const p of ['e', 'f', 'g/h']) await store.recordRedirect(`https://h.example/docs/${p}`, `https://h.example/docs/${p}/`, 301);
    const rules = new Map<string, string>();
    for await (const r of store.rules()) rules.set(r.id, r.state);
    await store.close();
    expect(rules.get('h.example/slash-add')).toBe('withdrawn');
    const badSpec = await runCli(['rules', 'block', 'h.example', 'no-such-spec', '--db', db]);
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toContain('not a rule spec');
    expect((await runCli(['rules', 'block', 'h.example/https', '--db', db])).code).toBe(2);
  });

  it('a store another process holds: withdraw is ERR_STORE_LOCKED, exit 3', async () => {
    const db = await storeWithRule();
    const holder = await openStore(db);
    try {
      const r = await runCli(['rules', 'withdraw', 'h.example/https', '--db', db]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('ERR_STORE_LOCKED');
      const e = await runCli(['explain', '--db', db, 'http://h.example/docs/q']);
      expect(e.code).toBe(3);
    } finally {
      await holder.close();
    }
  });

  it('--help has an example', async () => {
    const help = await runCli(['rules', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('rules withdraw');
  });
});
