/**
 * `urldedup resolve BASE`: references on stdin, resolved against BASE (RFC 3986 §5.2, or as a
 * browser does with `--mode html`), one line per input in order.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { ResolveMode } from '../../normalize/index.js';
import { UsageError } from '../errors.js';
import { runLineCommand } from '../line-command.js';

export const RESOLVE_HELP = `Usage: urldedup resolve BASE [--mode rfc3986|html] [--json] [REF…]     (no REF: one per line on stdin)

Resolves each reference given after BASE, or else each line on stdin, against BASE and writes
the target URI, one line per input, in order. An invalid input gives '!ERR_CODE<TAB>input'
(exit 1); a stdin line that is not UTF-8 gives '!ERR_INVALID_UTF8<TAB>' and its bytes
percent-encoded.
  --mode rfc3986   RFC 3986 §5.2 exactly (default)
  --mode html      what a browser gives for <a href> on a page at BASE (WHATWG URL Standard)
  --non-strict     rfc3986 mode: ignore a reference's scheme when it equals BASE's (§5.2.2)

Example:
  printf '../g\\n?y\\n#s\\n' | urldedup resolve 'http://a/b/c/d;p?q'
  urldedup resolve 'http://a/b/c/d;p?q' ../g '?y' '#s'
`;

/** `urldedup resolve BASE`: returns the exit code (0, or 1 when some inputs were invalid). */
export async function runResolveCommand(argv: string[], stdin: Readable, stdout: Writable): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { mode: { type: 'string' }, 'non-strict': { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    stdout.write(RESOLVE_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('resolve needs a BASE');
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
    stdin,
    stdout,
    positionals.slice(1),
  );
}
