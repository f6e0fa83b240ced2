// bench/normalize: URLs/second for urldedup's normalization ladder and its peers on the fixed
// corpus (bench/corpus, see its README). Two passes: the whole corpus, then only the lines that
// are already normal as extracted (the fast path).
//
// Each subject runs in a child process of its own, with the baseline (new URL) beside it in the
// same process, and its ratio is taken within that pair. In one process for all, a subject that
// allocates a lot leaves the heap grown for the others (V8 keeps its young generation at the size
// it reached, 32 MB instead of 1, even after full collections): with a stand-in for whatwg-url's
// 380 MB a pass run between passes, key(u) took 300 ns a URL instead of 220 and new URL 445
// instead of 385, and the ratio between them fell from 1.75 to 1.46. `--one-process` runs all
// subjects in one process as before.
//
//   npx tsc -p tsconfig.build.json && node dist/bench/normalize.bench.js [options]
//     --rounds N      measured passes per subject (default 9)
//     --warmup N      unmeasured passes per subject first (default 1)
//     --batch N       calls per timed batch (default 256)
//     --only NAME     run subjects whose name contains NAME (case-insensitive; repeatable);
//                     the baseline, new URL(u).href, always runs
//     --corpus WHICH  full | normal | both (default both)
//     --json          print JSON instead of Markdown
//     --one-process   all subjects in this process, the ratio to the baseline's median
// Every pass starts from a collected heap, in an order shuffled each round (harness.ts).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import normalizeUrl from 'normalize-url';
import fastUri from 'fast-uri';
import uriJs from 'uri-js';
import { fingerprint, key, normalize } from '../src/normalize/index.js';
import { defaultBenchOptions, environment, markdownTable, readCorpus, runBench, type BenchOptions, type Corpus, type Subject, type SubjectResult } from './harness.js';

const BASELINE = 'new URL(u).href';

/** The part of whatwg-url (which ships no types) this benchmark calls. */
interface WhatwgUrl {
  URL: new (input: string) => { readonly href: string };
  basicURLParse(input: string): object | null;
  serializeURL(record: object): string;
}

async function loadWhatwgUrl(): Promise<WhatwgUrl> {
  const specifier: string = 'whatwg-url';
  const namespace = (await import(specifier)) as Partial<WhatwgUrl> & { default?: WhatwgUrl };
  return namespace.basicURLParse !== undefined ? (namespace as WhatwgUrl) : (namespace.default as WhatwgUrl);
}

async function subjects(): Promise<{ list: Subject[]; skipped: string[] }> {
  const skipped: string[] = [];
  const whatwg = await loadWhatwgUrl();
  const list: Subject[] = [
    { name: BASELINE, run: (u) => new URL(u).href, note: "Node's built-in WHATWG parser and serializer (C++); the baseline." },
  ];
  list.push(
    { name: 'urldedup normalize(u)', run: (u) => normalize(u), note: 'default options: syntax + scheme rungs.' },
    { name: 'urldedup key(u)', run: (u) => key(u), note: 'the full ladder (syntax + scheme) with keys: the target subject.' },
    { name: 'urldedup fingerprint(key(u))', run: (u) => fingerprint(key(u)), note: 'the key and its 64-bit fingerprint.' },
  );
  list.push(
    {
      name: 'normalize-url',
      run: (u) => normalizeUrl(u),
      note: 'default options; does much more than RFC 3986 allows (strips www., utm_*, trailing slash and text fragments, sorts the query), and parses with new URL inside.',
    },
    {
      name: 'fast-uri normalize(u)',
      run: (u) => fastUri.normalize(u),
      note: 'RFC 3986 normalization; returns malformed input unchanged instead of failing, so its errors stay at 0.',
    },
    {
      name: 'uri-js normalize(u)',
      run: (u) => uriJs.normalize(u),
      note: 'RFC 3986/3987 normalization; returns malformed input unchanged instead of failing.',
    },
    { name: 'whatwg-url new URL(u).href', run: (u) => new whatwg.URL(u).href, note: 'the pure-JS reference implementation of the URL Standard.' },
    {
      name: 'whatwg-url basicURLParse+serializeURL',
      run: (u) => {
        const record = whatwg.basicURLParse(u);
        if (record === null) throw new TypeError('failure');
        return whatwg.serializeURL(record);
      },
      note: 'the same without the URL wrapper object; a parse failure (null) counts as an error.',
    },
  );
  return { list, skipped };
}

interface Arguments {
  readonly options: BenchOptions;
  readonly only: readonly string[];
  readonly corpora: readonly ('full' | 'normal')[];
  readonly json: boolean;
  readonly oneProcess: boolean;
  /** In a child: the one subject to run beside the baseline (its exact name). */
  readonly child: string | undefined;
}

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: node dist/bench/normalize.bench.js [--rounds N] [--warmup N] [--batch N] [--only NAME]... [--corpus full|normal|both] [--json]\n  e.g. node dist/bench/normalize.bench.js --rounds 3 --only urldedup --only 'new URL'\n`);
  process.exit(2);
}

function parseArguments(argv: readonly string[]): Arguments {
  let { rounds, warmup, batchSize } = defaultBenchOptions;
  const only: string[] = [];
  let corpus = 'both';
  let oneProcess = false;
  let child: string | undefined;
  let json = false;
  const count = (flag: string, value: string | undefined, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) usage(`${flag} needs an integer ≥ ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--rounds':
        rounds = count(flag, argv[++i], 1);
        break;
      case '--warmup':
        warmup = count(flag, argv[++i], 0);
        break;
      case '--batch':
        batchSize = count(flag, argv[++i], 1);
        break;
      case '--only': {
        const name = argv[++i];
        if (name === undefined || name === '') usage('--only needs a name');
        only.push(name.toLowerCase());
        break;
      }
      case '--corpus':
        corpus = argv[++i] ?? '';
        if (!['full', 'normal', 'both'].includes(corpus)) usage('--corpus is full, normal or both');
        break;
      case '--json':
        json = true;
        break;
      case '--one-process':
        oneProcess = true;
        break;
      case '--child':
        child = argv[++i];
        if (child === undefined || child === '') usage('--child needs a subject name');
        break;
      case '--help':
        usage('bench/normalize: URLs/s of urldedup and its peers on bench/corpus');
        break;
      default:
        usage(`unknown argument ${flag}`);
    }
  }
  const corpora = corpus === 'both' ? (['full', 'normal'] as const) : ([corpus] as ['full' | 'normal']);
  return { options: { rounds, warmup, batchSize }, only, corpora, json, oneProcess, child };
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const { list, skipped } = await subjects();
  for (const message of skipped) process.stderr.write(`${message}\n`);
  // the baseline always runs, so the relative column is always filled
  const chosen = args.only.length === 0 ? list : list.filter((s) => s.name === BASELINE || args.only.some((o) => s.name.toLowerCase().includes(o)));
  if (chosen.length === 1 && args.only.every((o) => !BASELINE.toLowerCase().includes(o))) usage(`--only matches none of: ${list.map((s) => s.name).join(', ')}`);
  const log = (message: string): void => {
    process.stderr.write(`  ${message}\n`);
  };
  if (args.child !== undefined) {
    // a child: one subject and the baseline, results as JSON for the parent
    const pair = list.filter((s) => s.name === BASELINE || s.name === args.child);
    if (pair.length !== 2 && args.child !== BASELINE) usage(`--child ${args.child}: no such subject`);
    const corpus = readCorpus(args.corpora[0] === 'normal' ? 'normal.txt' : 'urls.txt');
    process.stdout.write(JSON.stringify(runBench(pair, corpus.lines, args.options, BASELINE, log)) + '\n');
    return;
  }
  const passes: { title: string; corpus: Corpus; results: SubjectResult[] }[] = [];
  for (const which of args.corpora) {
    const corpus = readCorpus(which === 'full' ? 'urls.txt' : 'normal.txt');
    const title = which === 'full' ? 'Full corpus (40 % as extracted, 60 % alias variants, 0.5 % invalid)' : 'Already-normal URLs only (the fast path)';
    log(`${title}: ${corpus.lines.length} URLs`);
    const results = args.oneProcess ? runBench(chosen, corpus.lines, args.options, BASELINE, log) : pairedRuns(chosen, which, args.options, log);
    passes.push({ title, corpus, results });
  }
  if (args.json) {
    const output = {
      environment: environment(),
      options: args.options,
      skipped,
      passes: passes.map(({ title, corpus, results }) => ({ title, corpus: { file: corpus.path, lines: corpus.lines.length, sha256: corpus.sha256 }, results })),
    };
    process.stdout.write(JSON.stringify(output, null, 2) + '\n');
    return;
  }
  const env = environment();
  const how = args.oneProcess
    ? 'all subjects in one process'
    : `each subject in a process of its own beside the baseline, its ratio taken within the pair; the baseline's row: the median of its ${chosen.length - 1} runs`;
  const out = [`## bench/normalize`, '', `Node ${env.node} (V8 ${env.v8}), ${env.platform}, ${env.cpu} × ${env.cores}; single thread; ${how}.`];
  for (const message of skipped) out.push('', `> ${message}`);
  for (const { title, corpus, results } of passes) out.push('', markdownTable(title, corpus, results, args.options, BASELINE));
  process.stdout.write(out.join('\n') + '\n');
}

/**
 * Each subject but the baseline in a child process of its own, beside the baseline: the subject's
 * row is its result there, its ratio the one to that run of the baseline. The baseline's row is the
 * run of it with the median rate.
 */
function pairedRuns(chosen: readonly Subject[], corpus: 'full' | 'normal', options: BenchOptions, log: (message: string) => void): SubjectResult[] {
  const script = fileURLToPath(import.meta.url);
  const results: SubjectResult[] = [];
  const baselines: SubjectResult[] = [];
  for (const subject of chosen) {
    if (subject.name === BASELINE) continue;
    log(`${subject.name}: a process of its own`);
    const argv = [script, '--child', subject.name, '--corpus', corpus, '--rounds', String(options.rounds), '--warmup', String(options.warmup), '--batch', String(options.batchSize)];
    const output = execFileSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
    const pair = JSON.parse(output) as SubjectResult[];
    const mine = pair.find((r) => r.name === subject.name);
    const base = pair.find((r) => r.name === BASELINE);
    if (mine === undefined || base === undefined) throw new Error(`child for ${subject.name} gave no result`);
    results.push(mine);
    baselines.push(base);
  }
  if (baselines.length === 0) return [];
  const sorted = [...baselines].sort((a, b) => a.urlsPerSecond - b.urlsPerSecond);
  results.unshift({ ...sorted[(sorted.length - 1) >> 1]!, relative: 1 });
  return results;
}

await main();
