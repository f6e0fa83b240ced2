// identify(url, options?): one scan's normal form, key (head and rest), scheme, host[:port] and
// fingerprint agree with what key(), normalize(), fingerprintWords() and the store's hostOf() give
// on their own, for every input: the bench corpus (a deterministic sample), the shared testdata's
// URLs, invalid input (the same error code) and non-default options.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fingerprintWords, identify, identifyInto, key, normalize, normalizeRecord, parseUriReference, UrlError, UrlIdentity, type NormalizeOptions } from '../../src/normalize/index.js';
import { hostOf } from '../../src/store/rules.js';
import { TESTDATA } from '../support/testdata.js';

const CORPUS = new URL('../../bench/corpus/urls.txt', import.meta.url);

/** Every 10th line of the corpus, from line `offset`: 20k URLs. */
function corpusSample(offset = 0, step = 10): string[] {
  const lines = readFileSync(CORPUS, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: string[] = [];
  for (let i = offset; i < lines.length; i += step) out.push(lines[i]!);
  return out;
}

/** Every string in the shared testdata that starts like an absolute URI or holds "//" (inputs, bases, expectations). */
function testdataInputs(): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length < 4096 && (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(v) || v.includes('//'))) found.add(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  for (const name of readdirSync(TESTDATA)) {
    if (name.endsWith('.json')) walk(JSON.parse(readFileSync(new URL(name, TESTDATA), 'utf8')));
  }
  return [...found];
}

type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string; detail: string | undefined };

function outcome<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    return { ok: false, code: error.code, message: error.message, detail: error.detail };
  }
}

/** What identify must give for `u`, from the separate entry points. */
function expected(u: string, options?: NormalizeOptions) {
  return outcome(() => {
    const k = key(u, options);
    const normal = normalize(u, options);
    // the ladder's record, as the store's hostOf reads it; `key` checked the input's length, and
    // normalizeRecord would apply `maxLength` to the normal form too, which may be longer (IDNA)
    const rec = normalizeRecord(u, { ...options, maxLength: Number.MAX_SAFE_INTEGER });
    const [high, low] = fingerprintWords(k);
    return { key: k, normal, scheme: rec.scheme ?? '', hostPort: hostOf(rec), fingerprint: [high, low] };
  });
}

function actual(id: UrlIdentity) {
  expect(id.keyHead + id.keyRest).toBe(id.key);
  return { key: id.key, normal: id.normal, scheme: id.scheme, hostPort: id.hostPort, fingerprint: [id.fingerprintHigh >>> 0, id.fingerprintLow >>> 0] };
}

/** Checks identify and identifyInto (one reused record) on every URL; returns how many were valid. */
function check(urls: readonly string[], options?: NormalizeOptions): number {
  const reused = new UrlIdentity();
  let valid = 0;
  for (const u of urls) {
    const want = expected(u, options);
    const got = outcome(() => actual(identify(u, options)));
    expect(got, u).toEqual(want);
    expect(outcome(() => actual(identifyInto(u, reused, options))), u).toEqual(want);
    // the record cut from the scan is the one parsing the normal form gives (the store's admit
    // reads it instead of parsing the normal form again)
    if (want.ok && reused.record === undefined) expect(reused.normalRecord(), u).toEqual(parseUriReference(want.value.normal));
    if (want.ok) valid++;
  }
  return valid;
}

describe('identify', () => {
  it('agrees with key, normalize, fingerprint and the store host on 20k corpus lines', () => {
    const sample = corpusSample();
    expect(sample.length).toBe(20000);
    const valid = check(sample);
    // the corpus holds 902 invalid lines in 200k: the sample has some of each
    expect(valid).toBeGreaterThan(19000);
    expect(valid).toBeLessThan(20000);
  });

  it('agrees on the shared testdata inputs, invalid ones giving the same error', () => {
    const inputs = testdataInputs();
    expect(inputs.length).toBeGreaterThan(500);
    // twice: the second time an authority the ladder rejected fails from what was remembered
    for (let round = 0; round < 2; round++) check(inputs);
  });

  it('throws the UrlError key() throws, code and detail, for invalid input', () => {
    const invalid = [
      '',
      'not a url',
      '/relative/path',
      'http://',
      'http://[::1/x',
      'http://a.b:99999/',
      'http://a.b:80:80/',
      'https://exa mple.com/',
      'http://a\u0000b/',
      'http://a.b%zz/',
      'http://a.b/' + 'x'.repeat(20000),
    ];
    for (let round = 0; round < 2; round++) {
      for (const u of invalid) {
        const want = expected(u);
        expect(want.ok, u).toBe(false);
        expect(outcome(() => actual(identify(u))), u).toEqual(want);
      }
    }
  });

  it('agrees under non-default options', () => {
    const sample = [...corpusSample(3, 200), ...testdataInputs()];
    const options: NormalizeOptions[] = [
      { level: 'syntax' },
      { level: 'scheme' },
      { strict: true },
      { keepFragment: true },
      { presets: ['tracking', 'session-ids'] },
      { maxLength: 60 },
      { maxSegments: 3 },
    ];
    for (const o of options) check(sample, o);
  });

  it('splits the key at the authority when the single pass answers, and gives the ladder record otherwise', () => {
    const out = new UrlIdentity();
    identifyInto('HTTPS://WWW.Example.COM:443/a/./b?q#f', out);
    expect(out.keyHead).toBe('com,example,www)https://');
    expect(out.keyRest).toBe('/a/b?q');
    expect(out.normal).toBe('https://www.example.com/a/b?q');
    expect([out.scheme, out.hostPort, out.record]).toEqual(['https', 'www.example.com', undefined]);
    identifyInto('http://u:p@Example.com:8080/x', out);
    expect([out.keyHead, out.keyRest]).toEqual(['', 'com,example)http://u:p@:8080/x']);
    expect([out.normal, out.scheme, out.hostPort]).toEqual(['http://u:p@example.com:8080/x', 'http', 'example.com:8080']);
    expect(out.record?.userinfo).toBe('u:p');
    // every field overwritten, the normal form too
    identifyInto('http://a.b/c', out);
    expect([out.normal, out.key, out.record]).toEqual(['http://a.b/c', 'b,a)http:///c', undefined]);
    identifyInto('mailto:Joe@Example.COM', out);
    expect([out.normal, out.key, out.scheme, out.hostPort]).toEqual(['mailto:Joe@example.com', ')mailto:Joe@example.com', 'mailto', '']);
  });
});
