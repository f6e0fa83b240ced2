// service/json-depth (docs/reliability.md): 8 MB of `[` is within the body limit, and JSON.parse of it
// blocked the service for 0.7 s and took 400 MB, per request. The body reader now scans the bytes'
// nesting as they arrive (json-nesting.ts) and refuses a body deeper than any request shape at its
// first byte too deep: 400 ERR_JSON_TOO_DEEP, quickly, with RSS and /healthz latency unaffected.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonNestingScan } from '../../src/service/json-nesting.js';
import { errorOf, get, postJson, postRaw, startHarness, type Answer, type Harness } from './support.js';

/** Encoded once: the client's own work must not be what delays /healthz (the service runs in this process). */
const DEEP = Buffer.alloc(8_000_000, '[');

async function postBytes(url: string, body: Buffer): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as unknown, text };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('deeply nested JSON', () => {
  it('8 MB of [ is refused quickly; RSS stays bounded and /healthz answers on time meanwhile', async () => {
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    let worstHealth = 0;
    let healthChecks = 0;
    let stop = false;
    const health = (async () => {
      while (!stop) {
        const t0 = performance.now();
        expect((await get(`${h.url}/healthz`)).status).toBe(200);
        worstHealth = Math.max(worstHealth, performance.now() - t0);
        rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
        healthChecks++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const started = performance.now();
    for (let round = 0; round < 3; round++) {
      // one body at a time: the service runs in this process, and three 8 MB client bodies in
      // flight at once put the client's own buffers into the RSS figure (171 MB seen under load)
      const answers: Answer[] = [];
      for (const path of ['/v1/key', '/v1/admit', '/v1/evidence']) answers.push(await postBytes(`${h.url}${path}`, DEEP));
      for (const a of answers) {
        expect(a.status).toBe(400);
        expect(errorOf(a).code).toBe('ERR_JSON_TOO_DEEP');
      }
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }
    const elapsed = performance.now() - started;
    stop = true;
    await health;
    // nine bodies: before the scan, each one cost 0.7 s of blocked event loop and 400 MB
    expect(elapsed).toBeLessThan(5000);
    expect(healthChecks).toBeGreaterThan(0);
    expect(worstHealth).toBeLessThan(300);
    expect(rssPeak - rssBefore).toBeLessThan(150 * 1024 * 1024);
    expect((await postJson(`${h.url}/v1/admit`, ['https://after.example/'])).status).toBe(200);
  });

  it('a chunked body (no Content-Length) is answered without its end: dropped unparsed past the drain limit', async () => {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${h.url}/v1/admit`, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', () => undefined); // the server closes before the body's end: its answer is what counts
      req.write('{"urls": [[[[[');
      // 2 MiB more, and never the end: the answer must not wait for it
      const more = '['.repeat(64 * 1024);
      for (let i = 0; i < 32; i++) req.write(more);
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'ERR_JSON_TOO_DEEP' } });
  });

  it('the request shapes pass (depth 3); one level more is ERR_JSON_TOO_DEEP; brackets in strings do not count', async () => {
    const ok = await postJson(`${h.url}/v1/evidence`, { redirects: [{ from: 'http://d.example/[[[{{{', to: 'https://d.example/[[[{{{', status: 301 }] });
    expect(ok.status).toBe(200);
    const deeper = await postRaw(`${h.url}/v1/key`, '[[[["https://d.example/"]]]]');
    expect(deeper.status).toBe(400);
    expect(errorOf(deeper).code).toBe('ERR_JSON_TOO_DEEP');
    const mismatched = await postRaw(`${h.url}/v1/key`, '["https://d.example/"}');
    expect(errorOf(mismatched).code).toBe('ERR_MALFORMED_JSON');
  });
});

describe('JsonNestingScan', () => {
  const scan = (maxDepth: number, ...chunks: string[]): string => {
    const s = new JsonNestingScan(maxDepth);
    let v = 'ok';
    for (const c of chunks) v = s.push(Buffer.from(c, 'utf8'));
    return v;
  };
  it('counts structures outside strings only, across chunk boundaries and escapes', () => {
    expect(scan(2, '[[]]')).toBe('ok');
    expect(scan(2, '[[[]]]')).toBe('too-deep');
    expect(scan(1, '["[[[", "\\"[[", "\\\\"]')).toBe('ok');
    expect(scan(1, '["a\\', '"[[[", "x"]')).toBe('ok');
    expect(scan(1, '["a\\\\', '", [[]]')).toBe('too-deep');
    expect(scan(3, '{"a": [{"b": "é]}"}]}')).toBe('ok');
    expect(scan(3, '[}')).toBe('mismatched');
    expect(scan(3, ']')).toBe('mismatched');
  });
});
