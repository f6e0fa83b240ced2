/**
 * pino on stderr: structured, quiet by default (warnings and errors only). `--log-format pretty`
 * gives human-readable lines (pino-pretty, formatted in this process, synchronously); JSON (one
 * object per line) stays the default, for machines.
 */
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import { UsageError } from './errors.js';

export type LogLevel = 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type LogFormat = 'json' | 'pretty';

export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** The help lines of `--log-level` and `--log-format`, for the commands that log. */
export const LOG_FLAGS_HELP = `  --log-level LEVEL   silent, fatal, error, warn (default), info, debug or trace
  --log-format FORMAT json (one JSON object per line on stderr; the default off a terminal) or
                      pretty (for humans; the default on a terminal)`;

/** A `--log-level` value, checked (exit 2 on a wrong one). */
export function logLevelFrom(value: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  if (value === undefined) return fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
}

/** A `--log-format` value, checked (exit 2 on a wrong one); none: pretty on a terminal, else JSON. */
export function logFormatFrom(value: string | undefined, terminal = false): LogFormat {
  if (value === undefined) return terminal ? 'pretty' : 'json';
  if (value !== 'json' && value !== 'pretty') throw new UsageError('--log-format must be json or pretty');
  return value;
}

/**
 * The logger of a command: on fd 2, or on `destination` when a caller of the command's function
 * gave it a stream of its own (its notices and logs then go where it reads).
 */
export function createLogger(level: LogLevel = 'warn', format: LogFormat = 'json', destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { name: 'urldedup' } };
  const own = destination !== undefined && destination !== process.stderr ? destination : undefined;
  if (format === 'pretty') {
    // in this thread and synchronous (no worker transport): a line logged just before exit is not lost
    // (loaded only here: pino-pretty and its dependencies cost start-up time that JSON logs do not need)
    const { PinoPretty } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(options, PinoPretty({ destination: own ?? 2, sync: true, colorize: own === undefined && process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(options, own ?? pino.destination({ fd: 2, sync: false }));
}
