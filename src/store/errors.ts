/**
 * The store's coded errors. Codes are stable across releases (they were `UrlError` codes before
 * the store had its own class: the strings are unchanged); messages may change. Bad input is a
 * `UrlError` (normalize/errors.ts); a plain `TypeError` is programmer misuse.
 */
export type StoreErrorCode =
  /** The store folder is held by another opener (LevelDB LOCK). */
  | 'ERR_STORE_LOCKED'
  /** The store's files are damaged; run `urldedup repair`. */
  | 'ERR_STORE_CORRUPT'
  /** An I/O error from the store (disk full, permissions), a closed store, or a write to a read-only one. */
  | 'ERR_STORE_IO'
  /** The store was written with another layout, key format or identity normalization options. */
  | 'ERR_STORE_INCOMPATIBLE';

/** Longest slice of the location kept in a message (the whole of it is on `.input`). */
const MESSAGE_INPUT_LIMIT = 200;

function truncate(input: string, limit: number): string {
  return input.length <= limit ? input : `${input.slice(0, limit)}… (${input.length} chars)`;
}

/**
 * An error of the store: a stable `code`, the store's location as `input` (the field `UrlError`
 * has, so a caller reporting `code` and `input` treats both alike), and what was wrong as `detail`.
 * A database error it stands for is its `cause` (a LevelDB lock error becomes `ERR_STORE_LOCKED`).
 */
export class StoreError extends Error {
  declare readonly name: 'StoreError';
  readonly code: StoreErrorCode;
  readonly input: string;
  readonly detail: string | undefined;
  constructor(code: StoreErrorCode, input: string, options?: ErrorOptions & { readonly detail?: string }) {
    const detail = options?.detail;
    super(`${code}: ${JSON.stringify(truncate(input, MESSAGE_INPUT_LIMIT))}${detail ? ` (${detail})` : ''}`, options);
    this.code = code;
    this.input = input;
    this.detail = detail;
  }
}

Object.defineProperty(StoreError.prototype, 'name', { value: 'StoreError', writable: true, configurable: true });

export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}
