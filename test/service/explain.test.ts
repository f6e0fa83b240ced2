// GET /v1/explain on a real service over a LevelDB store with a learned rule: the chain to the
// canonical key, the same JSON as `store.explain` (and `urldedup explain --json`), 400 with the
// URL's code for an invalid URL, and the query-string rules of /v1/key (missing, invalid UTF-8).
import { afterEach, describe, expect, it } from 'vitest';
import { get, startHarness, type Harness } from './support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function harnessWithRule(): Promise<Harness> {
  const harness = await startHarness();
  for (const p of ['a', 'b', 'c/d']) await harness.store.recordRedirect(`http://h.example/docs/${p}`, `https://h.example/docs/${p}`, 301);
  return harness;
}

const explainUrl = (base: string, url: string): string => `${base}/v1/explain?url=${encodeURIComponent(url)}`;

describe('GET /v1/explain', () => {
  it('a URL the learned rule rewrites: the rule step with its scope and evidence, then canonical', async () => {
    h = await harnessWithRule();
    const a = await get(explainUrl(h.url, 'http://h.example/docs/q'));
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(a.body).toMatchObject({
      input: 'http://h.example/docs/q',
      normal: 'http://h.example/docs/q',
      steps: [
        {
          via: 'rule:h.example/https',
          url: 'https://h.example/docs/q',
          rule: { id: 'h.example/https', state: 'active', for: 3, against: 0, scopes: [{ at: '/docs/', query: false }] },
          observations: [{ how: 'redirect', v: 'for', status: 301 }, {}, {}],
        },
      ],
      canonical: { canonicalUrl: 'https://h.example/docs/q', via: 'rule:h.example/https', state: 'unknown' },
    });
    // the same JSON as the store's explain (what `urldedup explain --json` prints)
    expect(a.body).toEqual(JSON.parse(JSON.stringify(await h.store.explain('http://h.example/docs/q'))));
  });

  it('outside the scope (and with a query the evidence never had) no rule step', async () => {
    h = await harnessWithRule();
    for (const u of ['http://h.example/api/q', 'http://h.example/docs/q?x=1']) {
      const a = await get(explainUrl(h.url, u));
      expect(a.status).toBe(200);
      expect((a.body as { steps: unknown[] }).steps).toEqual([]);
    }
  });

  it('400: an invalid URL with its code, a missing url, bytes that are not UTF-8', async () => {
    h = await startHarness();
    const bad = await get(explainUrl(h.url, 'http://[x'));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'ERR_INVALID_HOST', message: 'not a URL the store can key: ERR_INVALID_HOST', item: 'http://[x' } });
    const missing = await get(`${h.url}/v1/explain`);
    expect(missing.status).toBe(400);
    expect((missing.body as { error: { code: string } }).error.code).toBe('ERR_MISSING_PARAMETER');
    const latin1 = await get(`${h.url}/v1/explain?url=http://a.example/caf%E9`);
    expect(latin1.status).toBe(400);
    expect(latin1.body).toMatchObject({ error: { code: 'ERR_INVALID_UTF8', item: 'url' } });
  });

  it('POST is 405', async () => {
    h = await startHarness();
    const r = await fetch(explainUrl(h.url, 'http://a.example/'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(405);
  });
});
