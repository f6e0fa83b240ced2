/** Shared by the service tests: a real LevelDB store in a temp folder, a real server on 127.0.0.1. */
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service, type ServiceOptions } from '../../src/service/server.js';
import { openStore, type OpenStoreOptions, type SeenStore } from '../../src/store/index.js';

export interface Harness {
  readonly dir: string;
  readonly store: SeenStore;
  readonly service: Service;
  readonly url: string;
  stop(): Promise<void>;
}

export async function tempDir(prefix = 'urldedup-service-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function startHarness(options: ServiceOptions = {}, storeOptions: OpenStoreOptions = {}): Promise<Harness> {
  const dir = await tempDir();
  const store = await openStore(join(dir, 'db'), storeOptions);
  const service = await startService(store, { port: 0, ...options });
  return {
    dir,
    store,
    service,
    url: service.url,
    async stop() {
      await service.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return answer(await fetch(url, { headers }));
}

export async function postJson(url: string, value: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return postRaw(url, JSON.stringify(value), headers);
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return answer(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }));
}

/**
 * A POST on its own connection (no keep-alive pool): for load from "many clients", where fetch's
 * shared pool would queue requests behind each other.
 */
export function postOwnConnection(url: string, value: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify(value);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, body: parsed, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface ErrorShape {
  readonly error: { readonly code: string; readonly message: string; readonly item?: string | number };
}

export function errorOf(a: Answer): ErrorShape['error'] {
  const e = (a.body as ErrorShape | undefined)?.error;
  if (e === undefined) throw new Error(`not an error body: ${a.text.slice(0, 200)}`);
  return e;
}

/** A Prometheus text (0.0.4) sample. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Parse the text exposition format 0.0.4 strictly enough to catch what a scraper rejects:
 * HELP/TYPE lines, metric and label names, quoted and escaped label values, float values, one TYPE
 * per family before its samples. Throws with the line number on the first problem.
 */
export function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, n) => {
    const where = `line ${n + 1}: ${JSON.stringify(line)}`;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name, ${where}`);
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad type, ${where}`);
        if (types.has(name)) throw new Error(`second TYPE for ${name}, ${where}`);
        types.set(name, rest);
      }
      return;
    }
    // "Empty lines are ignored" (the format's text; prom-client puts one between families)
    if (line === '') return;
    if (line.trim() === '') throw new Error(`blank line that is not empty, ${where}`);
    let i = 0;
    while (i < line.length && line[i] !== '{' && line[i] !== ' ') i++;
    const name = line.slice(0, i);
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name, ${where}`);
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const eq = line.indexOf('=', i);
        const label = line.slice(i, eq);
        if (!LABEL_NAME.test(label)) throw new Error(`bad label name ${label}, ${where}`);
        if (line[eq + 1] !== '"') throw new Error(`label value not quoted, ${where}`);
        let j = eq + 2;
        let value = '';
        for (;;) {
          const c = line[j];
          if (c === undefined) throw new Error(`unterminated label value, ${where}`);
          if (c === '"') break;
          if (c === '\\') {
            const e = line[j + 1];
            if (e === 'n') value += '\n';
            else if (e === '\\' || e === '"') value += e;
            else throw new Error(`bad escape, ${where}`);
            j += 2;
          } else {
            value += c;
            j++;
          }
        }
        labels[label] = value;
        i = j + 1;
        if (line[i] === ',') i++;
        else if (line[i] !== '}') throw new Error(`expected , or }, ${where}`);
      }
      i++;
    }
    if (line[i] !== ' ') throw new Error(`expected a space before the value, ${where}`);
    const parts = line.slice(i + 1).split(' ');
    const raw = parts[0]!;
    // Prometheus reads values with Go's strconv.ParseFloat, where NaN is any case (prom-client writes `Nan`)
    const nan = raw.toLowerCase() === 'nan';
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : nan ? NaN : Number(raw);
    if (raw === '' || (Number.isNaN(value) && !nan)) throw new Error(`bad value, ${where}`);
    if (parts.length > 2 || (parts.length === 2 && !/^-?\d+$/.test(parts[1]!))) throw new Error(`bad timestamp, ${where}`);
    const family = name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(name) && !(types.get(family) === 'histogram' || types.get(family) === 'summary')) {
      throw new Error(`sample before its TYPE, ${where}`);
    }
    samples.push({ name, labels, value });
  });
  return { samples, types };
}

/** The value of the sample with this name and these labels (a subset match), or undefined. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const s = samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value;
}
