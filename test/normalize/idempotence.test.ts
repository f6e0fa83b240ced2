// normalize(normalize(x)) === normalize(x) for every rung, and only UrlError is ever thrown.
// Property-based (fast-check), time-boxed; the seed is printed so a failure can be replayed.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { key, normalize, UrlError, type NormalizeOptions } from '../../src/normalize/index.js';

const LONG = process.env.URLDEDUP_LONG === '1';
const BUDGET_MS = LONG ? 60_000 : 4_000;

/** Tokens that stress the ladder: encodings of dots and percent, delimiters, IDNA and session ids. */
const TOKENS = [
  '%2e', '%2E', '.', '..', '/', '//', '%25', '%', '%00', '%7e', '%7E', '%2F', '%2f', '@', '\\', ':', '[', ']', '?', '#',
  'xn--', ';jsessionid=ABCDEF0123456789ABCDEF0123456789', '\u3002', '\uff0e', 'a', 'B', '0', '9', ' ', '\t', '\u00e9', '\ud83d\ude00',
  '\ud800', '+', '&', '=', 'utm_source=x', '%C0%AF', 'www.', '%41', '~', "'", '|', '{', '0x7f', '127.1', '::1',
];
const token = fc.constantFrom(...TOKENS);
const piece = fc.array(token, { maxLength: 6 }).map((t) => t.join(''));
// (with and without an authority: `file:a/b` and `foo:/.//g` are where a path becomes a host)
const prefix = fc.constantFrom('http://', 'HTTPS://', 'http:', 'ws://', 'ftp://', 'file://', 'file:', 'file:/', 'foo://', 'foo:', 'foo:/', 'mailto:', 'http:\\\\', ' http://');
const url = fc.tuple(prefix, piece, fc.constantFrom('', '/', ':80', ':', '@h'), piece, fc.option(piece), fc.option(piece)).map(
  ([p, host, mid, path, q, f]) => `${p}${host || 'h'}${mid}/${path}${q === null ? '' : '?' + q}${f === null ? '' : '#' + f}`,
);

const OPTION_SETS: NormalizeOptions[] = [
  {},
  { level: 'syntax' },
  { keepFragment: true },
  { strict: true },
  { presets: ['tracking', 'session-ids', 'sort-query', 'www'] },
];

describe('a path never becomes an authority', () => {
  it.each([
    ['file:a/b', 'file:a/b'],
    ['file:../../.././', 'file:../../.././'],
    ['file:/.//g', 'file:////g'],
    ['foo:/.//g', 'foo:/.//g'],
    ['file:/a/./b', 'file:///a/b'],
  ])('%s → %s, once and for all', (input, expected) => {
    expect(normalize(input)).toBe(expected);
    expect(normalize(normalize(input))).toBe(expected);
  });
});

describe('idempotence', () => {
  it.each(OPTION_SETS.map((o) => [JSON.stringify(o), o] as const))('normalize is idempotent with %s', (_name, options) => {
    const seed = Date.now() ^ 0x5eed;
    console.log(`idempotence ${JSON.stringify(options)} seed=${seed}`);
    let tried = 0;
    fc.assert(
      fc.property(url, (u) => {
        tried++;
        let once: string;
        try {
          once = normalize(u, options);
        } catch (error) {
          if (!(error instanceof UrlError)) throw error;
          return true;
        }
        expect(normalize(once, options)).toBe(once);
        expect(key(once, options)).toBe(key(u, options));
        return true;
      }),
      { seed, interruptAfterTimeLimit: BUDGET_MS, numRuns: LONG ? 10_000_000 : 200_000 },
    );
    console.log(`idempotence ${JSON.stringify(options)}: ${tried} inputs`);
    expect(tried).toBeGreaterThan(100);
  }, BUDGET_MS + 20_000);
});
