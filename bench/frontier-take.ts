// bench/frontier-take: what one take from the frontier costs as the hosts with queued URLs grow.
// Side by side in one process, on one LevelDB store holding H hosts with one queued URL each:
//   - host by host: `stats()` for the list of hosts, then `next({ host })` for 64 of them from a
//     rotating start: how the crawler took entries until it walked the store's ring;
//   - the ring walk: one `next({ limit: 64, perHost })` with a per-host function, as the crawler
//     asks now.
// Each take is given back (`release`), so every call finds the same frontier.
//
//   npm run build && node dist/bench/frontier-take.js [--hosts 10000,200000] [--calls 20]
//
// Benchmarks print; they assert nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/index.js';
import { eachFlag } from './harness.js';

let hostCounts = [1_000, 10_000, 200_000];
let calls = 20;
eachFlag(process.argv.slice(2), (flag, value) => {
  if (flag === '--hosts') hostCounts = value().split(',').map(Number);
  else if (flag === '--calls') calls = Number(value());
  else throw new Error(`unknown flag ${flag} (--hosts, --calls)`);
});

console.log('| hosts queued | host by host (stats + next per host), ms a take | ring walk (one next), ms a take | ratio |');
console.log('|---:|---:|---:|---:|');
for (const hosts of hostCounts) {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-frontier-take-'));
  const store = await openStore(dir);
  try {
    for (let i = 0; i < hosts; i += 1000) await store.admit(Array.from({ length: Math.min(1000, hosts - i) }, (_, j) => `http://h${i + j}.example/`));
    let t = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      const list = Object.keys((await store.stats()).frontier.hosts);
      const got = [];
      for (let k = 0; k < 64 && k < list.length; k++) got.push(...(await store.next({ host: list[(i + k) % list.length]!, limit: 2 })));
      await store.release(got.map((e) => e.url));
    }
    const list = Number(process.hrtime.bigint() - t) / 1e6 / calls;
    t = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      const got = await store.next({ limit: 64, perHost: () => 2 });
      await store.release(got.map((e) => e.url));
    }
    const walk = Number(process.hrtime.bigint() - t) / 1e6 / calls;
    console.log(`| ${hosts.toLocaleString('en')} | ${list.toFixed(1)} | ${walk.toFixed(1)} | ${(list / walk).toFixed(1)} |`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
