// RFC 3986 examples (test/fixtures/conformance/rfc3986.json): §5.4 resolution, §5.2.4, §6.2 equivalence.
import { describe, expect, it } from 'vitest';
import { key, normalize, removeDotSegments, resolve } from '../../src/normalize/index.js';
import { removeDotSegmentsBetween } from '../../src/normalize/remove-dot-segments.js';
import { readTestdata } from '../support/testdata.js';

interface ResolveCase { base: string; ref: string; expected: string; section: string; expected_non_strict?: string }
const data = readTestdata<{
  resolve: ResolveCase[];
  remove_dot_segments: { input: string; expected: string }[];
  equivalent: string[][];
  not_equivalent: { a: string; b: string; section: string }[];
}>('rfc3986.json');

describe('RFC 3986 §5.4 reference resolution (rfc3986 mode)', () => {
  it.each(data.resolve)('$section $ref', (c) => {
    expect(resolve(c.ref, c.base)).toBe(c.expected);
    if (c.expected_non_strict !== undefined) {
      expect(resolve(c.ref, c.base, { strict: false })).toBe(c.expected_non_strict);
    }
  });
  it('passes all 42 examples', () => {
    const passed = data.resolve.filter((c) => resolve(c.ref, c.base) === c.expected).length;
    console.log(`rfc3986.json resolve: ${passed}/${data.resolve.length}`);
    expect(data.resolve.length).toBe(42);
    expect(passed).toBe(42);
  });
});

describe('RFC 3986 §5.2.4 remove_dot_segments', () => {
  it.each(data.remove_dot_segments)('$input', (c) => {
    expect(removeDotSegments(c.input)).toBe(c.expected);
    // read in place, between other text with slashes and dots on either side (the single pass's way)
    const within = `/../x/.${c.input}/../?a/./b`;
    const start = '/../x/.'.length;
    expect(removeDotSegmentsBetween(within, start, start + c.input.length)).toBe(c.expected);
    // from the first "/." on, the plain segments before it taken as they are
    const first = c.input.indexOf('/.');
    if (first > 0) expect(removeDotSegmentsBetween(within, start, start + c.input.length, start + first)).toBe(c.expected);
    // and up to the last "/.", with no search after it
    const last = c.input.lastIndexOf('/.');
    if (first >= 0) expect(removeDotSegmentsBetween(within, start, start + c.input.length, start + first, start + last)).toBe(c.expected);
  });
  it('starts at the first "/." with the plain segments before it kept whole', () => {
    expect(removeDotSegmentsBetween('x/a/b/../c/./d', 1, 14, 5)).toBe('/a/c/d');
    expect(removeDotSegmentsBetween('/a/b/..', 0, 7, 4)).toBe('/a/');
    expect(removeDotSegmentsBetween('/a/b/../../../c', 0, 15, 4)).toBe('/c');
  });
  it('moves the rest after the last "/." whole when told where that is', () => {
    expect(removeDotSegmentsBetween('/a/./b/c/d.e/f', 0, 14, 2, 2)).toBe('/a/b/c/d.e/f');
    expect(removeDotSegmentsBetween('/a/./b/../c/.x/y', 0, 16, 2, 11)).toBe('/a/c/.x/y');
    expect(removeDotSegmentsBetween('/a/b/..', 0, 7, 4, 4)).toBe('/a/');
  });
});

describe('RFC 3986 §6.2 equivalence', () => {
  it.each(data.equivalent.map((g, i) => [i, g] as const))('group %i gets one key', (_i, group) => {
    const keys = new Set(group.map((u) => key(u)));
    expect([...keys]).toHaveLength(1);
  });
  it('the §6.2.2 example normalizes to the RFC normal form', () => {
    expect(normalize('eXAMPLE://a/./b/../b/%63/%7bfoo%7d')).toBe('example://a/b/c/%7Bfoo%7D');
  });
  it.each(data.not_equivalent)('$a is not $b ($section)', (c) => {
    expect(key(c.a)).not.toBe(key(c.b));
  });
});

describe('§5.2: a target without an authority never gains one', () => {
  it('keeps "/." before a path that dot-segment removal leaves starting with "//"', () => {
    expect(resolve('.//g', 'f:/a', { mode: 'rfc3986' })).toBe('f:/.//g');
    expect(resolve('../..//g', 'f:/a/b/c', { mode: 'rfc3986' })).toBe('f:/.//g');
    expect(resolve('f:/..//g', 'x:/y', { mode: 'rfc3986' })).toBe('f:/.//g');
    // with an authority the path is free to start with "//"
    expect(resolve('.//g', 'http://a/b', { mode: 'rfc3986' })).toBe('http://a//g');
  });

  it('over every combination of dot-segments and empty segments', () => {
    const parts = ['.', '..', '', 'g', 'x'];
    for (const a of parts) for (const b of parts) for (const c of parts) {
      const ref = `${a}/${b}/${c}`;
      if (ref.startsWith('//')) continue; // a network-path reference: its authority is its own
      for (const base of ['f:/a', 'f:/a/b/', 'f:a', 'f:/']) {
        const target = resolve(ref, base, { mode: 'rfc3986' });
        // what was written without an authority reads back without one
        expect(target.startsWith('f://'), `${ref} against ${base}: ${target}`).toBe(false);
      }
    }
  });
});

describe('strict parsing is the RFC 3986 grammar', () => {
  it('refuses a relative path whose first segment holds ":" and an IP-literal that is no IPv6 address', async () => {
    const { parseUriReference } = await import('../../src/normalize/parse.js');
    for (const bad of ['::', ':x', '1a:b/c']) expect(() => parseUriReference(bad, { strict: true }), bad).toThrow(/ERR_INVALID_SCHEME/);
    for (const bad of ['http://[::12345]/', 'http://[1:2:3:4:5:6:7:8:9]/', 'http://[::g]/']) expect(() => parseUriReference(bad, { strict: true }), bad).toThrow(/ERR_INVALID_HOST/);
    // what the grammar allows
    for (const ok of ['./a:b', 'a/b:c', 'http://[::]/', 'http://[::ffff:1.2.3.4]/', 'http://[v7.x]/', '//h/p:q']) expect(() => parseUriReference(ok, { strict: true }), ok).not.toThrow();
    // lenient parsing keeps reading `::` as a path, as browsers read it
    expect(parseUriReference('::').path).toBe('::');
  });
});
