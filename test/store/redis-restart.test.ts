// A Redis master restarting under a store that writes (docs/scale-out.md, "Outages"): SIGKILL a
// master while admits stream in, bring it back from its AOF seconds later; every admit call rides
// the outage out (waits, then succeeds), none fails, and every acknowledged batch is there after.
// The cluster is this file's own (3 masters, appendfsync always): the shared one is never killed.
import { afterAll, describe, expect, it } from 'vitest';
import { openFleetStore } from '../../src/store/fleet/fleet-store.js';
import { openRedisStore } from '../../src/store/backends/redis-store.js';
import type { CanonicalResult } from '../../src/store/index.js';
import { ownCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS_SERVER } from '../support/requirements.js';

describeWith([REDIS_SERVER], 'redis-restart', () => {
  const clusters: TestCluster[] = [];
  afterAll(() => {
    for (const c of clusters) c.stop();
  });

  describe('a Redis master restart', () => {
    it('every admit rides it out: none fails, every acknowledged batch is kept', { timeout: 90_000 }, async () => {
      const cluster = await ownCluster(3, 'always');
      clusters.push(cluster);
      const redis = { name: 'restart', sync: 'always' as const, lockTtlMs: 20_000 };
      const store = await openRedisStore(cluster.seeds, { learnRules: false, redis });
      const acked: string[][] = [];
      const failures: string[] = [];
      let stop = false;
      let longest = 0;
      const writer = (async () => {
        for (let b = 0; !stop; b++) {
          const urls = Array.from({ length: 50 }, (_, i) => `http://h${(b * 7 + i) % 30}.example/b${b}/${i}`);
          const t = Date.now();
          try {
            await store.admit(urls);
            acked.push(urls);
          } catch (e) {
            failures.push(String(e));
            return;
          }
          longest = Math.max(longest, Date.now() - t);
        }
      })();
      await new Promise((r) => setTimeout(r, 1000));
      const victim = cluster.ports[1]!;
      process.kill(cluster.pid(victim), 'SIGKILL');
      await new Promise((r) => setTimeout(r, 3000));
      const before = acked.length;
      cluster.restart(victim);
      await new Promise((r) => setTimeout(r, 2000));
      stop = true;
      await writer;
      console.log(`master restart: ${acked.length} batches acknowledged (${before} by the restart), longest admit ${longest} ms, failures ${failures.length}`);
      expect(failures).toEqual([]);
      expect(acked.length).toBeGreaterThan(before);
      for (const urls of acked) {
        const states = await store.canonicalMany(urls);
        expect(states.every((s) => (s as CanonicalResult).state === 'queued')).toBe(true);
      }
      expect((await store.verify()).problems).toEqual([]);
      await store.close();
    });

    it('a fleet worker rides it out too: its links go through the inboxes, every one is handed out after', { timeout: 90_000 }, async () => {
      const cluster = await ownCluster(3, 'always');
      clusters.push(cluster);
      const name = 'restart-fleet';
      const worker = await openFleetStore(cluster.seeds, { learnRules: false, fleet: { name, leaseMs: 20_000, maxHosts: 64, pollMs: 20 } });
      const never = new AbortController().signal;
      const sent = new Set<string>();
      const failures: string[] = [];
      let stop = false;
      const writer = (async () => {
        for (let b = 0; !stop; b++) {
          const urls = Array.from({ length: 20 }, (_, i) => `http://f${(b + i) % 12}.example/b${b}/${i}`);
          try {
            await worker.admit(urls);
            await worker.refill();
            for (const u of urls) sent.add(u);
          } catch (e) {
            failures.push(String(e));
            return;
          }
        }
      })();
      await new Promise((r) => setTimeout(r, 1000));
      const victim = cluster.ports[2]!;
      process.kill(cluster.pid(victim), 'SIGKILL');
      await new Promise((r) => setTimeout(r, 3000));
      cluster.restart(victim);
      await new Promise((r) => setTimeout(r, 1500));
      stop = true;
      await writer;
      expect(failures).toEqual([]);
      // every link admitted is handed out once the worker drains its hosts
      const handed = new Set<string>();
      for (let round = 0; round < 2000 && handed.size < sent.size; round++) {
        if (!(await worker.waitForWork(never))) break;
        for (const e of await worker.next({ limit: 1000, perHost: 1000 })) {
          handed.add(e.url);
          await worker.recordFetch(e.url, { status: 200 });
        }
      }
      console.log(`fleet through a master restart: ${sent.size} links sent, ${handed.size} handed out, failures ${failures.length}`);
      expect([...sent].filter((u) => !handed.has(u))).toEqual([]);
      await worker.close();
    });
  });
});
