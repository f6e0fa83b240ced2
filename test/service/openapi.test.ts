// docs/openapi.yaml is the service's contract. Two checks that it holds:
// 1. `redocly lint` (the CLI from node_modules, offline: telemetry and update checks switched off)
//    finds no error and no warning. It used to find 7 errors: unquoted `,` and `:` in flow-style
//    descriptions cut them short and added bogus keys, and info.license had no identifier.
// 2. Every documented example is checked against the running service: each request example is
//    sent to a fresh service on loopback, and the answer must be the response example of the same
//    name, status and body, and fit the response's schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1
//    uses it, with the schemas read from the YAML). The example fingerprint used to be stale.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { get, startHarness, type Answer } from './support.js';

const SPEC_PATH = fileURLToPath(new URL('../../docs/openapi.yaml', import.meta.url));
const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

type Json = Record<string, unknown>;
interface Example {
  readonly value: unknown;
}
interface MediaType {
  readonly schema?: Json;
  readonly examples?: Record<string, Example>;
  readonly 'x-invalid-examples'?: Record<string, Example>;
}
interface Operation {
  readonly operationId: string;
  readonly parameters?: { name: string; in: string; examples?: Record<string, Example> }[];
  readonly requestBody?: { content: Record<string, MediaType> };
  readonly responses: Record<string, { $ref?: string; content?: Record<string, MediaType> }>;
}

const spec = parse(readFileSync(SPEC_PATH, 'utf8')) as { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, { content?: Record<string, MediaType> }> } };

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(spec as unknown as Json, 'https://urldedup.invalid/openapi.json');

/** JSON Pointer escaping (RFC 6901 §3). */
const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** A response's media type and the JSON Pointer of its schema, through `$ref`s to components. */
function responseJson(op: Operation, pathPointer: string, status: string): { media: MediaType | undefined; pointer: string } {
  const r = op.responses[status]!;
  if (r.$ref !== undefined) {
    const name = r.$ref.replace('#/components/responses/', '');
    return { media: spec.components.responses[name]!.content?.['application/json'], pointer: `/components/responses/${escapePointer(name)}/content/application~1json/schema` };
  }
  return { media: r.content?.['application/json'], pointer: `${pathPointer}/responses/${status}/content/application~1json/schema` };
}

function validate(pointer: string, body: unknown): string | undefined {
  const check = ajv.getSchema(`https://urldedup.invalid/openapi.json#${pointer}`) ?? ajv.compile({ $ref: `https://urldedup.invalid/openapi.json#${pointer}` });
  return check(body) ? undefined : ajv.errorsText(check.errors);
}

interface Case {
  readonly name: string;
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly status: string;
  readonly expected: unknown;
  readonly schemaPointer: string;
}

/** Request examples, each paired by name with the response example it must give. */
function exampleCases(): { cases: Case[]; responseExamples: Set<string>; used: Set<string> } {
  const cases: Case[] = [];
  const responseExamples = new Set<string>();
  const used = new Set<string>();
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const pathPointer = `/paths/${escapePointer(path)}/${method}`;
      const requests = new Map<string, { query: Record<string, unknown>; body: unknown }>();
      for (const p of op.parameters ?? []) {
        for (const [name, ex] of Object.entries(p.examples ?? {})) {
          const r = requests.get(name) ?? { query: {}, body: undefined };
          r.query[p.name] = ex.value;
          requests.set(name, r);
        }
      }
      const media = op.requestBody?.content['application/json'];
      for (const [name, ex] of [...Object.entries(media?.examples ?? {}), ...Object.entries(media?.['x-invalid-examples'] ?? {})]) {
        requests.set(name, { query: requests.get(name)?.query ?? {}, body: ex.value });
      }
      for (const status of Object.keys(op.responses)) {
        const { media: res, pointer } = responseJson(op, pathPointer, status);
        for (const [name, ex] of Object.entries(res?.examples ?? {})) {
          const where = `${pointer}:${name}`;
          responseExamples.add(where);
          // an operation without parameters or body: the bare request gives the example
          const request = requests.get(name) ?? (op.parameters === undefined && op.requestBody === undefined ? { query: {}, body: undefined } : undefined);
          if (request === undefined) continue;
          used.add(where);
          requests.delete(name);
          cases.push({ name, operation: op.operationId, method: method.toUpperCase(), path, query: request.query, body: request.body, status, expected: ex.value, schemaPointer: pointer });
        }
      }
      expect([...requests.keys()], `${op.operationId}: request examples without a response example of the same name`).toEqual([]);
    }
  }
  return { cases, responseExamples, used };
}

async function send(base: string, c: Case): Promise<Answer> {
  const qs = new URLSearchParams(Object.entries(c.query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await fetch(`${base}${c.path}${qs === '' ? '' : `?${qs}`}`, {
    method: c.method,
    ...(c.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as unknown, text };
}

describe('docs/openapi.yaml', () => {
  it('passes redocly lint (offline) with no error or warning', () => {
    const run = spawnSync(process.execPath, [REDOCLY, 'lint', '--format=stylish', SPEC_PATH], {
      encoding: 'utf8',
      timeout: 60_000,
      // no telemetry, no update check: the lint reads only the file
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', DO_NOT_TRACK: '1' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toContain('Your API description is valid');
    expect(output).not.toMatch(/\b(error|warning)\b\s/);
  });

  it('every example: sent to a fresh service, the answer equals the documented one and fits the schema', async () => {
    const { cases, responseExamples, used } = exampleCases();
    expect(cases.length).toBeGreaterThanOrEqual(7);
    // every response example is reached by some request
    expect([...responseExamples].filter((e) => !used.has(e))).toEqual([]);
    for (const c of cases) {
      const h = await startHarness();
      try {
        const a = await send(h.url, c);
        const what = `${c.operation} ${c.name}`;
        expect(String(a.status), `${what}: ${a.text}`).toBe(c.status);
        expect(a.body, what).toEqual(c.expected);
        expect(validate(c.schemaPointer, a.body), what).toBeUndefined();
      } finally {
        await h.stop();
      }
    }
  });

  it('answers without examples fit their schemas: stats, errors, 421', async () => {
    const h = await startHarness({ maxBatch: 2 });
    try {
      await fetch(`${h.url}/v1/admit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '["https://s.example/a"]' });
      const stats = await get(`${h.url}/v1/stats`);
      expect(validate('/paths/~1v1~1stats/get/responses/200/content/application~1json/schema', stats.body)).toBeUndefined();
      const tooMany = await fetch(`${h.url}/v1/key`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '["a","b","c"]' });
      expect(tooMany.status).toBe(413);
      expect(validate('/components/responses/TooLarge/content/application~1json/schema', await tooMany.json())).toBeUndefined();
      const notJson = await fetch(`${h.url}/v1/key`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '[]' });
      expect(validate('/components/responses/UnsupportedMediaType/content/application~1json/schema', await notJson.json())).toBeUndefined();
      const misdirected = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
        httpRequest(`${h.url}/healthz`, { headers: { host: 'rebind.attacker.example' }, setHost: false, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
        })
          .on('error', reject)
          .end();
      });
      expect(misdirected.status).toBe(421);
      expect(validate('/components/responses/Misdirected/content/application~1json/schema', misdirected.body)).toBeUndefined();
      // the validator does refuse what does not fit
      expect(validate('/components/schemas/KeyResult', { url: 'x', ok: true })).toBeDefined();
    } finally {
      await h.stop();
    }
  });
});
