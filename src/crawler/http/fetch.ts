/**
 * Fetching one URL with undici, bounded in every dimension (docs/reliability.md promise 7):
 *
 * - redirects are followed by hand (RFC 9110 §15.4), so every hop is returned as evidence; each hop
 *   is offered to `onRedirect`, which may decline it; a target outside http/https, a target already
 *   visited in the chain, and a chain longer than `maxRedirects` stop the chain with a coded error;
 * - the network guard checks every connection (every hop) at connect time (guard.ts);
 * - time: undici's connect, headers and body timeouts, a minimum throughput after a grace period,
 *   and a total deadline over the whole chain (an `AbortSignal`), because `bodyTimeout` alone never
 *   fires on a body that drips one byte just inside it;
 * - size: `maxWireBytes` on the bytes received and `maxDecodedBytes` after Content-Encoding is
 *   undone (at most `maxEncodings` stacked codings), so decompression bombs stop early; and
 *   `maxBrotliWindowBits` on the window a br stream makes its decoder hold.
 *
 * The decoded body streams to a sink chosen from the response head (the link extractor for HTML),
 * and is hashed as it goes (SHA-256, truncated), so a page is never held in memory unless asked for;
 * the exception is a body with one gzip or deflate coding and at most `ONE_CALL_WIRE_BYTES` on the
 * wire, which is received whole and decoded in one call, its decoded bytes (at most
 * `maxDecodedBytes`) held at once too (most pages: a stream chain per response cost more than the
 * decoding).
 */
import { createHash } from 'node:crypto';
import { pipeline, Readable } from 'node:stream';
import { Agent } from 'undici';
import { resolve, UrlError } from '../../normalize/index.js';
import { brotliWindowGuard, createDecoder, decodeWhole, looksLikeZlib, parseContentEncoding, type ContentCoding } from './content-coding.js';
import { FetchError, type CrawlErrorCode } from '../errors.js';
import { NetworkGuard, type GuardOptions } from './guard.js';
import { USER_AGENT } from './user-agent.js';

export interface FetchOptions {
  /** @default USER_AGENT (`urldedup/<version> (+https://…)`) */
  readonly userAgent?: string;
  /** @default 'text/html,application/xhtml+xml;q=0.9,*\/*;q=0.8' */
  readonly accept?: string;
  /** Redirects followed in one fetch; one more is `ERR_TOO_MANY_REDIRECTS`. @default 20 */
  readonly maxRedirects?: number;
  /** @default 10_000 */
  readonly connectTimeoutMs?: number;
  /** Time to the end of the response head (undici `headersTimeout`). @default 15_000 */
  readonly headersTimeoutMs?: number;
  /** Longest silence inside a body (undici `bodyTimeout`). @default 15_000 */
  readonly bodyTimeoutMs?: number;
  /** Total time for one fetch: every hop, heads and bodies (`ERR_DEADLINE`). @default 30_000 */
  readonly deadlineMs?: number;
  /** Body bytes received per response (`ERR_BODY_TOO_LARGE`). @default 10 MiB */
  readonly maxWireBytes?: number;
  /** Body bytes after Content-Encoding is undone (`ERR_BODY_TOO_LARGE`). @default 10 MiB */
  readonly maxDecodedBytes?: number;
  /** Stacked content codings decoded (`ERR_TOO_MANY_ENCODINGS`). @default 3 */
  readonly maxEncodings?: number;
  /**
   * Largest brotli window accepted, as WBITS (RFC 7932 §9.1: 10–24; the window is 2^WBITS bytes,
   * which the decoder holds whole). A br stream declaring more is `ERR_BODY_TOO_LARGE` before it
   * is decoded. 22 (4 MiB) is the brotli library's default, and the brotli tool picks the smallest
   * window that covers its input, so pages rarely declare more; at 24 each response costs about
   * 30 MiB of memory, which concurrent hostile streams multiply.
   * @default 22
   * @example { maxBrotliWindowBits: 24 } // accept every window RFC 7932 allows
   */
  readonly maxBrotliWindowBits?: number;
  /** Slowest body accepted after `throughputGraceMs` (`ERR_TOO_SLOW`); 0 turns the check off. @default 128 */
  readonly minBytesPerSecond?: number;
  /** @default 10_000 */
  readonly throughputGraceMs?: number;
  /** The network guard, or options for a new one (default-deny). */
  readonly guard?: NetworkGuard | GuardOptions;
}

export const defaultFetchOptions = {
  userAgent: USER_AGENT,
  accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
  maxRedirects: 20,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  deadlineMs: 30_000,
  maxWireBytes: 10 * 1024 * 1024,
  maxDecodedBytes: 10 * 1024 * 1024,
  maxEncodings: 3,
  maxBrotliWindowBits: 22,
  minBytesPerSecond: 128,
  throughputGraceMs: 10_000,
} as const satisfies Omit<Required<FetchOptions>, 'guard'>;

/** One redirect response. */
export interface RedirectHop {
  /** The URL that answered with the redirect. */
  readonly url: string;
  readonly status: number;
  /** The `Location` resolved against `url` (WHATWG, as a browser does), fragment removed. */
  readonly location: string;
}

export type HeaderValues = Readonly<Record<string, string | string[] | undefined>>;

/** The head of the final response, for choosing a body sink. */
export interface ResponseHead {
  readonly url: string;
  readonly status: number;
  readonly headers: HeaderValues;
  /** The media type, lowercased, without parameters; undefined without Content-Type. */
  readonly mediaType: string | undefined;
  /** The `charset` parameter, lowercased. */
  readonly charset: string | undefined;
  /** False when a Content-Encoding is not understood: the body is opaque. */
  readonly decodable: boolean;
}

/** Receives the decoded body. */
export interface BodySink {
  write(chunk: Buffer): void;
  end(): void;
}

export interface FetchRequest {
  readonly signal?: AbortSignal;
  /** Called for each redirect before it is followed; `false` stops the chain there. */
  readonly onRedirect?: (hop: RedirectHop) => boolean | Promise<boolean>;
  /** Called with the final response's head; the returned sink receives the decoded body. */
  readonly onHead?: (head: ResponseHead) => BodySink | undefined;
  /** Keep the decoded body in the result. @default false */
  readonly keepBody?: boolean;
  /** Over `maxDecodedBytes`: stop reading and return what was read, `truncated: true`, no error. @default false */
  readonly truncate?: boolean;
  /**
   * The URL asked for, already checked by this fetcher's guard (`guard.checkUrl(url)`): the first
   * request uses it instead of parsing the URL again.
   */
  readonly checked?: URL;
  /** Overrides for this request. */
  readonly accept?: string;
  readonly maxRedirects?: number;
  readonly maxDecodedBytes?: number;
}

export interface FetchResult {
  /** The URL asked for. */
  readonly url: string;
  /** The URL of the last request made. */
  readonly finalUrl: string;
  /** Every redirect answered, in order (also those not followed). */
  readonly hops: readonly RedirectHop[];
  /** Status of the last response; 0 when there was none. */
  readonly status: number;
  readonly headers: HeaderValues;
  readonly mediaType: string | undefined;
  /** The last response was a redirect that was not followed (declined, refused or over the cap). */
  readonly unfollowed?: RedirectHop;
  /** HTTP requests sent (0 when the first URL was refused before connecting). */
  readonly requests: number;
  readonly wireBytes: number;
  readonly decodedBytes: number;
  /** SHA-256 of the decoded body (32 hex digits), when it was read to the end (or to the cap with `truncate`). */
  readonly contentHash?: string;
  readonly body?: Buffer;
  readonly truncated: boolean;
  readonly error?: FetchError;
  readonly elapsedMs: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** A compressed body up to this size is received whole and decoded in one call (see readBody). */
const ONE_CALL_WIRE_BYTES = 256 * 1024;
/** A body decoded in one call goes to the sink in pieces of this size, as a stream's would. */
const SINK_PIECE_BYTES = 64 * 1024;
/** Bytes of a redirect's body read before its connection is given up. */
const REDIRECT_BODY_DUMP = 64 * 1024;

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** RFC 9110 §8.3.1: media-type = type "/" subtype parameters. */
export function parseContentType(value: string | undefined): { mediaType: string | undefined; charset: string | undefined } {
  if (value === undefined) return { mediaType: undefined, charset: undefined };
  const [type, ...params] = value.split(';');
  const mediaType = type!.trim().toLowerCase() || undefined;
  let charset: string | undefined;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase() || undefined;
  }
  return { mediaType, charset };
}

function stripFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

class BodyError extends Error {
  constructor(readonly code: CrawlErrorCode, message: string) {
    super(message);
  }
}

interface CodedCause {
  readonly code?: unknown;
  readonly cause?: unknown;
  readonly message?: unknown;
}

/** undici, zlib, DNS and guard errors as crawler codes. */
function codeOf(error: unknown): { code: CrawlErrorCode; message: string } {
  for (let e = error as CodedCause | undefined, depth = 0; e !== undefined && e !== null && depth < 5; e = e.cause as CodedCause | undefined, depth++) {
    if (e instanceof UrlError || e instanceof FetchError) return { code: e.code, message: e.message };
    if (e instanceof BodyError) return { code: e.code, message: e.message };
  }
  const e = error as CodedCause;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'ERR_CONNECT_TIMEOUT', message };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { code: 'ERR_HEADERS_TIMEOUT', message };
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'ERR_BODY_TIMEOUT', message };
    case 'UND_ERR_HEADERS_OVERFLOW':
      return { code: 'ERR_HEADERS_OVERFLOW', message };
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return { code: 'ERR_BODY_TOO_LARGE', message };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return { code: 'ERR_DNS', message: `${code}: ${message}` };
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
    case 'Z_NEED_DICT':
    case 'ERR__ERROR_FORMAT_PADDING_1':
      return { code: 'ERR_DECODE', message };
    default:
      if (code.startsWith('ERR_BROTLI') || code.startsWith('ERR__') || code.startsWith('Z_')) return { code: 'ERR_DECODE', message };
      return { code: 'ERR_SOCKET', message: code ? `${code}: ${message}` : message };
  }
}

/** A bounded HTTP client for crawling: one undici Agent behind the network guard. */
/**
 * The request target in origin-form (RFC 9112 §3.2.1): absolute-path ["?" query], with the "?"
 * of an empty query kept: `/file?` and `/file` are different URLs (RFC 3986 §6.2.3 keeps the
 * delimiter of an empty component), and the WHATWG `search` of both is "".
 */
export function originForm(u: URL): string {
  if (u.search !== '') return u.pathname + u.search;
  const href = u.href;
  const hash = href.indexOf('#');
  const end = hash === -1 ? href.length : hash;
  return href.charCodeAt(end - 1) === 0x3f /* ? */ ? u.pathname + '?' : u.pathname;
}

/**
 * The total deadline of one fetch (`ERR_DEADLINE`), and the signal that aborts its requests at the
 * deadline or with the caller's signal: one timer and one controller per fetch, dropped when the
 * fetch ends (`AbortSignal.timeout` and `AbortSignal.any` cost a weak timer and a signal each).
 */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly follow: (() => void) | undefined;
  /** The deadline passed (the signal is then aborted with a `TimeoutError`). */
  aborted = false;

  constructor(
    ms: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, ms);
    this.timer.unref();
    if (outer?.aborted === true) this.controller.abort(outer.reason);
    else if (outer !== undefined) {
      this.follow = () => this.controller.abort(outer.reason);
      outer.addEventListener('abort', this.follow, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.follow !== undefined) this.outer!.removeEventListener('abort', this.follow);
  }
}

export class Fetcher {
  readonly guard: NetworkGuard;
  readonly options: Omit<Required<FetchOptions>, 'guard'>;
  private readonly agent: Agent;
  /** Requests sent, over the fetcher's life. */
  requests = 0;

  constructor(options: FetchOptions = {}) {
    const { guard, ...rest } = options;
    this.options = { ...defaultFetchOptions, ...stripUndefined(rest) };
    for (const [name, v] of Object.entries(this.options)) {
      if (typeof v === 'number' && !(v >= 0)) throw new TypeError(`fetch: ${name} must be a number >= 0`);
    }
    const wbits = this.options.maxBrotliWindowBits;
    if (!Number.isInteger(wbits) || wbits < 10 || wbits > 24) throw new TypeError('fetch: maxBrotliWindowBits must be an integer 10–24 (RFC 7932 §9.1)');
    this.guard = guard instanceof NetworkGuard ? guard : new NetworkGuard(guard);
    this.agent = new Agent({
      connect: this.guard.connector({ timeout: this.options.connectTimeoutMs }),
      headersTimeout: this.options.headersTimeoutMs,
      bodyTimeout: this.options.bodyTimeoutMs,
    });
  }

  /** Fetch `url`, following redirects as `request.onRedirect` allows. Never throws for a network or HTTP problem. */
  async fetch(url: string, request: FetchRequest = {}): Promise<FetchResult> {
    const deadline = new Deadline(this.options.deadlineMs, request.signal);
    try {
      return await this.fetchWithin(url, request, deadline);
    } finally {
      deadline.dispose();
    }
  }

  private async fetchWithin(url: string, request: FetchRequest, deadline: Deadline): Promise<FetchResult> {
    const started = performance.now();
    const o = this.options;
    const signal = deadline.signal;
    const maxRedirects = request.maxRedirects ?? o.maxRedirects;
    const hops: RedirectHop[] = [];
    const visited = new Set<string>([stripFragment(url)]);
    let current = stripFragment(url);
    let requests = 0;
    const base = { url, hops, requests: 0, wireBytes: 0, decodedBytes: 0, truncated: false };
    const fail = (code: CrawlErrorCode, message: string, extra: Partial<FetchResult> = {}): FetchResult => ({
      ...base,
      finalUrl: current,
      status: 0,
      headers: {},
      mediaType: undefined,
      requests,
      elapsedMs: performance.now() - started,
      ...extra,
      error: new FetchError(code, current, message),
    });
    const failFrom = (error: unknown, extra: Partial<FetchResult> = {}): FetchResult => {
      if (deadline.aborted) return fail('ERR_DEADLINE', `no complete answer within ${o.deadlineMs} ms`, extra);
      if (request.signal?.aborted === true) return fail('ERR_ABORTED', 'aborted', extra);
      const c = codeOf(error);
      return fail(c.code, c.message, extra);
    };

    for (;;) {
      let target: URL;
      try {
        target = current === url && requests === 0 && request.checked !== undefined ? request.checked : this.guard.checkUrl(current);
      } catch (error) {
        return failFrom(error);
      }
      requests++;
      this.requests++;
      let res: Awaited<ReturnType<Agent['request']>>;
      try {
        res = await this.agent.request({
          origin: target.origin,
          path: originForm(target),
          method: 'GET',
          headers: {
            'user-agent': o.userAgent,
            accept: request.accept ?? o.accept,
            'accept-encoding': 'gzip, deflate, br',
          },
          signal,
        });
      } catch (error) {
        return failFrom(error);
      }
      const status = res.statusCode;
      const headers = res.headers as HeaderValues;
      const location = headerText(headers['location']);
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        await res.body.dump({ limit: REDIRECT_BODY_DUMP }).catch(() => undefined);
        const common = { status, headers, mediaType: undefined };
        let next: string;
        try {
          // RFC 9110 §10.2.2: a URI-reference, resolved against the target URI (as browsers do)
          next = stripFragment(resolve(location, current, { mode: 'html' }));
        } catch (error) {
          return fail('ERR_INVALID_LOCATION', `Location ${JSON.stringify(location)}: ${(error as Error).message}`, common);
        }
        const hop: RedirectHop = { url: current, status, location: next };
        hops.push(hop);
        const scheme = next.slice(0, next.indexOf(':') + 1).toLowerCase();
        if (scheme !== 'http:' && scheme !== 'https:') {
          return fail('ERR_UNSUPPORTED_SCHEME', `redirect to ${scheme} is not followed`, { ...common, unfollowed: hop });
        }
        if (visited.has(next)) return fail('ERR_REDIRECT_LOOP', `${next} was visited earlier in this chain`, { ...common, unfollowed: hop });
        if (hops.length > maxRedirects) {
          return fail('ERR_TOO_MANY_REDIRECTS', `more than ${maxRedirects} redirects`, { ...common, unfollowed: hop });
        }
        let follow = true;
        if (request.onRedirect !== undefined) {
          try {
            follow = await request.onRedirect(hop);
          } catch (error) {
            return failFrom(error, common);
          }
        }
        if (!follow) {
          return { ...base, finalUrl: current, status, headers, mediaType: undefined, requests, unfollowed: hop, elapsedMs: performance.now() - started };
        }
        if (signal.aborted) return failFrom(signal.reason, common);
        visited.add(next);
        current = next;
        continue;
      }
      return this.readBody(res, current, request, { url, hops, requests, started, deadline, signal });
    }
  }

  private async readBody(
    res: Awaited<ReturnType<Agent['request']>>,
    finalUrl: string,
    request: FetchRequest,
    ctx: { url: string; hops: RedirectHop[]; requests: number; started: number; deadline: Deadline; signal: AbortSignal },
  ): Promise<FetchResult> {
    const o = this.options;
    const status = res.statusCode;
    const headers = res.headers as HeaderValues;
    const { mediaType, charset } = parseContentType(headerText(headers['content-type']));
    const { codings, unknown } = parseContentEncoding(headers['content-encoding']);
    const maxDecoded = request.maxDecodedBytes ?? o.maxDecodedBytes;
    let wireBytes = 0;
    let decodedBytes = 0;
    let truncated = false;
    const result = (extra: Partial<FetchResult>): FetchResult => ({
      url: ctx.url,
      finalUrl,
      hops: ctx.hops,
      status,
      headers,
      mediaType,
      requests: ctx.requests,
      wireBytes,
      decodedBytes,
      truncated,
      elapsedMs: performance.now() - ctx.started,
      ...extra,
    });
    const failed = (code: CrawlErrorCode, message: string): FetchResult => result({ error: new FetchError(code, finalUrl, message) });

    if (codings.length > o.maxEncodings) {
      discard(res.body);
      return failed('ERR_TOO_MANY_ENCODINGS', `${codings.length} stacked content codings (most ${o.maxEncodings})`);
    }
    const declared = Number(headerText(headers['content-length']));
    if (Number.isFinite(declared) && declared > o.maxWireBytes && request.truncate !== true) {
      discard(res.body);
      return failed('ERR_BODY_TOO_LARGE', `Content-Length ${declared} > ${o.maxWireBytes}`);
    }
    const decodable = unknown.length === 0;
    const sink = request.onHead?.({ url: finalUrl, status, headers, mediaType, charset, decodable });
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    const bodyStarted = performance.now();

    const body = res.body;
    async function* wire(): AsyncGenerator<Buffer> {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        wireBytes += chunk.length;
        if (wireBytes > o.maxWireBytes) {
          if (request.truncate === true && codings.length === 0) {
            truncated = true;
            yield chunk.subarray(0, chunk.length - (wireBytes - o.maxWireBytes));
            return;
          }
          throw new BodyError('ERR_BODY_TOO_LARGE', `more than ${o.maxWireBytes} bytes on the wire`);
        }
        const elapsed = performance.now() - bodyStarted;
        if (o.minBytesPerSecond > 0 && elapsed > o.throughputGraceMs && (wireBytes * 1000) / elapsed < o.minBytesPerSecond) {
          throw new BodyError('ERR_TOO_SLOW', `${Math.round((wireBytes * 1000) / elapsed)} B/s after ${Math.round(elapsed)} ms`);
        }
        yield chunk;
      }
    }

    let decoded: Iterable<Buffer> | AsyncIterable<Buffer>;
    let stages: Readable | undefined;
    if (codings.length === 0 || !decodable) {
      decoded = wire();
    } else {
      // the outermost coding was applied last: undo it first; peek at it to tell zlib from raw deflate
      const undo = [...codings].reverse();
      const source = wire();
      let first: IteratorResult<Buffer>;
      try {
        first = await source.next();
      } catch (error) {
        discard(body);
        return this.bodyFailure(error, ctx, failed);
      }
      const firstChunk: Buffer = first.done === true ? Buffer.alloc(0) : first.value;
      const raw = undo[0] === 'deflate' && !looksLikeZlib(firstChunk);
      // One gzip or deflate coding and a small body (the common page): received whole, then
      // decoded in one call, without a chain of stream stages per response. Anything else (a body
      // over ONE_CALL_WIRE_BYTES, a wire error, a body that fails to decode or decodes past the
      // cap) takes the streaming decoders over the same bytes, which decide as they always have.
      const held: Buffer[] = first.done === true ? [] : [firstChunk];
      let sourceDone = first.done === true;
      let wireError: { error: unknown } | undefined;
      const coding = undo[0]!;
      const oneCall = undo.length === 1 && coding !== 'br' && maxDecoded >= 1;
      if (oneCall) {
        let heldBytes = firstChunk.length;
        try {
          while (!sourceDone && heldBytes <= ONE_CALL_WIRE_BYTES) {
            const next = await source.next();
            if (next.done === true) sourceDone = true;
            else {
              held.push(next.value);
              heldBytes += next.value.length;
            }
          }
        } catch (error) {
          wireError = { error };
        }
      }
      let whole: Buffer | undefined;
      if (oneCall && sourceDone && wireError === undefined) {
        try {
          whole = decodeWhole(coding as 'gzip' | 'deflate', raw, held.length === 1 ? held[0]! : Buffer.concat(held), maxDecoded);
        } catch {
          // the streaming decoders below give this body's error (or its bytes up to the cap)
        }
      }
      if (whole !== undefined) {
        decoded = slices(whole);
      } else {
        const refuseWindow = (bits: number): Error =>
          new BodyError('ERR_BODY_TOO_LARGE', `brotli window of 2^${bits} bytes (most 2^${o.maxBrotliWindowBits}: maxBrotliWindowBits)`);
        const decoders = undo.flatMap((c: ContentCoding, i) => {
          const decoder = createDecoder(c, i === 0 && raw);
          return c === 'br' ? [brotliWindowGuard(o.maxBrotliWindowBits, refuseWindow), decoder] : [decoder];
        });
        async function* replay(): AsyncGenerator<Buffer> {
          for (const chunk of held) if (chunk.length > 0) yield chunk;
          if (wireError !== undefined) throw wireError.error;
          if (!sourceDone) yield* source;
        }
        stages = pipeline([Readable.from(replay(), { objectMode: false }), ...decoders], () => undefined) as unknown as Readable;
        decoded = stages;
      }
    }

    try {
      for await (const chunk of decoded) {
        let piece = chunk;
        if (decodedBytes + piece.length > maxDecoded) {
          if (request.truncate !== true) {
            throw new BodyError('ERR_BODY_TOO_LARGE', `more than ${maxDecoded} bytes after decoding ${codings.join(', ') || 'identity'}`);
          }
          piece = piece.subarray(0, maxDecoded - decodedBytes);
          truncated = true;
        }
        decodedBytes += piece.length;
        hash.update(piece);
        if (decodable) sink?.write(piece);
        if (request.keepBody === true) kept.push(piece);
        if (truncated) break;
      }
    } catch (error) {
      stages?.destroy();
      discard(body);
      return this.bodyFailure(error, ctx, failed);
    }
    stages?.destroy();
    if (truncated) discard(body);
    if (decodable) sink?.end();
    const extra: Partial<FetchResult> = { contentHash: hash.digest('hex').slice(0, 32) };
    return result(request.keepBody === true ? { ...extra, body: Buffer.concat(kept) } : extra);
  }

  private bodyFailure(
    error: unknown,
    ctx: { deadline: Deadline; signal: AbortSignal },
    failed: (code: CrawlErrorCode, message: string) => FetchResult,
  ): FetchResult {
    if (error instanceof BodyError) return failed(error.code, error.message);
    if (ctx.deadline.aborted) return failed('ERR_DEADLINE', `no complete answer within ${this.options.deadlineMs} ms`);
    if (ctx.signal.aborted) return failed('ERR_ABORTED', 'aborted');
    const c = codeOf(error);
    return failed(c.code, c.message);
  }

  /** Close idle connections; in-flight requests finish. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Abort every connection now. */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}

/** `whole` in pieces of at most SINK_PIECE_BYTES (views, not copies). */
function* slices(whole: Buffer): Generator<Buffer> {
  for (let at = 0; at < whole.length; at += SINK_PIECE_BYTES) yield whole.subarray(at, at + SINK_PIECE_BYTES);
}

/** Give up a response body: destroyed, its abort error swallowed (nobody reads it any more). */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
