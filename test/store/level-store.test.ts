// LevelDB-specific behaviour: the format check, option validation, sync policies, closed stores,
// damaged files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import type { PresetName } from '../../src/normalize/index.js';
import { openMemoryStore, openStore, STORE_FORMAT_VERSION, type StoreOptions } from '../../src/store/index.js';
import { seal, unseal } from '../../src/store/backends/leveldb/record-checksum.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'urldedup-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function putRaw(dir: string, key: string, value: string): Promise<void> {
  const db = new ClassicLevel<string, string>(dir);
  await db.open();
  await db.put(key, seal(key, value));
  await db.close();
}

describe('LevelDB store', () => {
  it('states what it supports', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    expect(store.supports).toEqual({ durable: true, atomicBatch: true });
    expect(store.location).toBe(dir);
    await store.close();
    const mem = await openMemoryStore();
    expect(mem.supports).toEqual({ durable: false, atomicBatch: true });
    await mem.close();
  });

  it('refuses an incompatible key format version with a clear error', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    await putRaw(dir, '!meta!format', JSON.stringify({ store: 1, key: 999 }));
    const error = await openStore(dir).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(error?.code).toBe('ERR_STORE_INCOMPATIBLE');
    expect(error?.message).toMatch(/incompatible store: key format version 999/);
    // and the folder is not left locked
    const raw = new ClassicLevel(dir);
    await raw.open();
    await raw.close();
  });

  it('reads a layout-1 store and marks it layout 2 when it opens it for writing; refuses an unknown layout', async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    await first.admit(['http://a.example/1', 'http://a.example/2']);
    await first.close();
    const getRaw = async (key: string): Promise<string | undefined> => {
      const db = new ClassicLevel<string, string>(dir);
      await db.open();
      const v = await db.get(key);
      await db.close();
      return v === undefined ? undefined : unseal(key, v);
    };
    const format = JSON.parse((await getRaw('!meta!format'))!) as { store: number; key: number };
    expect(format.store).toBe(STORE_FORMAT_VERSION);
    await putRaw(dir, '!meta!format', JSON.stringify({ ...format, store: 1 }));
    // read-only: read as it is, not marked
    const ro = await openStore(dir, { readOnly: true });
    expect((await ro.canonical('http://a.example/1')).state).toBe('queued');
    await ro.close();
    expect(JSON.parse((await getRaw('!meta!format'))!)).toEqual({ ...format, store: 1 });
    const again = await openStore(dir);
    expect((await again.admit(['http://a.example/2', 'http://a.example/3'])).map((r) => r.reason)).toEqual(['seen', 'new']);
    expect((await again.next({ host: 'a.example', limit: 10 })).map((e) => e.url)).toEqual(['http://a.example/1', 'http://a.example/2', 'http://a.example/3']);
    await again.close();
    expect(JSON.parse((await getRaw('!meta!format'))!)).toEqual(format);
    await putRaw(dir, '!meta!format', JSON.stringify({ ...format, store: 99 }));
    await expect(openStore(dir)).rejects.toThrow(/incompatible store: layout version 99, this build reads 1 and 2/);
  });

  it('refuses normalization options that would change the keys', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    await expect(openStore(dir, { normalize: { level: 'syntax' } })).rejects.toThrow(/incompatible store: keys were made with normalize/);
    await expect(openStore(dir, { normalize: { keepFragment: true } })).rejects.toThrow(/incompatible/);
    // options that do not shape keys are fine
    await (await openStore(dir, { normalize: { maxLength: 4096, strict: true } })).close();
  });

  it('rejects conflicting or invalid options up front', async () => {
    const dir = tempDir();
    const bad: StoreOptions[] = [
      { normalize: { presets: ['tracking'] } as StoreOptions['normalize'] },
      { normalize: { level: 'policy' } },
      { presets: ['no-such-preset' as PresetName] },
      { ruleThreshold: 0 },
      { ruleThreshold: 50, maxEvidencePerRule: 10 },
      { sync: 'sometimes' as 'always' },
      { sync: { everyBatches: 0, everyMs: 10 } },
      { scope: { maxDepth: -1 } },
    ];
    for (const options of bad) await expect(openStore(dir, options)).rejects.toThrow(TypeError);
    await expect(openMemoryStore({ ruleThreshold: 1.5 })).rejects.toThrow(TypeError);
    // the folder is not left locked by a refused open
    await (await openStore(dir)).close();
  });

  it.each(['always', 'never', { everyBatches: 2, everyMs: 5 }] as const)('keeps acknowledged writes with sync %j', async (sync) => {
    const dir = tempDir();
    const store = await openStore(dir, { sync });
    for (let i = 0; i < 5; i++) await store.admit([`http://sync.example/${i}`]);
    await new Promise((r) => setTimeout(r, 20));
    await store.close();
    const again = await openStore(dir);
    expect((await again.stats()).urls.admitted).toBe(5);
    await again.close();
  });

  it('refuses calls after close', async () => {
    const store = await openStore(tempDir());
    await store.close();
    await store.close(); // idempotent
    await expect(store.admit(['http://a.example/'])).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    await expect(store.recordFetch('http://a.example/', { status: 200 })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
  });

  it('reports damaged table files as ERR_STORE_CORRUPT, never as a silent wrong answer', async () => {
    const dir = tempDir();
    let store = await openStore(dir, { level: { writeBufferSize: 64 * 1024 } });
    for (let b = 0; b < 20; b++) await store.admit(Array.from({ length: 500 }, (_, i) => `http://corrupt.example/b${b}/p${i}`));
    await store.close();
    store = await openStore(dir); // replays the log into tables
    await store.close();
    const tables = readdirSync(dir).filter((f) => f.endsWith('.ldb'));
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) {
      const path = join(dir, t);
      const bytes = readFileSync(path);
      for (let at = 0; at < statSync(path).size - 64; at += 512) bytes.fill(0x5a, at, at + 48);
      writeFileSync(path, bytes);
    }
    const error = await openStore(dir).then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toBe('ERR_STORE_CORRUPT');
  });

  it('checks the records a bounded range read whole returns, as it checks those it iterates', async () => {
    const dir = tempDir();
    let store = await openStore(dir);
    await store.admit(['http://range.example/a', 'http://range.example/b']);
    await store.recordFetch('http://range.example/a', { status: 200, contentHash: 'same-body' });
    await store.close();
    // the learner's index of documents by body, for /a: its value damaged in place (checksum kept wrong)
    const db = new ClassicLevel<string, string>(dir);
    await db.open();
    let damaged: string | undefined;
    for await (const [k, v] of db.iterator()) {
      if (k.startsWith('!evidence!h') && k.includes('same-body') && k.endsWith('/a')) {
        damaged = k;
        await db.put(k, v.slice(0, -1) + (v.endsWith('0') ? '1' : '0'));
      }
    }
    await db.close();
    expect(damaged).toBeDefined();
    // /b answers the same body: the fetch reads that index (one read of the whole range) and is refused
    store = await openStore(dir);
    await expect(store.recordFetch('http://range.example/b', { status: 200, contentHash: 'same-body' })).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    await store.close();
  });
});
