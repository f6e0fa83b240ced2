/**
 * Service errors and JSON responses. Every error body has one shape,
 * `{ "error": { "code", "message", "item"? } }`: `code` is stable (the same codes as the library's
 * `UrlError`, plus the service's own below), `message` may change, `item` names the offending part
 * of the request (a URL, or an index such as `3` or `redirects[3]`).
 */
import type { ServerResponse } from 'node:http';

/** Codes the service adds to the library's `UrlErrorCode`s. */
export type ServiceErrorCode =
  /** `Host` names neither this service nor an allowed host (DNS rebinding guard, host.ts): 421. */
  | 'ERR_MISDIRECTED_REQUEST'
  /** The body is not valid JSON (or is empty). */
  | 'ERR_MALFORMED_JSON'
  /** The body's JSON nests deeper than any request shape (json-nesting.ts). */
  | 'ERR_JSON_TOO_DEEP'
  /** The body is not UTF-8. */
  | 'ERR_INVALID_UTF8'
  /** The JSON is valid but not the shape the route takes (`item` says where). */
  | 'ERR_INVALID_BODY'
  /** A required query parameter is missing. */
  | 'ERR_MISSING_PARAMETER'
  /** A query parameter has a value the route does not take. */
  | 'ERR_INVALID_PARAMETER'
  /** The body is over `maxBody` bytes. */
  | 'ERR_BODY_TOO_LARGE'
  /** The batch has more than `maxBatch` items. */
  | 'ERR_BATCH_TOO_LARGE'
  /** A body that is not `application/json`. */
  | 'ERR_UNSUPPORTED_MEDIA_TYPE'
  /** No bearer token, or the wrong one. */
  | 'ERR_UNAUTHORIZED'
  | 'ERR_NOT_FOUND'
  | 'ERR_METHOD_NOT_ALLOWED'
  /** Too much work in flight: retry after `Retry-After` seconds. */
  | 'ERR_OVERLOADED'
  /** The service is stopping (SIGTERM): retry against the next instance. */
  | 'ERR_SHUTTING_DOWN'
  /** A bug: logged with its stack, never shown to the client. */
  | 'ERR_INTERNAL';

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly item?: string | number };
}

/** An error that becomes an HTTP response with its status and a JSON error body. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly item?: string | number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return { error: this.item === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, item: this.item } };
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Replies longer than this are encoded once into a Buffer; shorter ones go out with their head in one string. */
const ENCODE_ONCE_FROM = 16 * 1024;

/** Write `body` as JSON, with its length (no chunked encoding: a client sees a short body as an error). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  sendText(res, status, JSON.stringify(body), JSON_TYPE, headers);
}

/**
 * Write `text` (or its UTF-8 bytes) with its `Content-Length` in one `end()`. A long text is
 * encoded once and its bytes counted (`Buffer.byteLength` and a string write would each walk it,
 * and node:http would first join it to the head); head and body then leave in one corked write.
 */
export function sendText(res: ServerResponse, status: number, text: string | Buffer, contentType: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = typeof text === 'string' && text.length >= ENCODE_ONCE_FROM ? Buffer.from(text, 'utf8') : text;
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length,
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

export function sendError(res: ServerResponse, error: ServiceError): void {
  sendJson(res, error.status, error.toBody(), error.headers);
}
