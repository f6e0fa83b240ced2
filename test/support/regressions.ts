/**
 * Regression entries (test/regressions/README.md): a failing seed or kill schedule is kept in a
 * JSON file per kind and replayed on every run, before the run's own random seeds.
 *
 *   test/regressions/fuzz-seeds.json       fast-check seeds (and shrink paths) of the fuzz server
 *   test/regressions/kill-schedules.json   site seeds and kill delays of the crawl kill test
 *   test/regressions/property-seeds.json   fast-check seeds of the other property tests
 *
 * Each file is `{ "about": "…", "entries": [ { "test": "<which test>", …, "note": "…" } ] }`.
 */
import { readFileSync } from 'node:fs';

export type RegressionKind = 'fuzz-seeds' | 'kill-schedules' | 'property-seeds';

export interface RegressionEntry {
  /** The test that replays it (each test reads only its own entries). */
  readonly test: string;
  /** Why it is here: what failed, or "development seed". */
  readonly note?: string;
}

/** A fast-check run to replay: its seed, and the shrink path of a counterexample when there was one. */
export interface SeedEntry extends RegressionEntry {
  readonly seed: number;
  readonly path?: string;
}

/** A crawl killed at these delays (ms after each start) on the site generated from `siteSeed`. */
export interface KillScheduleEntry extends RegressionEntry {
  readonly siteSeed: number;
  /** Pages of the generated site. */
  readonly pages: number;
  readonly concurrency: number;
  readonly kills: readonly number[];
}

export const LONG = process.env.URLDEDUP_LONG === '1';

/** A property test's time box: `shortMs` in `npm test`, 60 s under `URLDEDUP_LONG=1`. */
export function propertyBudgetMs(shortMs = 10_000): number {
  return LONG ? 60_000 : shortMs;
}

/** The run's random seed: `URLDEDUP_SEED` when set (to rerun one), else fresh. */
export function freshSeed(): number {
  const fixed = process.env.URLDEDUP_SEED;
  if (fixed !== undefined && fixed !== '' && Number.isInteger(Number(fixed))) return Number(fixed);
  return (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
}

function fileOf(kind: RegressionKind): URL {
  return new URL(`../regressions/${kind}.json`, import.meta.url);
}

/** The entries of `kind` that belong to `test`. */
export function regressions<T extends RegressionEntry>(kind: RegressionKind, test: string): T[] {
  const doc = JSON.parse(readFileSync(fileOf(kind), 'utf8')) as { entries?: unknown };
  if (!Array.isArray(doc.entries)) throw new TypeError(`test/regressions/${kind}.json: no "entries" array`);
  return (doc.entries as T[]).filter((e) => e.test === test);
}

/** Print the exact entry to add to `test/regressions/<kind>.json` (called when a random run fails). */
export function printRegression(kind: RegressionKind, entry: RegressionEntry): string {
  const text = `\nREGRESSION: add this entry to the "entries" array of test/regressions/${kind}.json:\n${JSON.stringify(entry)}\n`;
  console.error(text);
  return text;
}
