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
import { openMemoryStore, openStore, type SeenStore, type StoreOptions } from '../../src/store/index.js';

const LONG = process.env['URLDEDUP_LONG'] === '1';
const SEED = process.env['URLDEDUP_SEED'] !== undefined ? Number(process.env['URLDEDUP_SEED']) : Math.floor(Math.random() * 2 ** 31);

const hosts = ['a.example', 'www.a.example', 'b.example'];
const paths = ['/', '/x', '/x/', '/y', '/d/', '/d/index.html', '/old/x', '/x.html', '/p1', '/p2', '/p3', '/p1/', '/p2/index.html', '/p1;jsessionid=1', '/p2;jsessionid=2', '/x;v=1'];
const queries = ['', '?sid=1', '?sid=2', '?utm_source=m', '?id=1', '?id=1&sid=3'];
const url = fc
  .record({ scheme: fc.constantFrom('http', 'https', 'HTTP'), host: fc.constantFrom(...hosts), path: fc.constantFrom(...paths), query: fc.constantFrom(...queries), frag: fc.constantFrom('', '#f') })
  .map((u) => `${u.scheme}://${u.host}${u.path}${u.query}${u.frag}`);

type Command =
  | { op: 'admit'; urls: string[]; depth: number }
  | { op: 'fetch'; url: string; status: number; hash: string | undefined }
  | { op: 'redirect'; from: string; to: string; status: number }
  | { op: 'next'; limit: number; perHost: number; record: boolean }
  | { op: 'restore'; reason: string }
  | { op: 'canonical'; url: string };

/** A redirect the way a host with a rule answers: https, trailing slash, www, default document. */
const ruleShaped: fc.Arbitrary<Command> = fc
  .record({ kind: fc.constantFrom('https', 'slash', 'www', 'doc'), host: fc.constantFrom('a.example', 'b.example'), p: fc.constantFrom('/p1', '/p2', '/p3', '/q') })
  .map(({ kind, host, p }): Command => {
    const pair =
      kind === 'https' ? [`http://${host}${p}`, `https://${host}${p}`]
      : kind === 'slash' ? [`https://${host}${p}`, `https://${host}${p}/`]
      : kind === 'www' ? [`https://${host}${p}`, `https://www.${host}${p}`]
      : [`https://${host}${p}/index.html`, `https://${host}${p}/`];
    return { op: 'redirect', from: pair[0]!, to: pair[1]!, status: 301 };
  });

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: ruleShaped },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('admit' as const), urls: fc.array(fc.oneof(url, fc.constant('http://exa mple/')), { minLength: 1, maxLength: 6 }), depth: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('fetch' as const), url, status: fc.constantFrom(200, 200, 404, 503, 0), hash: fc.option(fc.constantFrom('H1', 'H2'), { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('redirect' as const), from: url, to: url, status: fc.constantFrom(301, 308, 302) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('next' as const), limit: fc.integer({ min: 1, max: 4 }), perHost: fc.integer({ min: 1, max: 2 }), record: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restore' as const), reason: fc.constantFrom('tracking', 'preset:tracking', 'rule:a.example/https', 'rule:a.example/slash-add') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('canonical' as const), url }) },
);

/** Run one command; the answer, with nothing that depends on the clock. */
async function run(store: SeenStore, c: Command): Promise<unknown> {
  const settle = async (p: Promise<unknown>): Promise<unknown> => p.then((v) => ({ ok: v }), (e: { code?: string; name?: string }) => ({ error: e.code ?? e.name }));
  switch (c.op) {
    case 'admit':
      return settle(store.admit(c.urls, { depth: c.depth }));
    case 'fetch':
      return settle(store.recordFetch(c.url, c.hash === undefined ? { status: c.status } : { status: c.status, contentHash: c.hash }));
    case 'redirect':
      return settle(store.recordRedirect(c.from, c.to, c.status));
    case 'next': {
      const entries = await store.next({ limit: c.limit, perHost: c.perHost });
      if (c.record) for (const e of entries) await store.recordFetch(e.url, { status: 200 });
      return entries;
    }
    case 'restore':
      return settle(store.restore(c.reason));
    case 'canonical':
      return settle(store.canonical(c.url));
  }
}

/** Every URL a command names. */
function urlsOf(commands: readonly Command[]): string[] {
  const out = new Set<string>();
  for (const c of commands) {
    if (c.op === 'admit') for (const u of c.urls) out.add(u);
    else if (c.op === 'fetch' || c.op === 'canonical') out.add(c.url);
    else if (c.op === 'redirect') {
      out.add(c.from);
      out.add(c.to);
    }
  }
  return [...out];
}

async function snapshot(store: SeenStore): Promise<unknown> {
  const rules = [];
  for await (const r of store.rules()) rules.push({ id: r.id, state: r.state, for: r.for, against: r.against });
  const aliases = [];
  for await (const a of store.aliases()) aliases.push(a);
  const urls = [];
  for await (const u of store.canonicalUrls()) urls.push(u);
  return { stats: await store.stats(), rules, aliases, urls };
}

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
