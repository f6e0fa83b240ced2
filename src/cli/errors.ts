/**
 * How a command's error becomes its exit code and stderr line (exit-codes.ts), the same for every
 * store command.
 */
import type { Writable } from 'node:stream';
import { isStoreError } from '../store/index.js';
import { TokenFileError } from '../service/auth.js';
import { EXIT_FAILURE, EXIT_STORE, EXIT_USAGE } from './exit-codes.js';

/** A wrong command line (exit 2). */
export class UsageError extends Error {}

export function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

export function isBrokenPipe(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'EPIPE';
}

/** The exit code and stderr message of an error out of a command. */
export function failure(error: unknown, stderr: Writable): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    stderr.write(`urldedup: ${(error as Error).message}\nRun 'urldedup <command> --help'.\n`);
    return EXIT_USAGE;
  }
  if (error instanceof TokenFileError) {
    stderr.write(`urldedup: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (isStoreError(error)) {
    stderr.write(`urldedup: ${error.message}\n`);
    return EXIT_STORE;
  }
  stderr.write(`urldedup: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILURE;
}
