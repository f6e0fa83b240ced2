// Runs the SeenStore suite on each backend: memory, LevelDB in a temp folder, and LevelDB inside
// a sublevel of a database the caller owns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { openMemoryStore, openStore, type SeenStore, type StoreOptions } from '../../src/store/index.js';
import { seenStoreSuite, type Backend } from './seen-store.suite.js';

seenStoreSuite('memory', async (options?: StoreOptions): Promise<Backend> => {
  const store = await openMemoryStore(options);
  return { store, cleanup: () => store.close() };
});

seenStoreSuite('LevelDB', async (options?: StoreOptions): Promise<Backend> => {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
  let current: SeenStore = await openStore(dir, options);
  return {
    get store() {
      return current;
    },
    dir,
    reopen: async (next?: StoreOptions) => {
      await current.close();
      current = await openStore(dir, next ?? options);
      return current;
    },
    cleanup: async () => {
      await current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

seenStoreSuite('LevelDB sublevel', async (options?: StoreOptions): Promise<Backend> => {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
  const db = new Level<string, string>(dir);
  await db.open();
  const sub = db.sublevel<string, string>('crawl-a', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  let current: SeenStore = await openStore(sub, options);
  return {
    get store() {
      return current;
    },
    reopen: async (next?: StoreOptions) => {
      await current.close();
      current = await openStore(sub, next ?? options);
      return current;
    },
    cleanup: async () => {
      await current.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
