// Differential property test: random sequences of admits, fetches, redirects, frontier calls and
// give-backs run on the memory and the LevelDB backend must answer identically, and the store's
// invariants (verify: frontier ⇔ queued, acyclic compressed aliases, counters = recount,
// conservation, no Bloom false negative) must hold after every sequence; and what the LevelDB
// store answers with its warm entry cache equals what it answers after a reopen, cache empty
// (the cache follows the database). Time-boxed; the seed is printed (replay with URLDEDUP_SEED=<seed>).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openMemoryStore, openStore, type StoreOptions } from '../../src/store/index.js';
import { command, run, snapshot, urlsOf } from './model-commands.js';

const LONG = process.env['URLDEDUP_LONG'] === '1';
const SEED = process.env['URLDEDUP_SEED'] !== undefined ? Number(process.env['URLDEDUP_SEED']) : Math.floor(Math.random() * 2 ** 31);

describe('store model (memory ≡ LevelDB, invariants hold)', () => {
  it(`agrees on random command sequences (seed ${SEED})`, { timeout: LONG ? 300_000 : 60_000 }, async () => {
    console.log(`model: seed ${SEED} (replay with URLDEDUP_SEED=${SEED})`);
    const options: StoreOptions = { presets: ['tracking'], ruleThreshold: 2, learnRules: true };
    let runs = 0;
    const reached = { activeRules: 0, withdrawnRules: 0, aliases: 0, loops: 0, pruned: 0, temporary: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (commands) => {
        runs++;
        const dir = mkdtempSync(join(tmpdir(), 'urldedup-'));
        const mem = await openMemoryStore(options);
        let lvl = await openStore(dir, options);
        try {
          for (const c of commands) expect(await run(lvl, c), JSON.stringify(c)).toEqual(await run(mem, c));
          for (const s of [mem, lvl]) {
            const report = await s.verify();
            expect(report.problems).toEqual([]);
          }
          expect(await snapshot(lvl)).toEqual(await snapshot(mem));
          // the warm entry cache answers as the database does: the same lookups after a reopen
          const all = urlsOf(commands);
          const warm = [await lvl.canonicalMany(all), await Promise.all(all.map((u) => run(lvl, { op: 'canonical', url: u })))];
          await lvl.close();
          lvl = await openStore(dir, options);
          const cold = [await lvl.canonicalMany(all), await Promise.all(all.map((u) => run(lvl, { op: 'canonical', url: u })))];
          expect(warm).toEqual(cold);
          const st = await mem.stats();
          if (st.rules.active > 0) reached.activeRules++;
          if (st.rules.withdrawn > 0) reached.withdrawnRules++;
          if (st.aliases > 0) reached.aliases++;
          if (st.loops > 0) reached.loops++;
          if (st.urls.pruned > 0) reached.pruned++;
          if (st.temporaryRedirects > 0) reached.temporary++;
        } finally {
          await mem.close();
          await lvl.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { seed: SEED, numRuns: LONG ? 2000 : 150, interruptAfterTimeLimit: LONG ? 240_000 : 10_000, markInterruptAsFailure: false },
    );
    console.log(`model: ${runs} sequences; sequences that reached: ${JSON.stringify(reached)}`);
    expect(runs).toBeGreaterThan(10);
  });
});
