/**
 * How far V8 lets the old generation grow past what survived the last full collection, for the
 * long-running commands (`crawl`, `serve`, `filter`). V8 sizes its next limit by the allocation
 * rate, up to about four times the live heap: a store admitting URLs as fast as it can allocates
 * short-lived strings at a rate that keeps the heap near that bound, and the process holds pages
 * that mostly hold garbage. A fixed growth of 30 % keeps it near the live heap at the cost of
 * more frequent full collections (the figures: docs/benchmarks.md, "Growth over many hosts").
 *
 * A process started with its own `--heap-growing-percent` keeps it. The flag is V8's and may change
 * with a Node release; an unknown flag is ignored by `v8.setFlagsFromString`.
 */
import { setFlagsFromString } from 'node:v8';

/** The growth, in percent, the CLI's long-running commands ask V8 for. */
export const HEAP_GROWING_PERCENT = 30;

/** The V8 flag to set, or undefined when the process was started with one of its own. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Ask V8 for the CLI's heap growth (see the module comment), unless the process set its own. */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
}
