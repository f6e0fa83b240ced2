/**
 * The request body, read in full under a size limit and parsed as JSON (RFC 8259).
 *
 * - `Content-Type` must be `application/json` (or a `+json` type): a browser page cannot send that
 *   cross-origin without a CORS preflight, which this service never grants, so a web page cannot
 *   make a browser on this machine write to the store (415 otherwise).
 * - Over `maxBody` bytes: 413 `ERR_BODY_TOO_LARGE`, from `Content-Length` before reading when it
 *   is given, else as soon as the count passes the limit. The rest of the body is read and dropped
 *   (up to `drainLimit` bytes more) so the client gets to read the answer instead of a connection
 *   reset; the connection is then closed.
 * - Nesting deeper than `maxDepth` (the request shapes need 3): 400 `ERR_JSON_TOO_DEEP`, found by a
 *   scan of the bytes as they arrive (json-nesting.ts), before anything is parsed; the rest of
 *   the body is dropped as for a body too large. A `]` or `}` that closes nothing, or the other
 *   kind of structure: 400 `ERR_MALFORMED_JSON` at once.
 * - Bytes that are not UTF-8 (RFC 8259 §8.1; RFC 3629): 400 `ERR_INVALID_UTF8`. They are never
 *   replaced by U+FFFD, which would give `caf\xE9` and `caf\xE8` one key.
 * - Invalid JSON or an empty body: 400 `ERR_MALFORMED_JSON`.
 * - Buffered bytes count against the service's byte budget (overload.ts): 503 past it.
 */
import type { IncomingMessage } from 'node:http';
import { JsonNestingScan } from './json-nesting.js';
import type { Budget } from './overload.js';
import { overloaded } from './overload.js';
import { ServiceError } from './response.js';

export interface BodyLimits {
  /** Largest body accepted, in bytes. */
  readonly maxBody: number;
  /** Structures open at once in the JSON text (`[]` is 1). @default 3 */
  readonly maxDepth?: number;
  /** Bytes read and dropped after the limit before the connection is cut. @default 1 MiB */
  readonly drainLimit?: number;
  readonly retryAfterSeconds: number;
}

/** The client went away before its body arrived: nobody is left to answer. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

const CLOSE = { connection: 'close' } as const;

/** Nesting of the deepest request shape, `{"redirects": [{…}]}` (docs/openapi.yaml). */
export const DEFAULT_MAX_JSON_DEPTH = 3;

export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function tooLarge(maxBody: number): ServiceError {
  return new ServiceError(413, 'ERR_BODY_TOO_LARGE', `the request body is over ${maxBody} bytes`, undefined, CLOSE);
}

/**
 * Read and parse the body. Resolves with the value and the bytes taken from `budget`, which the
 * caller gives back when the request is done; on rejection nothing stays taken.
 */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits, budget: Budget): Promise<{ value: unknown; bytes: number }> {
  if (!isJsonMediaType(req.headers['content-type'])) {
    return Promise.reject(new ServiceError(415, 'ERR_UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json', undefined, CLOSE));
  }
  const { maxBody } = limits;
  const drainLimit = limits.drainLimit ?? 1024 * 1024;
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const nesting = new JsonNestingScan(maxDepth);
  // RFC 8259 §8.1: JSON text is UTF-8; `fatal` throws on any other byte sequence instead of
  // writing U+FFFD. A byte order mark is kept, so JSON.parse refuses it as before.
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let taken = 0;
    let failure: ServiceError | undefined;
    let dropped = 0;

    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onGone);
      req.off('error', onGone);
      req.off('close', onClose);
    };
    const fail = (error: ServiceError | ClientGoneError): void => {
      cleanup();
      budget.give(taken);
      taken = 0;
      chunks.length = 0;
      reject(error);
    };
    /** Stop buffering; answer after the rest is drained, or now when there is too much of it. */
    const refuse = (error: ServiceError, remaining: number | undefined): void => {
      failure = error;
      budget.give(taken);
      taken = 0;
      chunks.length = 0;
      if (remaining !== undefined && remaining > drainLimit) fail(error);
    };
    const onData = (chunk: Buffer): void => {
      if (failure !== undefined) {
        dropped += chunk.length;
        if (dropped > drainLimit) fail(failure);
        return;
      }
      size += chunk.length;
      if (size > maxBody) {
        refuse(tooLarge(maxBody), undefined);
        return;
      }
      const verdict = nesting.push(chunk);
      if (verdict !== 'ok') {
        const error = verdict === 'too-deep'
          ? new ServiceError(400, 'ERR_JSON_TOO_DEEP', `the JSON nests deeper than ${maxDepth} levels, more than any request shape needs`, undefined, CLOSE)
          : new ServiceError(400, 'ERR_MALFORMED_JSON', 'the request body is not valid JSON: a closing bracket does not match', undefined, CLOSE);
        refuse(error, declared === undefined ? undefined : declared - size);
        return;
      }
      if (!budget.take(chunk.length)) {
        refuse(overloaded('request bytes buffered', limits.retryAfterSeconds), declared === undefined ? undefined : declared - size);
        return;
      }
      taken += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (failure !== undefined) return fail(failure);
      cleanup();
      let text: string;
      try {
        text = utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      } catch {
        budget.give(taken);
        return reject(new ServiceError(400, 'ERR_INVALID_UTF8', 'the request body is not UTF-8 (RFC 8259 §8.1)'));
      } finally {
        chunks.length = 0;
      }
      if (text.trim() === '') {
        budget.give(taken);
        return reject(new ServiceError(400, 'ERR_MALFORMED_JSON', 'the request body is empty; send a JSON value'));
      }
      try {
        resolve({ value: JSON.parse(text) as unknown, bytes: taken });
      } catch (error) {
        budget.give(taken);
        reject(new ServiceError(400, 'ERR_MALFORMED_JSON', `the request body is not valid JSON: ${(error as Error).message}`));
      }
    };
    const onGone = (): void => fail(new ClientGoneError('the client closed the connection before sending its body'));
    const onClose = (): void => {
      if (!req.complete) onGone();
    };

    if (declared !== undefined && Number.isFinite(declared) && declared > maxBody) {
      // known too large before a byte is read
      failure = tooLarge(maxBody);
      if (declared > drainLimit) return fail(failure);
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onGone);
    req.on('error', onGone);
    req.on('close', onClose);
  });
}
