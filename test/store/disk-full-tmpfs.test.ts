// A disk that fills and then gets room back (docs/reliability.md, promise 1): a real tmpfs of
// 4 MiB, filled by another file until LevelDB's log append fails with ENOSPC, then emptied. LevelDB
// would go on appending after its damaged record, and a reopen would drop the damaged block with
// the acknowledged writes after it; the store stops taking writes at the first failure instead
// (fail-stop), answers reads, and after a reopen holds every batch it acknowledged.
//
// Needs root to mount a tmpfs (CI runs as root); elsewhere it is skipped with the reason.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../../src/service/server.js';
import { isStoreError, openStore } from '../../src/store/index.js';

const mountPoint = mkdtempSync(join(tmpdir(), 'urldedup-tmpfs-'));
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]).status === 0;

afterAll(() => {
  if (mounted) spawnSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Fill the file system with 64 KiB files until it is full; their paths. */
function fill(dir: string): string[] {
  const files: string[] = [];
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (let i = 0; i < 1024; i++) {
    const f = join(dir, `filler-${i}`);
    try {
      writeFileSync(f, chunk);
      files.push(f);
    } catch {
      try {
        unlinkSync(f); // a short file left by the failed write
      } catch {
        // none
      }
      break;
    }
  }
  return files;
}

const batchOf = (id: number): string[] => Array.from({ length: 40 }, (_, i) => `http://h${id % 7}.example/batch-${id}/page-${i}-${'x'.repeat(60)}`);

describe.skipIf(!mounted)(`a disk that fills, then gets room back${mounted ? '' : ' (skipped: mounting a tmpfs needs root)'}`, () => {
  it('stops taking writes at the first failure, and keeps every acknowledged batch across a reopen', { timeout: 60_000 }, async () => {
    const db = join(mountPoint, 'db');
    const store = await openStore(db, { sync: 'never' });
    const service = await startService(store, { port: 0 });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const acked: number[] = [];
    let failure: unknown;
    const fillers = fill(mountPoint);
    // room for a few batches: four filler files go
    for (const f of fillers.splice(0, 4)) unlinkSync(f);
    let id = 0;
    for (; id < 5_000; id++) {
      try {
        await store.admit(batchOf(id));
        acked.push(id);
      } catch (e) {
        failure = e;
        break;
      }
    }
    expect(isStoreError(failure) && failure.code === 'ERR_STORE_IO').toBe(true);
    expect(acked.length).toBeGreaterThan(0);
    expect(store.writeFailure()?.code).toBe('ERR_STORE_IO');
    // the disk gets its room back: the store still refuses, it does not write after a damaged record
    for (const f of fillers) unlinkSync(f);
    let later = 0;
    for (let more = id + 1; more < id + 20; more++) {
      try {
        await store.admit(batchOf(more));
        later++;
      } catch (e) {
        expect(isStoreError(e) && e.code === 'ERR_STORE_IO').toBe(true);
      }
    }
    expect(later).toBe(0);
    await expect(store.recordFetch(batchOf(0)[0]!, { status: 200 })).rejects.toMatchObject({ code: 'ERR_STORE_IO' });
    // reads still answer; the service says it is not healthy, and refuses admits with the code
    expect((await store.canonical(batchOf(0)[0]!)).state).toBe('queued');
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ error: { code: 'ERR_STORE_IO' } });
    const admit = await fetch(`${service.url}/v1/admit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ urls: ['http://late.example/'] }) });
    expect(admit.status).toBe(503);
    await service.close();
    await store.close();

    // reopened (it checks itself: the counters agree with what is stored), every acknowledged batch whole
    const again = await openStore(db);
    try {
      expect(again.writeFailure()).toBeUndefined();
      for (const a of acked) {
        const states = await again.canonicalMany(batchOf(a));
        expect(states.filter((s) => 'state' in s && s.state === 'queued').length, `batch ${a}`).toBe(40);
      }
      const failed = (await again.canonicalMany(batchOf(id))).filter((s) => 'state' in s && s.state === 'queued').length;
      expect([0, 40]).toContain(failed); // the batch whose write failed: all or nothing
      expect((await again.verify()).problems).toEqual([]);
      expect((await again.admit(['http://after.example/room']))[0]).toMatchObject({ admitted: true });
    } finally {
      await again.close();
    }
  });
});
