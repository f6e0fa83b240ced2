// The single pass (single-pass.ts) must agree with the full ladder: whenever it answers, its normal
// form, key and host are the ones the ladder gives, and it never answers for input the ladder
// rejects. Checked on hand-picked URLs, on every bench corpus line, and on generated input built
// from the characters where the two could part ways.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fingerprintWords, isNormalHttpUrl, keyFromRecord, recompose, UrlError, key, normalize, normalizeAndKey } from '../../src/normalize/index.js';
import { knownAuthorityFailure } from '../../src/normalize/single-pass/authority-failures.js';
import { memo } from '../../src/normalize/single-pass/authority.js';
import { normalizeWith, resolveNormalizeOptions } from '../../src/normalize/normalize.js';
import { keyFingerprintOf, normalOf, restOf, singlePassIdentity, singlePassKey, singlePassNormal, singlePassScan, SinglePassResult } from '../../src/normalize/single-pass/single-pass.js';
import { seededRandom } from '../../sites/seeded-random.js';

const CORPUS = new URL('../../bench/corpus/urls.txt', import.meta.url);
// `fast: false`: the ladder's rungs alone, neither the single pass nor the errors remembered for
// authorities it rejected (authority-failures.ts)
const DEFAULTS = { ...resolveNormalizeOptions(undefined), fast: false };
const STRICT = { ...resolveNormalizeOptions({ strict: true }), fast: false };

/** The full ladder, never the single pass; null for input it rejects. */
function ladder(u: string, o = DEFAULTS): { normal: string; key: string; hostPort: string } | null {
  try {
    const r = normalizeWith(u, o, true);
    return { normal: recompose(r), key: keyFromRecord(r), hostPort: (r.host ?? '') + (r.port === undefined ? '' : ':' + r.port) };
  } catch (error) {
    if (error instanceof UrlError) return null;
    throw error;
  }
}

/** What `f` gives for `u`: its result, or the code, message, input and detail of its `UrlError`. */
function outcome(f: (u: string) => string, u: string): string | { code: string; message: string; input: string; detail: string | undefined } {
  try {
    return f(u);
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    return { code: error.code, message: error.message, input: error.input, detail: error.detail };
  }
}

/**
 * Every URL through the public `key` twice (the second time an authority the ladder rejected
 * before fails from what was remembered) gives what the ladder alone gives: the key, or the same
 * error. Returns how many failed.
 */
function checkErrors(urls: readonly string[]): number {
  let failed = 0;
  for (let round = 0; round < 2; round++) {
    for (const u of urls) {
      const expected = outcome((x) => keyFromRecord(normalizeWith(x, DEFAULTS, true)), u);
      expect(outcome(key, u), u).toEqual(expected);
      expect(outcome(normalize, u), u).toEqual(typeof expected === 'string' ? recompose(normalizeWith(u, DEFAULTS, true)) : expected);
      if (round === 0 && typeof expected !== 'string') failed++;
    }
  }
  return failed;
}

/** Checks every URL; returns how many the single pass answered. */
function check(urls: readonly string[]): number {
  let answered = 0;
  const scan = new SinglePassResult();
  for (const u of urls) {
    const normal = singlePassNormal(u);
    const k = singlePassKey(u);
    // after a key, the normal form read from the same scan (what the store's admit does)
    const normalAfterKey = k === undefined || !singlePassScan(u, scan) ? undefined : normalOf(scan, u);
    const id = singlePassIdentity(u);
    // the key's fingerprint from the lanes its authority left (what the store's admit uses)
    const fp = new Int32Array(2);
    if (id !== undefined && singlePassScan(u, scan)) keyFingerprintOf(scan, restOf(scan, u), fp);
    expect(k === undefined, u).toBe(normal === undefined);
    expect(id === undefined, u).toBe(normal === undefined);
    if (normal === undefined) continue;
    answered++;
    const l = ladder(u);
    expect(l, `the ladder rejects ${JSON.stringify(u)} but the single pass answered`).not.toBeNull();
    expect(normal, u).toBe(l!.normal);
    expect(k, u).toBe(l!.key);
    expect(normalAfterKey, u).toBe(l!.normal);
    expect(id, u).toEqual({ normal: l!.normal, key: l!.key, scheme: l!.normal.startsWith('https:') ? 'https' : 'http', hostPort: l!.hostPort });
    expect([fp[0]! >>> 0, fp[1]! >>> 0], u).toEqual(fingerprintWords(l!.key));
    // and the public entry points give the same
    expect(normalize(u), u).toBe(normal);
    expect(key(u), u).toBe(k);
    const both = normalizeAndKey(u);
    expect([both.normal, both.key], u).toEqual([normal, k]);
    expect(isNormalHttpUrl(u), u).toBe(normal === u);
    // strict mode: the single pass answers only where the strict ladder gives the same
    const strict = singlePassNormal(u, true);
    if (strict !== undefined) {
      expect(strict, u).toBe(normal);
      expect(ladder(u, STRICT)?.normal, `strict ${u}`).toBe(normal);
      expect(singlePassKey(u, true), u).toBe(k);
      expect(normalize(u, { strict: true }), u).toBe(normal);
    }
  }
  return answered;
}

describe('single pass', () => {
  it('answers for normal URLs and the ordinary aliases, like the ladder', () => {
    const urls = [
      'http://example.com/', 'https://example.com/a/b?c=d&e', 'http://example.com:8080/x', 'http://a.b.c/%2F%20',
      'http://example.com/a/.b/..c/', 'https://example.com/?', 'http://x-y.z/~a_b', 'http://example.com/a;b=c/d:e@f',
      'HTTP://Example.COM/A', 'hTTpS://a.b', 'http://a.b:80/', 'https://a.b:443', 'http://a.b:/x', 'http://a.b:0080/',
      'http://a.b:08080/', 'http://a.b/%7e%7E%41%2f%2F%3a?%7e=%2f', 'http://a.b#frag', 'http://a.b/x?q#f%20g',
      'http://a.b?x', 'http://a.b/?#', 'http://a.b/a+b?c+d', 'https://www.postgresql.org/docs/15/sql.html#X',
    ];
    expect(check(urls)).toBe(urls.length);
    expect(singlePassNormal('HTTP://Example.COM/A')).toBe('http://example.com/A');
    expect(singlePassNormal('http://a.b:0080/')).toBe('http://a.b/');
    expect(singlePassNormal('http://a.b/%7e%7E%41%2f?%7e=%2f')).toBe('http://a.b/~~A%2F?~=%2F');
    expect(singlePassKey('https://www.Example.com:8443/p?q#f')).toBe('com,example,www)https://:8443/p?q');
  });

  it('answers for hosts, dot-segments and characters the ladder reads leniently, like the ladder', () => {
    const urls = [
      'http://1.2.3.4/', 'http://0x7f.1/', 'http://xn--p-e.com/', 'http://a.XN--p-e.com/', 'http://bücher.de/',
      'http://ПРИМЕР.ИСПЫТАНИЕ/x', 'http://café。example/', 'http://%41.b/', 'http://a_b.c/', 'http://a./', 'http://a/./b',
      'http://a/b/..', 'http://a/%2e/b', 'http://a/%2E%2E/', 'http://a/b/.%2e/c', 'http://a/b c', 'http://a/\\b\\..\\c',
      'http://a\\b', 'http://a/ü?ü', 'http://a/b?c d', 'http://a/[x]?[y]', 'http://a/b#c d', 'http://a/b#%', 'http://a/\ud800x',
      'http://a/\u{1F600}', 'http://a/b?c\\d',
    ];
    expect(check(urls)).toBe(urls.length);
    expect(singlePassNormal('http://a/b/.%2e/c')).toBe('http://a/c');
    expect(singlePassNormal('http://a\\b')).toBe('http://a/b');
    expect(singlePassKey('http://Bücher.de/')).toBe('de,xn--bcher-kva)http:///');
  });

  it('declines what only the ladder decides: userinfo, IP literals, whitespace to strip, bad ports, an escape after a stray "%"', () => {
    for (const u of [
      'http://u@a.b/', 'http://[::1]/', ' http://a/', 'http://a/ ', 'http://a/b\tc', 'http://a/b\nc', 'http://a/%%41',
      'http://a/%4%41', 'http://a/b?%%7e', 'http://a:99999/', 'http://a:123456/', 'http://a:8x/', 'http:a/', 'http:/a/',
      'http:///a', 'http://', 'http://:80/', 'ftp://a/', 'http:\\\\a/', 'http://1.2.3.4.5/', 'http://a.0x1/', 'http://a/b?% %g',
    ]) {
      expect(singlePassNormal(u), u).toBeUndefined();
    }
  });

  it('keeps a "%" that starts no escape as written, as the ladder does, and leaves it to the ladder in strict mode', () => {
    const urls = [
      'http://a/%zz', 'http://a/%', 'http://a/%4', 'http://a/b?%g', 'http://a.b/docs/100%.html', 'http://a.b/docs/100%.html#f',
      'http://a.b/c/a%2', 'http://a.b/c/a%2#%41', 'http://a.b/c/a%2?q', 'http://a.b/%zz/%7e', 'http://a.b/%zz/./%2e/%7E?%zz&%41',
      'http://a.b/x/%/../y', 'http://a.b/x%2e%zz/', 'http://a.b/x/%2e%zz/../y', 'http://a.b/%zz\\..\\y', 'http://a.b/%zz é',
      'HTTP://A.B:80/%zz', 'http://a.b/%4/%41%42', 'http://a.b/q?%zz=%7e%7e', 'http://a.b/q?a%2', 'http://a.b/%zz%20',
      'http://a.b/%z%41', 'http://a.b/%zz/%41', 'http://a.b/p?x=%z%41',
    ];
    const answered = check(urls);
    expect(answered).toBe(urls.length - 2); // all but the two where an escape follows within two characters
    expect(singlePassNormal('http://a.b/docs/100%.html#f')).toBe('http://a.b/docs/100%.html');
    expect(singlePassNormal('http://a.b/%zz/./%2e/%7E?%zz&%41')).toBe('http://a.b/%zz/~?%zz&A');
    expect(singlePassNormal('http://a.b/x/%/../y')).toBe('http://a.b/x/y');
    // already normal as written: the normal form is the input itself
    expect(isNormalHttpUrl('http://a.b/docs/100%.html')).toBe(true);
    // strict mode: ERR_INVALID_PERCENT, from the ladder
    expect(singlePassNormal('http://a.b/docs/100%.html', true)).toBeUndefined();
    expect(outcome((u) => key(u, { strict: true }), 'http://a.b/docs/100%.html')).toMatchObject({ code: 'ERR_INVALID_PERCENT' });
  });

  it('fails a URL whose authority the ladder rejected before with the same error, and only then', () => {
    const urls = [
      'https://[::1/x', 'https://[::1/y?q#f', 'HTTPS://[::1/z', 'https://[::1', 'https://a.b:80:80/x', 'https://a.b:99999/x',
      'https://a.b:99999', 'https://%zz.a.b/x', 'https://a<b/x', 'https://1.2.3.4.5/x', 'http://user@/x', 'https://:80/x',
      // the same text read two ways: a space ending the authority, then trailing (trimmed); a run of
      // slashes before the authority (skipped); a tab (removed): never remembered (a space inside,
      // 'https://a.b:8 0', is read one way and is)
      'https://a.b:80 /x', 'https://a.b:80 ', 'https://a.b:8 0/x', 'https:///a.b/x', 'https:////[::1/x', 'https:///[::1]/x',
      'https://a.b:8\t0/x', 'https://a.b:80\t', 'https://a.b:8\t0',
      // a space inside the authority is read one way: remembered (not at the end of the text)
      'https://www example.org/x', 'https://www example.org/y?q#f', 'https://www example.org', 'HTTPS://www example.org/z',
      'https://www example.org /x', 'https://www example.org ',
      // not http(s): the authority may end elsewhere (no "\\" in a non-special URL)
      'foo://[::1\\x/y', 'foo://[::1\\z/y', 'ftp://[::1/x', 'ftp://[::1/y',
    ];
    expect(checkErrors(urls)).toBeGreaterThan(15);
    // which texts were remembered: a space inside the authority, never one at its end
    expect(knownAuthorityFailure('https://www example.org/other')?.code).toBe('ERR_INVALID_HOST');
    expect(knownAuthorityFailure('https://a.b:8 0/other')?.code).toBe('ERR_INVALID_PORT');
    expect(knownAuthorityFailure('https://www example.org ')).toBeUndefined();
    expect(knownAuthorityFailure('https://a.b:80 ')).toBeUndefined();
    // strict mode neither uses nor fills the table
    expect(() => key('https://[::1/x', { strict: true })).toThrow(UrlError);
    // (the port fails in the scheme rung, after the strict parse has rejected the raw space)
    expect(outcome(key, 'https://a.b:99999/x')).toMatchObject({ code: 'ERR_INVALID_PORT' });
    expect(outcome((u) => key(u, { strict: true }), 'https://a.b:99999/x y')).toMatchObject({ code: 'ERR_INVALID_CHARACTER' });
  });

  it('reuses a remembered authority only for the exact same prefix', () => {
    // each URL shares a prefix with the one before; neither the memo of the last few authorities
    // nor the table of all of them (rounds 2 and 3 come back to each prefix) may carry an answer across
    const sequence = [
      'http://a.b/x', 'http://a.bc/y', 'http://a.b:81/', 'http://a.b:8/', 'http://a.b', 'http://a.b?x', 'http://a.b#x',
      'http://a.b\\x', 'http://a.b@c/', 'http://a.b.c/', 'http://a.b./', 'http://a.b:/', 'http://a.b:80/', 'http://a.b:080/',
      'HTTP://a.b/', 'https://a.b/', 'http://a.b/', 'http://A.b/', 'http://a.b%41/', 'http://a.b-/', 'http://a.b1/', 'http://a.1/',
      'http://a.b/', 'http://a.b/ ', 'http://a.b/\tx', 'http://xn--a.b/', 'http://a.b/',
    ];
    for (let round = 0; round < 3; round++) check(round === 1 ? [...sequence].reverse() : sequence);
  });

  it('compiles a remembered authority\'s expressions for a hit only, so a stream over many hosts stays cheap', () => {
    // hosts of one length and last letter pass the memo's first checks: a run built for each of
    // them would compile an expression per URL (a broad crawl's stream ran at a third of the speed)
    const hosts = Array.from({ length: 64 }, (_, i) => `http://h${(1000 + i).toString(36)}.site${i % 7}.example`);
    for (const h of hosts) singlePassKey(`${h}/p.html`);
    expect(memo.filter((a) => hosts.some((h) => a.prefix === h)).every((a) => a.run === undefined && a.anyCaseRun === undefined)).toBe(true);
    // a hit builds the run it needs (a normal form: the exact case first; a key: any case), and
    // answers as before
    const last = hosts[hosts.length - 1]!;
    expect(singlePassNormal(`${last}/q.html`)).toBe(`${last}/q.html`);
    expect(memo.find((a) => a.prefix === last)?.run).toBeDefined();
    expect(singlePassKey(`${last.toUpperCase()}/r.html`)).toBe(key(`${last}/r.html`));
    expect(memo.find((a) => a.prefix === last)?.anyCaseRun).toBeDefined();
  });

  it('reads an authority in another ASCII case as that authority, through the memo and the table', () => {
    const others = ['http://c.d/', 'http://e.f/', 'http://g.h/', 'http://i.j/', 'http://k.l/'];
    const sequence = [
      'http://a.b/x', 'HTTP://A.B/y', 'Http://A.b/y#f', 'http://A.B/p%41', 'http://A.B:80/', 'http://A.B', 'http://A.C/',
      ...others, // the memo forgets a.b: the next spellings go through the table, by their lowercase text
      'HTTP://A.B/z', 'hTTp://a.B/z?q', ...others, 'http://NEVER.SEEN/', 'http://never.seen/', 'HTTPS://NEVER.SEEN:443/',
      ...others, 'http://a.b/', 'http://a.b%41/', 'http://a.B%41/', 'http://a.b%61/', 'http://XN--P-E.COM/', 'http://xn--p-e.com/',
    ];
    for (let round = 0; round < 2; round++) check(round === 1 ? [...sequence].reverse() : sequence);
    singlePassKey('http://a.b/x');
    expect(singlePassNormal('HTTP://A.B/y')).toBe('http://a.b/y');
    expect(isNormalHttpUrl('HTTP://A.B/y')).toBe(false);
    expect(isNormalHttpUrl('http://a.b/y')).toBe(true);
  });

  it('reads an empty or default port after a remembered host as that host, and no other port', () => {
    // a bare prefix's runs take ":" and ":443" (https) or ":80" (http) after the host; every other
    // port, and a port after a prefix that has one, is its own authority
    const sequence = [
      'https://p.example/a', 'https://p.example:443/b', 'https://p.example:/c', 'https://p.example:443', 'https://p.example:',
      'https://p.example:443?q', 'https://p.example:#f', 'https://p.example:443/./x/%41#f', 'https://p.example:80/', 'https://p.example:4430/',
      'https://p.example:44/', 'https://p.example:0443/', 'https://p.example:443:443/', 'https://p.example::/', 'https://p.example:443\\x',
      'HTTPS://P.EXAMPLE:443/y', 'https://P.example:/z', 'http://p.example/a', 'http://p.example:80/b', 'http://p.example:443/',
      'http://p.example:8/', 'http://p.example:800/', 'https://p.example:8443/', 'https://p.example:8443:443/', 'https://p.example:443@q/',
    ];
    for (let round = 0; round < 3; round++) check(round === 1 ? [...sequence].reverse() : sequence);
    singlePassKey('https://p.example/a');
    expect(singlePassNormal('https://p.example:443/b')).toBe('https://p.example/b');
    expect(singlePassKey('https://p.example:/b')).toBe('example,p)https://' + '/b');
    expect(isNormalHttpUrl('https://p.example:443/b')).toBe(false);
    expect(singlePassNormal('https://p.example:4430/b')).toBe('https://p.example:4430/b');
  });

  it('goes on from where the authority run stopped: in the path, at a "/.", and in the query', () => {
    const urls = [
      'http://a.b/', 'http://a.b/x/./y', 'http://a.b/x/.', 'http://a.b/x/..', 'http://a.b/x/.well-known/%41', 'http://a.b/x/.%2e/y',
      'http://a.b/x/%2e/y', 'http://a.b/x/y%2E%2E/z', 'http://a.b/x?q=%41/./', 'http://a.b/x/./y?q=/../%7e', 'http://a.b/x?q/../%zz',
      'http://a.b/p/./q?r/../s#t', 'http://a.b/x/..?y', 'http://a.b/a\\b/../c', 'http://a.b/a b?c d', 'http://a.b/x?a?b%2f/./', 'http://a.b//./x',
      'http://a.b/x/y?', 'http://a.b/x/y?#', 'http://a.b/%7e/./?%7e', 'http://a.b/x/.?y', 'http://a.b/é?é', 'http://a.b/x/%41?%41#%41',
    ];
    for (let round = 0; round < 2; round++) expect(check(urls)).toBe(urls.length);
    expect(singlePassNormal('http://a.b/x?q=%41/./')).toBe('http://a.b/x?q=A/./');
    expect(singlePassNormal('http://a.b/x/./y?q=/../%7e')).toBe('http://a.b/x/y?q=/../~');
    expect(singlePassNormal('http://a.b/x/.well-known/%41')).toBe('http://a.b/x/.well-known/A');
  });

  it('tells apart remembered hosts of one length that end alike', () => {
    const urls = ['http://www.example.com/a', 'http://www.foobars.com/b', 'http://WWW.EXAMPLE.COM/c', 'http://www.fooBARS.com/d', 'https://www.example.com/e',
      'http://www.example.com:80/f', 'http://www.examplf.com/g', 'http://xww.example.com/h', 'http://www.example.com/i'];
    for (let round = 0; round < 3; round++) expect(check(urls)).toBe(urls.length);
    expect(singlePassKey('http://www.fooBARS.com/d')).toBe('com,foobars,www)http:///d');
    expect(singlePassKey('http://www.examplf.com/g')).toBe('com,examplf,www)http:///g');
  });

  it('declines trailing whitespace in a path or query, and drops it with a fragment, whatever it remembers', () => {
    const urls = ['http://a.b/x ', 'http://a.b/x?q ', 'http://a.b/x?q\t', 'http://a.b/x#f ', 'http://a.b/x#f\t', 'http://a.b/x# ', 'http://a.b ', 'http://a.b:80 ',
      'http://a.b/%41 ', 'http://a.b/%41#f ', 'http://a.b/./x#f \n'];
    // first unseen, then from the memo: the same answers
    for (let round = 0; round < 2; round++) expect(check(urls)).toBe(5);
    expect(singlePassNormal('http://a.b/x ')).toBeUndefined();
    expect(singlePassKey('http://a.b/x?q ')).toBeUndefined();
    expect(singlePassNormal('http://a.b/x#f\t')).toBe('http://a.b/x');
    expect(singlePassNormal('http://a.b/%41#f ')).toBe('http://a.b/A');
    expect(normalize('http://a.b/x ')).toBe('http://a.b/x');
    expect(singlePassNormal('http://a.b/x#f ', true)).toBeUndefined(); // strict: the ladder rejects it
  });

  it('walks the path for a "%2E" only where it may be part of a dot-segment', () => {
    const urls = [
      'http://a.b/x/%2ehtml', 'http://a.b/x/a%2e/y', 'http://a.b/x/a.%2e/y', 'http://a.b/x/%2e%2E/y', 'http://a.b/x/.%2E', 'http://a.b/x/%2E.',
      'http://a.b/x\\%2e%2e\\y', 'http://a.b/x/%2e?q', 'http://a.b/x/y/%2e%2e#f', 'http://a.b/x/%2e.%2e/y', 'http://a.b/%2e%2e%2e/',
      'http://a.b/x/%2e%41/y', 'http://a.b/x/%41%2e/y', 'http://a.b/x/%2e%2e%2fy', 'http://a.b/x/%2e/%2e%2e', 'http://a.b/x/%2e\\y',
    ];
    for (let round = 0; round < 2; round++) expect(check(urls)).toBe(urls.length);
    expect(singlePassNormal('http://a.b/x/y/%2e%2e#f')).toBe('http://a.b/x/');
    expect(singlePassNormal('http://a.b/x/%2e%2e%2fy')).toBe('http://a.b/x/..%2Fy');
    expect(singlePassNormal('http://a.b/x/%2ehtml')).toBe('http://a.b/x/.html');
    expect(singlePassNormal('http://a.b/x/%2e\\y')).toBe('http://a.b/x/y');
  });

  it('does not fold case beyond ASCII (Unicode case mapping is not UTS #46), nor for a prefix too long to match at once', () => {
    // JavaScript lowercases a final capital sigma to "ς"; UTS #46 maps it to "σ": different hosts
    const sigma = ['http://όσ.gr/', 'http://ΌΣ.gr/', 'http://ός.gr/', 'http://ΌΣ.GR/', 'http://όσ.gr/', 'http://ΌΣ.gr/x'];
    check(sigma);
    check([...sigma].reverse());
    expect(singlePassKey('http://ός.gr/')).not.toBe(singlePassKey('http://όσ.gr/'));
    // a prefix beyond ASCII folds its ASCII letters only; an ASCII prefix is matched in any ASCII
    // case, and characters that Unicode folds onto ASCII letters (Kelvin sign, long s) are left
    // to the host parser (UTS #46 maps them too, but by its own table)
    const folds = [
      'http://café.example/', 'HTTP://CAFé.EXAMPLE/a', 'http://CAFÉ.example/b', 'http://cafÉ.example/c', 'http://café.example/d',
      'http://kiss.example/', 'http://\u212Aiss.example/', 'http://ki\u017F\u017F.example/', 'HTTP://KISS.EXAMPLE/', 'http://kıss.example/',
    ];
    for (let round = 0; round < 2; round++) expect(check(round === 1 ? [...folds].reverse() : folds)).toBe(folds.length);
    // an authority longer than any DNS name is compared as text, not by a compiled expression
    const long = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(63), 'e'.repeat(40)].join('.');
    const longs = [`http://${long}/x`, `http://${long}/y#f`, `HTTP://${long.toUpperCase()}/z`, `http://${long}/%7e`, `http://${long}:80/`];
    for (let round = 0; round < 2; round++) expect(check(longs)).toBe(longs.length);
  });

  it('agrees with the ladder on every bench corpus URL', () => {
    const urls = readFileSync(CORPUS, 'utf8').split('\n').filter(Boolean);
    const answered = check(urls);
    const failed = checkErrors(urls.filter((u) => ladder(u) === null));
    console.log(`single pass: answered ${answered} of ${urls.length} corpus URLs; ${failed} rejected, with the ladder's errors`);
    expect(answered).toBeGreaterThan(urls.length / 2);
    expect(failed).toBeGreaterThan(500);
  }, 120_000);

  it('agrees with the ladder on generated input (seeded)', () => {
    const seed = 0x5191e;
    const rnd = seededRandom(seed);
    const schemes = ['http://', 'https://', 'HTTP://', 'hTtPs://', 'http:/', 'http:', 'ftp://', ' http://', 'http://u@', 'http://u:p@'];
    const labels = ['a', 'B', 'ab', 'Com', 'x1', '9', '0x1', 'xn--a', 'Xn--b', '-', 'a-b', '', 'ü', '_', '%41', '[::1]', '1'];
    const ports = ['', '', '', ':', ':80', ':443', ':0', ':080', ':8080', ':65535', ':65536', ':123456', ':8a'];
    const pieces = ['a', 'Z', '~', "'", '(', '*', ':', '@', ';', '=', '+', '&', '$', '!', ',', '.', '..', '-', '_',
      '%2e', '%2E', '%7e', '%7E', '%41', '%2f', '%2F', '%3a', '%C3%BC', '%', '%g', '%4',
      ' ', '\\', '\t', '|', '"', '<', '^', '`', '{', 'é', '\u{1F600}', '[', ']', '/', '?', '#'];
    const junk = (p: number): string => (rnd.next() < p ? rnd.pick(pieces) : '');
    const segment = (): string => {
      let seg = '';
      for (let j = rnd.int(0, 3); j > 0; j--) seg += rnd.next() < 0.8 ? rnd.pick(pieces.slice(0, 31)) : rnd.pick(pieces);
      return seg;
    };
    const urls: string[] = [];
    for (let n = 0; n < 20_000; n++) {
      let u = rnd.pick(schemes);
      const hostLabels: string[] = [];
      for (let j = rnd.int(1, 4); j > 0; j--) hostLabels.push(rnd.next() < 0.85 ? rnd.pick(labels.slice(0, 5)) : rnd.pick(labels));
      u += hostLabels.join('.') + rnd.pick(ports);
      for (let j = rnd.int(0, 4); j > 0; j--) u += '/' + segment();
      if (rnd.next() < 0.4) u += '?' + segment() + junk(0.2) + segment();
      if (rnd.next() < 0.3) u += '#' + segment() + junk(0.2);
      urls.push(u + junk(0.05));
    }
    const answered = check(urls);
    const failed = checkErrors(urls);
    console.log(`single pass, generated (seed ${seed}): answered ${answered} of ${urls.length}; ${failed} rejected, with the ladder's errors`);
    expect(answered).toBeGreaterThan(1000);
    expect(failed).toBeGreaterThan(1000);
  }, 120_000);
});
