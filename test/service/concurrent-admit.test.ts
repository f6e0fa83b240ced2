// Many clients admit overlapping batches at once, each on its own connection: every key is
// admitted exactly once over all responses (count of `admitted: true` = distinct keys), and the
// store agrees (its seen set holds exactly those keys, and its invariants hold).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key as keyOf } from '../../src/normalize/index.js';
import { seededRandom } from '../../sites/seeded-random.js';
import { postOwnConnection, startHarness, type Answer, type Harness } from './support.js';

const CLIENTS = 16;
const BATCHES_PER_CLIENT = 12;
const BATCH = 400;
const DISTINCT = 2500;

/** URL `i` written one of several ways that share one key, or now and then an invalid line. */
function spelling(i: number, rnd: () => number): string {
  const host = `h${i % 37}.example`;
  const path = `/p/${i}`;
  switch (Math.floor(rnd() * 6)) {
    case 0: return `https://${host}${path}`;
    case 1: return `https://${host.toUpperCase()}:443${path}`;
    case 2: return `HTTPS://${host}${path}#frag${Math.floor(rnd() * 9)}`;
    case 3: return `https://${host}/p/./x/..//${i}`.replace('//' + i, '/' + i);
    case 4: return `https://${host}${path.replace('p', '%70')}`;
    default: return rnd() < 0.1 ? `https://[bad${i}/` : `https://${host}${path}`;
  }
}

async function admitWithRetry(url: string, urls: string[]): Promise<Answer> {
  for (;;) {
    const a = await postOwnConnection(`${url}/v1/admit`, urls);
    if (a.status !== 503) return a;
    await new Promise((r) => setTimeout(r, 20));
  }
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('concurrent admits of overlapping batches', () => {
  it('admit every key exactly once across all clients', async () => {
    const sentKeys = new Set<string>();
    const admittedCount = new Map<string, number>();
    let admittedTotal = 0;
    const client = async (c: number): Promise<void> => {
      const rnd = seededRandom(0xadd17 + c).next;
      for (let b = 0; b < BATCHES_PER_CLIENT; b++) {
        const urls = Array.from({ length: BATCH }, () => spelling(Math.floor(rnd() * DISTINCT), rnd));
        for (const u of urls) {
          try {
            sentKeys.add(keyOf(u));
          } catch {
            // an invalid spelling: never admitted
          }
        }
        const a = await admitWithRetry(h.url, urls);
        expect(a.status).toBe(200);
        const { results } = a.body as { results: { url: string; key: string | null; admitted: boolean }[] };
        expect(results.map((r) => r.url)).toEqual(urls);
        for (const r of results) {
          if (!r.admitted) continue;
          admittedTotal++;
          admittedCount.set(r.key!, (admittedCount.get(r.key!) ?? 0) + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

    const twice = [...admittedCount].filter(([, n]) => n > 1);
    expect(twice).toEqual([]);
    expect(admittedTotal).toBe(admittedCount.size);
    expect(new Set(admittedCount.keys())).toEqual(sentKeys);
    const stats = await h.store.stats();
    expect(stats.urls.admitted).toBe(sentKeys.size);
    expect(stats.urls.queued).toBe(sentKeys.size);
    expect((await h.store.verify()).problems).toEqual([]);
  });
});
