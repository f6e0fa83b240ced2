/**
 * Peak resident memory while something runs: `process.memoryUsage.rss()` sampled every few
 * milliseconds (the crawl under test is asynchronous, so the timer gets its turns), against a
 * baseline taken at the start, after a full GC. Warm up first (open a store, run a small crawl):
 * the first LevelDB open and the first module loads are not what is measured.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full GC (V8's `gc()`, exposed at run time). */
export function collectGarbage(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
export interface RssSample {
  readonly baselineBytes: number;
  readonly peakBytes: number;
  /** peak − baseline */
  readonly deltaBytes: number;
  readonly samples: number;
}

export async function measureRss<T>(run: () => Promise<T>, everyMs = 5): Promise<{ value: T; rss: RssSample }> {
  collectGarbage();
  const baselineBytes = process.memoryUsage.rss();
  let peakBytes = baselineBytes;
  let samples = 0;
  const timer = setInterval(() => {
    samples++;
    const now = process.memoryUsage.rss();
    if (now > peakBytes) peakBytes = now;
  }, everyMs);
  try {
    const value = await run();
    const now = process.memoryUsage.rss();
    if (now > peakBytes) peakBytes = now;
    return { value, rss: { baselineBytes, peakBytes, deltaBytes: peakBytes - baselineBytes, samples } };
  } finally {
    clearInterval(timer);
  }
}

export const MiB = 1024 * 1024;

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
