// Past its budgets the service answers 503 with Retry-After at once, keeps answering health,
// metrics and the requests it took, and serves everything again when the load is gone.
import { afterEach, describe, expect, it } from 'vitest';
import { Budget, LookupQueue } from '../../src/service/overload.js';
import { errorOf, get, parsePrometheus, postOwnConnection, sampleValue, startHarness, type Answer, type Harness } from './support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const batch = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `https://load.example/${tag}/${i}?q=${i % 7}`);

function expectOverloaded(a: Answer): void {
  expect(a.status).toBe(503);
  expect(a.headers.get('retry-after')).toBe('1');
  expect(errorOf(a).code).toBe('ERR_OVERLOADED');
}

describe('overload', () => {
  it('requests over --max-inflight get 503 + Retry-After; the rest succeed; health stays up', async () => {
    h = await startHarness({ maxInFlight: 2 });
    const url = h.url;
    const burst = Array.from({ length: 40 }, (_, i) => postOwnConnection(`${url}/v1/key`, batch(4000, `k${i}`)));
    const health = get(`${url}/healthz`);
    const answers = await Promise.all(burst);
    expect((await health).status).toBe(200);
    const ok = answers.filter((a) => a.status === 200);
    const shed = answers.filter((a) => a.status !== 200);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(shed.length).toBeGreaterThan(0);
    for (const a of shed) expectOverloaded(a);
    for (const a of ok) expect((a.body as { results: unknown[] }).results).toHaveLength(4000);

    // the load is gone: everything is answered again, and the metrics tell what happened
    const again = await postOwnConnection(`${url}/v1/key`, batch(10, 'after'));
    expect(again.status).toBe(200);
    const { samples } = parsePrometheus((await get(`${url}/metrics`)).text);
    expect(sampleValue(samples, 'urldedup_http_requests_total', { route: '/v1/key', status: '503' })).toBe(shed.length);
    expect(sampleValue(samples, 'urldedup_http_requests_in_flight')).toBe(0);
  });

  it('URLs over the pending budget get 503; admits that got 503 and are retried are admitted once', async () => {
    h = await startHarness({ maxPendingUrls: 5_000, maxBatch: 5_000 });
    const url = h.url;
    const tags = Array.from({ length: 12 }, (_, i) => `a${i}`);
    const first = await Promise.all(tags.map((t) => postOwnConnection(`${url}/v1/admit`, batch(5_000, t))));
    const shed = first.filter((a) => a.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    for (const a of shed) expectOverloaded(a);
    // a client that backs off and retries gets through
    for (let i = 0; i < tags.length; i++) {
      if (first[i]!.status === 200) continue;
      let a = first[i]!;
      while (a.status === 503) {
        await new Promise((r) => setTimeout(r, 10));
        a = await postOwnConnection(`${url}/v1/admit`, batch(5_000, tags[i]!));
      }
      expect(a.status).toBe(200);
      expect((a.body as { results: { admitted: boolean }[] }).results.every((r) => r.admitted)).toBe(true);
    }
    expect((await h.store.stats()).urls.admitted).toBe(12 * 5_000);
  });

  it('a flood of single-key lookups on many connections: shed or answered, never a dropped connection', async () => {
    h = await startHarness({ maxInFlight: 4 });
    const url = h.url;
    const gets = Array.from({ length: 300 }, (_, i) =>
      fetch(`${url}/v1/key?url=${encodeURIComponent(`https://flood.example/${i}`)}`).then((r) => r.status),
    );
    const statuses = await Promise.all(gets);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect((await get(`${url}/healthz`)).status).toBe(200);
  });
});

describe('Budget and LookupQueue', () => {
  it('a budget refuses what would pass its capacity and takes again after give', () => {
    const b = new Budget(10);
    expect(b.take(6)).toBe(true);
    expect(b.take(5)).toBe(false);
    expect(b.take(4)).toBe(true);
    expect(b.inUse).toBe(10);
    b.give(6);
    expect(b.take(5)).toBe(true);
    expect(b.refused).toBe(1);
    expect(() => b.give(100)).toThrow();
  });

  it('the lookup queue never runs more than its concurrency, over all callers, results in order', async () => {
    const q = new LookupQueue(3);
    let running = 0;
    let peak = 0;
    const work = async (n: number): Promise<number> => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 1 + (n % 3)));
      running--;
      return n * 2;
    };
    const [a, b] = await Promise.all([q.map([1, 2, 3, 4, 5, 6, 7], work), q.map([10, 20, 30], work)]);
    expect(a).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(b).toEqual([20, 40, 60]);
    expect(peak).toBe(3);
    await expect(q.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await q.map([1], work)).toEqual([2]); // a failure gave its slot back
  });
});

describe('clients that never read their answers', () => {
  it('hold at most maxResponseBytes together, and are cut after responseTimeoutMs', { timeout: 30_000 }, async () => {
    const { connect } = await import('node:net');
    const h = await startHarness({ maxResponseBytes: 1024 * 1024, responseTimeoutMs: 1500, maxBatch: 60_000, maxPendingUrls: 100_000 });
    try {
      // an answer of some 15 MiB: more than loopback's socket buffers take
      const urls = Array.from({ length: 60_000 }, (_, i) => `http://slow-reader.example/${'p'.repeat(80)}/${i}`);
      const body = JSON.stringify(urls);
      const port = new URL(h.url).port;
      // a raw client that sends its request and never reads the answer
      const socket = connect(Number(port), '127.0.0.1');
      socket.pause();
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`POST /v1/key HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      // its answer (many MiB) waits in the server: new work is shed meanwhile
      let shed = false;
      for (let i = 0; i < 40 && !shed; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const r = await fetch(`${h.url}/v1/key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(['http://a.example/']) });
        shed = r.status === 503 && ((await r.json()) as { error: { code: string } }).error.code === 'ERR_OVERLOADED';
      }
      expect(shed).toBe(true);
      // past the response timeout the connection is cut and the budget comes back
      await new Promise((r) => setTimeout(r, 2500));
      const ok = await fetch(`${h.url}/v1/key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(['http://a.example/']) });
      expect(ok.status).toBe(200);
      // what the slow client gets when it reads at last: a cut answer, then the end
      let got = 0;
      let head = '';
      socket.on('data', (d: Buffer) => {
        if (head === '') head = d.subarray(0, 1024).toString('latin1');
        got += d.length;
      });
      socket.resume();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
      expect(length).toBeGreaterThan(4 * 2 ** 20);
      expect(got).toBeLessThan(length);
    } finally {
      await h.stop();
    }
  });
});
