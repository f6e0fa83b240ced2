// What the SeenStore conformance suite's concept files share: the backend a factory makes, what it
// declares it supports, and the helpers every test uses. seen-store.suite.ts puts them together.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import type { SeenStore, StoreOptions } from '../../../src/store/index.js';

export interface Backend {
  readonly store: SeenStore;
  /** Close and open the same data again (durable backends only). */
  readonly reopen?: (options?: StoreOptions) => Promise<SeenStore>;
  /** The database folder, to look at the files (LevelDB only). */
  readonly dir?: string;
  readonly cleanup: () => Promise<void>;
  /** Write these records behind the store's back (damage), then open it again. */
  readonly damage?: (ops: readonly RawOp[]) => Promise<SeenStore>;
  /** Database reads so far (memory backend: each `get`, `getMany` or `getAcross` call counts one). */
  readonly reads?: () => number;
}

/** A raw put (`value` a string) or del in one sublevel. */
export interface RawOp {
  readonly space: string;
  readonly key: string;
  readonly value: string | undefined;
}

export type Factory = (options?: StoreOptions) => Promise<Backend>;

/** The optional fields of `Backend`: what a factory may or may not give. */
export const CAPABILITIES = ['reopen', 'dir', 'damage', 'reads'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * Which optional fields of `Backend` a factory sets, declared up front: a test that needs one is
 * registered with `it.skipIf(!supports.X)`, so a backend without it reports the test skipped, not
 * passed. `make` checks every backend against the declaration.
 */
export type Supports = Readonly<Record<Capability, boolean>>;

export interface SuiteContext {
  readonly supports: Supports;
  /** A backend from the factory, checked against `supports` and cleaned up after the test. */
  readonly make: (options?: StoreOptions) => Promise<Backend>;
  /** verify() finds no problem, and the URL counts add up. */
  readonly verified: (store: SeenStore) => Promise<void>;
}

/** The shared context of one backend's suite; call inside its `describe` (registers the cleanup). */
export function suiteContext(factory: Factory, supports: Supports): SuiteContext {
  const open: Backend[] = [];
  const make = async (options?: StoreOptions): Promise<Backend> => {
    const b = await factory(options);
    open.push(b);
    for (const c of CAPABILITIES) expect(b[c] !== undefined, `the factory's ${c} against supports.${c}`).toBe(supports[c]);
    return b;
  };
  afterEach(async () => {
    for (const b of open.splice(0)) await b.cleanup();
  });

  async function verified(store: SeenStore): Promise<void> {
    const report = await store.verify();
    expect(report.problems).toEqual([]);
    const s = await store.stats();
    // O4 conservation: admitted = queued + fetched + redirected + pruned + failed
    expect(s.urls.admitted).toBe(s.urls.queued + s.urls.fetched + s.urls.redirected + s.urls.pruned + s.urls.failed);
  }

  return { supports, make, verified };
}

/** In a test registered with `it.skipIf(!supports.X)`: `b` has X (make checked it; this tells tsc). */
export function assertHas<C extends Capability>(b: Backend, ...caps: C[]): asserts b is Backend & Required<Pick<Backend, C>> {
  for (const c of caps) expect(b[c], `supports.${c} is declared, so the backend has it`).toBeDefined();
}

/** `https` and `slash-add` learned on `host` from three 301s each under `/docs/`: a chain of two rules. */
export async function learnHttpsAndSlash(store: SeenStore, host: string): Promise<void> {
  for (const p of ['a', 'b', 'c']) await store.recordRedirect(`http://${host}/docs/${p}`, `https://${host}/docs/${p}`, 301);
  for (const p of ['d', 'e', 'f']) await store.recordRedirect(`https://${host}/docs/${p}`, `https://${host}/docs/${p}/`, 301);
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Every file under `dir`, as bytes. */
export function filesOf(dir: string): Buffer[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesOf(join(dir, d.name)) : [readFileSync(join(dir, d.name))]));
}
