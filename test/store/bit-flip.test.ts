// Damaged files never give a wrong answer (docs/reliability.md store/bit-flip, store/repair-salvage,
// store/repair-excludes-openers): a bit flipped in a real table file is ERR_STORE_CORRUPT naming
// the file, at open when the file changed, and from `verify` (every file) and the records' own
// checksums when it rotted in place; a write after the damage is refused, so no process ever
// aborts on it; `repair` salvages the intact blocks and says how many URLs were lost; nothing can
// open the store while the repair runs.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, repairStore } from '../../src/store/index.js';
import { runCli } from '../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const URLS = Array.from({ length: 12_000 }, (_, i) => `http://h${i % 40}.example/docs/${i}/page?id=${(i * 7919) % 100_000}`);

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A store of URLS, reopened twice so its log became tables and the tables were checked once. */
async function filledStore(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'urldedup-flip-'));
  dirs.push(root);
  const db = join(root, 'db');
  const store = await openStore(db);
  for (let i = 0; i < URLS.length; i += 1000) await store.admit(URLS.slice(i, i + 1000));
  await store.close();
  await (await openStore(db)).close();
  await (await openStore(db)).close();
  expect(readdirSync(db)).toContain('URLDEDUP-CHECKED');
  return db;
}

function tables(db: string): string[] {
  return readdirSync(db).filter((f) => f.endsWith('.ldb'));
}

/** Flip one bit of `file` at `pos`; with `keepTime`, the file's times are put back (bit rot on the medium). */
function flip(file: string, pos: number, bit: number, keepTime: boolean): void {
  const st = statSync(file);
  const bytes = readFileSync(file);
  bytes[pos] = bytes[pos]! ^ (1 << bit);
  writeFileSync(file, bytes);
  if (keepTime) utimesSync(file, st.atimeMs / 1000, st.mtimeMs / 1000);
}

/** Every URL's answer: `seen` (right), `wrong` (anything else), or the error code the store gave. */
async function answers(db: string): Promise<{ right: number; wrong: number; error?: string }> {
  let store;
  try {
    store = await openStore(db, { readOnly: true });
  } catch (e) {
    return { right: 0, wrong: 0, error: (e as { code?: string }).code };
  }
  try {
    let right = 0;
    let wrong = 0;
    for (let i = 0; i < URLS.length; i += 500) {
      const got = await store.canonicalMany(URLS.slice(i, i + 500));
      for (const g of got) {
        if ('state' in g && g.state !== 'unknown') right++;
        else wrong++;
      }
    }
    const madeUp = await store.canonical('http://h1.example/docs/never/made');
    if (madeUp.state !== 'unknown') wrong++;
    return { right, wrong };
  } catch (e) {
    return { right: 0, wrong: 0, error: (e as { code?: string }).code };
  } finally {
    await store.close().catch(() => undefined);
  }
}

describe('a bit flipped in a table file', () => {
  it('is ERR_STORE_CORRUPT naming the file at the next open, wherever it lands (40 positions, seeded)', async () => {
    const db = await filledStore();
    const pristine = `${db}-pristine`;
    cpSync(db, pristine, { recursive: true });
    const rnd = mulberry32(27);
    let caught = 0;
    for (let trial = 0; trial < 40; trial++) {
      rmSync(db, { recursive: true, force: true });
      cpSync(pristine, db, { recursive: true });
      const names = tables(db);
      const name = names[Math.floor(rnd() * names.length)]!;
      const size = statSync(join(db, name)).size;
      flip(join(db, name), Math.floor(rnd() * size), Math.floor(rnd() * 8), false);
      const a = await answers(db);
      // the footer's padding is the one place no checksum covers, and nothing reads it
      expect(a.wrong, `trial ${trial}: ${name}`).toBe(0);
      if (a.error !== undefined) {
        expect(a.error).toBe('ERR_STORE_CORRUPT');
        caught++;
      } else expect(a.right).toBe(URLS.length);
    }
    expect(caught).toBeGreaterThanOrEqual(36);
  }, 120_000);

  it('found by verify when it rotted in place (the file keeps its time); values read meanwhile fail their checksum, never read as others', async () => {
    const db = await filledStore();
    const name = tables(db)[0]!;
    const size = statSync(join(db, name)).size;
    flip(join(db, name), Math.floor(size / 2), 3, true);
    const verify = await runCli(['verify', '--db', db]);
    // where the flip lands decides whether the store still opens: verify lists the file as a
    // problem (exit 1), or LevelDB itself refuses to read it and verify names it in the error (exit 3)
    if (verify.code === 1) {
      expect(verify.stderr).toBe('');
      expect(verify.stdout).toContain(`file ${name}`);
      expect(verify.stdout).toContain('fail their checksum');
    } else {
      expect(verify.code, verify.stdout + verify.stderr).toBe(3);
      expect(verify.stderr).toContain('ERR_STORE_CORRUPT');
      expect(verify.stderr).toContain(name);
    }
    // what the store answers before verify: right, or ERR_STORE_CORRUPT; no value of another URL
    const a = await answers(db);
    if (a.error !== undefined) expect(a.error).toBe('ERR_STORE_CORRUPT');
  }, 60_000);

  it('refuses the write that would have made LevelDB abort every later open; repair then salvages and counts the loss', async () => {
    const db = await filledStore();
    const name = tables(db)[0]!;
    const bytes = readFileSync(join(db, name));
    for (let i = 2000; i < 2100; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(join(db, name), bytes);
    const more = Array.from({ length: 3000 }, (_, i) => `http://h${i % 40}.example/more/${i}`).join('\n');
    const filter = await runCli(['filter', '--db', db], `${more}\n`);
    expect(filter.code).toBe(3);
    expect(filter.stderr).toContain('ERR_STORE_CORRUPT');
    expect(filter.stderr).toContain(name);
    for (let i = 0; i < 3; i++) expect((await runCli(['stats', '--db', db])).code).toBe(3);

    const repaired = await runCli(['repair', '--db', db]);
    expect(repaired.stdout).toContain('repaired with losses');
    expect(repaired.stdout).toContain(`damaged ${name}`);
    // the loss counted against the store's own count, or said to be unknown where that count was in the damaged block
    const counted = /URLs: (\d+) of the 12000 the store had counted; (\d+) lost/.exec(repaired.stdout);
    if (counted === null) expect(repaired.stdout).toMatch(/URLs: \d+ found \(the store's own count did not survive\)/);
    expect(repaired.stdout).toContain('consistent');
    expect(repaired.code).toBe(1);
    expect(readdirSync(join(db, 'lost'))).toContain(name);
    const a = await answers(db);
    expect(a.error).toBeUndefined();
    expect(a.wrong).toBeLessThan(URLS.length / 2);
    if (counted !== null) expect(a.wrong).toBe(Number(counted[2]));
    expect((await runCli(['verify', '--db', db])).code).toBe(0);
  }, 60_000);

  it('a store whose every table is damaged is never called repaired: exit 1, every URL counted lost', async () => {
    const db = await filledStore();
    for (const name of tables(db)) {
      const bytes = readFileSync(join(db, name));
      writeFileSync(join(db, name), bytes.subarray(0, bytes.length - 30)); // truncated: no footer
    }
    const repaired = await runCli(['repair', '--db', db]);
    expect(repaired.code).toBe(1);
    expect(repaired.stdout).toContain('repaired with losses');
    expect(repaired.stdout).not.toContain('nothing lost');
  }, 60_000);
});

describe('a table damaged while the store is open', () => {
  it('is found by the background check within seconds; every read and write after is ERR_STORE_CORRUPT', async () => {
    const db = await filledStore();
    const store = await openStore(db);
    try {
      expect((await store.canonical(URLS[5]!)).state).toBe('queued');
      const name = tables(db)[0]!;
      const size = statSync(join(db, name)).size;
      flip(join(db, name), Math.floor(size / 2), 1, false);
      await new Promise((r) => setTimeout(r, 5600));
      // (an answer the store holds in memory, read before the damage, is still right: a URL it has not read)
      await expect(store.canonical(URLS[7001]!)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT', message: expect.stringContaining(name) });
      await expect(store.admit(['http://new.example/x'])).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    } finally {
      await store.close().catch(() => undefined);
    }
  }, 60_000);
});

describe('the write-ahead log', () => {
  async function storeWithLog(): Promise<{ db: string; log: string }> {
    const root = mkdtempSync(join(tmpdir(), 'urldedup-flip-'));
    dirs.push(root);
    const db = join(root, 'db');
    const store = await openStore(db);
    for (let i = 0; i < URLS.length; i += 500) await store.admit(URLS.slice(i, i + 500));
    await store.close();
    const log = readdirSync(db).find((f) => f.endsWith('.log'))!;
    expect(statSync(join(db, log)).size).toBeGreaterThan(100_000);
    return { db, log };
  }

  it('a damaged record with intact ones after it is ERR_STORE_CORRUPT: LevelDB would drop it, acknowledged, without a word', async () => {
    const { db, log } = await storeWithLog();
    const size = statSync(join(db, log)).size;
    flip(join(db, log), Math.floor(size / 3), 5, false);
    await expect(openStore(db)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT', message: expect.stringContaining(log) });
  }, 60_000);

  it('a torn tail (a crash or a full disk mid-write, nothing after it acknowledged) opens, and every earlier batch is there', async () => {
    const { db, log } = await storeWithLog();
    const bytes = readFileSync(join(db, log));
    writeFileSync(join(db, log), bytes.subarray(0, bytes.length - 200));
    const a = await answers(db);
    expect(a.error).toBeUndefined();
    // the last batch of 500 lost its tail record: at most its URLs are missing
    expect(a.right).toBeGreaterThanOrEqual(URLS.length - 500);
  }, 60_000);
});

describe('a store written before records had checksums', () => {
  it('is upgraded on its first writable open: every value gets its checksum, and answers stay the same', async () => {
    const db = await filledStore();
    // take the checksums off, as a store of the previous build had none
    const { Level } = await import('level');
    const raw = new Level<string, string>(db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await raw.open();
    await raw.del('urldedup:checked-records');
    const batch = raw.batch();
    for await (const [k, v] of raw.iterator()) if (k.startsWith('!')) batch.put(k, v.slice(0, -6));
    await batch.write();
    await raw.close();
    const before = await answers(db); // read-only: read as they are, not upgraded
    expect(before).toEqual({ right: URLS.length, wrong: 0 });
    await (await openStore(db)).close();
    const after = await answers(db);
    expect(after).toEqual({ right: URLS.length, wrong: 0 });
    const check = new Level<string, string>(db, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await check.open();
    expect(await check.get('urldedup:checked-records')).toBe('done');
    await check.close();
  }, 60_000);
});

describe('a repair excludes every other opener while it runs', () => {
  const WORKER = fileURLToPath(new URL('../fixtures/store-admit-worker.mjs', import.meta.url));

  it('a process trying to open the store during the repair gets ERR_STORE_LOCKED, and opens it after', async () => {
    const db = await filledStore();
    const tryOpen = (): Promise<{ type: string; code?: string }> =>
      new Promise((resolve) => {
        const child = fork(WORKER, ['try-open', db], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        child.on('message', (m) => resolve(m as { type: string; code?: string }));
      });
    const repair = repairStore(db);
    await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(db)).toContain('URLDEDUP-REPAIRING');
    expect(await tryOpen()).toMatchObject({ type: 'error', code: 'ERR_STORE_LOCKED' });
    const report = await repair;
    expect(report.complete).toBe(true);
    expect(report.urls).toEqual({ recorded: URLS.length, found: URLS.length });
    expect(readdirSync(db)).not.toContain('URLDEDUP-REPAIRING');
    expect(await tryOpen()).toMatchObject({ type: 'opened' });
  }, 60_000);

  it('a repair cut short leaves the store refused as damaged until a repair completes', async () => {
    const db = await filledStore();
    writeFileSync(join(db, 'URLDEDUP-REPAIRING'), '999999999');
    await expect(openStore(db)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    const report = await repairStore(db);
    expect(report.complete).toBe(true);
    await (await openStore(db)).close();
  }, 60_000);
});
