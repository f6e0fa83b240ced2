/**
 * pino on stderr: structured, quiet by default (warnings and errors only). `--log-format pretty`
 * gives human-readable lines (pino-pretty, formatted in this process, synchronously); JSON (one
 * object per line) stays the default, for machines.
 */
import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { UsageError } from './errors.js';

export type LogLevel = 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type LogFormat = 'json' | 'pretty';

export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** The help lines of `--log-level` and `--log-format`, for the commands that log. */
export const LOG_FLAGS_HELP = `  --log-level LEVEL   silent, fatal, error, warn (default), info, debug or trace
  --log-format FORMAT json (default: one JSON object per line on stderr) or pretty (for humans)`;

/** A `--log-level` value, checked (exit 2 on a wrong one). */
export function logLevelFrom(value: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  if (value === undefined) return fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
}

/** A `--log-format` value, checked (exit 2 on a wrong one). */
export function logFormatFrom(value: string | undefined): LogFormat {
  if (value === undefined) return 'json';
  if (value !== 'json' && value !== 'pretty') throw new UsageError('--log-format must be json or pretty');
  return value;
}

export function createLogger(level: LogLevel = 'warn', format: LogFormat = 'json'): Logger {
  const options = { level, base: { name: 'urldedup' } };
  if (format === 'pretty') {
    // in this thread and synchronous (no worker transport): a line logged just before exit is not lost
    return pino(options, PinoPretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(options, pino.destination({ fd: 2, sync: false }));
}
