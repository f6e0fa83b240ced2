/** Exit codes that mean something, the same for every command. */
export const EXIT_OK = 0;
/** Some inputs were invalid (each reported on its own line); the rest was processed. */
export const EXIT_SOME_INVALID = 1;
/** Wrong command line. */
export const EXIT_USAGE = 2;
/** The store is locked by another process, corrupt or unavailable. */
export const EXIT_STORE = 3;
/** A crawl or service stopped on an unexpected error. */
export const EXIT_FAILURE = 4;
/**
 * `filter`: its output was cut short because the reader went away (EPIPE): 128 + SIGPIPE, what a
 * shell reports for a process SIGPIPE ended, so `set -o pipefail` sees it.
 */
export const EXIT_BROKEN_PIPE = 141;
/** Stopped by SIGINT / SIGTERM (128 + signal number). */
export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;
