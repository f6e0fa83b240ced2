// The differential property test of model.test.ts on Redis Cluster: random sequences of admits,
// fetches, redirects, frontier calls and give-backs answer on a Redis store (openRedisStore, its
// own name per sequence, deleted after) exactly as on the memory store, the invariants (verify)
// hold, and a reopened store answers as the warm one. Time-boxed; the seed is printed.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore, type SeenStore, type StoreOptions } from '../../src/store/index.js';
import { destroyRedisStore } from '../../src/store/backends/redis/cluster.js';
import { openRedisStore } from '../../src/store/backends/redis-store.js';
import { sharedCluster, type TestCluster } from '../support/redis-cluster.js';
import { command, run, snapshot, urlsOf } from './model-commands.js';
import { describeWith, REDIS } from '../support/requirements.js';

describeWith([REDIS], 'redis-model', () => {
  const LONG = process.env['URLDEDUP_LONG'] === '1';
  const SEED = process.env['URLDEDUP_SEED'] !== undefined ? Number(process.env['URLDEDUP_SEED']) : Math.floor(Math.random() * 2 ** 31);

  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await sharedCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  describe('store model on Redis Cluster (memory ≡ Redis, invariants hold)', () => {
    it(`agrees on random command sequences (seed ${SEED})`, { timeout: LONG ? 300_000 : 60_000 }, async () => {
      console.log(`redis model: seed ${SEED} (replay with URLDEDUP_SEED=${SEED})`);
      const options: StoreOptions = { presets: ['tracking'], ruleThreshold: 2, learnRules: true };
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (commands) => {
          runs++;
          const name = `m-${randomBytes(6).toString('hex')}`;
          const open = (): Promise<SeenStore> => openRedisStore(cluster.seeds, { ...options, redis: { name } });
          const mem = await openMemoryStore(options);
          let red = await open();
          try {
            for (const c of commands) expect(await run(red, c), JSON.stringify(c)).toEqual(await run(mem, c));
            expect((await red.verify()).problems).toEqual([]);
            expect(await snapshot(red)).toEqual(await snapshot(mem));
            const all = urlsOf(commands);
            const warm = await red.canonicalMany(all);
            await red.close();
            red = await open();
            expect(await red.canonicalMany(all)).toEqual(warm);
          } finally {
            await mem.close();
            await red.close();
            await destroyRedisStore(cluster.seeds, name);
          }
        }),
        { seed: SEED, numRuns: LONG ? 1000 : 100, interruptAfterTimeLimit: LONG ? 240_000 : 10_000, markInterruptAsFailure: false },
      );
      console.log(`redis model: ${runs} sequences`);
      expect(runs).toBeGreaterThan(5);
    });
  });
});
