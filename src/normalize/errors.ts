/**
 * Codes for bad input (a URL that does not parse or is over a limit), as opposed to the store's
 * failures (`ERR_STORE_*`, `StoreError`, store/errors.ts) and the crawler's (`CrawlErrorCode`,
 * `FetchError`, crawler/errors.ts: a refused scheme or address, a redirect cap, a body cap). Codes
 * are stable across releases; messages may change. A plain `TypeError` (no code) means programmer
 * misuse, never bad input.
 */
export type UrlErrorCode =
  /** The scheme is missing where one is required, or has characters outside ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 §3.1). */
  | 'ERR_INVALID_SCHEME'
  /** The host is not a valid reg-name, IP literal or IPv4address, or IDNA processing failed (RFC 3986 §3.2.2, UTS #46). */
  | 'ERR_INVALID_HOST'
  /** The port is not *DIGIT or is above 65535 (RFC 3986 §3.2.3). */
  | 'ERR_INVALID_PORT'
  /** The authority is malformed (for example a `\` or a second `@` in strict mode). */
  | 'ERR_INVALID_AUTHORITY'
  /** A `%` not followed by two hex digits (RFC 3986 §2.1), rejected in strict mode. */
  | 'ERR_INVALID_PERCENT'
  /** A character that may not appear in a URI (RFC 3986 §2), rejected in strict mode; or a lone surrogate. */
  | 'ERR_INVALID_CHARACTER'
  /** A relative reference where an absolute URI is required (RFC 3986 §4.3). */
  | 'ERR_RELATIVE_URL'
  /** The WHATWG URL parser returned failure (html mode). */
  | 'ERR_INVALID_URL'
  /** The input is longer than `maxLength`. Checked before parsing. */
  | 'ERR_TOO_LONG'
  /** The path has more segments than `maxSegments`. */
  | 'ERR_TOO_MANY_SEGMENTS';

/** Longest slice of the offending input kept in an error message (the full input is on `.input`). */
const MESSAGE_INPUT_LIMIT = 200;

function truncate(input: string, limit: number): string {
  return input.length <= limit ? input : `${input.slice(0, limit)}… (${input.length} chars)`;
}

/** `JSON.stringify(text)`, without its cost when nothing needs escaping (most bad URLs). */
function quoted(text: string): string {
  return JSON_ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** What `JSON.stringify` escapes in a string: `"`, `\`, C0 controls and (well-formed JSON.stringify) surrogates. */
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The message of a `UrlError`: its code, the input quoted (cut at 200 characters) and the detail. */
function messageOf(code: UrlErrorCode, input: string, detail: string | undefined): string {
  return `${code}: ${quoted(truncate(input, MESSAGE_INPUT_LIMIT))}${detail ? ` (${detail})` : ''}`;
}

/**
 * An error caused by bad input: it carries a stable `code` and the `input` that caused it.
 *
 * Its `message` is built when it is first read, from the code, the input and the detail: a batch
 * that counts bad links by code never pays for quoting their text (about a third of the cost of an
 * error, frames aside). It reads like any error's (`String(e)`, `e.stack`, `util.inspect`), and an
 * assignment replaces it as usual.
 */
export class UrlError extends Error {
  /** Capture stack frames for bad-input codes too (off: a crawler meets bad links at a steady rate, and ten frames cost about 4 µs an error, more than the failed parse; they would only point into the normalizer). */
  static captureStackTraces = false;
  declare readonly name: 'UrlError';
  // declared and set after `super` rather than parameter properties: the call to `super` sits in
  // a `try`, and a transpiler puts a parameter property's assignment right after the first `super`
  declare readonly code: UrlErrorCode;
  declare readonly input: string;
  /** What was wrong, beyond the code (also in the message): "unclosed [", a host's UTS #46 failure. */
  declare readonly detail: string | undefined;
  constructor(code: UrlErrorCode, input: string, options?: ErrorOptions & { readonly detail?: string }) {
    const frameless = !UrlError.captureStackTraces;
    const limit = Error.stackTraceLimit;
    if (frameless) Error.stackTraceLimit = 0;
    try {
      super(undefined, options); // no message of its own: the prototype's, built when read
    } finally {
      if (frameless) Error.stackTraceLimit = limit;
    }
    this.code = code;
    this.input = input;
    this.detail = options?.detail;
  }
}

Object.defineProperties(UrlError.prototype, {
  name: { value: 'UrlError', writable: true, configurable: true },
  message: {
    get(this: UrlError): string {
      return messageOf(this.code, this.input, this.detail);
    },
    set(this: UrlError, value: string) {
      Object.defineProperty(this, 'message', { value, writable: true, configurable: true });
    },
    configurable: true,
  },
});

export function isUrlError(value: unknown): value is UrlError {
  return value instanceof UrlError;
}

/** Per-item result of a batch API: one bad URL never stops a batch. */
export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: UrlErrorCode; readonly input: string; readonly message: string };

/** Run `fn` and turn a `UrlError` into a failed `Result`; anything else is rethrown (it is a bug). */
export function attempt<T>(input: string, fn: (input: string) => T): Result<T> {
  try {
    return { ok: true, value: fn(input) };
  } catch (error) {
    if (error instanceof UrlError) {
      return { ok: false, code: error.code, input, message: error.message };
    }
    throw error;
  }
}
