import { describe, expect, it } from 'vitest';
import { UrlError } from '../../src/normalize/errors.js';
import {
  hostKind,
  parseIPv4,
  parseIPv6,
  parseOpaqueHost,
  parseSpecialHost,
  serializeIPv4,
  serializeIPv6,
} from '../../src/normalize/host.js';

function expectInvalidHost(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UrlError);
    expect((error as UrlError).code).toBe('ERR_INVALID_HOST');
    return;
  }
  expect.fail('expected ERR_INVALID_HOST');
}

describe('parseSpecialHost: IPv4 number forms (URL Standard §3.5 IPv4 parser)', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['0X7f.0.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['4294967295', '255.255.255.255'],
    ['1.2.65535', '1.2.255.255'],
    ['192.168.257', '192.168.1.1'],
  ])('%s -> %s', (input, expected) => {
    expect(parseSpecialHost(input)).toBe(expected);
  });

  // "foo.0x10" ends in a number, so it goes to the IPv4 parser and fails on "foo".
  it.each(['192.168.0.257', 'foo.0x10', '4294967296', '256.0.0.1', '1.2.3.4.5', '0x100000000', '1.2.3.08', '09', '1..2', '1.2.3.4.5.'])(
    'rejects %s',
    (input) => expectInvalidHost(() => parseSpecialHost(input)),
  );

  it('leaves domains whose last label is not a number alone', () => {
    expect(parseSpecialHost('1.2.3.4x')).toBe('1.2.3.4x');
    expect(parseSpecialHost('0x.example')).toBe('0x.example');
  });
});

describe('parseIPv4 / serializeIPv4', () => {
  it('returns null for a host that does not end in a number', () => {
    expect(parseIPv4('example.com')).toBeNull();
    expect(parseIPv4('')).toBeNull();
    expect(parseIPv4('.')).toBeNull();
  });
  it('returns the 32-bit address', () => {
    expect(parseIPv4('127.1')).toBe(0x7f000001);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
  });
  it('throws for an invalid number form', () => {
    expectInvalidHost(() => parseIPv4('1.256.1.1'));
  });
  it('serializes dotted decimal', () => {
    expect(serializeIPv4(0xc0a80001)).toBe('192.168.0.1');
  });
});

describe('IPv6 (URL Standard §3.5 IPv6 parser, RFC 5952 serialization)', () => {
  it.each([
    ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'],
    ['[2001:DB8:0:0:0:0:0:1]', '[2001:db8::1]'],
    ['[0:0:0:0:0:0:0:0]', '[::]'],
    ['[::1]', '[::1]'],
    ['[1:0:0:2:0:0:0:3]', '[1:0:0:2::3]'],
    ['[1:0:0:2:0:0:3:4]', '[1::2:0:0:3:4]'],
    ['[1:0:2:3:4:5:6:7]', '[1:0:2:3:4:5:6:7]'],
    ['[0001:0db8::0001]', '[1:db8::1]'],
    ['[::127.0.0.1]', '[::7f00:1]'],
  ])('%s -> %s', (input, expected) => {
    expect(parseSpecialHost(input)).toBe(expected);
    expect(parseOpaqueHost(input)).toBe(expected);
  });

  it.each(['[::1', '[1:2:3:4:5:6:7]', '[1:2:3:4:5:6:7:8:9]', '[::1::]', '[:1]', '[1:]', '[::127.0.0.01]', '[::1.2.3]', '[12345::]', '[%3A%3A1]'])(
    'rejects %s',
    (input) => expectInvalidHost(() => parseSpecialHost(input)),
  );

  it('parseIPv6 / serializeIPv6 round trip', () => {
    expect(parseIPv6('2001:db8::1')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('nope')).toBeNull();
    expect(serializeIPv6([0, 0, 0, 0, 0, 0, 0, 1])).toBe('::1');
    expect(serializeIPv6([1, 0, 0, 0, 0, 0, 0, 0])).toBe('1::');
  });
});

describe('parseSpecialHost: domains (UTS #46 via domain to ASCII)', () => {
  it.each([
    ['example.com', 'example.com'],
    ['EXAMPLE.COM', 'example.com'],
    ['EXAMPLE。com', 'example.com'],
    ['аpple.com', 'xn--pple-43d.com'],
    ['faß.de', 'xn--fa-hia.de'],
    ['ＥＸＡＭＰＬＥ．ｃｏｍ', 'example.com'],
    ['ｇｏｏ', 'goo'],
    ['XN--PPLE-43D.com', 'xn--pple-43d.com'],
    // whatwg/url#914: an ASCII domain is only lowercased, even with a label that is not valid Punycode.
    ['a.b.c.XN--pokxncvks', 'a.b.c.xn--pokxncvks'],
    ['xn--', 'xn--'],
    ['xn--ls8h=', 'xn--ls8h='],
    ['a..b', 'a..b'],
    ['under_score.example', 'under_score.example'],
    ['%65xample.com', 'example.com'],
    ['ex%41mple.com', 'example.com'],
    ['%E2%80%8Bexample.com', 'example.com'],
    ['%F0%9F%92%A9.example', 'xn--ls8h.example'],
  ])('%s -> %s', (input, expected) => {
    expect(parseSpecialHost(input)).toBe(expected);
  });

  it('percent-encoded dots decode before the IPv4 rules', () => {
    expect(parseSpecialHost('127%2e0%2E0%2e1')).toBe('127.0.0.1');
    expect(parseSpecialHost('0x7f%2e1')).toBe('127.0.0.1');
  });

  it.each([
    'a b',
    'a<b',
    'a>b',
    'a^b',
    'a|b',
    'a\\b',
    'a/b',
    'a:b',
    'a@b',
    'a#b',
    'a?b',
    'a%b',
    'a\u0000b',
    'a\u007fb',
    'a\u0001b',
    '%2f',
    '%25',
    '%20',
    '%00',
    'ａ／ｂ',
    'ex％61mple.com',
    // Non-ASCII domains still go through UTS #46, so an invalid ACE label next to one fails.
    'xn--a.ß',
    'xn--ls8h=.bücher',
    '\u00ad',
    '%ff',
    '\ufffd',
    '',
  ])('rejects %j', (input) => expectInvalidHost(() => parseSpecialHost(input)));

  it('gives the same answer from the cache', () => {
    for (let i = 0; i < 3; i++) expect(parseSpecialHost('Bücher.example')).toBe('xn--bcher-kva.example');
  });
});

describe('parseOpaqueHost (URL Standard opaque-host parser)', () => {
  it('percent-encodes with the C0 control set and keeps case', () => {
    expect(parseOpaqueHost('ExAmple')).toBe('ExAmple');
    expect(parseOpaqueHost('h\u00e9')).toBe('h%C3%A9');
    expect(parseOpaqueHost('a%zz')).toBe('a%zz');
    expect(parseOpaqueHost('')).toBe('');
    expect(parseOpaqueHost('1.2.3')).toBe('1.2.3');
    expect(parseOpaqueHost('x\ud800')).toBe('x%EF%BF%BD');
  });
  it.each(['a b', 'a<b', 'a^b', 'a|b', 'a@b', '[::1', 'a[b'])('rejects %j', (input) =>
    expectInvalidHost(() => parseOpaqueHost(input)),
  );
});

describe('hostKind', () => {
  it.each([
    ['', 'empty'],
    ['[::1]', 'ipv6'],
    ['127.0.0.1', 'ipv4'],
    ['example.com', 'domain'],
    ['xn--pple-43d.com', 'domain'],
    ['1.2.3', 'domain'],
    ['01.2.3.4', 'domain'],
    ['ExAmple', 'opaque'],
    ['h%C3%A9', 'opaque'],
  ] as const)('%s is %s', (host, kind) => {
    expect(hostKind(host)).toBe(kind);
  });
});
