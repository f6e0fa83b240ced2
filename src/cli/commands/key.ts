/**
 * `urldedup key`: URLs on stdin, their canonical keys on stdout (host labels reversed first, so one
 * host sorts together), one line per input in order. The options are normalize's.
 */
import type { Readable, Writable } from 'node:stream';
import { runNormalizeFamily } from './normalize.js';

/** `urldedup key`: returns the exit code (0, or 1 when some inputs were invalid). */
export function runKeyCommand(argv: string[], stdin: Readable, stdout: Writable): Promise<number> {
  return runNormalizeFamily('key', argv, stdin, stdout);
}
