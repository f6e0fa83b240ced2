// The `/v1/key` results are written as JSON text by hand (src/service/json.ts): the text must be
// exactly what `JSON.stringify` gives for the same result objects — every escape (RFC 8259 §7,
// lone surrogates), the field order, `via` only when there is one, `normal` = urlFromKey(key).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint, urlFromKey } from '../../src/normalize/index.js';
import { jsonString, keyResultJson, Utf8Builder } from '../../src/service/json.js';
import type { CanonicalFailure, CanonicalResult } from '../../src/store/index.js';
import { get, postJson, postRaw, startHarness, type Harness } from './support.js';

/** The result object as the service built it before json.ts; `JSON.stringify` of it is the reference text. */
function reference(url: string, c: CanonicalResult | CanonicalFailure): unknown {
  if ('ok' in c) return { url, ok: false, code: c.code };
  const item = {
    url,
    ok: true,
    normal: urlFromKey(c.key),
    key: c.key,
    canonicalKey: c.canonicalKey,
    canonicalUrl: c.canonicalUrl,
    fingerprint: fingerprint(c.canonicalKey),
    state: c.state,
  };
  return c.via === undefined ? item : { ...item, via: c.via };
}

/** Inputs that need every kind of escape, and some that need none. */
const awkward = [
  'https://a.example/plain',
  'https://a.example/"quoted"',
  'https://a.example/back\\slash',
  'https://a.example/tab\there',
  'https://a.example/nul\u0000and\u001f',
  'https://a.example/del\u007f',
  'https://a.example/line\u2028sep\u2029',
  'https://a.example/é/日本/😀',
  'https://a.example/lone\ud800high',
  'https://a.example/lone\udc00low',
  'https://a.example/pair\ud83d\ude00',
  'https://a.example/reversed\ude00\ud83d',
  '',
  'not a url',
];

describe('jsonString', () => {
  it('is JSON.stringify for every single UTF-16 code unit, and for pairs around the surrogates', () => {
    for (let u = 0; u <= 0xffff; u++) {
      const s = 'a' + String.fromCharCode(u) + 'b';
      if (jsonString(s) !== JSON.stringify(s)) expect(jsonString(s)).toBe(JSON.stringify(s));
    }
    for (const s of ['\ud83d\ude00', '\ude00\ud83d', '\ud800\ud800', '\udbff\udfff', '"\\', '']) expect(jsonString(s)).toBe(JSON.stringify(s));
  });
});

describe('keyResultJson', () => {
  const ok: CanonicalResult = { key: 'example,a)https:///x', canonicalKey: 'example,a)https:///x', canonicalUrl: 'https://a.example/x', state: 'queued' };
  const moved: CanonicalResult = { key: 'example,a)https:///x?utm_source=1', canonicalKey: 'example,a)https:///x', canonicalUrl: 'https://a.example/x', state: 'unknown', via: 'preset:tracking' };
  const seen: CanonicalResult = { key: 'example,a)https:///"y"', canonicalKey: 'example,a)https:///\\y', canonicalUrl: 'https://a.example/\\y', state: 'seen', via: 'rule:"q"' };
  const failed: CanonicalFailure = { ok: false, code: 'ERR_INVALID_HOST', input: 'http://[::1/' };

  it('is JSON.stringify of the result object, for results with and without via, and failures', () => {
    for (const url of awkward) {
      for (const c of [ok, moved, seen, failed]) expect(keyResultJson(url, c)).toBe(JSON.stringify(reference(url, c)));
    }
  });
});

describe('Utf8Builder', () => {
  it('holds the UTF-8 of everything appended, across growth, for 1- to 4-byte characters', () => {
    const pieces = Array.from({ length: 3000 }, (_, i) => awkward[i % awkward.length]! + String(i));
    const b = new Utf8Builder(1);
    for (const p of pieces) b.append(p);
    expect(b.bytes().equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
  });
});

describe('over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({}, { presets: ['tracking'] });
    await postJson(`${h.url}/v1/admit`, ['https://a.example/seen', 'https://a.example/"q"?x=\\']);
    await postJson(`${h.url}/v1/evidence`, { redirects: [{ from: 'https://a.example/old', to: 'https://a.example/new', status: 301 }] });
  });
  afterAll(async () => {
    await h.stop();
  });

  const urls = [
    ...awkward,
    'https://a.example/seen',
    'HTTPS://A.example:443/seen?utm_source=x',
    'https://a.example/old',
    'https://a.example/"q"?x=\\',
    'http://b.example:99999/',
  ];

  it('POST /v1/key answers the JSON.stringify text of the results canonicalMany gives', async () => {
    const found = await h.store.canonicalMany(urls);
    const a = await postJson(`${h.url}/v1/key`, urls);
    expect(a.status).toBe(200);
    expect(a.text).toBe(JSON.stringify({ results: urls.map((u, i) => reference(u, found[i]!)) }));
    expect(Number(a.headers.get('content-length'))).toBe(Buffer.byteLength(a.text));
  });

  it('a batch longer than one chunk of lookups is one array, in order', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => urls[i % urls.length]!);
    const found = await h.store.canonicalMany(many);
    const a = await postRaw(`${h.url}/v1/key`, JSON.stringify(many));
    expect(a.status).toBe(200);
    expect(a.text).toBe(JSON.stringify({ results: many.map((u, i) => reference(u, found[i]!)) }));
  });

  it('an empty batch is an empty array', async () => {
    const a = await postRaw(`${h.url}/v1/key`, '[]');
    expect(a.status).toBe(200);
    expect(a.text).toBe('{"results":[]}');
  });

  it('GET /v1/key answers the same text for one URL', async () => {
    for (const u of ['https://a.example/"q"?x=\\', 'HTTPS://A.example:443/seen?utm_source=x', 'https://a.example/old', 'https://a.example/é/😀']) {
      const c = await h.store.canonical(u);
      const a = await get(`${h.url}/v1/key?url=${encodeURIComponent(u)}`);
      expect(a.status).toBe(200);
      expect(a.text).toBe(JSON.stringify(reference(u, c)));
    }
  });
});
