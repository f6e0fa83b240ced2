/**
 * The query service: HTTP/1.1 and JSON over the seen-store.
 *
 * Why `node:http` and no framework: the service has seven fixed routes, and what matters here is
 * what a framework would hide — the exact body limit and when it is enforced (body.ts), server
 * timeouts against slow clients, the order of authentication, overload shedding and body reading,
 * and a shutdown that stops accepting, lets in-flight requests finish and only then closes the
 * store. With `node:http` each of those is one visible line, and there is no dependency to audit.
 *
 * Request path: Host allowed? (421, host.ts) → route → shutting down? (503) → bearer token (401) → request budget (503 +
 * Retry-After) → query text (400, query.ts) → handler (body limit 413, JSON 400, batch limit 413, URL budget 503) → JSON reply.
 * Every reply, errors included, is counted in the metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { isStoreError, type SeenStore } from '../store/index.js';
import { createBearerCheck, type BearerCheck } from './auth.js';
import { createHostCheck, type HostCheck } from './host.js';
import { ClientGoneError, DEFAULT_MAX_JSON_DEPTH } from './body.js';
import { ServiceMetrics } from './metrics.js';
import { Budget, LookupQueue, overloaded } from './overload.js';
import { assertUtf8Query } from './query.js';
import { JSON_TYPE, sendError, sendJson, sendText, ServiceError } from './response.js';
import { findRoute, type Reply, type RouteContext } from './routes.js';

export interface ServiceOptions {
  /** Address to bind. @default '127.0.0.1' (loopback only; bind a wider address on purpose) */
  readonly host?: string;
  /** TCP port; 0 picks a free one (read it from `service.port`). @default 7070 */
  readonly port?: number;
  /**
   * `Host` names answered besides the bound address and the loopback names (`localhost`,
   * `*.localhost`, `127.0.0.1`, `[::1]`) on the bound port: `name` (any port) or `name:port`.
   * Other names get 421 `ERR_MISDIRECTED_REQUEST` (DNS rebinding, host.ts).
   * @default [] @example ['urldedup.internal', 'crawler-box:7070']
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Learned rules whose id (which names a host, `example.com/https`) is kept as a metrics label
   * value (`reason="rule:example.com/https"`); rules past this many are counted under their kind
   * (`reason="rule:https"`). Each is a new series: keep it small. @default 0
   */
  readonly metricsRuleIds?: number;
  /** Bearer token required on every route but `/healthz`. @default undefined (no token) */
  readonly token?: string;
  /** Largest request body, in bytes. @default 8 MiB */
  readonly maxBody?: number;
  /**
   * Structures open at once in a request's JSON (`[]` is 1); deeper is 400 `ERR_JSON_TOO_DEEP`
   * before anything is parsed. The request shapes need 3 (`{"redirects": [{…}]}`). @default 3
   */
  readonly maxJsonDepth?: number;
  /** Most URLs (or evidence items) in one request. @default 10000 */
  readonly maxBatch?: number;
  /** Requests handled at once; more get 503. @default 64 */
  readonly maxInFlight?: number;
  /** URLs keyed or admitted at once, over all requests; more get 503. @default 100000 */
  readonly maxPendingUrls?: number;
  /** Request body bytes buffered at once, over all requests; more get 503. @default 128 MiB */
  readonly maxBufferedBytes?: number;
  /** Store lookups running at once for batch requests (see overload.ts). @default 64 */
  readonly lookupConcurrency?: number;
  /**
   * Response bytes built and not yet taken by their clients, over all responses; while more are
   * held, limited requests get 503. A client that never reads pins its response in memory: this
   * bounds what such clients hold together. @default 256 MiB
   */
  readonly maxResponseBytes?: number;
  /** Most time a response may take to reach its client; past it the connection is cut. @default 30000 */
  readonly responseTimeoutMs?: number;
  /** `Retry-After` of a 503, in seconds. @default 1 */
  readonly retryAfterSeconds?: number;
  /** Most time for one request, head and body (node:http `requestTimeout`). @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Most time to receive the request head (node:http `headersTimeout`). @default 10000 */
  readonly headersTimeoutMs?: number;
  /** How long `close()` waits for in-flight requests before cutting connections. @default 10000 */
  readonly shutdownTimeoutMs?: number;
  readonly logger?: Logger;
}

export const defaultServiceOptions = {
  host: '127.0.0.1',
  port: 7070,
  allowedHosts: [],
  metricsRuleIds: 0,
  maxBody: 8 * 1024 * 1024,
  maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
  maxBatch: 10_000,
  maxInFlight: 64,
  maxPendingUrls: 100_000,
  maxBufferedBytes: 128 * 1024 * 1024,
  maxResponseBytes: 256 * 1024 * 1024,
  responseTimeoutMs: 30_000,
  lookupConcurrency: 64,
  retryAfterSeconds: 1,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  shutdownTimeoutMs: 10_000,
} as const satisfies ServiceOptions;

export interface Service {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (IPv6 hosts in brackets). */
  readonly url: string;
  readonly metrics: ServiceMetrics;
  /** Requests being handled now. */
  readonly inFlight: number;
  /**
   * Graceful stop: refuse new connections and requests (503 `ERR_SHUTTING_DOWN`), let in-flight
   * requests finish (cut after `shutdownTimeoutMs`), resolve when every connection is closed.
   * The store stays open: its owner closes it after this resolves.
   */
  close(): Promise<void>;
  /** Cut every connection now (a second SIGTERM). */
  abort(): void;
}

function positiveInteger(name: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`service: ${name} must be an integer >= ${min}`);
  return value;
}

const CLOSE = { connection: 'close' } as const;

/** Largest unread request body left for node:http to drop on a kept-alive connection after an error answer. */
const KEEP_ALIVE_DRAIN_LIMIT = 1024 * 1024;

/** Start the service on `store`; resolves once it listens. */
export async function startService(store: SeenStore, options: ServiceOptions = {}): Promise<Service> {
  const o = { ...defaultServiceOptions, ...options };
  const maxBody = positiveInteger('maxBody', o.maxBody);
  const maxBatch = positiveInteger('maxBatch', o.maxBatch);
  positiveInteger('port', o.port, 0);
  if (o.port > 65535) throw new TypeError('service: port must be 0–65535');
  if (o.maxPendingUrls < maxBatch) throw new TypeError('service: maxPendingUrls must be >= maxBatch (else a full batch never runs)');
  if (o.maxBufferedBytes < maxBody) throw new TypeError('service: maxBufferedBytes must be >= maxBody (else a full body never fits)');
  const check: BearerCheck | undefined = o.token === undefined ? undefined : createBearerCheck(o.token);
  // refuse a malformed allowedHosts entry before listening
  createHostCheck({ boundAddress: o.host, port: o.port, allowedHosts: o.allowedHosts });
  let hostCheck: HostCheck | undefined;
  const log = o.logger;
  const metrics = new ServiceMetrics({ ruleIdLabels: positiveInteger('metricsRuleIds', o.metricsRuleIds, 0), storeOnDisk: store.supports.durable });
  const requests = new Budget(positiveInteger('maxInFlight', o.maxInFlight));
  const ctx: RouteContext = {
    store,
    metrics,
    maxBody,
    maxJsonDepth: positiveInteger('maxJsonDepth', o.maxJsonDepth),
    maxBatch,
    retryAfterSeconds: positiveInteger('retryAfterSeconds', o.retryAfterSeconds),
    urls: new Budget(positiveInteger('maxPendingUrls', o.maxPendingUrls)),
    bytes: new Budget(positiveInteger('maxBufferedBytes', o.maxBufferedBytes)),
    responses: new Budget(positiveInteger('maxResponseBytes', o.maxResponseBytes)),
    requests,
    lookups: new LookupQueue(positiveInteger('lookupConcurrency', o.lookupConcurrency)),
    storeFolder: store.supports.durable ? store.location : undefined,
  };

  const responseTimeoutMs = positiveInteger('responseTimeoutMs', o.responseTimeoutMs);
  let shuttingDown = false;
  /** Requests between their head and the end of their response, health and metrics included. */
  let active = 0;
  /**
   * Handlers still running. Not the same as `active`: a client that disconnects ends its response
   * while its handler may still be waiting on the store, and the store must not close under it.
   */
  let working = 0;
  let idle: (() => void) | undefined;
  let handlersDone: (() => void) | undefined;

  /**
   * A response written but not yet taken by its client (node:http keeps it in memory): counted in
   * the response budget until it is, and cut when it takes longer than `responseTimeoutMs`.
   */
  function holdUntilTaken(res: ServerResponse): void {
    const held = res.writableLength;
    if (held === 0 || res.writableFinished) return;
    ctx.responses.hold(held);
    const timer = setTimeout(() => {
      log?.warn({ bytes: held }, 'a client did not take its response in time: connection cut');
      res.destroy();
    }, responseTimeoutMs);
    timer.unref();
    res.once('close', () => {
      clearTimeout(timer);
      ctx.responses.give(held);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const method = req.method ?? 'GET';
    const { route, allowed } = findRoute(method, path);
    const label = route?.path ?? (allowed !== undefined ? path : 'other');
    const releases: (() => void)[] = [];
    active++;
    res.once('close', () => {
      // a response cut short (client gone, shutdown timeout) counts as `aborted`, not as its status
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      metrics.request(label, method, status, Number(process.hrtime.bigint() - started) / 1e9);
      if (--active === 0 && idle !== undefined) idle();
    });
    try {
      hostCheck ??= createHostCheck({ boundAddress: (server.address() as AddressInfo).address, port: (server.address() as AddressInfo).port, allowedHosts: o.allowedHosts });
      if (!hostCheck(req.headers.host)) {
        throw new ServiceError(421, 'ERR_MISDIRECTED_REQUEST', 'this service does not answer for that Host (see --allowed-host)', undefined, CLOSE);
      }
      if (shuttingDown) throw new ServiceError(503, 'ERR_SHUTTING_DOWN', 'the service is shutting down', undefined, { ...CLOSE, 'retry-after': String(ctx.retryAfterSeconds) });
      if (route === undefined) {
        if (allowed !== undefined) throw new ServiceError(405, 'ERR_METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}`, undefined, { allow: allowed.join(', ') });
        throw new ServiceError(404, 'ERR_NOT_FOUND', `no route ${method} ${path}`);
      }
      if (route.auth && check !== undefined && !check(req.headers.authorization)) {
        throw new ServiceError(401, 'ERR_UNAUTHORIZED', 'send Authorization: Bearer <token>', undefined, { 'www-authenticate': 'Bearer realm="urldedup"' });
      }
      if (route.limited) {
        // responses clients have not taken yet hold memory: no new work while they hold the budget
        if (ctx.responses.inUse >= ctx.responses.capacity) throw overloaded('response bytes not yet taken by clients', ctx.retryAfterSeconds);
        if (!requests.take(1)) {
          throw overloaded('requests in flight', ctx.retryAfterSeconds);
        }
        releases.push(() => requests.give(1));
      }
      const search = q === -1 ? '' : target.slice(q + 1);
      assertUtf8Query(search);
      const query = new URLSearchParams(search);
      const reply: Reply = await route.handle(req, query, ctx, (release) => releases.push(release));
      const headers = shuttingDown ? CLOSE : {};
      if ('json' in reply) sendJson(res, reply.status, reply.json, headers);
      else if ('jsonText' in reply) sendText(res, reply.status, reply.jsonText, JSON_TYPE, headers);
      else sendText(res, reply.status, reply.text, reply.contentType, headers);
      holdUntilTaken(res);
    } catch (error) {
      if (error instanceof ClientGoneError) {
        res.destroy();
        return;
      }
      let e: ServiceError;
      if (error instanceof ServiceError) e = error;
      else if (isStoreError(error)) {
        log?.error({ err: error }, 'store error');
        e = new ServiceError(503, error.code, 'the store is unavailable', undefined, { 'retry-after': String(ctx.retryAfterSeconds) });
      } else {
        log?.error({ err: error, method, path }, 'request failed');
        e = new ServiceError(500, 'ERR_INTERNAL', 'internal error (logged)');
      }
      // A body left unread: node:http reads and drops it after the response to find the next
      // request on the connection, which is cheaper for the client than a new connection (a 503
      // is answered at once and retried). A large or unsized (chunked) body: close instead.
      const length = req.headers['content-length'];
      const unread = !req.complete && (length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > KEEP_ALIVE_DRAIN_LIMIT);
      if ((unread || shuttingDown) && e.headers.connection === undefined) e = new ServiceError(e.status, e.code, e.message, e.item, { ...e.headers, ...CLOSE });
      sendError(res, e);
    } finally {
      // budgets go back when the work is done, not when the client goes (it may leave early)
      for (const release of releases) release();
    }
  }

  const server = createServer(
    {
      requestTimeout: positiveInteger('requestTimeoutMs', o.requestTimeoutMs),
      headersTimeout: positiveInteger('headersTimeoutMs', o.headersTimeoutMs),
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      working++;
      handle(req, res)
        .catch((error: unknown) => {
          log?.error({ err: error }, 'unhandled request error');
          res.destroy();
        })
        .finally(() => {
          if (--working === 0 && handlersDone !== undefined) handlersDone();
          if (working === 0 && active === 0 && idle !== undefined) idle();
        });
    },
  );
  // a malformed request line or header: answer 400 and close, never throw
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({ error: { code: 'ERR_BAD_REQUEST', message: 'malformed HTTP request' } });
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(o.port, o.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) => log?.error({ err: error }, 'server error'));
  const address = server.address() as AddressInfo;
  const host = address.address;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    server,
    host,
    port: address.port,
    url,
    metrics,
    get inFlight() {
      return active;
    },
    close() {
      if (closing !== undefined) return closing;
      shuttingDown = true;
      closing = new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          log?.warn({ inFlight: active }, 'shutdown timeout: closing connections with requests in flight');
          server.closeAllConnections();
        }, o.shutdownTimeoutMs);
        timer.unref();
        const drained = (): void => {
          // Every request that reached a handler is answered. What is left are idle keep-alives
          // and connections whose request had not arrived in full: nothing was acknowledged on
          // them, so they are cut (their clients see a closed connection and retry elsewhere).
          if (working === 0) server.closeAllConnections();
        };
        idle = drained;
        if (active === 0) drained();
        // stops accepting; calls back when the last connection has closed
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        // and every handler has returned, also those whose client went away
        const handled = working === 0 ? Promise.resolve() : new Promise<void>((r) => (handlersDone = r));
        void Promise.all([closed, handled]).then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closing;
    },
    abort() {
      shuttingDown = true;
      server.closeAllConnections();
    },
  };
}
