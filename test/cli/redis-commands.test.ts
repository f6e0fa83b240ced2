// The store commands on a real Redis Cluster (`--redis SEEDS --redis-name NAME`), run as the built
// CLI: the cluster `npm test` (scripts/test.sh) started (URLDEDUP_REDIS_CLUSTER), else one started here. Each test uses
// a store of its own name, deleted afterwards.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { openRedisStore } from '../../src/store/backends/redis-store.js';
import { CLI, runCli } from '../support/cli.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'redis-commands', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  const names: string[] = [];
  afterEach(async () => {
    for (const n of names.splice(0)) await destroyRedisStore(cluster.seeds, n);
  });

  function newName(): string {
    const name = `cli-${randomBytes(6).toString('hex')}`;
    names.push(name);
    return name;
  }

  const on = (name: string): string[] => ['--redis', cluster.seeds, '--redis-name', name];

  describe('store commands with --redis', () => {
    it('filter admits new URLs and drops seen ones across runs; stats, export, verify, explain and rules read the store', async () => {
      const name = newName();
      const first = await runCli(['filter', ...on(name)], 'https://a.example/x\nhttps://A.example:443/x\nhttps://b.example/\n');
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toBe('https://a.example/x\nhttps://b.example/\n');

      const second = await runCli(['filter', ...on(name)], 'https://b.example/\nhttps://c.example/y\nhttps://a.example/x\n');
      expect(second.code).toBe(0);
      expect(second.stdout).toBe('https://c.example/y\n');

      const stats = await runCli(['stats', ...on(name), '--json']);
      expect(stats.stderr).toBe('');
      expect(stats.code).toBe(0);
      expect(JSON.parse(stats.stdout).urls.admitted).toBe(3);
      const text = await runCli(['stats', ...on(name)]);
      expect(text.stdout).toContain(`redis:${name}@`);

      const exported = await runCli(['export', ...on(name)]);
      expect(exported.code).toBe(0);
      const urls = exported.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { url: string }).url).sort();
      expect(urls).toEqual(['https://a.example/x', 'https://b.example/', 'https://c.example/y']);

      const verify = await runCli(['verify', ...on(name)]);
      expect(verify.stderr).toBe('');
      expect(verify.code).toBe(0);
      expect(verify.stdout).toContain('consistent');

      const explain = await runCli(['explain', ...on(name), '--json', 'https://A.example:443/x']);
      expect(explain.code).toBe(0);
      expect(JSON.parse(explain.stdout).canonical.state).toBe('queued');
      const rules = await runCli(['rules', ...on(name)]);
      expect(rules.stderr).toBe('');
      expect(rules.code).toBe(0);
    }, 60_000);

    it('--db with --redis, or --redis-name without --redis, is a usage error (exit 2)', async () => {
      for (const command of ['stats', 'export', 'verify', 'filter', 'serve', 'explain', 'rules']) {
        const url = command === 'explain' ? ['http://a.example/'] : [];
        const both = await runCli([command, '--db', '/tmp/urldedup-never', '--redis', cluster.seeds, ...url]);
        expect(both.code, command).toBe(2);
        expect(both.stderr, command).toContain('give --db or --redis, not both');
      }
      const alone = await runCli(['stats', '--redis-name', 'x']);
      expect(alone.code).toBe(2);
      const sync = await runCli(['stats', '--redis', cluster.seeds, '--redis-sync', 'sometimes']);
      expect(sync.code).toBe(2);
      const seeds = await runCli(['stats', '--redis', 'http://127.0.0.1:1']);
      expect(seeds.code).toBe(2);
    }, 60_000);

    it('a store another process holds is ERR_STORE_LOCKED, exit 3, for writers and readers', async () => {
      const name = newName();
      const held = await openRedisStore(cluster.seeds, { redis: { name } });
      try {
        const filter = await runCli(['filter', ...on(name)], 'https://a.example/\n');
        expect(filter.code).toBe(3);
        expect(filter.stderr).toContain('ERR_STORE_LOCKED');
        expect(filter.stdout).toBe('');
        const stats = await runCli(['stats', ...on(name)]);
        expect(stats.code).toBe(3);
        expect(stats.stderr).toContain('ERR_STORE_LOCKED');
      } finally {
        await held.close();
      }
    }, 60_000);

    it('while serve holds the store, a second writer gets exit 3; serve stops cleanly', async () => {
      const name = newName();
      const serve = spawn(process.execPath, [CLI, 'serve', ...on(name), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      serve.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => serve.on('close', resolve));
      try {
        const listening = await new Promise<{ event: string; db: string }>((resolve, reject) => {
          let out = '';
          serve.stdout.setEncoding('utf8').on('data', (d: string) => {
            out += d;
            if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
          });
          void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
        });
        expect(listening.event).toBe('listening');
        expect(listening.db).toContain(`redis:${name}@`);
        const filter = await runCli(['filter', ...on(name)], 'https://a.example/\n');
        expect(filter.code).toBe(3);
        expect(filter.stderr).toContain('ERR_STORE_LOCKED');
      } finally {
        serve.kill('SIGTERM');
      }
      expect(await exited).toBe(143);
    }, 60_000);

    it('--redis-sync always refuses masters that fsync less often (exit 3)', async () => {
      const r = await runCli(['stats', ...on(newName()), '--redis-sync', 'always']);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain("sync 'always' needs appendonly yes and appendfsync always");
      const ok = await runCli(['stats', ...on(newName()), '--redis-sync', 'everysec']);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
    }, 60_000);
  });
});
