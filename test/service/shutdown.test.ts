// Graceful stop in-process: a request in flight when close() is called (its body still arriving)
// is answered in full; new connections are refused; close() resolves only after it; the store can
// then be closed and reopened with the admitted URL in it.
import { request } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { get, startHarness } from './support.js';

describe('service.close()', () => {
  it('finishes a request whose body is still arriving, then refuses new connections', async () => {
    const h = await startHarness();
    const body = JSON.stringify(['https://stop.example/in-flight']);
    const half = Math.floor(body.length / 2);
    const answer = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
      const req = request(`${h.url}/v1/admit`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.write(body.slice(0, half));
      // the rest after close() has begun
      setTimeout(() => req.end(body.slice(half)), 150);
    });
    await new Promise((r) => setTimeout(r, 50)); // the request has reached its handler
    expect(h.service.inFlight).toBe(1);
    let closed = false;
    const closing = h.service.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    await expect(get(`${h.url}/healthz`)).rejects.toThrow(); // the listener is closed

    const a = await answer;
    expect(a.status).toBe(200);
    expect(a.connection).toBe('close');
    expect(JSON.parse(a.text)).toMatchObject({ results: [{ admitted: true, reason: 'new' }] });
    await closing;
    await h.store.close();
    const store = await openStore(join(h.dir, 'db'));
    expect((await store.canonical('https://stop.example/in-flight')).state).toBe('queued');
    await store.close();
    await h.stop();
  });
});

/** Send a request on a raw connection and leave before the answer. */
function sendAndLeave(url: string, path: string, body: string): Promise<void> {
  const port = Number(new URL(url).port);
  return new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`);
      socket.end(body, () => {
        setTimeout(() => {
          socket.destroy(); // gone before the answer
          resolve();
        }, 5);
      });
    });
    socket.on('error', reject);
  });
}

describe('clients that leave while their batch is handled', () => {
  it('close() waits for their handlers; no lookup meets a closed store; the store verifies', async () => {
    const logged: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const h = await startHarness({ logger: pino({ level: 'error' }, sink) });
    const urls = Array.from({ length: 10_000 }, (_, i) => `https://gone.example/${i}`);
    await Promise.all([sendAndLeave(h.url, '/v1/key', JSON.stringify(urls)), sendAndLeave(h.url, '/v1/admit', JSON.stringify(urls))]);
    await h.service.close();
    await h.store.close();
    expect(logged).toEqual([]);
    const store = await openStore(join(h.dir, 'db'));
    expect((await store.verify()).problems).toEqual([]);
    expect([0, 10_000]).toContain((await store.stats()).urls.admitted); // one atomic batch: all of it or none
    await store.close();
    await h.stop();
  });
});
