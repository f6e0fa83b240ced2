/**
 * mulberry32 (Tommy Ettinger's public-domain 32-bit generator): a seeded PRNG, enough for
 * shuffling, picking and generated sites; the same stream from the same seed on every platform.
 * Shared by the benchmarks and, through sites/seeded-random.ts, the tests. (The plain-JS
 * child fixture test/fixtures/store-admit-batches.mjs keeps its own copy: it runs unbuilt.)
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Shuffle `items` in place (Fisher–Yates) with `random` (values in [0, 1)), and return them. The
 * same stream gives the same order: the corpus build and the benchmark harness rely on it.
 */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = items[i] as T;
    items[i] = items[j] as T;
    items[j] = t;
  }
  return items;
}
