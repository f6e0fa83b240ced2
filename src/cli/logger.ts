/** pino on stderr: structured, quiet by default (warnings and errors only). */
import { pino, type Logger } from 'pino';

export type LogLevel = 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

export function createLogger(level: LogLevel = 'warn'): Logger {
  return pino({ level, base: { name: 'urldedup' } }, pino.destination({ fd: 2, sync: false }));
}
