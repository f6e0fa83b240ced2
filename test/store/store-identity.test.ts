// A store is what its folder says it is (docs/reliability.md, "store identity"): a new store only in
// a new or empty folder; a folder whose LevelDB files lost their CURRENT is damaged, never started
// over (LevelDB would, and delete the old tables); another program's LevelDB is not taken for an
// empty store; a read-only open of a folder that is no store touches nothing.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { repairStore } from '../../src/store/backends/leveldb/repair.js';

const dirs: string[] = [];
const newDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'urldedup-identity-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const urls = (n: number): string[] => Array.from({ length: n }, (_, i) => `http://id.example/page-${i}`);

async function storeWith(dir: string, n: number): Promise<void> {
  const store = await openStore(dir);
  for (let i = 0; i < n; i += 500) await store.admit(urls(n).slice(i, i + 500));
  await store.close();
}

describe('store identity', () => {
  it('a store whose CURRENT file is gone is refused as damaged, its files untouched, and repair brings it back', async () => {
    const dir = newDir();
    await storeWith(dir, 3000);
    unlinkSync(join(dir, 'CURRENT'));
    const before = readdirSync(dir).sort();
    await expect(openStore(dir)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    await expect(openStore(dir, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    expect(readdirSync(dir).sort()).toEqual(before);
    const report = await repairStore(dir);
    expect(report.after.url).toBe(3000);
    const store = await openStore(dir);
    try {
      const states = await store.canonicalMany(urls(3000));
      expect(states.filter((s) => 'state' in s && s.state === 'queued').length).toBe(3000);
    } finally {
      await store.close();
    }
  });

  it("another program's LevelDB is not taken for an empty store, read-only or not", async () => {
    const dir = newDir();
    const other = new ClassicLevel<string, string>(dir);
    await other.put('greeting', 'hello');
    await other.close();
    await expect(openStore(dir)).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
    await expect(openStore(dir, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_INCOMPATIBLE' });
    const again = new ClassicLevel<string, string>(dir);
    try {
      expect(await again.get('greeting')).toBe('hello');
      expect(await again.keys().all()).toEqual(['greeting']);
    } finally {
      await again.close();
    }
  });

  it('a folder of other files is no store: refused, and a read-only open leaves no LOCK or LOG in it', async () => {
    const dir = newDir();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await expect(openStore(dir)).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    await expect(openStore(dir, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    const empty = newDir();
    await expect(openStore(empty, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    expect(readdirSync(empty)).toEqual([]);
  });

  it('a new store starts in a missing or empty folder, or one holding only the LOCK and LOG an open leaves', async () => {
    const missing = join(newDir(), 'db');
    await storeWith(missing, 10);
    expect(existsSync(join(missing, 'CURRENT'))).toBe(true);
    const leftovers = newDir();
    writeFileSync(join(leftovers, 'LOCK'), '');
    writeFileSync(join(leftovers, 'LOG'), 'an earlier open');
    await storeWith(leftovers, 10);
    const store = await openStore(leftovers, { readOnly: true });
    try {
      expect((await store.stats()).urls.admitted).toBe(10);
    } finally {
      await store.close();
    }
  });
  it('a creation cut short before CURRENT (manifests and empty logs, no table) starts a new store; one record in a log keeps it refused', async () => {
    // what LevelDB leaves when killed while creating a database: its first manifest, and the
    // `.dbtmp` file CURRENT is written through, not yet renamed
    const fresh = newDir();
    const raw = new ClassicLevel<string, string>(fresh);
    await raw.open();
    await raw.close();
    const cut = newDir();
    for (const n of readdirSync(fresh)) if (n.startsWith('MANIFEST-')) copyFileSync(join(fresh, n), join(cut, n));
    writeFileSync(join(cut, '000001.dbtmp'), 'MANIFEST-000001\n');
    writeFileSync(join(cut, '000003.log'), '');
    const before = readdirSync(cut).sort();
    await expect(openStore(cut, { readOnly: true })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    expect(readdirSync(cut).sort()).toEqual(before);
    await storeWith(cut, 10);
    const store = await openStore(cut, { readOnly: true });
    try {
      expect((await store.stats()).urls.admitted).toBe(10);
    } finally {
      await store.close();
    }
    // ten URLs acknowledged, all in the log still: without CURRENT, damaged, never started over
    const written = newDir();
    await storeWith(written, 10);
    unlinkSync(join(written, 'CURRENT'));
    expect(readdirSync(written).filter((n) => n.endsWith('.log')).some((n) => statSync(join(written, n)).size > 0)).toBe(true);
    await expect(openStore(written)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
  });
});
