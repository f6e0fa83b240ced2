#!/usr/bin/env node
/**
 * `urldedup <command>`: see `urldedup --help`. Exit codes in exit-codes.ts.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isPresetName, type PresetName } from '../normalize/ladder/policy.js';
import type { NormalizationLevel, NormalizeOptions } from '../normalize/normalize.js';
import type { ResolveMode } from '../normalize/resolve.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';
import { runCrawlCommand } from '../crawler/cli-crawl.js';
import { runLineCommand, type LineCommand } from './normalize-commands.js';
import {
  runExportCommand,
  runFilterCommand,
  runRepairCommand,
  runServeCommand,
  runStatsCommand,
  runVerifyCommand,
} from './pipeline-commands.js';

const USAGE = `urldedup — URL deduplication for web crawlers

Usage: urldedup <command> [options]

Commands:
  crawl [URL...]       crawl with deduplication (no URL: the built-in demo site on loopback)
  normalize            read URLs on stdin, write their normal forms (RFC 3986 §6.2)
  key                  read URLs on stdin, write their canonical keys
  resolve BASE         read references on stdin, write them resolved against BASE
  filter --db DIR      read URLs on stdin, write only the new ones (admitted to the store)
  serve --db DIR       the query service: HTTP/JSON on 127.0.0.1 (key, admit, evidence, stats, metrics)
  export --db DIR      the store's canonical URLs, aliases or rules as JSONL
  stats --db DIR       the store's counts
  verify --db DIR      check the store's invariants (frontier, aliases, pruned, counters)
  repair --db DIR      LevelDB repair of a damaged store, then verify

Run 'urldedup <command> --help' for a command's options and an example.
Exit codes: 0 ok, 1 some inputs invalid, 2 usage, 3 store locked or unavailable, 4 failure.
`;

const NORMALIZE_HELP = (command: string) => `Usage: urldedup ${command} [options] < urls.txt

Reads one URL per line on stdin and writes one line per input, in the same order:
${command === 'key' ? 'the canonical key (host labels reversed first, so one host sorts together)' : 'the normal form (RFC 3986 §6.2.2 syntax + §6.2.3 scheme rungs)'}.
An invalid input gives '!ERR_CODE<TAB>input' on its line and processing goes on (exit 1).

Options:
  --level syntax|scheme|policy   highest rung of the ladder (default: scheme)
  --preset NAME                  opt-in preset, repeatable: tracking, session-ids, sort-query, www, …
  --keep-fragment                keep '#fragment' (dropped by default)
  --strict                       reject anything that is not an RFC 3986 URI
  --max-length N                 longest input accepted (default 16384)
  --json                         one JSON object per line: {input, ok, normal, key, fingerprint} or {input, ok:false, code}
  -h, --help

Example:
  printf 'HTTP://Example.COM:80/a/./b/../c?utm_source=x#top\\n' | urldedup ${command} --preset tracking
`;

const RESOLVE_HELP = `Usage: urldedup resolve BASE [--mode rfc3986|html] [--json] < references.txt

Resolves each reference on stdin against BASE and writes the target URI, one line per input.
  --mode rfc3986   RFC 3986 §5.2 exactly (default)
  --mode html      what a browser gives for <a href> on a page at BASE (WHATWG URL Standard)
  --non-strict     rfc3986 mode: ignore a reference's scheme when it equals BASE's (§5.2.2)

Example:
  printf '../g\\n?y\\n#s\\n' | urldedup resolve 'http://a/b/c/d;p?q'
`;

class UsageError extends Error {}

const normalizeFlags = {
  level: { type: 'string' },
  preset: { type: 'string', multiple: true },
  'keep-fragment': { type: 'boolean' },
  strict: { type: 'boolean' },
  'max-length': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} needs a positive whole number, not ${JSON.stringify(value)}`);
  return n;
}

function normalizeOptionsFrom(values: {
  level?: string;
  preset?: string[];
  'keep-fragment'?: boolean;
  strict?: boolean;
  'max-length'?: string;
}): NormalizeOptions {
  const presets: PresetName[] = [];
  for (const p of values.preset ?? []) {
    if (!isPresetName(p)) throw new UsageError(`unknown preset ${JSON.stringify(p)}`);
    presets.push(p);
  }
  const level = values.level as NormalizationLevel | undefined;
  if (level !== undefined && level !== 'syntax' && level !== 'scheme' && level !== 'policy') {
    throw new UsageError(`--level must be syntax, scheme or policy`);
  }
  if (presets.length > 0 && level !== undefined && level !== 'policy') throw new UsageError('--preset needs --level policy');
  const maxLength = positiveInt('max-length', values['max-length']);
  return {
    ...(level ? { level } : {}),
    presets,
    keepFragment: values['keep-fragment'] === true,
    strict: values.strict === true,
    ...(maxLength ? { maxLength } : {}),
  };
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? EXIT_USAGE : 0;
  }
  switch (command) {
    case 'normalize':
    case 'key': {
      const { values } = parseArgs({ args: rest, options: normalizeFlags, allowPositionals: false });
      if (values.help) {
        process.stdout.write(NORMALIZE_HELP(command));
        return 0;
      }
      return runLineCommand(
        { command: command as LineCommand, json: values.json === true, normalize: normalizeOptionsFrom(values) },
        process.stdin,
        process.stdout,
      );
    }
    case 'resolve': {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { mode: { type: 'string' }, 'non-strict': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
        allowPositionals: true,
      });
      if (values.help) {
        process.stdout.write(RESOLVE_HELP);
        return 0;
      }
      if (positionals.length !== 1) throw new UsageError('resolve needs exactly one BASE');
      const mode = (values.mode ?? 'rfc3986') as ResolveMode;
      if (mode !== 'rfc3986' && mode !== 'html') throw new UsageError('--mode must be rfc3986 or html');
      return runLineCommand(
        {
          command: 'resolve',
          json: values.json === true,
          normalize: {},
          base: positionals[0]!,
          resolve: { mode, strict: values['non-strict'] !== true },
        },
        process.stdin,
        process.stdout,
      );
    }
    case 'crawl':
      return runCrawlCommand(rest);
    case 'serve':
      return runServeCommand(rest);
    case 'filter':
      return runFilterCommand(rest, process.stdin, process.stdout);
    case 'export':
      return runExportCommand(rest, process.stdout);
    case 'stats':
      return runStatsCommand(rest, process.stdout);
    case 'verify':
      return runVerifyCommand(rest, process.stdout);
    case 'repair':
      return runRepairCommand(rest, process.stdout);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const isUsage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`urldedup: ${(error as Error).message}\n${isUsage ? "Run 'urldedup --help'.\n" : ''}`);
    process.exitCode = isUsage ? EXIT_USAGE : EXIT_FAILURE;
  },
);
