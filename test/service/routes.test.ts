// Every route of the query service against a real LevelDB store, over HTTP on 127.0.0.1: the JSON
// shapes, the error bodies (code and item), body and batch limits, and one bad URL in a batch
// failing alone.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/service/routes.js';
import { errorOf, get, postJson, postRaw, startHarness, type Harness } from './support.js';

interface KeyOk {
  url: string;
  ok: true;
  normal: string;
  key: string;
  canonicalKey: string;
  canonicalUrl: string;
  fingerprint: string;
  state: string;
  via?: string;
}
type KeyItem = KeyOk | { url: string; ok: false; code: string };
interface AdmitItem {
  url: string;
  key: string | null;
  identityKey: string | null;
  admitted: boolean;
  reason: string;
  via?: string;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxBody: 2 * 1024 * 1024 }, { presets: ['tracking'] });
});
afterAll(async () => {
  await h.stop();
});

const keyUrl = (url: string): string => `${h.url}/v1/key?url=${encodeURIComponent(url)}`;

describe('GET /v1/key', () => {
  it('gives the normal form, keys, fingerprint and state of one URL', async () => {
    const a = await get(keyUrl('HTTP://Example.COM:80/a/./b/../c?utm_source=x&id=1#top'));
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    const item = a.body as KeyOk;
    expect(item).toMatchObject({
      url: 'HTTP://Example.COM:80/a/./b/../c?utm_source=x&id=1#top',
      ok: true,
      normal: 'http://example.com/a/c?utm_source=x&id=1',
      key: 'com,example)http:///a/c?utm_source=x&id=1',
      canonicalKey: 'com,example)http:///a/c?id=1',
      canonicalUrl: 'http://example.com/a/c?id=1',
      state: 'unknown',
      via: 'preset:tracking',
    });
    expect(item.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('400 with the code and the URL for an invalid URL; 400 without ?url', async () => {
    const bad = await get(keyUrl('http://[::1/'));
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_HOST', item: 'http://[::1/' });
    const missing = await get(`${h.url}/v1/key`);
    expect(missing.status).toBe(400);
    expect(errorOf(missing)).toMatchObject({ code: 'ERR_MISSING_PARAMETER', item: 'url' });
  });
});

describe('POST /v1/key', () => {
  it('one result per URL in order; an invalid URL fails alone', async () => {
    const urls = ['https://a.example/x', 'not a url', 'https://A.EXAMPLE:443/x?utm_medium=m', 'http://b.example:99999/'];
    const a = await postJson(`${h.url}/v1/key`, urls);
    expect(a.status).toBe(200);
    const { results } = a.body as { results: KeyItem[] };
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(results[0]).toMatchObject({ ok: true, key: 'example,a)https:///x', canonicalKey: 'example,a)https:///x' });
    expect(results[1]).toEqual({ url: 'not a url', ok: false, code: 'ERR_RELATIVE_URL' });
    expect(results[2]).toMatchObject({ ok: true, canonicalKey: 'example,a)https:///x', via: 'preset:tracking' });
    expect((results[2] as KeyOk).fingerprint).toBe((results[0] as KeyOk).fingerprint);
    expect(results[3]).toEqual({ url: 'http://b.example:99999/', ok: false, code: 'ERR_INVALID_PORT' });
  });

  it('an empty array gives no results', async () => {
    const a = await postJson(`${h.url}/v1/key`, []);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ results: [] });
  });

  it('a batch over the limit: 413 ERR_BATCH_TOO_LARGE; exactly the limit is fine', async () => {
    const urls = Array.from({ length: 10_001 }, (_, i) => `https://batch.example/${i}`);
    const over = await postJson(`${h.url}/v1/key`, urls);
    expect(over.status).toBe(413);
    expect(errorOf(over).code).toBe('ERR_BATCH_TOO_LARGE');
    expect(errorOf(over).message).toContain('10000');
    const full = await postJson(`${h.url}/v1/key`, urls.slice(0, 10_000));
    expect(full.status).toBe(200);
    expect((full.body as { results: unknown[] }).results).toHaveLength(10_000);
  });

  it('malformed JSON: 400 ERR_MALFORMED_JSON; wrong shapes: 400 ERR_INVALID_BODY naming the item', async () => {
    for (const body of ['["https://a.example/"', '', '{', 'nope']) {
      const a = await postRaw(`${h.url}/v1/key`, body);
      expect(a.status, body).toBe(400);
      expect(errorOf(a).code, body).toBe('ERR_MALFORMED_JSON');
    }
    const notArray = await postJson(`${h.url}/v1/key`, { urls: [] });
    expect(notArray.status).toBe(400);
    expect(errorOf(notArray).code).toBe('ERR_INVALID_BODY');
    const notString = await postJson(`${h.url}/v1/key`, ['https://a.example/', 42]);
    expect(notString.status).toBe(400);
    expect(errorOf(notString)).toMatchObject({ code: 'ERR_INVALID_BODY', item: 1 });
  });

  it('a body that is not application/json: 415', async () => {
    const a = await postRaw(`${h.url}/v1/key`, '["https://a.example/"]', { 'content-type': 'text/plain' });
    expect(a.status).toBe(415);
    expect(errorOf(a).code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over --max-body: 413 ERR_BODY_TOO_LARGE, and the service goes on', async () => {
    const big = JSON.stringify(['https://a.example/' + 'x'.repeat(3 * 1024 * 1024)]);
    const a = await postRaw(`${h.url}/v1/key`, big);
    expect(a.status).toBe(413);
    expect(errorOf(a).code).toBe('ERR_BODY_TOO_LARGE');
    expect((await get(`${h.url}/healthz`)).status).toBe(200);
  });
});

describe('POST /v1/admit', () => {
  it('gives store.admit results: new once, then seen, duplicates and invalid URLs in place', async () => {
    const urls = ['https://admit.example/a', 'https://ADMIT.example:443/a', 'https://admit.example/a?utm_source=x', 'bad url', 'ftp://admit.example/f'];
    const first = await postJson(`${h.url}/v1/admit`, urls);
    expect(first.status).toBe(200);
    const r1 = (first.body as { results: AdmitItem[] }).results;
    expect(r1.map((r) => [r.admitted, r.reason])).toEqual([
      [true, 'new'],
      [false, 'duplicate-in-batch'],
      [false, 'preset:tracking'],
      [false, 'invalid:ERR_RELATIVE_URL'],
      [false, 'out-of-scope'],
    ]);
    expect(r1[0]).toEqual({ url: urls[0], key: 'example,admit)https:///a', identityKey: 'example,admit)https:///a', admitted: true, reason: 'new' });
    expect(r1[3]).toMatchObject({ key: null, identityKey: null });
    const again = await postJson(`${h.url}/v1/admit`, urls.slice(0, 1));
    expect((again.body as { results: AdmitItem[] }).results[0]).toMatchObject({ admitted: false, reason: 'seen' });
    const state = await get(keyUrl('https://admit.example/a'));
    expect((state.body as KeyOk).state).toBe('queued');
  });

  it('takes {urls, depth, source} too, and refuses unknown fields', async () => {
    const a = await postJson(`${h.url}/v1/admit`, { urls: ['https://admit.example/deep'], depth: 3, source: 'https://admit.example/a' });
    expect(a.status).toBe(200);
    expect((a.body as { results: AdmitItem[] }).results[0]).toMatchObject({ admitted: true, reason: 'new' });
    const exported: { url: string; depth: number }[] = [];
    for await (const u of h.store.canonicalUrls()) exported.push(u);
    expect(exported.find((u) => u.url === 'https://admit.example/deep')?.depth).toBe(3);
    const bad = await postJson(`${h.url}/v1/admit`, { urls: [], priority: 1 });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'ERR_INVALID_BODY', item: 'priority' });
    const badDepth = await postJson(`${h.url}/v1/admit`, { urls: [], depth: -1 });
    expect(errorOf(badDepth)).toMatchObject({ code: 'ERR_INVALID_BODY', item: 'depth' });
  });

  it('batch limit and malformed JSON as for /v1/key', async () => {
    const over = await postJson(`${h.url}/v1/admit`, Array.from({ length: 10_001 }, (_, i) => `https://over.example/${i}`));
    expect(over.status).toBe(413);
    expect(errorOf(over).code).toBe('ERR_BATCH_TOO_LARGE');
    expect((await h.store.canonical('https://over.example/0')).state).toBe('unknown');
    const bad = await postRaw(`${h.url}/v1/admit`, '["https://a.example/",');
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('ERR_MALFORMED_JSON');
  });
});

describe('POST /v1/evidence', () => {
  it('records redirects then fetches as the crawler does; a bad URL fails alone', async () => {
    await postJson(`${h.url}/v1/admit`, ['http://ev.example/old']);
    const a = await postJson(`${h.url}/v1/evidence`, {
      redirects: [
        { from: 'http://ev.example/old', to: 'https://ev.example/new', status: 301 },
        { from: 'http://[bad/', to: 'https://ev.example/x', status: 302 },
      ],
      fetches: [
        { url: 'https://ev.example/new', status: 200, contentHash: 'c0ffee' },
        { url: 'https://ev.example/gone', status: 0, error: 'ETIMEDOUT' },
        { url: 'relative/path', status: 200 },
      ],
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      redirects: [{ ok: true }, { ok: false, code: 'ERR_INVALID_HOST' }],
      fetches: [{ ok: true }, { ok: true }, { ok: false, code: 'ERR_RELATIVE_URL' }],
    });
    // the 301 made the old URL an alias of the new one, which was fetched
    const old = (await get(keyUrl('http://ev.example/old'))).body as KeyOk;
    expect(old).toMatchObject({ state: 'redirected', canonicalKey: 'example,ev)https:///new' });
    expect(((await get(keyUrl('https://ev.example/new'))).body as KeyOk).state).toBe('fetched');
    expect(((await get(keyUrl('https://ev.example/gone'))).body as KeyOk).state).toBe('failed');
    const again = await postJson(`${h.url}/v1/admit`, ['http://ev.example/old', 'https://ev.example/new']);
    expect((again.body as { results: AdmitItem[] }).results.map((r) => r.admitted)).toEqual([false, false]);
  });

  it('400 naming the item for a wrong shape; nothing is recorded', async () => {
    const cases: [unknown, string | undefined][] = [
      [[], undefined],
      [{ redirects: [{ from: 'http://s.example/a', to: 'http://s.example/b', status: 200 }] }, 'redirects[0]'],
      [{ redirects: [{ from: 'http://s.example/c', to: 'http://s.example/d', status: 301 }, { from: 1, to: 'x', status: 301 }] }, 'redirects[1]'],
      [{ fetches: [{ url: 'http://s.example/e', status: '200' }] }, 'fetches[0]'],
      [{ fetches: [], other: 1 }, 'other'],
    ];
    for (const [body, item] of cases) {
      const a = await postJson(`${h.url}/v1/evidence`, body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      const e = errorOf(a);
      expect(e.code).toBe('ERR_INVALID_BODY');
      expect(e.item).toBe(item);
    }
    expect((await h.store.canonical('http://s.example/c')).state).toBe('unknown');
  });
});

describe('GET /v1/stats, /healthz, /metrics; unknown routes', () => {
  it('stats are store.stats()', async () => {
    const a = await get(`${h.url}/v1/stats`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(await h.store.stats());
    expect((a.body as { urls: { admitted: number } }).urls.admitted).toBeGreaterThan(0);
  });

  it('healthz', async () => {
    const a = await get(`${h.url}/healthz`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ status: 'ok' });
  });

  it('metrics are Prometheus text', async () => {
    const a = await get(`${h.url}/metrics`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(a.text).toContain('# TYPE urldedup_http_requests_total counter');
  });

  it('404 for an unknown path, 405 with Allow for a wrong method', async () => {
    const nf = await get(`${h.url}/v2/nothing`);
    expect(nf.status).toBe(404);
    expect(errorOf(nf).code).toBe('ERR_NOT_FOUND');
    const na = await fetch(`${h.url}/v1/admit`);
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('POST');
    expect(((await na.json()) as { error: { code: string } }).error.code).toBe('ERR_METHOD_NOT_ALLOWED');
  });
});

describe('docs/openapi.yaml', () => {
  it('describes every route with its method', () => {
    const doc = readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8');
    expect(doc).toMatch(/^openapi: 3\.1\.\d+$/m);
    const paths = doc.slice(doc.indexOf('\npaths:\n'), doc.indexOf('\ncomponents:\n'));
    for (const r of routes) {
      const start = paths.indexOf(`\n  ${r.path}:\n`);
      expect(start, r.path).toBeGreaterThan(-1);
      const next = paths.slice(start + 1).search(/\n  \/\S*:\n/);
      const block = next === -1 ? paths.slice(start) : paths.slice(start, start + 1 + next);
      expect(block, `${r.method} ${r.path}`).toMatch(new RegExp(`\n    ${r.method.toLowerCase()}:\n`));
    }
  });
});
