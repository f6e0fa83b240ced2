// Pipelined admits: a failed write refuses every batch built on it and rolls the in-memory state
// back, so nothing is reported admitted or seen that the database does not hold.
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/errors.js';
import { StoreEngine } from '../../src/store/engine/index.js';
import type { AdmitResult } from '../../src/store/seen-store.js';
import type { Space } from '../../src/store/keys.js';
import type { Kv, KvOp, KvRange } from '../../src/store/backends/kv.js';
import { MemoryKv } from '../../src/store/backends/memory-store.js';

/** A memory Kv whose writes take a few ms (so batches pile up) and can be made to fail. */
class FlakyKv implements Kv {
  readonly location = '(flaky)';
  readonly durable = false;
  writes = 0;
  failAt = new Set<number>();
  private readonly inner = new MemoryKv();
  get(space: Space, key: string): Promise<string | undefined> {
    return this.inner.get(space, key);
  }
  getMany(space: Space, keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.inner.getMany(space, keys);
  }
  entries(space: Space, range?: KvRange): AsyncIterable<[string, string]> {
    return this.inner.entries(space, range);
  }
  keys(space: Space, range?: KvRange): AsyncIterable<string> {
    return this.inner.keys(space, range);
  }
  async write(ops: readonly KvOp[]): Promise<void> {
    const n = ++this.writes;
    await new Promise((r) => setTimeout(r, 5));
    if (this.failAt.has(n)) throw new StoreError('ERR_STORE_IO', this.location, { detail: 'injected write failure' });
    return this.inner.write(ops);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('admit pipeline', () => {
  it('overlaps batches, and a failed write refuses the batches built on it', async () => {
    const kv = new FlakyKv();
    const store = await StoreEngine.open(kv, { durable: false, atomicBatch: true }, {});
    const base = kv.writes;
    kv.failAt.add(base + 2);
    const a = store.admit(['http://p.example/1', 'http://p.example/2']);
    const b = store.admit(['http://p.example/3']);
    const c = store.admit(['http://p.example/4', 'http://p.example/1']);
    const d = store.admit(['http://p.example/5']);
    const settled = await Promise.allSettled([a, b, c, d]);
    // c was built while b was being written, on b's state: refused with it. d waited for b's write
    // (two batches are written at most while the next is built), so it was built on the state
    // rolled back to what the database holds, and is written
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_STORE_IO' });
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_STORE_IO' });
    expect((settled[3] as PromiseFulfilledResult<AdmitResult[]>).value.map((r) => r.reason)).toEqual(['new']);
    // the state is what the database holds: batches a and d
    expect((await store.stats()).urls.admitted).toBe(3);
    expect((await store.verify()).problems).toEqual([]);
    const again = await store.admit(['http://p.example/1', 'http://p.example/3', 'http://p.example/4', 'http://p.example/5']);
    expect(again.map((r) => r.reason)).toEqual(['seen', 'new', 'new', 'seen']);
    expect((await store.verify()).problems).toEqual([]);
    await store.close();
  });

  it('resolves each admit only after its own write, in order', async () => {
    const kv = new FlakyKv();
    const store = await StoreEngine.open(kv, { durable: false, atomicBatch: true }, {});
    const order: number[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.admit([`http://o.example/${i}`, 'http://o.example/shared']).then(() => order.push(i))));
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const s = await store.stats();
    expect(s.urls.admitted).toBe(21);
    expect((await store.verify()).problems).toEqual([]);
    await store.close();
  });
});
