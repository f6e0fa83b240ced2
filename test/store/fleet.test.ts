// The fleet store (src/store/fleet/) on a real Redis Cluster: host partitions under leases, links
// for hosts held elsewhere through their inboxes, fenced writes, expired leases taken over, and the
// end of the fleet. Whole crawls by several worker processes, one killed, are in
// test/reliability/fleet-kill.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { isStoreError } from '../../src/store/index.js';
import { openFleetStore, type FleetStore } from '../../src/store/fleet/fleet-store.js';
import { hostTag, partitionTag } from '../../src/store/host-tag.js';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { openRedisStore } from '../../src/store/backends/redis-store.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'fleet', () => {
  let cluster: TestCluster;
  let raw: Cluster;
  const names: string[] = [];
  beforeAll(async () => {
    cluster = await sharedCluster();
    raw = new Cluster([cluster.seeds.split(',')[0]!]);
  }, 60_000);
  afterAll(async () => {
    for (const n of names) await destroyRedisStore(cluster.seeds, n);
    raw?.disconnect();
    cluster?.stop();
  });

  function newName(): string {
    const n = `f-${randomBytes(6).toString('hex')}`;
    names.push(n);
    return n;
  }

  async function worker(name: string, leaseMs = 3000, maxHosts = 4): Promise<FleetStore> {
    return openFleetStore(cluster.seeds, { fleet: { name, leaseMs, maxHosts, pollMs: 20 } });
  }

  const never = new AbortController().signal;

  describe('fleet store', () => {
    it('puts a host and its www name in one partition, and refuses a fleet of the earlier layout', async () => {
      expect(partitionTag('www.example.com:8080')).toBe(hostTag('example.com'));
      expect(partitionTag('WWW.example.com')).toBe(hostTag('example.com'));
      expect(partitionTag('www.localhost')).toBe(hostTag('www.localhost')); // not a name with a www label
      expect(partitionTag('wwwx.example.com')).toBe(hostTag('wwwx.example.com'));
      const name = newName();
      const a = await worker(name);
      try {
        await a.admit(['http://www.w.example/1', 'http://w.example/2'], { depth: 0 });
        expect(await a.waitForWork(never)).toBe(true);
        const got = [...(await a.next({ host: 'www.w.example', limit: 10 })), ...(await a.next({ host: 'w.example', limit: 10 }))];
        expect(got.map((e) => e.url).sort()).toEqual(['http://w.example/2', 'http://www.w.example/1']);
        expect(await raw.smembers(`${name}{g}hosts`)).toEqual([hostTag('w.example')]);
      } finally {
        await a.close();
      }
      const old = newName();
      await raw.hset(`${old}{g}fleet`, 'layout', '1', 'salt', 'x');
      const e = await worker(old).catch((x: unknown) => x);
      expect(isStoreError(e) && e.code === 'ERR_STORE_INCOMPATIBLE' && /layout 1/.test(e.message)).toBe(true);
    });

    it('admits by the scope it was opened with, and by the one setScope gives, in partitions held and taken later', async () => {
      const name = newName();
      const a = await openFleetStore(cluster.seeds, { fleet: { name, leaseMs: 3000, maxHosts: 4, pollMs: 20 }, scope: { exclude: [/private/] } });
      try {
        // a host not held yet: its links go to its inbox, and its holder admits them by the scope
        await a.admit(['http://s.example/1', 'http://s.example/private'], { depth: 0 });
        expect(await a.waitForWork(never)).toBe(true);
        expect((await a.next({ host: 's.example', limit: 10 })).map((e) => e.url)).toEqual(['http://s.example/1']);
        a.setScope({ exclude: [/secret/] });
        const held = await a.admit(['http://s.example/private', 'http://s.example/secret'], { depth: 0 });
        expect(held.map((r) => r.reason)).toEqual(['new', 'out-of-scope']);
        await a.admit(['http://u.example/secret', 'http://u.example/2'], { depth: 0 });
        expect(await a.waitForWork(never)).toBe(true);
        expect((await a.next({ host: 'u.example', limit: 10 })).map((e) => e.url)).toEqual(['http://u.example/2']);
        expect(() => a.setScope({ maxRepeats: 0 })).toThrow(TypeError);
      } finally {
        await a.close();
      }
    });

    it('sends links for a host it does not hold to that host, whose holder admits them once', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        const r = await a.admit(['http://a.example/1', 'http://a.example/2', 'http://b.example/1', 'not a url'], { depth: 1 });
        expect(r.map((x) => x.reason)).toEqual(['forwarded', 'forwarded', 'forwarded', 'invalid:ERR_RELATIVE_URL']);
        // b takes both hosts (maxHosts 4) and admits their inboxes
        expect(await b.waitForWork(never)).toBe(true);
        const got = [...(await b.next({ host: 'a.example', limit: 10 })), ...(await b.next({ host: 'b.example', limit: 10 }))];
        expect(got.map((e) => e.url).sort()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://b.example/1']);
        expect(got.every((e) => e.depth === 1)).toBe(true);
        // the same links again, from a: forwarded, and found seen by b's partitions
        await a.admit(['http://a.example/1', 'http://b.example/1'], { depth: 2 });
        await b.refill();
        await new Promise((r) => setTimeout(r, 30));
        await b.refill();
        expect((await b.stats()).urls.admitted).toBe(3);
        // a holds nothing: b does
        expect(await a.next({ host: 'a.example', limit: 10 })).toEqual([]);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('never puts a password in clear into an inbox, and redacts it as the partitions do', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        await a.admit(['http://alice:s3cret@pw.example/x'], { source: 'http://bob:hunter2@pw.example/' });
        const lines = await raw.lrange(`${name}{${hostTag('pw.example')}}inbox`, 0, -1);
        expect(lines).toHaveLength(1);
        expect(lines[0]).not.toMatch(/s3cret|hunter2/);
        expect(lines[0]).toMatch(/alice:~hmac-[0-9a-f]{16}@/);
        expect(await b.waitForWork(never)).toBe(true);
        // the same URL given to the holder directly is the same entry: seen
        expect((await b.admit(['http://alice:s3cret@pw.example/x']))[0]!.reason).toBe('seen');
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('queues a URL only in its own partition: a redirect or an alias to another host sends it there', async () => {
      const name = newName();
      const a = await worker(name);
      try {
        await a.admit(['http://old.example/p']);
        expect(await a.waitForWork(never)).toBe(true);
        const [e] = await a.next({ host: 'old.example' });
        await a.recordRedirect(e!.url, 'http://moved.example/p', 301);
        // the old URL again: an alias onto the other host's URL, which goes to that host (a host and
        // its www name share a partition: not those)
        const [r] = await a.admit(['http://old.example/p']);
        expect(r).toMatchObject({ admitted: false, reason: 'forwarded', key: 'example,moved)http:///p' });
        expect((await a.stats()).frontier.hosts).toEqual({});
        expect(await a.waitForWork(never)).toBe(true);
        const urls = (await a.next({ host: 'moved.example', limit: 5 })).map((x) => x.url);
        expect(urls).toEqual(['http://moved.example/p']);
      } finally {
        await a.close();
      }
    });

    it('holds a host only while its lease was renewed within its TTL: a worker stopped past it holds nothing', async () => {
      const name = newName();
      const a = await worker(name, 1000);
      try {
        await a.admit(['http://paused.example/']);
        expect(await a.waitForWork(never)).toBe(true);
        expect(a.holds('paused.example')).toBe(true);
        expect(a.holds('other.example')).toBe(false);
        // what the crawler asks before a fetch: a hold on a held host, none on another
        const crawl = new AbortController();
        const hold = a.holdHost('paused.example', crawl.signal);
        expect(hold?.lost).toBe(false);
        expect(a.holdHost('other.example', crawl.signal)).toBeUndefined();
        // the process stops (its event loop blocked, as SIGSTOP would): no renewal runs, the lease
        // expires; on resume, before any timer has run, the host is no longer held
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1300);
        expect(a.holds('paused.example')).toBe(false);
        expect(a.holdHost('paused.example', crawl.signal)).toBeUndefined();
        // the hold taken before aborts its fetch at the lease watch's next look (every 250 ms)
        await new Promise((r) => setTimeout(r, 400));
        expect(hold?.lost).toBe(true);
        expect(hold?.signal.aborted).toBe(true);
        hold?.stop();
      } finally {
        await a.close();
      }
    });

    it('gives a host to one worker at a time, and back to the fleet when its holder closes', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        await a.admit(['http://one.example/']);
        expect(await a.waitForWork(never)).toBe(true); // a now holds one.example (its own inbox)
        await b.refill();
        expect(await b.next({ host: 'one.example' })).toEqual([]);
        expect(await raw.get(`${name}{${hostTag('one.example')}}lease`)).not.toBeNull();
        await a.close(); // the URL is still queued: the host goes back to ready
        expect(await raw.get(`${name}{${hostTag('one.example')}}lease`)).toBeNull();
        expect(await b.waitForWork(never)).toBe(true);
        expect((await b.next({ host: 'one.example' })).map((e) => e.url)).toEqual(['http://one.example/']);
      } finally {
        await b.close();
      }
    });

    it('hands a host on with its pacing: the next holder starts no request before the last one allowed', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        await a.admit(['http://paced.example/1', 'http://paced.example/2']);
        expect(await a.waitForWork(never)).toBe(true);
        const until = Date.now() + 5000;
        a.pacing = { notBefore: () => until, holdUntil: () => undefined };
        expect((await a.next({ host: 'paced.example' })).length).toBe(1);
        await a.close(); // gives the host up, with one URL still queued (the in-flight one is released by the crawler)
        const held: [string, number][] = [];
        b.pacing = { notBefore: () => 0, holdUntil: (h, t) => void held.push([h, t]) };
        expect(await b.waitForWork(never)).toBe(true);
        expect((await b.next({ host: 'paced.example', limit: 5 })).length).toBeGreaterThan(0);
        expect(held).toEqual([['paced.example', until]]);
      } finally {
        await b.close();
      }
    });

    it('fences a worker whose lease was taken: its writes change nothing and its links go to the new holder', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        await a.admit(['http://fenced.example/']);
        expect(await a.waitForWork(never)).toBe(true);
        const [entry] = await a.next({ host: 'fenced.example' });
        expect(entry?.url).toBe('http://fenced.example/');
        // a's lease vanishes (as after a stall longer than the lease) and b takes the host
        const lease = `${name}{${hostTag('fenced.example')}}lease`;
        await raw.del(lease);
        await raw.sadd(`${name}{g}ready`, hostTag('fenced.example'));
        expect(await b.waitForWork(never)).toBe(true);
        // a's record of the fetch is refused by the fence: the URL stays queued for b
        await a.recordFetch('http://fenced.example/', { status: 200, contentHash: 'x' });
        const r = await a.admit(['http://fenced.example/next']);
        expect(r[0]!.reason).toBe('forwarded');
        expect((await b.canonical('http://fenced.example/')).state).toBe('queued');
        await b.refill();
        await new Promise((res) => setTimeout(res, 30));
        await b.refill();
        const urls = (await b.next({ host: 'fenced.example', limit: 10 })).map((e) => e.url).sort();
        expect(urls).toEqual(['http://fenced.example/', 'http://fenced.example/next']);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('takes over the hosts of a worker that stopped renewing, with their queued URLs', async () => {
      const name = newName();
      const a = await worker(name, 1000);
      const b = await worker(name, 1000);
      await a.admit(['http://gone.example/x', 'http://gone.example/y']);
      expect(await a.waitForWork(never)).toBe(true);
      expect((await a.next({ host: 'gone.example' })).length).toBe(1); // in flight when a dies
      // a dies: no release, no renewal (its connection is cut)
      (a as unknown as { cluster: Cluster }).cluster.disconnect();
      try {
        const t0 = Date.now();
        expect(await b.waitForWork(never)).toBe(true);
        expect(Date.now() - t0).toBeLessThan(5000);
        const urls = (await b.next({ host: 'gone.example', limit: 10 })).map((e) => e.url).sort();
        expect(urls).toEqual(['http://gone.example/x', 'http://gone.example/y']);
        // a host this small has its few keys read into a front at the takeover
        expect((await b.stats({ hosts: false })).front.source).toBe('database');
      } finally {
        await b.close();
      }
    });

    it('takes a large host over without reading its history: no front is built, and every lookup still finds what it saw', async () => {
      const name = newName();
      // past 100 keys a clean close writes the fronts down (as past 65,536 by default), so a host
      // that large, taken without that snapshot, is not read key by key
      const large = async (): Promise<FleetStore> => openFleetStore(cluster.seeds, { frontSnapshotMinKeys: 100, fleet: { name, leaseMs: 1000, maxHosts: 4, pollMs: 20 } });
      const a = await large();
      const b = await large();
      const seen = Array.from({ length: 300 }, (_, i) => `http://history.example/page/${i}`);
      await a.admit(seen, { depth: 0 });
      expect(await a.waitForWork(never)).toBe(true);
      const fetched = await a.next({ host: 'history.example', limit: 40 });
      for (const e of fetched) await a.recordFetch(e.url, { status: 200, contentHash: `h-${e.url}` });
      await a.recordRedirect('http://history.example/old-name', 'http://history.example/page/1', 301);
      // a dies: no clean close, so no snapshot of its fronts
      (a as unknown as { cluster: Cluster }).cluster.disconnect();
      try {
        expect(await b.waitForWork(never)).toBe(true);
        const st = await b.stats({ hosts: false });
        // fronts that hold no bits: the takeover read the host's queue and rules, not its 301 URLs
        expect(st.front).toMatchObject({ source: 'none', bytes: 0 });
        expect(st.urls.admitted).toBe(301);
        // what a saw is seen (fetched, queued, and the redirect's source as an alias), what it did not is new
        const again = await b.admit([...seen, 'http://history.example/old-name', 'http://history.example/new'], { depth: 1 });
        expect(again.slice(0, 300).filter((r) => r.admitted)).toEqual([]);
        expect(again[300]).toMatchObject({ admitted: false, reason: 'alias' });
        expect(again[301]).toMatchObject({ admitted: true });
        expect((await b.canonical(fetched[0]!.url)).state).toBe('fetched');
        const queued = (await b.next({ host: 'history.example', limit: 400 })).length;
        expect(queued).toBe(300 - fetched.length + 1);
      } finally {
        await b.close();
      }
      // closed cleanly, it is taken next with a front built from nothing: still no snapshot of
      // a front that knows nothing, and still every key found
      const c = await large();
      try {
        await c.admit(['http://history.example/page/7', 'http://history.example/newer'], { depth: 1 });
        expect(await c.waitForWork(never)).toBe(true);
        expect((await c.stats({ hosts: false })).front.source).toBe('none');
        const r = await c.admit(['http://history.example/page/7', 'http://history.example/new', 'http://history.example/newer']);
        expect(r.map((x) => x.admitted)).toEqual([false, false, false]);
      } finally {
        await c.close();
      }
    });

    it('ends when no host has work and no lease is held, not before', async () => {
      const name = newName();
      const a = await worker(name);
      const b = await worker(name);
      try {
        await a.admit(['http://end.example/']);
        expect(await a.waitForWork(never)).toBe(true);
        // b must wait while a holds a host with work
        let bDone: boolean | undefined;
        const waiting = b.waitForWork(never).then((v) => (bDone = v));
        await new Promise((r) => setTimeout(r, 150));
        expect(bDone).toBeUndefined();
        const [e] = await a.next({ host: 'end.example' });
        await a.recordFetch(e!.url, { status: 200, contentHash: 'h' });
        expect(await a.waitForWork(never)).toBe(false); // nothing left: a gives the host up, the fleet is done
        expect(await waiting).toBe(false);
        const s = await b.stats();
        expect(s.urls.fetched).toBe(1);
        expect(s.urls.queued).toBe(0);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('reads the whole fleet: stats, canonical URLs, verify', async () => {
      const name = newName();
      const a = await worker(name);
      try {
        await a.admit(['http://r1.example/', 'http://r2.example/', 'http://r2.example/b']);
        expect(await a.waitForWork(never)).toBe(true);
        await a.close();
        const reader = await worker(name);
        try {
          expect((await reader.stats()).urls.admitted).toBe(3);
          const urls: string[] = [];
          for await (const r of reader.canonicalUrls()) urls.push(r.url);
          expect(urls.sort()).toEqual(['http://r1.example/', 'http://r2.example/', 'http://r2.example/b']);
          expect((await reader.verify()).ok).toBe(true);
        } finally {
          await reader.close();
        }
      } finally {
        await a.close();
      }
    });

    it('refuses sync always on masters that do not fsync every write, as the single-writer store does', async () => {
      await raw.exists('x'); // connected: the slot map names the masters
      const v = (await raw.nodes('master')[0]!.config('GET', 'appendfsync')) as string[];
      const attempt = openFleetStore(cluster.seeds, { fleet: { name: newName(), sync: 'always' } });
      if (v[1] === 'always') await (await attempt).close();
      else await expect(attempt).rejects.toMatchObject({ code: 'ERR_STORE_IO', message: expect.stringContaining('appendfsync always') });
    });

    it('is not opened as a single-writer store, nor a single-writer store as a fleet', async () => {
      const fleetName = newName();
      const f = await worker(fleetName);
      await f.close();
      const e1 = await openRedisStore(cluster.seeds, { redis: { name: fleetName } }).catch((e: unknown) => e);
      expect(isStoreError(e1) && e1.code).toBe('ERR_STORE_INCOMPATIBLE');
      const singleName = newName();
      const s = await openRedisStore(cluster.seeds, { redis: { name: singleName } });
      await s.close();
      const e2 = await worker(singleName).catch((e: unknown) => e);
      expect(isStoreError(e2) && e2.code).toBe('ERR_STORE_INCOMPATIBLE');
    });
  });
});
