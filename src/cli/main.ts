#!/usr/bin/env node
/**
 * `urldedup <command>`: see `urldedup --help`. Exit codes in exit-codes.ts.
 *
 * Each command's module is imported when the command runs: `--version`, `key` or `normalize` do
 * not load undici, the store, ioredis or the service (docs/benchmarks.md, "Start-up").
 */
import { isBrokenPipe, UsageError, usageLines } from './errors.js';
import { EXIT_BROKEN_PIPE, EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';
import { packageVersion } from './version.js';

const USAGE = `urldedup — URL deduplication for web crawlers

Usage: urldedup <command> [options]
       urldedup --version

Commands:
  crawl [URL...]       crawl with deduplication (no URL: the built-in demo site on loopback)
  normalize [URL...]   write the URLs' normal forms (RFC 3986 §6.2); no URL: read them on stdin
  key [URL...]         write the URLs' canonical keys; no URL: read them on stdin
  resolve BASE [REF...]  write references resolved against BASE; no REF: read them on stdin
  filter --db DIR      read URLs on stdin, write only the new ones (admitted to the store),
                       at least once: a run cut short writes the undelivered ones again
  serve --db DIR       the query service: HTTP/JSON on 127.0.0.1 (key, admit, evidence, stats, metrics)
  export --db DIR      the store's canonical URLs, aliases or rules as JSONL
  stats --db DIR       the store's counts
  explain URL...       the chain to each URL's canonical key: presets, host rules, aliases
  rules --db DIR       the store's host rules; rules withdraw ID, rules block HOST SPEC
  verify --db DIR      check the store's invariants (frontier, aliases, pruned, counters)
  repair --db DIR      LevelDB repair of a damaged store, then verify

Run 'urldedup <command> --help' for a command's options and an example.
Exit codes: 0 ok, 1 some inputs invalid, 2 usage, 3 store locked or unavailable, 4 failure.
`;

const COMMANDS = new Set(['crawl', 'normalize', 'key', 'resolve', 'filter', 'serve', 'export', 'stats', 'explain', 'rules', 'verify', 'repair']);
/** Commands that run until stopped or until their input ends, admitting URLs as they go. */
const LONG_RUNNING = new Set(['crawl', 'serve', 'filter']);

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? EXIT_USAGE : 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // the long-running commands hold the heap near what survives (heap-growth.ts)
  if (LONG_RUNNING.has(command)) (await import('./heap-growth.js')).limitHeapGrowth();
  switch (command) {
    case 'normalize':
      return (await import('./commands/normalize.js')).runNormalizeCommand(rest, process.stdin, process.stdout);
    case 'key':
      return (await import('./commands/key.js')).runKeyCommand(rest, process.stdin, process.stdout);
    case 'resolve':
      return (await import('./commands/resolve.js')).runResolveCommand(rest, process.stdin, process.stdout);
    case 'crawl':
      return (await import('./commands/crawl.js')).runCrawlCommand(rest);
    case 'serve':
      return (await import('./commands/serve.js')).runServeCommand(rest);
    case 'filter':
      return (await import('./commands/filter.js')).runFilterCommand(rest, process.stdin, process.stdout);
    case 'export':
      return (await import('./commands/export.js')).runExportCommand(rest, process.stdout);
    case 'stats':
      return (await import('./commands/stats.js')).runStatsCommand(rest, process.stdout);
    case 'explain':
      return (await import('./commands/explain.js')).runExplainCommand(rest, process.stdout);
    case 'rules':
      return (await import('./commands/rules.js')).runRulesCommand(rest, process.stdout);
    case 'verify':
      return (await import('./commands/verify.js')).runVerifyCommand(rest, process.stdout);
    case 'repair':
      return (await import('./commands/repair.js')).runRepairCommand(rest, process.stdout);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

// A reader that goes away (`urldedup verify | head -1`) makes every later write to stdout fail with
// EPIPE, emitted as an 'error' event that would end the process with a stack trace: the command
// finishes its work (a store closes cleanly) and exits 141, as a process SIGPIPE ended would.
let brokenPipe = false;
process.stdout.on('error', (error: unknown) => {
  if (isBrokenPipe(error)) brokenPipe = true;
  else process.stderr.write(`urldedup: stdout: ${(error as Error).message}\n`);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = brokenPipe ? EXIT_BROKEN_PIPE : code;
  },
  (error: unknown) => {
    const isUsage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const command = process.argv[2];
    const known = command !== undefined && COMMANDS.has(command) ? command : undefined;
    process.stderr.write(isUsage ? usageLines(error, known) : `urldedup: ${(error as Error).message}\n`);
    process.exitCode = isUsage ? EXIT_USAGE : EXIT_FAILURE;
  },
);
