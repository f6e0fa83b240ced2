/**
 * Super-linear blow-up (docs/reliability.md `norm/regex-redos`): a 100,000-character input aimed at
 * each policy preset — repeated `;jsessionid=`, `&`, `www.`, `%` runs, `/` runs, `utm_`, ASP.NET
 * `(S(`, `index.html`, empty host labels, sort keys — run through the whole ladder with every
 * preset on and with the targeted preset alone, and through `key()`, `resolve()` (both modes)
 * and `parseWhatwg`.
 *
 * The presets are hand-written scanners (no regular expressions), so the property is "linear
 * time", held by a generous hang guard per input: a quadratic scan of 100k characters takes
 * minutes, a linear one milliseconds. Nothing asserts speed beyond that guard. Each result is a
 * string (and idempotent) or a coded `UrlError`, never another exception.
 */
import { describe, expect, it } from 'vitest';
import {
  key,
  normalize,
  parseWhatwg,
  presets as allPresets,
  resolve,
  UrlError,
  type PresetName,
} from '../../src/normalize/index.js';

const N = 100_000;
const HANG_GUARD_MS = 2000;
const LIMITS = { maxLength: 1_000_000 } as const;
const EVERY_PRESET = Object.keys(allPresets) as PresetName[];

const fill = (unit: string, length = N): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** [name, the preset it aims at, the input]. */
const INPUTS: readonly (readonly [string, PresetName, string])[] = [
  [';jsessionid= repeated in one segment', 'session-ids', 'http://a/p' + fill(';jsessionid=')],
  [';jsessionid=X; repeated', 'session-ids', 'http://a/p' + fill(';jsessionid=0A1B2C3D;')],
  [';jsessionid= in every segment', 'session-ids', 'http://a' + fill('/x;jsessionid=1')],
  ['ASP.NET (S( nested', 'session-ids', 'http://a/' + fill('(S(')],
  ['ASP.NET (S(…)) groups', 'session-ids', 'http://a/(' + fill('S(abcdefghijklmnopqrstuvwx)') + ')/x'],
  ['sid=<token>& repeated', 'session-ids', 'http://a/?' + fill('sid=0123456789abcdefghij&')],
  ['& repeated', 'remove-empty-params', 'http://a/?' + fill('&')],
  ['=& repeated', 'remove-empty-params', 'http://a/?' + fill('=&')],
  ['& repeated, with sorting', 'sort-query', 'http://a/?' + fill('&')],
  ['many fields to sort', 'sort-query', 'http://a/?' + Array.from({ length: 12_000 }, (_, i) => `k${(i * 7919) % 12_000}=v`).join('&')],
  ['one key repeated', 'sort-query', 'http://a/?' + fill('a=1&a=0&')],
  ['utm_ repeated in one name', 'tracking', 'http://a/?' + fill('utm_')],
  ['utm_x=1& repeated', 'tracking', 'http://a/?' + fill('utm_x=1&')],
  ['gclid= repeated', 'tracking', 'http://a/?' + fill('gclid=')],
  ['? repeated', 'remove-empty-query', 'http://a/?' + fill('?')],
  ['query then remove-query', 'remove-query', 'http://a/x?' + fill('q=1&')],
  ['www. repeated', 'www', 'http://' + fill('www.', 250) + 'example.com/'],
  ['www. repeated, long', 'www', 'http://' + fill('www.') + 'example.com/'],
  ['empty host labels', 'remove-empty-host-labels', 'http://a' + fill('.', 250) + 'com/'],
  ['empty host labels, long', 'remove-empty-host-labels', 'http://a' + fill('.') + 'com/'],
  ['/ run', 'collapse-slashes', 'http://a' + fill('/')],
  ['// then a segment, repeated', 'collapse-slashes', 'http://a' + fill('//x')],
  ['% run in the path', 'collapse-slashes', 'http://a/' + fill('%')],
  ['% run in the query', 'tracking', 'http://a/?' + fill('%')],
  ['%% and %41 mixed', 'session-ids', 'http://a/' + fill('%%41;jsessionid=')],
  ['%2525 nesting', 'remove-trailing-slash', 'http://a/' + fill('%25') + '/'],
  ['index.html repeated', 'remove-index-document', 'http://a' + fill('/index.html')],
  ['a/ repeated, trailing slash', 'remove-trailing-slash', 'http://a/' + fill('a/')],
  ['userinfo : and @ runs', 'remove-userinfo', 'http://' + fill(':@', 50_000) + 'a/'],
  ['userinfo a: repeated', 'remove-userinfo', 'http://' + fill('a:') + '@host/'],
  ['../ run', 'collapse-slashes', 'http://a/' + fill('../') + 'x'],
  ['%2e%2e/ run', 'collapse-slashes', 'http://a/' + fill('%2e%2e/') + 'x'],
];

interface Outcome {
  readonly ms: number;
  readonly result: string;
}

/** Run `fn`; a string result must be a fixed point of `again` (when given), an error must be coded. */
function timed(fn: () => string, again?: (s: string) => string): Outcome {
  const t = performance.now();
  let result: string;
  try {
    const out = fn();
    if (again !== undefined) expect(again(out)).toBe(out);
    result = `ok (${out.length} chars)`;
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    result = error.code;
  }
  return { ms: performance.now() - t, result };
}

describe('100k-character inputs aimed at each preset finish under the hang guard', () => {
  it('covers every preset', () => {
    const aimed = new Set(INPUTS.map(([, p]) => p));
    expect(EVERY_PRESET.filter((p) => !aimed.has(p))).toEqual([]);
  });

  it.each(INPUTS)('%s (%s)', (_name, preset, input) => {
    const runs: Record<string, Outcome> = {
      [`normalize, ${preset}`]: timed(
        () => normalize(input, { ...LIMITS, presets: [preset] }),
        (s) => normalize(s, { ...LIMITS, presets: [preset] }),
      ),
      'normalize, every preset': timed(
        () => normalize(input, { ...LIMITS, presets: EVERY_PRESET }),
        (s) => normalize(s, { ...LIMITS, presets: EVERY_PRESET }),
      ),
      'key, every preset': timed(() => key(input, { ...LIMITS, presets: EVERY_PRESET })),
      'normalize, syntax': timed(() => normalize(input, { ...LIMITS, level: 'syntax' })),
      'resolve rfc3986': timed(() => resolve(input.slice(8), 'http://b/c/d', { ...LIMITS, mode: 'rfc3986' })),
      'resolve html': timed(() => resolve(input.slice(8), 'http://b/c/d', { ...LIMITS, mode: 'html' })),
      parseWhatwg: timed(() => parseWhatwg(input, null, LIMITS).scheme),
    };
    const slowest = Math.max(...Object.values(runs).map((r) => r.ms));
    console.log(`${input.length} chars, slowest ${slowest.toFixed(1)} ms: ${Object.entries(runs).map(([k, r]) => `${k} ${r.ms.toFixed(1)} ms ${r.result}`).join('; ')}`);
    for (const [k, r] of Object.entries(runs)) expect(r.ms, k).toBeLessThan(HANG_GUARD_MS);
  }, 60_000);
});
