// Throughput and latency harness for string → value functions over a fixed corpus.
//
// Every subject runs in this one process on the same lines. Per round, each subject makes one
// pass over the whole corpus, in an order shuffled afresh each round (seeded, so every run shuffles
// alike), and every pass starts from a fully collected heap: no subject's pass pays for another's
// garbage or always runs after the same one. Calls are timed in batches (256 by default)
// with process.hrtime.bigint(), so the timer's own cost does not dominate a per-URL figure: p50
// and p99 are percentiles of the per-URL mean of each batch. A call that throws counts as an
// error and the pass goes on. Each subject runs in its own copy of the timing loop (`passOfItsOwn`).
// Benchmarks print; they assert nothing.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, arch, platform } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mulberry32, shuffleInPlace } from '../sites/mulberry32.js';

export interface Subject {
  /** Stable display name, also what `--only` matches. */
  readonly name: string;
  readonly run: (url: string) => unknown;
  readonly note?: string;
}

export interface Corpus {
  readonly path: string;
  readonly lines: readonly string[];
  readonly sha256: string;
}

export interface BenchOptions {
  /** Measured passes over the corpus per subject. */
  readonly rounds: number;
  /** Unmeasured passes per subject before the first round. */
  readonly warmup: number;
  /** Calls per timed batch. */
  readonly batchSize: number;
}

export const defaultBenchOptions: BenchOptions = { rounds: 9, warmup: 1, batchSize: 256 };

export interface SubjectResult {
  readonly name: string;
  readonly note: string | undefined;
  /** Median over rounds. */
  readonly urlsPerSecond: number;
  readonly roundsUrlsPerSecond: readonly number[];
  readonly p50Ns: number;
  readonly p99Ns: number;
  /** Calls that threw, in one pass (the same in every pass). */
  readonly errors: number;
  /** urlsPerSecond divided by the baseline's, when the baseline ran. */
  readonly relative: number | undefined;
}

/** The nearest ancestor of `from` whose package.json names this project. */
export function findRepoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'urldedup') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no urldedup package.json above ${from}`);
  }
}

export function readCorpus(fileName: string): Corpus {
  const path = join(findRepoRoot(), 'bench', 'corpus', fileName);
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return { path, lines, sha256: createHash('sha256').update(text).digest('hex') };
}

interface PassResult {
  readonly ns: number;
  readonly errors: number;
  readonly sink: number;
}

type Gc = () => void;

type Pass = (run: (url: string) => unknown, lines: readonly string[], batchSize: number, samples: number[] | undefined) => PassResult;

/**
 * `globalThis.gc`, exposed if node was not started with --expose-gc. Without a full collection
 * before each pass, the garbage a subject leaves is collected during the next one's timed pass:
 * whatwg-url allocates about 380 MB per pass over the corpus (new URL 70 MB, key(u) 30 MB), and
 * new URL, which ran after it, was 13 % slower for it (2.2 M URLs/s there, 2.5 M in a run of its
 * own).
 */
function exposeGc(): void {
  const global = globalThis as { gc?: Gc };
  if (typeof global.gc === 'function') return;
  setFlagsFromString('--expose-gc');
  global.gc = runInNewContext('gc') as Gc;
}

/**
 * A copy of `pass` of the subject's own, compiled from the same source. V8 keeps type feedback per
 * function: with one loop for all, the call `run(line)` sees every subject, goes megamorphic and
 * inlines none, and a fast subject pays a call's overhead that a slow one hides (benchmark.js
 * compiles each test the same way for the same reason). `pass` reads no variable of this module,
 * only its arguments and globals, so its source stands alone.
 */
function passOfItsOwn(): Pass {
  return new Function(`return ${pass.toString()}`)() as Pass;
}

function pass(run: (url: string) => unknown, lines: readonly string[], batchSize: number, samples: number[] | undefined): PassResult {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (gc !== undefined) gc(); // start every pass from a collected heap (see exposeGc)
  const n = lines.length;
  let errors = 0;
  let sink = 0;
  const start = process.hrtime.bigint();
  let batchStart = start;
  for (let i = 0; i < n; i += batchSize) {
    const end = i + batchSize < n ? i + batchSize : n;
    for (let j = i; j < end; j++) {
      try {
        const value = run(lines[j] as string);
        // keep results observable so no call is optimised away
        sink = (sink + (typeof value === 'string' ? value.length : 1)) | 0;
      } catch {
        errors++;
      }
    }
    const now = process.hrtime.bigint();
    if (samples !== undefined) samples.push(Number(now - batchStart) / (end - i));
    batchStart = now;
  }
  return { ns: Number(process.hrtime.bigint() - start), errors, sink };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Runs every subject over `lines`; results come back in subject order (sort for display).
 * `baseline` names the subject the relative column divides by.
 */
export function runBench(subjects: readonly Subject[], lines: readonly string[], options: BenchOptions, baseline?: string, log: (message: string) => void = () => {}): SubjectResult[] {
  if (lines.length === 0) throw new RangeError('empty corpus');
  const k = subjects.length;
  exposeGc();
  const random = mulberry32(0x6e6f726d);
  const passes = subjects.map(passOfItsOwn);
  for (const [s, subject] of subjects.entries()) {
    for (let w = 0; w < options.warmup; w++) passes[s]!(subject.run, lines, options.batchSize, undefined);
    log(`warmed up ${subject.name}`);
  }
  const perSecond: number[][] = subjects.map(() => []);
  const samples: number[][] = subjects.map(() => []);
  const errors: number[] = subjects.map(() => 0);
  for (let round = 0; round < options.rounds; round++) {
    for (const index of shuffleInPlace(Array.from({ length: k }, (_, i) => i), random)) {
      const subject = subjects[index] as Subject;
      const result = (passes[index] as Pass)(subject.run, lines, options.batchSize, samples[index]);
      (perSecond[index] as number[]).push((lines.length * 1e9) / result.ns);
      errors[index] = Math.max(errors[index] as number, result.errors);
    }
    log(`round ${round + 1}/${options.rounds} done`);
  }
  const rates = perSecond.map(median);
  const baselineIndex = baseline === undefined ? -1 : subjects.findIndex((s) => s.name === baseline);
  const baselineRate = baselineIndex >= 0 ? rates[baselineIndex] : undefined;
  return subjects.map((subject, i) => {
    const sorted = (samples[i] as number[]).sort((a, b) => a - b);
    const rate = rates[i] as number;
    return {
      name: subject.name,
      note: subject.note,
      urlsPerSecond: rate,
      roundsUrlsPerSecond: perSecond[i] as number[],
      p50Ns: percentile(sorted, 50),
      p99Ns: percentile(sorted, 99),
      errors: errors[i] as number,
      relative: baselineRate === undefined ? undefined : rate / baselineRate,
    };
  });
}

export function environment(): Record<string, string | number> {
  const cpu = cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${platform()} ${arch()}`,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
  };
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function ns(value: number): string {
  return value >= 100 ? integer.format(value) : value.toFixed(1);
}

/** A Markdown table, fastest first, followed by the subjects' notes. */
export function markdownTable(title: string, corpus: Corpus, results: readonly SubjectResult[], options: BenchOptions, baseline: string): string {
  const sorted = [...results].sort((a, b) => b.urlsPerSecond - a.urlsPerSecond || (a.name < b.name ? -1 : 1));
  const shown = relative(findRepoRoot(), corpus.path);
  const lines = [
    `### ${title}`,
    '',
    `\`${shown}\`: ${corpus.lines.length} URLs, sha256 \`${corpus.sha256.slice(0, 16)}…\`; ${options.rounds} rounds after ${options.warmup} warm-up pass(es); latency = per-URL mean of ${options.batchSize}-call batches.`,
    '',
    `| subject | URLs/s (median) | vs \`${baseline}\` | p50 ns/URL | p99 ns/URL | errors |`,
    '|---|---:|---:|---:|---:|---:|',
    ...sorted.map((r) => `| ${r.name} | ${integer.format(r.urlsPerSecond)} | ${r.relative === undefined ? '—' : `${r.relative.toFixed(2)}×`} | ${ns(r.p50Ns)} | ${ns(r.p99Ns)} | ${r.errors} |`),
  ];
  const notes = sorted.filter((r) => r.note !== undefined);
  if (notes.length > 0) lines.push('', ...notes.map((r) => `- ${r.name}: ${r.note}`));
  return lines.join('\n');
}

/** Bytes of every file under `dir`. */
export function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return n;
}

/** This process's peak resident set, MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Walk a bench's `--flag [value]` arguments: `on` gets each flag and a function that takes its
 * value (an error naming the flag when there is none).
 */
export function eachFlag(argv: readonly string[], on: (flag: string, value: () => string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    on(flag, () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    });
  }
}
