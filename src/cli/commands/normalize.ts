/**
 * `urldedup normalize`: URLs on stdin, their normal forms (RFC 3986 §6.2.2 syntax + §6.2.3 scheme
 * rungs) on stdout, one line per input in order. `urldedup key` shares its options (key.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isPresetName, type NormalizationLevel, type NormalizeOptions, type PresetName } from '../../normalize/index.js';
import { UsageError } from '../errors.js';
import { runLineCommand } from '../line-command.js';

export const NORMALIZE_HELP = (command: string) => `Usage: urldedup ${command} [options] [URL…]     (no URL: one per line on stdin)

Reads the URLs given as arguments, or else one URL per line on stdin, and writes one line per
input, in the same order:
${command === 'key' ? 'the canonical key (host labels reversed first, so one host sorts together)' : 'the normal form (RFC 3986 §6.2.2 syntax + §6.2.3 scheme rungs)'}.
An invalid input gives '!ERR_CODE<TAB>input' on its line and processing goes on (exit 1); a
stdin line that is not UTF-8 gives '!ERR_INVALID_UTF8<TAB>' and its bytes percent-encoded.

Options:
  --level syntax|scheme|policy   highest rung of the ladder (default: scheme)
  --preset NAME                  opt-in preset, repeatable: tracking, session-ids, sort-query, www, …
  --keep-fragment                keep '#fragment' (dropped by default)
  --strict                       reject anything that is not an RFC 3986 URI
  --max-length N                 longest input accepted (default 16384)
${command === 'key' ? `  --format key|surt              key (default), or the Internet Archive SURT (CDX and pywb's key,
                                 by the IA's own canonicalization: --level and --preset do not apply)
` : ''}  --json                         one JSON object per line: {input, ok, normal, key, fingerprint} or {input, ok:false, code}
  -h, --help

Example:
  printf 'HTTP://Example.COM:80/a/./b/../c?utm_source=x#top\\n' | urldedup ${command} --preset tracking
  urldedup ${command} 'HTTP://Example.COM:80/a/./b/../c' 'http://example.com/%7Euser'
`;

export const normalizeFlags = {
  level: { type: 'string' },
  preset: { type: 'string', multiple: true },
  'keep-fragment': { type: 'boolean' },
  strict: { type: 'boolean' },
  'max-length': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const keyFlags = { ...normalizeFlags, format: { type: 'string' } } as const satisfies ParseArgsConfig['options'];

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} needs a positive whole number, not ${JSON.stringify(value)}`);
  return n;
}

export function normalizeOptionsFrom(values: {
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

/** `urldedup normalize` or `urldedup key` (the same options): returns the exit code. */
export async function runNormalizeFamily(command: 'normalize' | 'key', argv: string[], stdin: Readable, stdout: Writable): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: command === 'key' ? keyFlags : normalizeFlags, allowPositionals: true });
  if (values.help) {
    stdout.write(NORMALIZE_HELP(command));
    return 0;
  }
  const format = (values as { format?: string }).format ?? 'key';
  if (format !== 'key' && format !== 'surt') throw new UsageError(`--format must be key or surt, not ${JSON.stringify(format)}`);
  if (format === 'surt' && (values.level !== undefined || (values.preset ?? []).length > 0 || values['keep-fragment'] === true)) {
    throw new UsageError('--format surt uses the Internet Archive\'s canonicalization: --level, --preset and --keep-fragment do not apply');
  }
  return runLineCommand({ command, json: values.json === true, normalize: normalizeOptionsFrom(values), format }, stdin, stdout, positionals);
}

/** `urldedup normalize`: returns the exit code (0, or 1 when some inputs were invalid). */
export function runNormalizeCommand(argv: string[], stdin: Readable, stdout: Writable): Promise<number> {
  return runNormalizeFamily('normalize', argv, stdin, stdout);
}
