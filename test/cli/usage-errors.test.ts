// Usage errors say what was wrong in the CLI's words and name the command whose --help to read
// (exit 2); before, they printed the literal "Run 'urldedup <command> --help'." and Node's
// argument-parser text ("… place it at the end of the command after '--' …").
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('usage errors', () => {
  it.each([
    [['export', '--foo'], 'urldedup export: unknown option --foo', 'export'],
    [['stats', '--db'], 'urldedup stats: --db needs a value', 'stats'],
    [['verify', '--json=yes'], 'urldedup verify: --json takes no value', 'verify'],
    [['repair', 'extra'], 'urldedup repair: unexpected argument "extra": this command takes options only', 'repair'],
    [['crawl', '--nope'], 'urldedup crawl: unknown option --nope', 'crawl'],
    [['key', '--format', 'cdx', 'http://a.example/'], 'urldedup key: --format must be key or surt, not "cdx"', 'key'],
    [['normalize', '--level', 'x', 'http://a.example/'], 'urldedup normalize: --level must be syntax, scheme or policy', 'normalize'],
  ])('%j', async (argv, message, command) => {
    const r = await runCli(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${message}\nRun 'urldedup ${command} --help'.\n`);
    expect(r.stdout).toBe('');
  });

  it('an unknown command points at the general help', async () => {
    const r = await runCli(['frob']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`urldedup: unknown command "frob"\nRun 'urldedup --help'.\n`);
  });
});
