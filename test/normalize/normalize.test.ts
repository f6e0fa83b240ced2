// Our own normalization cases, in the shared JSON shape { input, expected | expected_error, section, note }.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { isNativeError } from 'node:util/types';
import { describe, expect, it } from 'vitest';
import { key, normalize, parseSpecialHost, UrlError, type NormalizeOptions } from '../../src/normalize/index.js';
import { StoreError } from '../../src/store/errors.js';
import { FetchError } from '../../src/crawler/errors.js';

interface Case { input: string; expected?: string; expected_error?: string; section: string; note?: string }
const load = (name: string): Case[] => JSON.parse(readFileSync(new URL(`./cases/${name}`, import.meta.url), 'utf8')) as Case[];

function outcome(input: string, options?: NormalizeOptions): string {
  try {
    return normalize(input, options);
  } catch (error) {
    if (error instanceof UrlError) return `!${error.code}`;
    throw error;
  }
}

function check(c: Case, options?: NormalizeOptions): void {
  const got = outcome(c.input, options);
  expect(got).toBe(c.expected ?? `!${c.expected_error}`);
  if (c.expected !== undefined) expect(outcome(got, options)).toBe(got); // idempotent
}

describe('normalize (lenient, default)', () => {
  it.each(load('normalize.json'))('$section $input', (c) => check(c));
});

describe('normalize { strict: true }', () => {
  it.each(load('strict.json'))('$section $input', (c) => check(c, { strict: true }));
});

describe('levels', () => {
  it('syntax only keeps the default port and empty path', () => {
    expect(normalize('HTTP://A:80', { level: 'syntax' })).toBe('http://a:80');
    expect(normalize('HTTP://A:80/%7e#f', { level: 'syntax' })).toBe('http://a:80/~#f');
  });
  it('keepFragment keeps the fragment, normalized', () => {
    expect(normalize('http://a/#%7e x', { keepFragment: true })).toBe('http://a/#~%20x');
  });
  it('rejects conflicting options up front', () => {
    expect(() => normalize('http://a/', { level: 'scheme', presets: ['tracking'] })).toThrow(TypeError);
    expect(() => normalize('http://a/', { presets: ['nope' as never] })).toThrow(TypeError);
  });
  it('maxLength is checked before parsing', () => {
    expect(outcome('http://a/' + 'x'.repeat(20000))).toBe('!ERR_TOO_LONG');
    expect(outcome('http://a/xx', { maxLength: 5 })).toBe('!ERR_TOO_LONG');
  });
  it('maxSegments', () => {
    expect(outcome('http://a/1/2/3/4', { maxSegments: 3 })).toBe('!ERR_TOO_MANY_SEGMENTS');
    expect(outcome('http://a/1/2/3', { maxSegments: 3 })).toBe('http://a/1/2/3');
  });
});

describe('errors', () => {
  function thrown(fn: () => unknown): UrlError {
    try {
      fn();
    } catch (error) {
      if (error instanceof UrlError) return error;
      throw error;
    }
    throw new Error('nothing thrown');
  }

  it('a bad-input error carries its code and input, and no stack frames unless asked for', () => {
    const limit = Error.stackTraceLimit;
    const e = thrown(() => normalize('http://[::1/x'));
    expect([e.code, e.input, e.name]).toEqual(['ERR_INVALID_HOST', 'http://[::1/x', 'UrlError']);
    expect(e.stack).toBe(`UrlError: ${e.message}`);
    expect(Error.stackTraceLimit).toBe(limit); // restored for everyone else
    expect(new Error('other').stack).toMatch(/\n\s+at /);
    UrlError.captureStackTraces = true;
    try {
      expect(thrown(() => normalize('http://[::1/x')).stack).toMatch(/\n\s+at /);
    } finally {
      UrlError.captureStackTraces = false;
    }
  });

  it('an invalid host is reported with the whole URL as the input, the host in the message', () => {
    for (const [u, host] of [['https://postgr es/c/1', 'postgr%20es'], ['http://1.2.3.4.5/', '1.2.3.4.5'], ['http://%zz.a/', '%zz.a'], ['http://[::g]/x', undefined]] as const) {
      for (const fn of [() => normalize(u), () => key(u)]) {
        const e = thrown(fn);
        expect([e.code, e.input], u).toEqual(['ERR_INVALID_HOST', u]);
        if (host !== undefined) expect(e.message, u).toContain(JSON.stringify(host));
      }
    }
    // the host parser on its own reports the host it was given
    expect(thrown(() => parseSpecialHost('1.2.3.4.5')).input).toBe('1.2.3.4.5');
  });

  it('builds the message when it is read, and reads like any error', () => {
    const e = new UrlError('ERR_INVALID_HOST', 'http://a b/"x"', { detail: 'space' });
    expect(Object.hasOwn(e, 'message')).toBe(false);
    expect(e.message).toBe('ERR_INVALID_HOST: "http://a b/\\"x\\"" (space)');
    expect(String(e)).toBe(`UrlError: ${e.message}`);
    expect(e.stack).toBe(`UrlError: ${e.message}`);
    expect(inspect(e)).toContain(`UrlError: ${e.message}`);
    expect([e instanceof Error, e instanceof UrlError, isNativeError(e)]).toEqual([true, true, true]);
    expect(JSON.parse(JSON.stringify(e))).toEqual({ code: 'ERR_INVALID_HOST', input: 'http://a b/"x"', detail: 'space' });
    expect(new UrlError('ERR_TOO_LONG', 'x'.repeat(300)).message).toBe(`ERR_TOO_LONG: "${'x'.repeat(200)}… (300 chars)"`);
    const cause = new Error('underneath');
    expect(new UrlError('ERR_INVALID_HOST', 'http://a b/', { cause }).cause).toBe(cause);
    expect(new StoreError('ERR_STORE_IO', '/db', { cause }).cause).toBe(cause);
    // an assignment replaces it, as on any error
    e.message = 'rewritten';
    expect([e.message, String(e)]).toEqual(['rewritten', 'UrlError: rewritten']);
    expect(new UrlError('ERR_INVALID_HOST', 'http://c/').message).toBe('ERR_INVALID_HOST: "http://c/"');
  });

  it('store and fetch errors keep their stack frames', () => {
    expect(new StoreError('ERR_STORE_IO', '/tmp/db').stack).toMatch(/\n\s+at /);
    expect(new FetchError('ERR_BODY_TOO_LARGE', 'http://a/').stack).toMatch(/\n\s+at /);
  });
});
