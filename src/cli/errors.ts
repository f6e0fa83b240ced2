/**
 * How a command's error becomes its exit code and stderr line (exit-codes.ts), the same for every
 * store command.
 */
import type { Writable } from 'node:stream';
import { isStoreError } from '../store/errors.js';
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

/**
 * A usage error's message in the CLI's words: Node's argument parser explains itself in terms of
 * its own API ("… place it at the end of the command after '--' …"); the rest as they are.
 */
export function usageMessage(error: unknown): string {
  const message = (error as Error).message;
  const code = (error as { code?: unknown }).code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) return `unknown option ${quoted}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) return `unexpected argument ${JSON.stringify(quoted)}: this command takes options only`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const option = quoted.split(' ')[0]!;
    return / argument missing$/.test(message) ? `${option} needs a value` : `${option} takes no value`;
  }
  return message;
}

/** The lines a usage error prints: what was wrong, and where the command's options are. */
export function usageLines(error: unknown, command: string | undefined): string {
  return `urldedup${command === undefined ? '' : ` ${command}`}: ${usageMessage(error)}\nRun 'urldedup${command === undefined ? '' : ` ${command}`} --help'.\n`;
}

/** The exit code and stderr message of an error out of `command`. */
export function failure(error: unknown, stderr: Writable, command?: string): number {
  if (error instanceof UsageError || isParseArgsError(error)) {
    stderr.write(usageLines(error, command));
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
