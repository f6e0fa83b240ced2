// No false positives (RFC 3986 §6.1): when two URLs get one normal form at the syntax rung, an
// independent oracle (decode only unreserved percent-encodings, compare component octets) agrees;
// and equal at a lower rung implies equal at a higher one.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalize, UrlError } from '../../src/normalize/index.js';

const LONG = process.env.URLDEDUP_LONG === '1';
const BUDGET_MS = LONG ? 60_000 : 4_000;

/** The oracle: bytes of a component, with only unreserved %XX decoded and hex case ignored. */
function oracleComponent(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, h: string) => {
    const ch = String.fromCharCode(parseInt(h, 16));
    return /[A-Za-z0-9\-._~]/.test(ch) ? ch : '%' + h.toUpperCase();
  });
}

/** Components per RFC 3986 Appendix B, oracle-normalized; scheme and host case-folded. */
function oracle(u: string): string[] | null {
  const m = /^(([^:/?#]+):)?(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/.exec(u);
  if (!m) return null;
  const path = oracleComponent(m[5] ?? '');
  return [
    (m[2] ?? '').toLowerCase(),
    oracleComponent(m[4] ?? '').toLowerCase(),
    // dot-segments are licensed by §6.2.2.3: compare the path after resolving them with URL's own algorithm
    path,
    m[6] === undefined ? '\u0000none' : oracleComponent(m[7] ?? ''),
    m[8] === undefined ? '\u0000none' : oracleComponent(m[9] ?? ''),
  ];
}

function removeDots(path: string): string {
  const out: string[] = [];
  const segs = path.split('/');
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (s === '.' || s === '..') {
      if (s === '..' && out.length > 1) out.pop();
      if (i === segs.length - 1) out.push('');
    } else out.push(s);
  }
  return out.join('/');
}

const ch = fc.constantFrom('a', 'A', 'b', '%41', '%61', '%2F', '%2f', '/', '.', '..', '%2E', '%2e', '~', '%7E', '%7e', '%25', '+', '%20', '-', '_', '=', '&', ';', 'Z');
const seg = fc.array(ch, { maxLength: 5 }).map((a) => a.join(''));
const url = fc
  .record({
    scheme: fc.constantFrom('http', 'HTTP', 'foo'),
    host: fc.constantFrom('a', 'A', 'b'),
    path: fc.array(seg, { maxLength: 4 }).map((a) => '/' + a.join('/')),
    query: fc.option(seg, { nil: undefined }),
  })
  .map((r) => `${r.scheme}://${r.host}${r.path}${r.query === undefined ? '' : '?' + r.query}`);

function tryNormalize(u: string, level: 'syntax' | 'scheme'): string | null {
  try {
    return normalize(u, { level, keepFragment: true });
  } catch (error) {
    if (error instanceof UrlError) return null;
    throw error;
  }
}

describe('no false positive', () => {
  it('syntax-equal pairs are oracle-equal; syntax-equal implies scheme-equal', () => {
    const seed = Date.now() ^ 0xfa15e;
    console.log(`no-false-positive seed=${seed}`);
    let pairs = 0;
    let merged = 0;
    fc.assert(
      fc.property(url, url, (a, b) => {
        pairs++;
        const na = tryNormalize(a, 'syntax');
        const nb = tryNormalize(b, 'syntax');
        if (na === null || nb === null) return true;
        if (na === nb) {
          merged++;
          const oa = oracle(a)!;
          const ob = oracle(b)!;
          oa[2] = removeDots(oa[2]!);
          ob[2] = removeDots(ob[2]!);
          expect(oa).toEqual(ob);
          expect(tryNormalize(a, 'scheme')).toBe(tryNormalize(b, 'scheme'));
        }
        return true;
      }),
      { seed, interruptAfterTimeLimit: BUDGET_MS, numRuns: LONG ? 10_000_000 : 500_000 },
    );
    console.log(`no-false-positive: ${pairs} pairs, ${merged} merged at the syntax rung`);
    expect(merged).toBeGreaterThan(0);
  }, BUDGET_MS + 20_000);
});
