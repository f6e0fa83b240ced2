// `urldedup verify` and `urldedup repair`, and a damaged table (docs/reliability.md crash/corrupt-table):
// a flipped block gives ERR_STORE_CORRUPT with exit 3 and a hint, never a silent wrong answer;
// repair recovers what can be read, rebuilds counters and frontier, and verify then runs clean.
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

async function filledStore(count: number): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'urldedup-maint-'));
  dirs.push(root);
  const db = join(root, 'db');
  const store = await openStore(db);
  const urls = Array.from({ length: count }, (_, i) => `http://h${i % 50}.example/p/${i}`);
  for (let i = 0; i < urls.length; i += 1000) await store.admit(urls.slice(i, i + 1000));
  // (its target, and a probe for h1's not-found answer asked with the host's first rule candidate)
  await store.recordRedirect('http://h1.example/p/1', 'http://h1.example/p/1/', 301);
  await store.close();
  // A reopen turns the write-ahead log into a table file (level 0).
  await (await openStore(db)).close();
  return db;
}

describe('urldedup verify', () => {
  it('reports a consistent store with its counts (exit 0), as JSON too', async () => {
    const db = await filledStore(3000);
    const text = await runCli(['verify', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('consistent');
    const json = await runCli(['verify', '--db', db, '--json']);
    const report = JSON.parse(json.stdout) as { ok: boolean; problems: string[]; counted: Record<string, number> };
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.counted.admitted).toBe(3002);
  });
  it('a reader that goes away (`verify | head -c 1`) ends it with 141, never a stack trace', async () => {
    const db = await filledStore(200);
    const main = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
    for (let i = 0; i < 4; i++) {
      const sh = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${main}" verify --db "${db}" --json | head -c 1 > /dev/null; echo "\${PIPESTATUS[0]}"`], { encoding: 'utf8' });
      expect(sh.stderr).not.toMatch(/Unhandled 'error' event|EPIPE|at /);
      expect(['0', '141']).toContain(sh.stdout.trim());
    }
  });

  it('a missing store is exit 3', async () => {
    const r = await runCli(['verify', '--db', join(tmpdir(), 'urldedup-no-such-store-xyz')]);
    expect(r.code).toBe(3);
  });
});

describe('a damaged table file', () => {
  it('gives ERR_STORE_CORRUPT (exit 3, suggests repair); repair recovers the readable records, rebuilds the derived ones, and verify is clean', async () => {
    const db = await filledStore(20_000);
    const table = readdirSync(db).find((f) => f.endsWith('.ldb'));
    expect(table).toBeDefined();
    const file = join(db, table!);
    const bytes = readFileSync(file);
    for (let i = 1000; i < 1100; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);

    await expect(openStore(db)).rejects.toMatchObject({ code: 'ERR_STORE_CORRUPT' });
    const stats = await runCli(['stats', '--db', db]);
    expect(stats.code).toBe(3);
    expect(stats.stderr).toContain('ERR_STORE_CORRUPT');
    expect(stats.stderr).toContain('urldedup repair');

    const repaired = await runCli(['repair', '--db', db]);
    expect(repaired.stdout).toContain('repaired with losses');
    // The damaged blocks' records are gone (and counted); repair rebuilt the counters and the
    // frontier from the URL records that are left, so the store is consistent again, and says so,
    // with exit 1 for the loss.
    expect(repaired.stdout).toMatch(/URLs: \d+ (of the 20002 the store had counted; \d+ lost|found \(the store's own count did not survive\))/);
    expect(repaired.code).toBe(1);
    expect(repaired.stdout).toContain('consistent');
    const store = await openStore(db, { readOnly: true });
    const report = await store.verify();
    await store.close();
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.counted.admitted).toBeGreaterThan(0); // the URL records outside the damaged block survive
  }, 60_000);
});

describe('urldedup repair and a store another process has open (docs/reliability.md store/repair-while-locked)', () => {
  const WORKER = fileURLToPath(new URL('../fixtures/store-admit-worker.mjs', import.meta.url));

  it('is refused with ERR_STORE_LOCKED (exit 3) before touching a file; the writer goes on, and the store opens clean afterwards', async () => {
    const root = mkdtempSync(join(tmpdir(), 'urldedup-maint-'));
    dirs.push(root);
    const db = join(root, 'db');
    // a second process admitting batches until killed, each acknowledged after admit() resolved
    const writer = fork(WORKER, ['admit', db, '7', 'never', '0', '1'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const exited = new Promise<void>((resolve) => writer.on('exit', () => resolve()));
    const acked = new Set<string>();
    let acks = 0;
    writer.on('message', (m: { type: string; keys?: string[] }) => {
      if (m.type !== 'ack') return;
      acks++;
      for (const k of m.keys ?? []) acked.add(k);
    });
    const acksReach = async (n: number): Promise<void> => {
      for (const t0 = Date.now(); acks < n; await new Promise((r) => setTimeout(r, 10))) {
        if (Date.now() - t0 > 20_000) throw new Error(`the writer acknowledged ${acks} batches, not ${n}`);
      }
    };
    try {
      await acksReach(3);
      const manifests = readdirSync(db).filter((f) => f.startsWith('MANIFEST-'));

      const cli = await runCli(['repair', '--db', db]);
      expect(cli.code).toBe(3);
      expect(cli.stderr).toContain('ERR_STORE_LOCKED');
      expect(cli.stdout).not.toContain('repaired');
      const error = await repairStore(db).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'ERR_STORE_LOCKED', input: db });
      // LevelDB's repairer writes a new MANIFEST and moves what it cannot use into lost/: neither happened
      expect(readdirSync(db)).not.toContain('lost');
      expect(readdirSync(db).filter((f) => f.startsWith('MANIFEST-'))).toEqual(manifests);

      // the writer is unaffected
      const seen = acks;
      await acksReach(seen + 3);
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }
    const store = await openStore(db);
    try {
      const keys = new Set<string>();
      for await (const r of store.canonicalUrls()) keys.add(r.key);
      expect([...acked].filter((k) => !keys.has(k))).toEqual([]);
      expect((await store.verify()).problems).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('reports nothing lost from an intact store: every URL it had counted is found (exit 0)', async () => {
    const db = await filledStore(2000);
    const report = await repairStore(db);
    expect(report.urls).toEqual({ recorded: 2002, found: 2002 });
    expect(report.after.url).toBe(2002);
    expect(report).toMatchObject({ complete: true, damaged: [], salvaged: 0, deleted: {} });
    const cli = await runCli(['repair', '--db', db]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('repaired, nothing lost');
    expect(cli.stdout).toContain('URLs: 2002, as the store had counted');
  }, 60_000);
});

