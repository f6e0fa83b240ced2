// Crash safety of the LevelDB store (docs/reliability.md, promises 1, 3, 4 and 5).
//
// A forked worker (test/fixtures/store-admit-worker.mjs, on the built package) admits randomized
// batches and reports each over IPC only after admit() resolved. The parent keeps those
// acknowledgements in an oracle outside the child (O1), SIGKILLs the child at a random moment,
// reopens the store and checks: every acknowledged key is present, every batch is all or nothing,
// recorded fetches stay recorded, and the store's invariants and counters hold (O3, O4, O5).
// 10 cycles by default, 200 with URLDEDUP_LONG=1. Replay a run with URLDEDUP_SEED=<seed>.
import { fork, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key, urlFromKey } from '../../src/normalize/index.js';
import { openStore, type SeenStore } from '../../src/store/index.js';
// @ts-expect-error: a plain ESM fixture without types
import { mulberry32, ownUrls } from '../fixtures/store-admit-batches.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = join(here, '../fixtures/store-admit-worker.mjs');
const BUILT = join(here, '../../dist/src/store/index.js');
const LONG = process.env['URLDEDUP_LONG'] === '1';
const CYCLES = LONG ? 200 : 10;
const SEED = process.env['URLDEDUP_SEED'] !== undefined ? Number(process.env['URLDEDUP_SEED']) : Math.floor(Math.random() * 2 ** 31);

type Message =
  | { type: 'ready' }
  | { type: 'opened' }
  | { type: 'begin'; batchId: number }
  | { type: 'ack'; batchId: number; keys: string[] }
  | { type: 'fetched'; key: string }
  | { type: 'error'; code: string; codes: string[]; message: string }
  | { type: 'crash'; message: string };

const typedOwnUrls = ownUrls as (seed: number, batchId: number) => string[];
const typedRng = mulberry32 as (seed: number) => () => number;

function start(args: string[], onMessage: (m: Message) => void): { child: ChildProcess; exited: Promise<NodeJS.Signals | number | null> } {
  const child = fork(WORKER, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (m) => onMessage(m as Message));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited };
}

function waitFor(child: ChildProcess, type: Message['type'], timeoutMs = 10_000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker sent no ${type} within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: unknown): void => {
      if ((m as Message).type === type) {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m as Message);
      }
    };
    child.on('message', onMessage);
  });
}

function causeCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 6; e = e.cause as typeof e, i++) {
    if (typeof e.code === 'string') codes.push(e.code);
  }
  return codes;
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'urldedup-'));
  dirs.push(d);
  return d;
}

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npx tsc -p tsconfig.build.json\` first (npm test does)`);
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('crash/kill-during-admit', () => {
  it(`keeps every acknowledged batch, whole, across ${CYCLES} SIGKILLs (seed ${SEED})`, { timeout: LONG ? 900_000 : 60_000 }, async () => {
    console.log(`crash-resume: seed ${SEED} (replay with URLDEDUP_SEED=${SEED}), ${CYCLES} cycles`);
    // a fresh folder every 25 cycles keeps the per-cycle checks (verify scans everything) bounded
    const FOLDER_CYCLES = 25;
    let dir = '';
    let oracleFile = '';
    const rnd = typedRng(SEED);
    const acked = new Map<number, string[]>();
    const begun = new Set<number>();
    const fetched = new Set<string>();
    let ownTotal = 0;
    let totalAcked = 0;
    const tally = { acked: 0, unackedWhole: 0, unackedAbsent: 0, fetched: 0 };
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      if (cycle % FOLDER_CYCLES === 0) {
        dir = tempDir();
        oracleFile = join(dir, '..', `${dir.split('/').pop()}.oracle.ndjson`);
        dirs.push(oracleFile);
        acked.clear();
        fetched.clear();
        ownTotal = 0;
      }
      const sync = ['never', 'hybrid', 'always'][Math.floor(rnd() * 3)]!;
      const concurrency = 1 + Math.floor(rnd() * 3);
      const firstId = cycle * 1_000_000;
      let crash: string | undefined;
      const { child, exited } = start(['admit', dir, String(SEED), sync, String(firstId), String(concurrency)], (m) => {
        if (m.type === 'begin') begun.add(m.batchId);
        else if (m.type === 'ack') acked.set(m.batchId, m.keys);
        else if (m.type === 'fetched') fetched.add(m.key);
        else if (m.type === 'crash') crash = m.message;
        if (m.type === 'ack' || m.type === 'fetched') appendFileSync(oracleFile, JSON.stringify({ cycle, ...m }) + '\n');
      });
      await waitFor(child, 'ready');
      await new Promise((r) => setTimeout(r, 5 + Math.floor(rnd() * 296)));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(crash, `worker failed in cycle ${cycle} (seed ${SEED})`).toBeUndefined();

      // restart right after the kill: no manual unlock. The worker read the fronts this process
      // wrote down at its last close and deleted them before writing: they are built from the keys
      const store: SeenStore = await openStore(dir, { frontSnapshotMinKeys: 0 });
      try {
        expect((await store.stats()).front.source, `cycle ${cycle}`).toBe('database');
        for (const id of begun) {
          const own = typedOwnUrls(SEED, id);
          const states = await Promise.all(own.map(async (u) => (await store.canonical(u)).state));
          const present = states.filter((s) => s !== 'unknown').length;
          const keys = acked.get(id);
          if (keys !== undefined) {
            // O1: acknowledged means present; and the batch admitted exactly its own URLs
            expect(present, `batch ${id} acknowledged (seed ${SEED}, cycle ${cycle})`).toBe(own.length);
            expect(new Set(keys)).toEqual(new Set(own.map((u) => key(u))));
            ownTotal += own.length;
            tally.acked++;
          } else {
            // not acknowledged: all or nothing
            expect([0, own.length], `batch ${id} torn (seed ${SEED}, cycle ${cycle})`).toContain(present);
            if (present === own.length) {
              acked.set(id, own.map((u) => key(u)));
              ownTotal += own.length;
            }
            if (present === 0) tally.unackedAbsent++;
            else tally.unackedWhole++;
          }
        }
        begun.clear();
        // earlier acknowledged batches stay whole too (a sample each cycle; the counts cover the rest)
        const earlier = [...acked.keys()];
        for (let i = 0; i < 5 && earlier.length > 0; i++) {
          const id = earlier[Math.floor(rnd() * earlier.length)]!;
          const own = typedOwnUrls(SEED, id);
          const states = await Promise.all(own.map(async (u) => (await store.canonical(u)).state));
          expect(states.filter((st) => st === 'unknown'), `batch ${id} lost after a later kill (seed ${SEED})`).toEqual([]);
        }
        for (const k of fetched) {
          const s = (await store.canonical(urlFromKey(k))).state;
          expect(['fetched', 'failed']).toContain(s);
        }
        // O3 and O4: frontier ⇔ queued, counters = recount, admitted = sum of states; O5: front
        const report = await store.verify();
        expect(report.problems, `seed ${SEED}, cycle ${cycle}`).toEqual([]);
        const s = await store.stats();
        expect(s.urls.admitted).toBe(s.urls.queued + s.urls.fetched + s.urls.redirected + s.urls.pruned + s.urls.failed);
        expect(s.urls.admitted).toBe(ownTotal);
        totalAcked = acked.size;
      } finally {
        await store.close();
      }
    }
    tally.fetched = fetched.size;
    console.log(`crash-resume: batches acknowledged ${tally.acked}, unacknowledged but whole ${tally.unackedWhole}, unacknowledged and absent ${tally.unackedAbsent}; fetches recorded ${tally.fetched}`);
    expect(totalAcked).toBeGreaterThan(0);
  });
});

describe('crash/torn-wal-tail', () => {
  // LevelDB's log reader takes a record cut short at the end of the newest log as the end of the
  // log ("assume the writer died in the middle of writing the record"): the store opens, and what
  // it holds is whole batches, a prefix of the commit order.
  it(`opens after the newest log lost 1–100 bytes, with whole batches in commit order (seed ${SEED})`, { timeout: 60_000 }, async () => {
    const rnd = typedRng(SEED ^ 0x70c4);
    for (let cycle = 0; cycle < (LONG ? 20 : 4); cycle++) {
      const dir = tempDir();
      const order: number[] = [];
      const { child, exited } = start(['admit', dir, String(SEED), 'never', String(cycle * 1_000_000), '1'], (m) => {
        if (m.type === 'begin') order.push(m.batchId);
      });
      await waitFor(child, 'ready');
      await new Promise((r) => setTimeout(r, 50 + Math.floor(rnd() * 200)));
      child.kill('SIGKILL');
      await exited;
      const logs = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
      const newest = logs[logs.length - 1];
      if (newest !== undefined) {
        const path = join(dir, newest);
        const size = statSync(path).size;
        if (size > 100) truncateSync(path, size - 1 - Math.floor(rnd() * 100));
      }
      const store = await openStore(dir);
      try {
        let cut = false;
        for (const id of order) {
          const own = typedOwnUrls(SEED, id);
          const present = (await Promise.all(own.map(async (u) => (await store.canonical(u)).state))).filter((st) => st !== 'unknown').length;
          expect([0, own.length], `batch ${id} torn (seed ${SEED})`).toContain(present);
          if (present === 0) cut = true;
          else expect(cut, `batch ${id} present after a missing one (seed ${SEED})`).toBe(false);
        }
        expect((await store.verify()).problems).toEqual([]);
      } finally {
        await store.close();
      }
    }
  });
});

describe('lock', () => {
  it('a second opener in another process gets ERR_STORE_LOCKED; the holder is unaffected', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    try {
      await store.admit(['http://lock.example/a']);
      const { child, exited } = start(['try-open', dir], () => undefined);
      const m = await waitFor(child, 'error');
      await exited;
      expect(m).toMatchObject({ type: 'error', code: 'ERR_STORE_LOCKED' });
      expect((m as { codes: string[] }).codes).toContain('LEVEL_LOCKED');
      expect((await store.admit(['http://lock.example/b']))[0]!.reason).toBe('new');
    } finally {
      await store.close();
    }
  });

  it('a second opener in the same process gets ERR_STORE_LOCKED', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    try {
      const error = await openStore(dir).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'ERR_STORE_LOCKED', input: dir });
      expect(causeCodes(error)).toContain('LEVEL_LOCKED');
    } finally {
      await store.close();
    }
  });

  it('reopens at once after the holder is killed (no manual unlock)', async () => {
    const dir = tempDir();
    const { child, exited } = start(['hold', dir], () => undefined);
    await waitFor(child, 'ready');
    await expect(openStore(dir)).rejects.toMatchObject({ code: 'ERR_STORE_LOCKED' });
    child.kill('SIGKILL');
    await exited;
    const t0 = performance.now();
    const store = await openStore(dir);
    const elapsed = performance.now() - t0;
    await store.close();
    expect(elapsed).toBeLessThan(1000);
  });
});
