/**
 * A small seeded PRNG (mulberry32) for what fast-check does not drive: generated sites and kill
 * schedules, which must come out the same from the same seed in two processes.
 */
import { mulberry32 } from './mulberry32.js';

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: number): SeededRandom {
  const next = mulberry32(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[Math.floor(next() * items.length)]!;
    },
  };
}
