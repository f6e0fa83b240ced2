/**
 * Our own WHATWG cases: links as they are found in HTML, resolved as a browser resolves <a href>.
 * Same shape as the shared test data: { input, base, expected, section, note }.
 */
import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/errors.js';
import {
  defaultPort,
  isSpecialScheme,
  parseWhatwg,
  resolveHtml,
  serializeWhatwg,
} from '../../src/normalize/resolve-html.js';

interface Case {
  readonly input: string;
  readonly base: string;
  /** null: the parser must fail. */
  readonly expected: string | null;
  readonly section: string;
  readonly note: string;
}

const PAGE = 'http://example.com/a/b/c';

const cases: readonly Case[] = [
  { input: '  /a\tb\n ', base: PAGE, expected: 'http://example.com/ab', section: 'basic URL parser 1-3', note: 'trim C0 control or space, remove tab and newline' },
  { input: '\u0000\u001f /x \u000b', base: PAGE, expected: 'http://example.com/x', section: 'basic URL parser 1', note: 'leading and trailing C0 controls' },
  { input: '..\\x', base: PAGE, expected: 'http://example.com/a/x', section: 'path state', note: '"\\" is "/" in special URLs' },
  { input: '\\\\server\\share\\f', base: PAGE, expected: 'http://server/share/f', section: 'relative slash state', note: '"\\\\" starts an authority' },
  { input: 'http:foo', base: PAGE, expected: 'http://example.com/a/b/foo', section: 'special relative or authority state', note: 'same special scheme as the base: relative' },
  { input: 'http:/foo', base: PAGE, expected: 'http://example.com/foo', section: 'relative slash state', note: 'same scheme, absolute path' },
  { input: 'https:foo', base: PAGE, expected: 'https://foo/', section: 'special authority slashes state', note: 'another special scheme: foo is the host' },
  { input: '//host/p', base: PAGE, expected: 'http://host/p', section: 'relative slash state', note: 'scheme-relative' },
  { input: '//HOST:80/p', base: PAGE, expected: 'http://host/p', section: 'port state', note: 'default port dropped, host lowercased' },
  { input: '?q', base: PAGE, expected: 'http://example.com/a/b/c?q', section: 'relative state', note: 'query only' },
  { input: '#f', base: `${PAGE}?q`, expected: 'http://example.com/a/b/c?q#f', section: 'relative state', note: 'fragment keeps the query' },
  { input: '', base: `${PAGE}?q#f`, expected: 'http://example.com/a/b/c?q', section: 'relative state', note: 'empty href is the base without its fragment' },
  { input: '%2e%2E/x', base: PAGE, expected: 'http://example.com/a/x', section: 'double-dot URL path segment', note: '%2e forms, any case' },
  { input: '.%2e/%2E/x', base: PAGE, expected: 'http://example.com/a/x', section: 'single-dot URL path segment', note: 'mixed forms' },
  { input: '/a/./b/../c/..', base: PAGE, expected: 'http://example.com/a/', section: 'path state', note: 'trailing ".." leaves an empty segment' },
  { input: '../../../../x', base: PAGE, expected: 'http://example.com/x', section: 'shorten path', note: 'cannot go above the root' },
  { input: '%2e%2e%2fx', base: PAGE, expected: 'http://example.com/a/b/%2e%2e%2fx', section: 'path state', note: '%2f is not a separator' },
  { input: 'HTTP://EXAMPLE.COM:80/', base: PAGE, expected: 'http://example.com/', section: 'scheme state', note: 'scheme and host lowercased' },
  { input: 'http://user:pa ss@host/', base: PAGE, expected: 'http://user:pa%20ss@host/', section: 'userinfo percent-encode set', note: '' },
  { input: 'http://a@b@host/', base: PAGE, expected: 'http://a%40b@host/', section: 'authority state', note: 'the last "@" ends the userinfo' },
  { input: '/ü?ü#ü', base: PAGE, expected: 'http://example.com/%C3%BC?%C3%BC#%C3%BC', section: 'UTF-8 percent-encode', note: '' },
  { input: "/?'", base: PAGE, expected: "http://example.com/?%27", section: 'special-query percent-encode set', note: "' is encoded in special queries" },
  { input: "sc://h/?'", base: PAGE, expected: "sc://h/?'", section: 'query percent-encode set', note: "but not in other queries" },
  { input: '/\ud800x', base: PAGE, expected: 'http://example.com/%EF%BF%BDx', section: 'USVString', note: 'a lone surrogate becomes U+FFFD' },
  { input: 'http://[::FFFF:127.0.0.1]/', base: PAGE, expected: 'http://[::ffff:7f00:1]/', section: 'IPv6 serializer', note: '' },
  { input: 'http://0x7f.1/', base: PAGE, expected: 'http://127.0.0.1/', section: 'IPv4 parser', note: '' },
  { input: 'http://ＥＸＡＭＰＬＥ。com/', base: PAGE, expected: 'http://example.com/', section: 'domain to ASCII', note: 'full-width and ideographic full stop' },
  { input: 'mailto:Foo@Example.com', base: PAGE, expected: 'mailto:Foo@Example.com', section: 'opaque path state', note: 'untouched' },
  { input: 'javascript:void(0)', base: PAGE, expected: 'javascript:void(0)', section: 'opaque path state', note: '' },
  { input: 'file:///C|/x/../y', base: PAGE, expected: 'file:///C:/y', section: 'file state', note: 'Windows drive letter normalized' },
  { input: 'http://exa mple.com/', base: PAGE, expected: null, section: 'host parser', note: 'space is a forbidden host code point' },
  { input: 'http://host:99999/', base: PAGE, expected: null, section: 'port state', note: 'port out of range' },
  { input: 'http://', base: PAGE, expected: null, section: 'host state', note: 'special URL without a host' },
  { input: 'x', base: 'mailto:a@b', expected: null, section: 'no scheme state', note: 'relative against an opaque path' },
];

describe('resolveHtml: links found in HTML', () => {
  it.each(cases)('$input against $base ($section)', ({ input, base, expected }) => {
    if (expected === null) {
      expect(() => resolveHtml(input, base)).toThrow(UrlError);
      try {
        resolveHtml(input, base);
      } catch (error) {
        expect((error as UrlError).code).toBe('ERR_INVALID_URL');
      }
    } else {
      expect(resolveHtml(input, base)).toBe(expected);
    }
  });

  it('alternating bases do not leak through the base memo', () => {
    expect(resolveHtml('x', 'http://a/1/')).toBe('http://a/1/x');
    expect(resolveHtml('x', 'http://b/2/')).toBe('http://b/2/x');
    expect(resolveHtml('x', 'http://a/1/')).toBe('http://a/1/x');
  });
});

describe('parseWhatwg', () => {
  it('returns the URL record', () => {
    expect(parseWhatwg('HTTPS://u:p@Example.com:443/a/../b?q#f')).toEqual({
      scheme: 'https',
      username: 'u',
      password: 'p',
      host: 'example.com',
      port: null,
      path: ['b'],
      query: 'q',
      fragment: 'f',
    });
    expect(parseWhatwg('data:text/plain,hi').path).toBe('text/plain,hi');
  });

  it('takes a URL record as the base and never changes it', () => {
    const base = parseWhatwg('http://example.com/a/b');
    const snapshot = structuredClone(base);
    expect(serializeWhatwg(parseWhatwg('../c', base))).toBe('http://example.com/c');
    expect(base).toEqual(snapshot);
  });

  it('fails on an invalid base', () => {
    expect(() => parseWhatwg('x', 'not a url')).toThrow(UrlError);
  });

  it('checks maxLength before parsing', () => {
    const long = 'http://example.com/' + 'a'.repeat(16384);
    try {
      parseWhatwg(long);
      expect.fail('expected ERR_TOO_LONG');
    } catch (error) {
      expect((error as UrlError).code).toBe('ERR_TOO_LONG');
    }
    expect(parseWhatwg(long, null, { maxLength: 20_000 }).host).toBe('example.com');
  });

  it('serializes without the fragment on request', () => {
    expect(serializeWhatwg(parseWhatwg('http://a/b#c'), true)).toBe('http://a/b');
  });
});

describe('special schemes', () => {
  it('knows the six special schemes and their default ports', () => {
    expect(['http', 'https', 'ws', 'wss', 'ftp', 'file'].every(isSpecialScheme)).toBe(true);
    expect(isSpecialScheme('sc')).toBe(false);
    expect(defaultPort('http')).toBe(80);
    expect(defaultPort('wss')).toBe(443);
    expect(defaultPort('ftp')).toBe(21);
    expect(defaultPort('file')).toBeNull();
  });
});
