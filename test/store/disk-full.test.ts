// A full disk (ERR_STORE_IO) loses nothing that was acknowledged. A worker
// (test/fixtures/store-admit-worker.mjs, on the built package) admits batches under `ulimit -f`, so
// LevelDB's writes fail with EFBIG once a file would pass the limit, as they would with ENOSPC; the
// parent then opens the folder without the limit and checks: every acknowledged batch is there,
// whole; the batch that failed is all or nothing; the store verifies clean and takes new URLs.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key } from '../../src/normalize/index.js';
import { openStore } from '../../src/store/index.js';
// @ts-expect-error: a plain ESM fixture without types
import { ownUrls } from '../fixtures/store-admit-batches.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = join(here, '../fixtures/store-admit-worker.mjs');
const BUILT = join(here, '../../dist/src/store/index.js');
const SEED = 0xd15c;
const typedOwnUrls = ownUrls as (seed: number, batchId: number) => string[];

interface Outcome {
  readonly code?: string;
  readonly codes: string[];
  readonly message: string;
}
type Message =
  | { type: 'ready' }
  | { type: 'begin'; batchId: number }
  | { type: 'ack'; batchId: number; keys: string[] }
  | { type: 'full' } & Outcome
  | { type: 'after'; again: Outcome | undefined; read: string | Outcome; closed: string | Outcome };

const dirs: string[] = [];

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npx tsc -p tsconfig.build.json\` first (npm test does)`);
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Run the fill worker with files limited to `limitKiB`; resolves with its messages once it exits. */
function fillUnderLimit(dir: string, limitKiB: number): Promise<{ messages: Message[]; exit: number | string | null }> {
  return new Promise((resolve, reject) => {
    const messages: Message[] = [];
    // bash sets the limit, then becomes node (the IPC channel and its environment pass through exec)
    const child = spawn('bash', ['-c', `ulimit -f ${limitKiB} && exec "$0" "$@"`, process.execPath, WORKER, 'fill', dir, String(SEED)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the fill worker did not finish within 60 s'));
    }, 60_000);
    child.on('message', (m) => messages.push(m as Message));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ messages, exit: signal ?? code });
    });
  });
}

describe('disk full', () => {
  it('refuses the write that does not fit with ERR_STORE_IO and keeps every acknowledged batch, whole', { timeout: 90_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'urldedup-full-'));
    dirs.push(dir);
    // 512 KiB: the write-ahead log (LevelDB starts a new one only past its 4 MiB write buffer)
    // reaches the limit after a few dozen batches
    const { messages, exit } = await fillUnderLimit(dir, 512);
    expect(exit).toBe(0);
    const acked = new Map<number, string[]>();
    const begun: number[] = [];
    for (const m of messages) {
      if (m.type === 'begin') begun.push(m.batchId);
      if (m.type === 'ack') acked.set(m.batchId, m.keys);
    }
    const full = messages.find((m): m is Extract<Message, { type: 'full' }> => m.type === 'full');
    const after = messages.find((m): m is Extract<Message, { type: 'after' }> => m.type === 'after');
    console.log(`disk full: ${acked.size} batches acknowledged before ${JSON.stringify(full)}; then ${JSON.stringify(after)}`);
    expect(acked.size).toBeGreaterThan(3);
    expect(full).toMatchObject({ code: 'ERR_STORE_IO' });
    // the store, once a write failed: another write is refused the same way, reads still answer,
    // and close settles (its own writes may fail too; the files are closed either way)
    expect(after?.again).toMatchObject({ code: 'ERR_STORE_IO' });
    expect(after?.read).toBe('queued');
    expect(after?.closed === 'closed' || (after?.closed as Outcome).code === 'ERR_STORE_IO').toBe(true);

    // without the limit: every acknowledged batch whole, the failed one all or nothing
    const store = await openStore(dir);
    try {
      let total = 0;
      for (const id of begun) {
        const own = typedOwnUrls(SEED, id);
        const states = await store.canonicalMany(own);
        const present = states.filter((s) => 'state' in s && s.state !== 'unknown').length;
        if (acked.has(id)) {
          expect(present, `batch ${id} was acknowledged`).toBe(own.length);
          expect(new Set(acked.get(id))).toEqual(new Set(own.map((u) => key(u))));
        } else {
          expect([0, own.length], `batch ${id} torn`).toContain(present);
        }
        total += present;
      }
      expect((await store.verify()).problems).toEqual([]);
      expect((await store.stats()).urls.admitted).toBe(total);
      expect((await store.admit(['http://after.example/full']))[0]).toMatchObject({ admitted: true });
    } finally {
      await store.close();
    }
  });
});
