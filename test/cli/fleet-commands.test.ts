// `crawl --redis` (a fleet worker) and the store commands on the fleet store it writes, run as the
// built CLI against a real Redis Cluster and a two-host site on loopback. The multi-worker crawls
// with a SIGKILL are in test/reliability/fleet-kill.test.ts.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { runCli } from '../support/cli.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { html, httpServer, type TestServer } from '../crawler/support.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'fleet-commands', () => {
  let cluster: TestCluster;
  let site: TestServer;
  const requests: string[] = [];
  beforeAll(async () => {
    cluster = await sharedCluster();
    // two hosts on one port, each page linking to the next and to the other host
    site = await httpServer((req: IncomingMessage, res: ServerResponse) => {
      const host = (req.headers.host ?? '').split(':')[0]!;
      requests.push(`${host}${req.url}`);
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      const m = /^\/(\d+)$/.exec(req.url ?? '');
      const n = req.url === '/' ? 0 : m === null ? -1 : Number(m[1]);
      if (n < 0 || n >= 5) return void res.writeHead(404).end();
      const other = host === 'a.localhost' ? 'b.localhost' : 'a.localhost';
      res.writeHead(200, { 'content-type': 'text/html' }).end(html(`<a href="/${n + 1}">next</a><a href="http://${other}:${site.port}/${n}">other</a>`));
    });
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    cluster?.stop();
  });

  const names: string[] = [];
  afterEach(async () => {
    for (const n of names.splice(0)) await destroyRedisStore(cluster.seeds, n);
  });

  function newName(): string {
    const name = `fleet-cli-${randomBytes(6).toString('hex')}`;
    names.push(name);
    return name;
  }

  describe('crawl --redis', () => {
    it('refuses flags that make no sense for it, with exit 2', async () => {
      expect((await runCli(['crawl', '--redis', cluster.seeds])).code).toBe(2); // no seed URL: no demo in a fleet
      expect((await runCli(['crawl', 'http://a.localhost/', '--lease-ms', '5000'])).code).toBe(2); // needs --redis
      expect((await runCli(['crawl', 'http://a.localhost/', '--redis', cluster.seeds, '--db', '/tmp/x'])).code).toBe(2);
      expect((await runCli(['crawl', 'http://a.localhost/', '--redis', cluster.seeds, '--lease-ms', '10'])).code).toBe(2);
    });

    it('crawls both hosts as one worker; stats, export and verify read the fleet store; filter refuses it', async () => {
      const name = newName();
      const on = ['--redis', cluster.seeds, '--redis-name', name];
      requests.length = 0;
      const seeds = [`http://a.localhost:${site.port}/`, `http://b.localhost:${site.port}/`];
      const crawled = await runCli(['crawl', ...seeds, ...on, '--allow-private', '--report', 'json', '--log-level', 'error']);
      expect(crawled.stderr).toBe('');
      expect(crawled.code).toBe(0);
      const report = JSON.parse(crawled.stdout) as { pagesFetched: number; stoppedBecause: string };
      // on each host `/` and /0 to /4 (documents: /0 is linked from the other host) and /5 (404); every request once
      expect(requests.filter((r) => !r.endsWith('/robots.txt')).sort()).toEqual(
        ['a', 'b'].flatMap((h) => ['/', '/0', '/1', '/2', '/3', '/4', '/5'].map((p) => `${h}.localhost${p}`)).sort(),
      );
      expect(report.pagesFetched).toBe(14);
      expect(report.stoppedBecause).toBe('done');

      const stats = await runCli(['stats', ...on, '--json']);
      expect(stats.code).toBe(0);
      const s = JSON.parse(stats.stdout) as { urls: { admitted: number; fetched: number; failed: number; queued: number } };
      expect(s.urls).toMatchObject({ admitted: 14, queued: 0 });

      const exported = await runCli(['export', ...on]);
      expect(exported.code).toBe(0);
      expect(exported.stdout.trim().split('\n')).toHaveLength(14);

      const verified = await runCli(['verify', ...on]);
      expect(verified.code).toBe(0);

      const filtered = await runCli(['filter', ...on], 'http://a.localhost/9\n');
      expect(filtered.code).toBe(3);
      expect(filtered.stderr).toMatch(/fleet store/);
    });
  });
});
