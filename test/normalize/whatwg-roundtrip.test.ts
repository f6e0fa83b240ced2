/**
 * Differential test against Node's own WHATWG URL parser (docs/reliability.md `norm/whatwg-roundtrip`),
 * property-based: random http and https inputs (relative and absolute, against a few bases),
 * parsed in `html` mode (`parseWhatwg`), then
 *
 * 1. round trip: `new URL(ourSerialization)` gives the same scheme, host, port, path and query
 *    as our record, and its href is our serialization unchanged — what the guard checks (our
 *    record) and what the fetcher connects to (Node's parse of our string) are the same URL;
 * 2. direct: `new URL(input, base)` fails exactly when we fail, and otherwise gives the same
 *    components.
 *
 * Node 20's parser (ada) follows an older URL Standard in a few places, and has one bug that
 * http and https URLs meet. The generator only makes http and https URLs, so of the known places
 * three can arise, and exactly those are excluded:
 *
 * - `^` in a path: the path percent-encode set gained U+005E (whatwg/url#846); we encode it as
 *   `%5E`, Node 20 leaves it. In the direct comparison only (a round trip of `%5E` agrees), Node's
 *   path is compared with its `^` written `%5E`, and nothing else is relaxed (counted as
 *   `caretRewritten`).
 * - ASCII `xn--` labels that are not valid Punycode (`xn--`, `xn--pokxncvks`): whatwg/url#914 made
 *   an ASCII domain pass through domain-to-ASCII lowercased; Node 20 still runs ToASCII on it and
 *   fails. Excluded where Node fails and a label of our host starts with `xn--` and Node's
 *   `domainToASCII` refuses that label.
 * - a dot-segment after a segment that starts with ".": Node 20 leaves `http://e.com/a/.b/.` and
 *   `/a/.C|/../x` as written, where the URL Standard's path state removes them (`/a/.b/`, `/a/x`),
 *   as it does for `/a/b/.`. A parsed special URL's path never holds a dot-segment, so in the
 *   direct comparison, where Node's path holds one, the input is counted (`nodeDotSegment`) and
 *   not compared. Found by this test (seed 895799135: `http:\\\\example.com//.C|/.`).
 * - (not generated) a space before `?` or `#` in an opaque path, and `/..` in non-special URLs:
 *   neither exists in http and https URLs.
 *
 * Time-boxed: 10 s in `npm test`, 60 s under `URLDEDUP_LONG=1` (split between the two
 * properties); the seed is printed. Entries of test/regressions/property-seeds.json with
 * `"test": "whatwg-roundtrip"` are replayed first.
 */
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/errors.js';
import { parseWhatwg, serializeWhatwg, type WhatwgUrl } from '../../src/normalize/resolve-html.js';
import { serializePath } from '../../src/normalize/whatwg/url-serializer.js';
import { freshSeed, printRegression, propertyBudgetMs, regressions, type SeedEntry } from '../support/regressions.js';

const BUDGET_MS = propertyBudgetMs(10_000) / 2;

const BASES = ['http://example.com/a/b?q#f', 'https://user:pw@h.example:8443/dir/', 'http://[::1]/x/', 'http://127.0.0.1/', 'HTTPS://EXAMPLE.ORG'];

const SCHEMES = ['', '', '', 'http://', 'https://', 'HTTP://', 'hTTps://', 'http:', 'https:', '//', '\\\\', 'http:\\\\', 'https:/', ' http://', '\t', '\u0000http://', '\nhttps://'];
const USERINFO = ['', '', '', 'user@', 'a:b@', '@', 'a@b@', '%40@', 'us er:p@ss@', ':@', 'a:@'];
const HOSTS = [
  'example.com', 'EXAMPLE.com', 'a.b.c', 'xn--', 'xn--pokxncvks', 'xn--nxasmq6b', 'XN--NXASMQ6B', 'bücher.de', 'ＥＸＡＭＰＬＥ。com', 'faß.de',
  '\u0430pple.com', '127.0.0.1', '0x7f.1', '2130706433', '127.1', '0177.0.0.1', '1.2.3.4.', '999.1.1.1', '[::1]', '[::ffff:127.0.0.1]',
  '[1:2:3:4:5:6:7:8]', '[::]', '%41.com', 'a..b', '%zz', 'a b', 'a%00b', '', 'a.', '.a', 'ex%2Eample', '\u00ad.com',
];
const PORTS = ['', '', '', ':', ':80', ':443', ':0080', ':8080', ':65535', ':65536', ':x', ':-1'];
const PATH_TOKENS = [
  '/', '/', '/', 'a', 'B', '..', '.', '%2e', '%2E', '%2e%2e', '.%2E', '\\', '^', '`', '{', '}', '|', ' ', '"', '<', '>', '%', '%zz', '%41',
  '%2F', 'é', '\ud83d\ude00', '\ud800', '\t', '\n', ';', '=', '&', '@', ':', '[', ']', '~', "'", '!', '$', '*', '+', ',', 'C|', 'xn--',
];
const QUERY_TOKENS = [...PATH_TOKENS, '?', '#', '&amp;', '%26', '+'];

const token = (list: readonly string[]): fc.Arbitrary<string> => fc.constantFrom(...list);
const run = (list: readonly string[], max: number): fc.Arbitrary<string> => fc.array(token(list), { maxLength: max }).map((t) => t.join(''));

/** An input and the base it is parsed against (null: absolute only). */
const input: fc.Arbitrary<readonly [string, string | null]> = fc
  .record({
    scheme: token(SCHEMES),
    userinfo: token(USERINFO),
    host: token(HOSTS),
    port: token(PORTS),
    path: run(PATH_TOKENS, 8),
    query: fc.option(run(QUERY_TOKENS, 6)),
    fragment: fc.option(run(QUERY_TOKENS, 3)),
    base: fc.option(token(BASES), { freq: 5 }),
  })
  .map((r) => {
    const relative = r.scheme === '' || r.scheme === '\t';
    // a relative input is a path reference (no authority) half the time
    const authority = relative && r.path.length % 2 === 0 ? '' : `${r.userinfo}${r.host}${r.port}`;
    const text = `${r.scheme}${authority}${authority !== '' && !r.path.startsWith('/') && r.path !== '' ? '/' : ''}${r.path}${r.query === null ? '' : '?' + r.query}${r.fragment === null ? '' : '#' + r.fragment}`;
    return [text, relative ? (r.base ?? BASES[0]!) : r.base] as const;
  });

interface Components {
  readonly scheme: string;
  readonly host: string | null;
  readonly port: string;
  readonly path: string;
  readonly query: string | null;
}

function ours(record: WhatwgUrl): Components {
  return { scheme: record.scheme, host: record.host, port: record.port === null ? '' : String(record.port), path: serializePath(record), query: record.query };
}

/** Node's components; the query read from href, so an empty query (`?`) differs from none. */
function node(u: URL): Components {
  const href = u.href;
  const hash = href.indexOf('#');
  const bare = hash === -1 ? href : href.slice(0, hash);
  const q = bare.indexOf('?');
  return { scheme: u.protocol.slice(0, -1), host: u.hostname, port: u.port, path: u.pathname, query: q === -1 ? null : bare.slice(q + 1) };
}

function tryOurs(text: string, base: string | null): WhatwgUrl | null {
  try {
    return parseWhatwg(text, base, { maxLength: 1_000_000 });
  } catch (error) {
    if (error instanceof UrlError) return null;
    throw error;
  }
}

function tryNode(text: string, base?: string | null): URL | null {
  try {
    return base === null || base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    return null;
  }
}

/** Node 20 refuses an ASCII `xn--` label that is not valid Punycode (whatwg/url#914 lets it through). */
function hasInvalidPunycodeLabel(host: string | null): boolean {
  if (host === null) return false;
  return host.split('.').some((label) => label.startsWith('xn--') && domainToASCII(label) === '');
}

/**
 * Node 20 leaves `^` in paths (whatwg/url#846 added it to the path percent-encode set): Node's
 * path with `^` written `%5E`, and whether that changed anything.
 */
function caretEncoded(c: Components): { components: Components; changed: boolean } {
  if (!c.path.includes('^')) return { components: c, changed: false };
  return { components: { ...c, path: c.path.replaceAll('^', '%5E') }, changed: true };
}

interface Tally {
  inputs: number;
  compared: number;
  bothFailed: number;
  excludedXn: number;
  caretRewritten: number;
  nodeDotSegment: number;
  notHttp: number;
}

/** A dot-segment ("." or "..", §3.3) in a path, which the URL Standard never leaves in a special URL's. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

function roundTrip(tally: Tally): fc.IProperty<[readonly [string, string | null]]> {
  return fc.property(input, ([text, base]) => {
    tally.inputs++;
    const record = tryOurs(text, base);
    if (record === null) return true;
    if (record.scheme !== 'http' && record.scheme !== 'https') return void tally.notHttp++;
    const serialized = serializeWhatwg(record);
    const parsed = tryNode(serialized);
    if (parsed === null && hasInvalidPunycodeLabel(record.host)) return void tally.excludedXn++;
    expect(parsed, `Node cannot parse our serialization ${JSON.stringify(serialized)} of ${JSON.stringify(text)}`).not.toBeNull();
    expect(node(parsed!), `${JSON.stringify(text)} against ${JSON.stringify(base)} → ${serialized}`).toEqual(ours(record));
    // and the whole string is a fixed point of Node's parser (userinfo and fragment included)
    expect(parsed!.href).toBe(serialized);
    tally.compared++;
    return true;
  });
}

function direct(tally: Tally): fc.IProperty<[readonly [string, string | null]]> {
  return fc.property(input, ([text, base]) => {
    tally.inputs++;
    const record = tryOurs(text, base);
    const parsed = tryNode(text, base);
    if (record === null && parsed === null) return void tally.bothFailed++;
    if (record !== null && record.scheme !== 'http' && record.scheme !== 'https') return void tally.notHttp++;
    if (record !== null && parsed === null && hasInvalidPunycodeLabel(record.host)) return void tally.excludedXn++;
    if (record !== null && parsed !== null && DOT_SEGMENT.test(parsed.pathname)) return void tally.nodeDotSegment++;
    expect(record === null, `${JSON.stringify(text)} against ${JSON.stringify(base)}: ours ${record === null ? 'fails' : serializeWhatwg(record)}, Node ${parsed === null ? 'fails' : parsed.href}`).toBe(parsed === null);
    const { components, changed } = caretEncoded(node(parsed!));
    if (changed) tally.caretRewritten++;
    expect(components, `${JSON.stringify(text)} against ${JSON.stringify(base)}`).toEqual(ours(record!));
    tally.compared++;
    return true;
  });
}

const PROPERTIES = { 'round trip': roundTrip, direct } as const;

function newTally(): Tally {
  return { inputs: 0, compared: 0, bothFailed: 0, excludedXn: 0, caretRewritten: 0, nodeDotSegment: 0, notHttp: 0 };
}

describe('whatwg-roundtrip: our html-mode parse against Node 20 new URL()', () => {
  const kept = regressions<SeedEntry & { property?: keyof typeof PROPERTIES }>('property-seeds', 'whatwg-roundtrip');

  it.each(kept.map((e) => [e.seed, e] as const))('replays property-seeds.json entry seed=%s', (_seed, entry) => {
    for (const [name, make] of Object.entries(PROPERTIES)) {
      if (entry.property !== undefined && entry.property !== name) continue;
      const tally = newTally();
      fc.assert(make(tally), { seed: entry.seed, ...(entry.path === undefined ? { numRuns: 2000 } : { path: entry.path, numRuns: 1 }) });
      console.log(`whatwg-roundtrip replay seed=${entry.seed} ${name}: ${JSON.stringify(tally)}`);
    }
  });

  it.each(Object.keys(PROPERTIES) as (keyof typeof PROPERTIES)[])('%s: same scheme, host, port, path and query', (name) => {
    const seed = freshSeed();
    console.log(`whatwg-roundtrip ${name} seed=${seed} budget=${BUDGET_MS} ms`);
    const tally = newTally();
    const details = fc.check(PROPERTIES[name](tally), { seed, numRuns: 10_000_000, plugins: [fc.interruptAfterTimeLimit(BUDGET_MS)] });
    console.log(`whatwg-roundtrip ${name} seed=${seed}: ${JSON.stringify(tally)}`);
    if (details.failed) {
      printRegression('property-seeds', { test: 'whatwg-roundtrip', property: name, seed: details.seed, path: details.counterexamplePath ?? undefined, note: 'failed' } as SeedEntry);
      throw new Error(fc.defaultReportMessage(details) ?? 'failed');
    }
    expect(tally.compared).toBeGreaterThan(1000);
  }, BUDGET_MS + 30_000);
});
