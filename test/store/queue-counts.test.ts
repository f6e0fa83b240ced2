// The per-host queue counts written down at close (src/store/front/queue-counts.ts): read back only
// when they still speak for the database. The store suite's durability test covers the copy in a
// store (damaged chunks, a damaged header, a counter moved since); these are the checks one by one,
// on the Kv the store writes through.
import { describe, expect, it } from 'vitest';
import { MemoryKv } from '../../src/store/backends/memory-store.js';
import { parseChunk, QUEUE_COUNTS_HEADER, readQueueCounts, writeQueueCounts } from '../../src/store/front/queue-counts.js';

const header = async (kv: MemoryKv): Promise<string | undefined> => kv.get('meta', QUEUE_COUNTS_HEADER);

describe('queue counts written down at close', () => {
  const counts = new Map(Array.from({ length: 6000 }, (_, i) => [`h${i}.example`, 1 + (i % 4)] as const));
  const queued = [...counts.values()].reduce((a, b) => a + b, 0);
  const storeWide = new Map([
    ['state:queued', queued],
    ['state:fetched', 12],
    ['admitted', queued + 12],
  ]);

  it('reads back what was written, over several chunks', async () => {
    const kv = new MemoryKv();
    await writeQueueCounts(kv, counts, storeWide, false);
    const chunks = (await kv.getMany('meta', ['front:q:000000', 'front:q:000001'])).filter((x) => x !== undefined);
    expect(chunks).toHaveLength(2);
    expect(await readQueueCounts(kv, await header(kv), storeWide)).toEqual(counts);
  });

  it('keeps the frontier\'s order of hosts (its round-robin walk goes on where it was)', async () => {
    const kv = new MemoryKv();
    const unsorted = new Map([['z.example', 2], ['a.example', 1], ['m.example', 3]]);
    const wide = new Map([['state:queued', 6]]);
    await writeQueueCounts(kv, unsorted, wide, false);
    expect([...(await readQueueCounts(kv, await header(kv), wide))!.keys()]).toEqual(['z.example', 'a.example', 'm.example']);
  });

  it('reads a chunk line by line, and refuses a line of another shape', () => {
    const out = new Map<string, number>();
    expect(parseChunk('3 a.example\n12 b.example:8080\n1 [::1]:81', out)).toBe(true);
    expect(out).toEqual(new Map([['a.example', 3], ['b.example:8080', 12], ['[::1]:81', 1]]));
    for (const bad of ['', '3 a.example\n', '\n3 a.example', '3a.example', ' a.example', '0 a.example', '-1 a.example', '3 ', '1e3 a.example', '3 a.example\n\n2 b.example', '99999999999999999 a.example']) {
      expect(parseChunk(bad, new Map())).toBe(false);
    }
  });

  it('is not read when a store-wide counter moved since it was written', async () => {
    const kv = new MemoryKv();
    await writeQueueCounts(kv, counts, storeWide, false);
    expect(await readQueueCounts(kv, await header(kv), new Map([...storeWide, ['state:fetched', 13]]))).toBeUndefined();
  });

  it('is not read when its hosts add up to another count of queued URLs, though it agrees with itself', async () => {
    // a copy written whole (checksum, host count and sum all its own) with a host the store does
    // not queue: the frontier would wait for URLs that are not there
    const kv = new MemoryKv();
    await writeQueueCounts(kv, new Map([...counts, ['ghost.example', 5]]), storeWide, false);
    expect(await readQueueCounts(kv, await header(kv), storeWide)).toBeUndefined();
    // and one a host short
    const short = new Map(counts);
    short.delete('h7.example');
    await writeQueueCounts(kv, short, storeWide, false);
    expect(await readQueueCounts(kv, await header(kv), storeWide)).toBeUndefined();
  });

  it('is not read with a chunk missing or changed', async () => {
    const kv = new MemoryKv();
    await writeQueueCounts(kv, counts, storeWide, false);
    await kv.write([{ space: 'meta', key: 'front:q:000001', value: '1 h0.example' }]);
    expect(await readQueueCounts(kv, await header(kv), storeWide)).toBeUndefined();
    await kv.write([{ space: 'meta', key: 'front:q:000001', value: undefined }]);
    expect(await readQueueCounts(kv, await header(kv), storeWide)).toBeUndefined();
  });
});
