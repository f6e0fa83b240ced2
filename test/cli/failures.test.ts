// Per-URL errors are stored (recordFetch) and now shown: `urldedup export --what urls` gives each
// failed URL's error code, `urldedup stats` counts failed URLs by code. A real LevelDB store in a
// temp folder, the built CLI as a child process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';

describe('failed URLs and their codes', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'urldedup-failures-'));
    db = join(dir, 'db');
    const store = await openStore(db);
    await store.admit(['http://a.example/503', 'http://a.example/503b', 'http://a.example/timeout', 'http://a.example/502', 'http://a.example/ok', 'http://a.example/queued']);
    await store.recordFetch('http://a.example/503', { status: 503, error: 'ERR_HTTP_5XX' });
    await store.recordFetch('http://a.example/503b', { status: 503, error: 'ERR_HTTP_5XX' });
    await store.recordFetch('http://a.example/timeout', { status: 0, error: 'ETIMEDOUT' });
    await store.recordFetch('http://a.example/502', { status: 502 }); // failed, without a code
    await store.recordFetch('http://a.example/ok', { status: 200 });
    await store.close();
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('export --what urls: an error field on each failed URL', async () => {
    const r = await runCli(['export', '--db', db, '--what', 'urls']);
    expect(r.code).toBe(0);
    const byUrl = new Map(r.stdout.trim().split('\n').map((l) => {
      const o = JSON.parse(l) as { url: string };
      return [o.url, o] as const;
    }));
    expect(byUrl.get('http://a.example/503')).toMatchObject({ state: 'failed', status: 503, error: 'ERR_HTTP_5XX' });
    expect(byUrl.get('http://a.example/timeout')).toMatchObject({ state: 'failed', status: 0, error: 'ETIMEDOUT' });
    expect(byUrl.get('http://a.example/502')).toMatchObject({ state: 'failed', status: 502 });
    expect(byUrl.get('http://a.example/502')).not.toHaveProperty('error');
    expect(byUrl.get('http://a.example/ok')).toMatchObject({ state: 'fetched', status: 200 });
    expect(byUrl.get('http://a.example/ok')).not.toHaveProperty('error');
    expect(byUrl.get('http://a.example/queued')).toMatchObject({ state: 'queued' });
  });

  it('stats: failed URLs counted by code, in --json and in the human form', async () => {
    const json = await runCli(['stats', '--db', db, '--json']);
    expect(json.code).toBe(0);
    const s = JSON.parse(json.stdout) as { urls: { failed: number }; failures: Record<string, number> };
    expect(s.urls.failed).toBe(4);
    expect(s.failures).toEqual({ ERR_HTTP_5XX: 2, ETIMEDOUT: 1, 'status:502': 1 });
    const human = await runCli(['stats', '--db', db]);
    expect(human.stdout).toMatch(/^failed by code +ERR_HTTP_5XX 2, ETIMEDOUT 1, status:502 1$/m);
  });
});
