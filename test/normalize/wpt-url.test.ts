/**
 * web-platform-tests url/resources/urltestdata.json against parseWhatwg (WHATWG URL Standard).
 * Every case must pass except those listed, with a reason, in wpt-deviations.json; a listed
 * deviation that starts passing fails the suite too, so the list stays exact.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/errors.js';
import { parseWhatwg, serializeWhatwg } from '../../src/normalize/resolve-html.js';
import {
  hashOf,
  hostOf,
  hostnameOf,
  originOf,
  pathnameOf,
  portOf,
  protocolOf,
  searchOf,
} from '../../src/normalize/whatwg/url-api.js';

interface WptCase {
  readonly input: string;
  readonly base: string | null;
  readonly failure?: true;
  readonly relativeTo?: string;
  readonly href?: string;
  readonly origin?: string;
  readonly protocol?: string;
  readonly username?: string;
  readonly password?: string;
  readonly host?: string;
  readonly hostname?: string;
  readonly port?: string;
  readonly pathname?: string;
  readonly search?: string;
  readonly hash?: string;
}

interface Deviation {
  readonly input: string;
  readonly base: string | null;
  readonly reason: string;
}

const dataUrl = new URL('../fixtures/conformance/wpt-urltestdata.json', import.meta.url);
const deviationsUrl = new URL('./wpt-deviations.json', import.meta.url);
const entries = JSON.parse(readFileSync(dataUrl, 'utf8')) as unknown[];
const cases = entries.filter((entry): entry is WptCase => typeof entry === 'object' && entry !== null);
const deviations = JSON.parse(readFileSync(deviationsUrl, 'utf8')) as Deviation[];

const GETTERS = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;

function keyOf(input: string, base: string | null): string {
  return JSON.stringify([input, base]);
}

/** Report group: the expected protocol (or, for failures, "failure"). */
function groupOf(test: WptCase): string {
  if (test.failure) return 'failure';
  switch (test.protocol) {
    case 'http:':
    case 'https:':
    case 'ws:':
    case 'wss:':
    case 'ftp:':
    case 'file:':
      return test.protocol.slice(0, -1);
    default:
      return 'other schemes';
  }
}

/** Run one case; returns '' when it passes, else what differed. */
function run(test: WptCase): string {
  let url;
  try {
    url = parseWhatwg(test.input, test.base);
  } catch (error) {
    if (!(error instanceof UrlError)) return `threw a non-UrlError: ${String(error)}`;
    return test.failure ? '' : `threw ${error.message}`;
  }
  if (test.failure) return `expected failure, got ${serializeWhatwg(url)}`;
  const actual: Record<(typeof GETTERS)[number], string> = {
    href: serializeWhatwg(url),
    protocol: protocolOf(url),
    username: url.username,
    password: url.password,
    host: hostOf(url),
    hostname: hostnameOf(url),
    port: portOf(url),
    pathname: pathnameOf(url),
    search: searchOf(url),
    hash: hashOf(url),
  };
  const diffs: string[] = [];
  for (const getter of GETTERS) {
    if (actual[getter] !== test[getter]) diffs.push(`${getter}: ${JSON.stringify(actual[getter])} != ${JSON.stringify(test[getter])}`);
  }
  if (test.origin !== undefined && originOf(url) !== test.origin) {
    diffs.push(`origin: ${JSON.stringify(originOf(url))} != ${JSON.stringify(test.origin)}`);
  }
  return diffs.join('; ');
}

describe('WPT urltestdata.json', () => {
  const results = cases.map((test) => ({ test, problem: run(test) }));
  const deviationKeys = new Set(deviations.map((d) => keyOf(d.input, d.base)));

  it('reports pass counts', () => {
    const groups = new Map<string, { total: number; passed: number }>();
    let passed = 0;
    for (const { test, problem } of results) {
      const group = groupOf(test);
      const counts = groups.get(group) ?? { total: 0, passed: 0 };
      counts.total++;
      if (problem === '') {
        counts.passed++;
        passed++;
      }
      groups.set(group, counts);
    }
    const lines = [`WPT urltestdata: ${passed}/${results.length} passed, ${deviations.length} known deviations`];
    for (const [group, counts] of [...groups].sort()) lines.push(`  ${group}: ${counts.passed}/${counts.total}`);
    console.log(lines.join('\n'));
    expect(results.length).toBe(891);
    expect(passed).toBe(results.length - deviations.length);
  });

  it('every deviation is a real test case with a reason', () => {
    const keys = new Set(cases.map((t) => keyOf(t.input, t.base)));
    for (const deviation of deviations) {
      expect(keys.has(keyOf(deviation.input, deviation.base)), JSON.stringify(deviation)).toBe(true);
      expect(deviation.reason.length).toBeGreaterThan(20);
    }
    expect(deviationKeys.size).toBe(deviations.length);
  });

  it('no new failures', () => {
    const unexpected = results
      .filter(({ test, problem }) => problem !== '' && !deviationKeys.has(keyOf(test.input, test.base)))
      .map(({ test, problem }) => `${JSON.stringify(test.input)} against ${JSON.stringify(test.base)}: ${problem}`);
    expect(unexpected).toEqual([]);
  });

  it('no listed deviation passes', () => {
    const fixed = results
      .filter(({ test, problem }) => problem === '' && deviationKeys.has(keyOf(test.input, test.base)))
      .map(({ test }) => JSON.stringify(test.input));
    expect(fixed).toEqual([]);
  });
});
