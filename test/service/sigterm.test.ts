// SIGTERM during load: the service (the BUILT CLI code, in its own process) stops accepting, lets
// in-flight admits finish, closes the store and exits 143. Every URL whose admit response arrived
// with `admitted: true` is in the store when it is opened again: nothing acknowledged is lost.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { postOwnConnection, tempDir } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/serve.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/src/cli/commands/serve.js', import.meta.url));

const CLIENTS = 8;
const BATCH = 300;

describe('SIGTERM during load', () => {
  it('finishes in-flight admits, exits 143, and loses no acknowledged URL', async () => {
    expect(existsSync(BUILT), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
    const dir = await tempDir();
    const db = join(dir, 'db');
    const child = spawn(process.execPath, [FIXTURE, 'serve', '--db', db, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error(`serve exited before listening: ${stderr}`)));
    });
    const ready = JSON.parse(first) as { event: string; url: string; port: number };
    expect(ready.event).toBe('listening');
    expect(ready.url).toBe(`http://127.0.0.1:${ready.port}`);

    const acknowledged: string[] = [];
    let responses = 0;
    let afterSignal = 0;
    let signalled = false;
    let refusedOrReset = 0;
    let shuttingDown = 0;
    const client = async (c: number): Promise<void> => {
      for (let b = 0; ; b++) {
        const urls = Array.from({ length: BATCH }, (_, i) => `https://sig${c}.example/b${b}/${i}`);
        let a;
        try {
          a = await postOwnConnection(`${ready.url}/v1/admit`, urls);
        } catch {
          refusedOrReset++; // the listener is closed: the service is going away
          return;
        }
        if (a.status === 503) {
          shuttingDown++;
          return;
        }
        expect(a.status).toBe(200);
        responses++;
        if (signalled) afterSignal++;
        for (const r of (a.body as { results: { url: string; admitted: boolean }[] }).results) if (r.admitted) acknowledged.push(r.url);
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    while (responses < 3 * CLIENTS) await new Promise((r) => setTimeout(r, 5));
    signalled = true;
    child.kill('SIGTERM');
    await Promise.all(clients);
    const exit = await exited;
    expect(exit, stderr).toEqual({ code: 143, signal: null });

    // reopen the store: every acknowledged URL is there, and the store is consistent
    expect(acknowledged.length).toBeGreaterThanOrEqual(3 * CLIENTS * BATCH);
    const store = await openStore(db);
    try {
      const missing: string[] = [];
      for (const url of acknowledged) if ((await store.canonical(url)).state !== 'queued') missing.push(url);
      expect(missing).toEqual([]);
      expect((await store.stats()).urls.admitted).toBeGreaterThanOrEqual(acknowledged.length);
      expect((await store.verify()).problems).toEqual([]);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
    // every client saw the stop: its next connection refused, or 503 ERR_SHUTTING_DOWN on a live one
    expect(refusedOrReset + shuttingDown).toBe(CLIENTS);
    // requests in flight when the signal came were answered (typically 4–8 of the 8)
    expect(afterSignal, `${refusedOrReset} clients refused, ${shuttingDown} told 503`).toBeGreaterThan(0);
  });
});
