// Hostile input to the normalizer: each gives the documented result or a coded error, in linear time.
// Hang guards only (generous timeouts), never a performance assertion.
import { describe, expect, it } from 'vitest';
import { key, normalize, removeDotSegments, resolve, UrlError } from '../../src/normalize/index.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof UrlError) return error.code;
    throw error;
  }
}

describe('size', () => {
  it('an 8 MiB URL is refused before parsing', () => {
    const huge = 'http://a/' + 'x'.repeat(8 * 1024 * 1024);
    expect(code(() => normalize(huge))).toBe('ERR_TOO_LONG');
    expect(code(() => key(huge))).toBe('ERR_TOO_LONG');
    expect(code(() => resolve(huge, 'http://a/'))).toBe('ERR_TOO_LONG');
    expect(code(() => resolve('x', huge, { mode: 'html' }))).toBe('ERR_TOO_LONG');
  });
  it('a several-megabyte URL is handled in linear time when the limit allows it', () => {
    const big = 'http://a/' + 'b/'.repeat(1_500_000) + '?' + 'q'.repeat(1_000_000);
    const out = normalize(big, { maxLength: 8 * 1024 * 1024 });
    expect(out.length).toBe(big.length);
  }, 10_000);
  it('a 100k-label host is refused or handled quickly', () => {
    const host = 'a.'.repeat(100_000) + 'com';
    const r = code(() => normalize(`http://${host}/`, { maxLength: 1_000_000 }));
    expect(r === undefined || r === 'ERR_INVALID_HOST').toBe(true);
  }, 10_000);
});

describe('dot-segments', () => {
  it('a million ../ resolve to /a in linear time', () => {
    expect(removeDotSegments('/' + '../'.repeat(1_000_000) + 'a')).toBe('/a');
    expect(removeDotSegments('/a/b/..'.repeat(200_000))).toBe('/a'.repeat(200_000) + '/');
  }, 10_000);
  it('through the ladder too', () => {
    expect(normalize('http://h/' + '../'.repeat(1_000_000) + 'a', { maxLength: 4_000_000 })).toBe('http://h/a');
    expect(normalize('http://h/' + '%2e%2E/'.repeat(300_000) + 'a', { maxLength: 4_000_000 })).toBe('http://h/a');
  }, 10_000);
});

describe('percent-encoding', () => {
  it.each([
    ['http://a/%2525252e', 'http://a/%2525252e'],
    ['http://a/%252e%252e/b', 'http://a/%252e%252e/b'],
    ['http://a/%%32%65', 'http://a/%%32e'],
    ['http://a/%%32%65%32%65', 'http://a/%%32e2e'],
    ['http://a/%4%41', 'http://a/%4%41'],
  ])('%s decodes once at most and never makes a dot: %s', (input, expected) => {
    expect(normalize(input)).toBe(expected);
    expect(normalize(expected)).toBe(expected);
  });
  it.each(['%C0%AF', '%FF', '%ED%A0%80', '%E0%A4', '%c0%af'])('invalid UTF-8 %s stays encoded, uppercase', (seq) => {
    expect(normalize(`http://a/x${seq}y`)).toBe(`http://a/x${seq.toUpperCase()}y`);
  });
  it('a lone surrogate is U+FFFD leniently and an error strictly', () => {
    expect(normalize('http://a/\uD800')).toBe('http://a/%EF%BF%BD');
    expect(code(() => normalize('http://a/\uD800', { strict: true }))).toBe('ERR_INVALID_CHARACTER');
  });
});

describe('NUL and controls', () => {
  it('the normal form is printable ASCII, so key separators cannot collide', () => {
    const inputs = ['http://a/\u0000', 'http://a/%00', '\u0000http://a/', 'http://a/\u001fb', 'http://a/x y\u007f', 'http://a/\u00a0'];
    for (const input of inputs) {
      let n: string;
      try {
        n = normalize(input);
      } catch (error) {
        expect(error).toBeInstanceOf(UrlError);
        continue;
      }
      expect(n).toMatch(/^[\x21-\x7e]+$/);
    }
    expect(normalize('http://a/%00')).toBe('http://a/%00');
    expect(normalize('\u0000http://a/b\u0000')).toBe('http://a/b');
  });
});

describe('userinfo spoofing', () => {
  it('http://trusted.com@evil.com/ has host evil.com', () => {
    expect(key('http://trusted.com@evil.com/').startsWith('com,evil)')).toBe(true);
  });
  it('backslash: a browser reads trusted.com; strict mode refuses', () => {
    expect(key('http://trusted.com\\@evil.com').startsWith('com,trusted)')).toBe(true);
    expect(code(() => normalize('http://trusted.com\\@evil.com', { strict: true }))).toBe('ERR_INVALID_AUTHORITY');
  });
});

describe('IDN homographs and IPv4 forms', () => {
  it('Cyrillic а is not Latin a', () => {
    expect(key('http://\u0430pple.com/')).toBe('com,xn--pple-43d)http:///');
    expect(key('http://\u0430pple.com/')).not.toBe(key('http://apple.com/'));
  });
  it('every IPv4 number form is one host', () => {
    const forms = ['2130706433', '0x7f.1', '0177.0.0.1', '127.1', '0x7F000001', '127.0.0.1'];
    expect(new Set(forms.map((h) => normalize(`http://${h}/`)))).toEqual(new Set(['http://127.0.0.1/']));
    expect(normalize('http://[::ffff:127.0.0.1]/')).toBe('http://[::ffff:7f00:1]/');
  });
});
