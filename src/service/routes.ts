/**
 * The routes of the query service (see docs/openapi.yaml for the contract):
 *
 *   GET  /v1/key?url=…   one URL: normal form, keys, fingerprint, state (400 for an invalid URL)
 *   POST /v1/key         a JSON array of URLs: one result per URL, in order; a bad URL fails alone
 *   GET  /v1/explain?url=…  the chain to one URL's canonical key (`store.explain`; 400 for an invalid URL)
 *   POST /v1/admit       the frontier gate (`store.admit`), one atomic batch per request
 *   POST /v1/evidence    redirects and fetch results from an external crawler
 *   GET  /v1/stats       the store's counts (`store.stats()`)
 *   GET  /healthz        liveness; 503 while shutting down, or once the store stopped its writes
 *   GET  /metrics        Prometheus text format 0.0.4 (prom-client, metrics.ts)
 *
 * A handler returns a `Reply` or throws a `ServiceError`; the server writes it.
 */
import type { IncomingMessage } from 'node:http';
import { UrlError } from '../normalize/index.js';
import { type AdmitOptions, type AdmitResult, type CanonicalFailure, type CanonicalResult, type Explanation, type FetchRecord, type SeenStore } from '../store/index.js';
import { readJsonBody } from './body.js';
import { keyResultJson, Utf8Builder } from './json.js';
import { EXPOSITION_TYPE, folderBytes, type ServiceMetrics } from './metrics.js';
import { overloaded, type Budget, type LookupQueue } from './overload.js';
import { ServiceError } from './response.js';

/** What handlers share: the store, the metrics, the limits and the work budgets. */
export interface RouteContext {
  readonly store: SeenStore;
  readonly metrics: ServiceMetrics;
  readonly maxBody: number;
  /** Deepest JSON nesting of a request body (body.ts). */
  readonly maxJsonDepth: number;
  readonly maxBatch: number;
  readonly retryAfterSeconds: number;
  /** URLs in flight (see overload.ts). */
  readonly urls: Budget;
  /** Request body bytes buffered. */
  readonly bytes: Budget;
  /** Response bytes written and not yet taken by their clients (server.ts `holdUntilTaken`). */
  readonly responses: Budget;
  /** Requests in flight. */
  readonly requests: Budget;
  /** Store lookups of batch requests, shared (single-key lookups skip it: they are bounded by `requests`). */
  readonly lookups: LookupQueue;
  /** `store.location` when it is a folder (for `urldedup_store_disk_bytes`). */
  readonly storeFolder: string | undefined;
}

export type Reply =
  | { readonly status: number; readonly json: unknown }
  /** JSON already written, as text or as its UTF-8 bytes (json.ts). */
  | { readonly status: number; readonly jsonText: string | Buffer }
  | { readonly status: number; readonly text: string; readonly contentType: string };

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Needs the bearer token, when the service has one. */
  readonly auth: boolean;
  /** Takes a request slot from the overload budget (health and metrics do not). */
  readonly limited: boolean;
  handle(req: IncomingMessage, query: URLSearchParams, ctx: RouteContext, done: (release: () => void) => void): Promise<Reply>;
}

/** One result of `/v1/key` (written as text by json.ts; this type documents it). */
export type KeyItem =
  | {
      readonly url: string;
      readonly ok: true;
      /** The normal form (RFC 3986 §6.2.2 and §6.2.3; a userinfo password redacted as the store does). */
      readonly normal: string;
      /** The URL's own key. */
      readonly key: string;
      /** After presets, active host rules and aliases: the key duplicates are found by. */
      readonly canonicalKey: string;
      readonly canonicalUrl: string;
      /** 64-bit fingerprint of `canonicalKey`, 16 hex digits. */
      readonly fingerprint: string;
      /** The URL's own state in the store; `seen` when only an equivalent URL is; else `unknown`. */
      readonly state: string;
      /** What mapped `key` onto `canonicalKey` (`preset:<name>`, `rule:<id>`, `alias`). */
      readonly via?: string;
      /** With `format=surt`: the Internet Archive SURT of `url` (`null` where the IA's canonicalizer refuses it). */
      readonly surt?: string | null;
    }
  | { readonly url: string; readonly ok: false; readonly code: string };

/** One result of `/v1/admit`: `store.admit`'s, with `null` for a key an invalid URL does not have. */
export interface AdmitItem {
  readonly url: string;
  readonly key: string | null;
  readonly identityKey: string | null;
  readonly admitted: boolean;
  readonly reason: string;
  readonly via?: string;
}

export type EvidenceItem = { readonly ok: true } | { readonly ok: false; readonly code: string };

/** URLs per `canonicalMany` call of `POST /v1/key`. */
const KEY_CHUNK = 1000;

/** Bytes of one `/v1/key` result, a little over the usual (it sizes the reply's first Buffer; pages never written cost nothing). */
const KEY_RESULT_BYTES = 480;

/**
 * `POST /v1/key`: batch lookups (`canonicalMany`: the Bloom front, then one database read per
 * chunk), each chunk one slot of the shared lookup queue, and the reply `{"results": [...]}` as
 * UTF-8 JSON (json.ts). Between chunks the event loop gets a turn (`setImmediate`), so a large
 * batch of URLs to normalize does not hold up health checks, metrics and other requests.
 */
async function keyResultsJson(ctx: RouteContext, urls: readonly string[], surt: boolean): Promise<Buffer> {
  const out = new Utf8Builder(urls.length * KEY_RESULT_BYTES + 16);
  out.append('{"results":[');
  for (let i = 0; i < urls.length; i += KEY_CHUNK) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const chunk = urls.length <= KEY_CHUNK ? urls : urls.slice(i, i + KEY_CHUNK);
    const found = await ctx.lookups.run(() => ctx.store.canonicalMany(chunk));
    let invalid = 0;
    for (let j = 0; j < chunk.length; j++) {
      const c = found[j]!;
      if ('ok' in c) invalid++;
      out.append(i + j === 0 ? keyResultJson(chunk[j]!, c, surt) : ',' + keyResultJson(chunk[j]!, c, surt));
    }
    ctx.metrics.keyed(chunk.length - invalid, invalid);
  }
  out.append(']}');
  return out.bytes();
}

/** `GET /v1/key`: one lookup; a URL the store cannot key is a 400. */
async function keyResult(ctx: RouteContext, url: string, surt: boolean): Promise<string> {
  let c: CanonicalResult | CanonicalFailure;
  try {
    c = await ctx.store.canonical(url);
  } catch (error) {
    if (!(error instanceof UrlError)) throw error; // a StoreError too
    c = { ok: false, code: error.code, input: url };
  }
  if ('ok' in c) {
    ctx.metrics.keyed(0, 1);
    throw new ServiceError(400, c.code, `not a URL the store can key: ${c.code}`, url);
  }
  ctx.metrics.keyed(1, 0);
  return keyResultJson(url, c, surt);
}

/**
 * `format=surt` on the key routes: each result also carries the Internet Archive SURT of its URL
 * (CDX and pywb's key); `format=key`, the default, does not. Anything else is a 400.
 */
function wantsSurt(query: URLSearchParams): boolean {
  const format = query.get('format');
  if (format === null || format === 'key') return false;
  if (format === 'surt') return true;
  throw new ServiceError(400, 'ERR_INVALID_PARAMETER', 'format must be key or surt', format);
}

/** `GET /v1/explain`: `store.explain`, the same JSON as `urldedup explain --json`; an invalid URL is a 400. */
async function explainResult(ctx: RouteContext, url: string): Promise<Explanation> {
  try {
    return await ctx.store.explain(url);
  } catch (error) {
    if (!(error instanceof UrlError)) throw error; // a StoreError too
    throw new ServiceError(400, error.code, `not a URL the store can key: ${error.code}`, url);
  }
}

// ---- request bodies ---------------------------------------------------------------------------

function invalidBody(message: string, item?: string | number): ServiceError {
  return new ServiceError(400, 'ERR_INVALID_BODY', message, item);
}

/** A JSON array of URL strings, at most `maxBatch` of them. */
function urlList(value: unknown, maxBatch: number, where = ''): string[] {
  if (!Array.isArray(value)) throw invalidBody(`${where === '' ? 'the body' : where} must be a JSON array of URL strings`, where === '' ? undefined : where);
  if (value.length > maxBatch) {
    throw new ServiceError(413, 'ERR_BATCH_TOO_LARGE', `${value.length} items; a batch takes at most ${maxBatch}`);
  }
  for (let i = 0; i < value.length; i++) {
    if (typeof value[i] !== 'string') throw invalidBody(`item ${i} is not a string`, where === '' ? i : `${where}[${i}]`);
  }
  return value as string[];
}

/** POST /v1/admit: `["url", …]` or `{ "urls": [...], "depth"?: n, "source"?: "url" }`. */
function admitRequest(value: unknown, maxBatch: number): { urls: string[]; options: AdmitOptions } {
  if (Array.isArray(value)) return { urls: urlList(value, maxBatch), options: {} };
  if (value === null || typeof value !== 'object') throw invalidBody('the body must be an array of URLs or {"urls": [...], "depth"?, "source"?}');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'urls' && k !== 'depth' && k !== 'source') throw invalidBody(`unknown field ${JSON.stringify(k)}`, k);
  const urls = urlList(o.urls, maxBatch, 'urls');
  const options: { depth?: number; source?: string } = {};
  if (o.depth !== undefined) {
    if (!Number.isSafeInteger(o.depth) || (o.depth as number) < 0) throw invalidBody('depth must be an integer >= 0', 'depth');
    options.depth = o.depth as number;
  }
  if (o.source !== undefined) {
    if (typeof o.source !== 'string') throw invalidBody('source must be a URL string', 'source');
    options.source = o.source;
  }
  return { urls, options };
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

interface RedirectEvidence {
  readonly from: string;
  readonly to: string;
  readonly status: number;
}

interface FetchEvidence {
  readonly url: string;
  readonly record: FetchRecord;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** POST /v1/evidence: `{ "redirects"?: [{from, to, status}], "fetches"?: [{url, status, contentHash?, finalUrl?, error?, contentLocation?, canonical?}] }`. */
function evidenceRequest(value: unknown, maxBatch: number): { redirects: RedirectEvidence[]; fetches: FetchEvidence[] } {
  if (!isObject(value)) throw invalidBody('the body must be {"redirects": [...], "fetches": [...]}');
  for (const k of Object.keys(value)) if (k !== 'redirects' && k !== 'fetches') throw invalidBody(`unknown field ${JSON.stringify(k)}`, k);
  const rs = value.redirects ?? [];
  const fs = value.fetches ?? [];
  if (!Array.isArray(rs)) throw invalidBody('redirects must be an array', 'redirects');
  if (!Array.isArray(fs)) throw invalidBody('fetches must be an array', 'fetches');
  if (rs.length + fs.length > maxBatch) {
    throw new ServiceError(413, 'ERR_BATCH_TOO_LARGE', `${rs.length + fs.length} items; a batch takes at most ${maxBatch}`);
  }
  const redirects = rs.map((r: unknown, i): RedirectEvidence => {
    const at = `redirects[${i}]`;
    if (!isObject(r)) throw invalidBody(`${at} must be {from, to, status}`, at);
    if (typeof r.from !== 'string') throw invalidBody(`${at}.from must be a URL string`, at);
    if (typeof r.to !== 'string') throw invalidBody(`${at}.to must be a URL string`, at);
    if (typeof r.status !== 'number' || !REDIRECT_STATUSES.has(r.status)) throw invalidBody(`${at}.status must be 301, 302, 303, 307 or 308`, at);
    return { from: r.from, to: r.to, status: r.status };
  });
  const fetches = fs.map((f: unknown, i): FetchEvidence => {
    const at = `fetches[${i}]`;
    if (!isObject(f)) throw invalidBody(`${at} must be {url, status, contentHash?, finalUrl?, error?, contentLocation?, canonical?}`, at);
    if (typeof f.url !== 'string') throw invalidBody(`${at}.url must be a URL string`, at);
    if (!Number.isInteger(f.status) || (f.status as number) < 0 || (f.status as number) > 999) {
      throw invalidBody(`${at}.status must be an integer 0–999 (0: no response)`, at);
    }
    const record: { status: number; contentHash?: string; finalUrl?: string; error?: string; contentLocation?: string; canonical?: string } = { status: f.status as number };
    for (const field of ['contentHash', 'finalUrl', 'error', 'contentLocation', 'canonical'] as const) {
      const v = f[field];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || v.length > 16384) throw invalidBody(`${at}.${field} must be a string`, at);
      record[field] = v;
    }
    return { url: f.url, record };
  });
  return { redirects, fetches };
}

/** Evidence of one item: recorded, or refused for its URL (a bad URL fails alone). */
async function recordOne(record: () => Promise<void>): Promise<EvidenceItem> {
  try {
    await record();
    return { ok: true };
  } catch (error) {
    if (!(error instanceof UrlError)) throw error; // a StoreError too
    return { ok: false, code: error.code };
  }
}

/** Take `n` URLs from the budget for the rest of the request, or answer 503. */
function takeUrls(ctx: RouteContext, n: number, done: (release: () => void) => void): void {
  if (n === 0) return;
  if (!ctx.urls.take(n)) throw overloaded('URLs pending', ctx.retryAfterSeconds);
  done(() => ctx.urls.give(n));
}

async function jsonBody(req: IncomingMessage, ctx: RouteContext, done: (release: () => void) => void): Promise<unknown> {
  const { value, bytes } = await readJsonBody(req, { maxBody: ctx.maxBody, maxDepth: ctx.maxJsonDepth, retryAfterSeconds: ctx.retryAfterSeconds }, ctx.bytes);
  done(() => ctx.bytes.give(bytes));
  return value;
}

// ---- the routes -------------------------------------------------------------------------------

export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/key',
    auth: true,
    limited: true,
    async handle(_req, query, ctx, done) {
      const url = query.get('url');
      if (url === null) throw new ServiceError(400, 'ERR_MISSING_PARAMETER', 'give the URL as ?url=… (percent-encoded)', 'url');
      const surt = wantsSurt(query);
      takeUrls(ctx, 1, done);
      return { status: 200, jsonText: await keyResult(ctx, url, surt) };
    },
  },
  {
    method: 'GET',
    path: '/v1/explain',
    auth: true,
    limited: true,
    async handle(_req, query, ctx, done) {
      const url = query.get('url');
      if (url === null) throw new ServiceError(400, 'ERR_MISSING_PARAMETER', 'give the URL as ?url=… (percent-encoded)', 'url');
      takeUrls(ctx, 1, done);
      return { status: 200, json: await explainResult(ctx, url) };
    },
  },
  {
    method: 'POST',
    path: '/v1/key',
    auth: true,
    limited: true,
    async handle(req, query, ctx, done) {
      const surt = wantsSurt(query);
      const urls = urlList(await jsonBody(req, ctx, done), ctx.maxBatch);
      takeUrls(ctx, urls.length, done);
      return { status: 200, jsonText: await keyResultsJson(ctx, urls, surt) };
    },
  },
  {
    method: 'POST',
    path: '/v1/admit',
    auth: true,
    limited: true,
    async handle(req, _query, ctx, done) {
      const { urls, options } = admitRequest(await jsonBody(req, ctx, done), ctx.maxBatch);
      takeUrls(ctx, urls.length, done);
      const admitted: AdmitResult[] = urls.length === 0 ? [] : await ctx.store.admit(urls, options);
      const results = admitted.map((r): AdmitItem => {
        ctx.metrics.admitted(r.reason);
        const item: AdmitItem = { url: r.url, key: r.key ?? null, identityKey: r.identityKey ?? null, admitted: r.admitted, reason: r.reason };
        return r.via === undefined ? item : { ...item, via: r.via };
      });
      return { status: 200, json: { results } };
    },
  },
  {
    method: 'POST',
    path: '/v1/evidence',
    auth: true,
    limited: true,
    async handle(req, _query, ctx, done) {
      const { redirects, fetches } = evidenceRequest(await jsonBody(req, ctx, done), ctx.maxBatch);
      takeUrls(ctx, redirects.length + fetches.length, done);
      // as the crawler records them: each redirect hop first, then the fetch where the chain ended
      const r: EvidenceItem[] = [];
      for (const x of redirects) {
        const item = await recordOne(() => ctx.store.recordRedirect(x.from, x.to, x.status));
        ctx.metrics.evidenceRecorded('redirect', item.ok ? 'recorded' : 'invalid');
        r.push(item);
      }
      const f: EvidenceItem[] = [];
      for (const x of fetches) {
        const item = await recordOne(() => ctx.store.recordFetch(x.url, x.record));
        ctx.metrics.evidenceRecorded('fetch', item.ok ? 'recorded' : 'invalid');
        f.push(item);
      }
      return { status: 200, json: { redirects: r, fetches: f } };
    },
  },
  {
    method: 'GET',
    path: '/v1/stats',
    auth: true,
    limited: true,
    async handle(_req, _query, ctx) {
      return { status: 200, json: await ctx.store.stats() };
    },
  },
  {
    method: 'GET',
    path: '/healthz',
    auth: false,
    limited: false,
    async handle(_req, _query, ctx) {
      // a store whose writes stopped (fail-stop after a failed write) is not healthy: reads
      // answer, but no admit or evidence is taken until it is reopened
      const failure = ctx.store.writeFailure();
      if (failure !== undefined) throw new ServiceError(503, failure.code, 'the store takes no writes until it is reopened (a write failed)');
      return { status: 200, json: { status: 'ok' } };
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    auth: true,
    limited: false,
    async handle(_req, _query, ctx) {
      const [store, storeBytes] = await Promise.all([
        ctx.store.stats({ hosts: false }),
        ctx.storeFolder === undefined ? Promise.resolve(undefined) : folderBytes(ctx.storeFolder),
      ]);
      const text = await ctx.metrics.render({
        store,
        storeBytes,
        inFlight: ctx.requests.inUse,
        pendingUrls: ctx.urls.inUse,
        bufferedBytes: ctx.bytes.inUse,
      });
      return { status: 200, text, contentType: EXPOSITION_TYPE };
    },
  },
];

/** The route for a method and path; `undefined` with the allowed methods when only the method is wrong. */
export function findRoute(method: string, path: string): { route?: Route; allowed?: string[] } {
  let allowed: string[] | undefined;
  for (const r of routes) {
    if (r.path !== path) continue;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET' && r.path === '/healthz')) return { route: r };
    (allowed ??= []).push(r.method);
  }
  return allowed === undefined ? {} : { allowed };
}
