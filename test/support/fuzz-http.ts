/**
 * Random HTTP/1.1 answers for the fuzz server (docs/reliability.md `fetch/fuzz-server`, in the manner
 * of undici's fuzz suite): status lines valid and not, headers with lying `Content-Length`,
 * stacked and unknown `Content-Encoding`s, `Location`s of every kind, chunked framing right and
 * wrong, bodies of HTML links, compressed HTML, random bytes or nothing, written whole or in
 * pieces, ended by FIN, RST, silence or keep-alive.
 *
 * Every answer is a plain value built by fast-check (so a failure shrinks and replays from its
 * seed and path) and written to a raw socket by `writeAnswer`.
 */
import type { Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

export type Framing = 'length' | 'chunked' | 'bad-chunked' | 'close';
export type Ending = 'end' | 'destroy' | 'rst' | 'hang' | 'keep-alive';
export type BodyKind = 'html' | 'encoded-html' | 'bytes' | 'empty';

export interface FuzzAnswer {
  readonly statusLine: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: BodyKind;
  /** Links of an HTML body: indexes of other fuzz pages, and odd references. */
  readonly links: readonly string[];
  readonly bytes: Uint8Array;
  readonly framing: Framing;
  /** Write the response in pieces of this many bytes (0: at once). */
  readonly piece: number;
  readonly delayMs: number;
  readonly ending: Ending;
}

const CODES = [0, 1, 99, 100, 101, 103, 199, 200, 200, 200, 201, 204, 206, 299, 300, 301, 302, 303, 304, 305, 307, 308, 399, 400, 404, 410, 429, 451, 500, 503, 599, 600, 999, 1000, 99999];

// sane answers most of the time, so a crawl gets past /f/0 and reaches the rest of the site
const statusLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(200, 200, 200, 301, 302, 404, 500).map((c) => `HTTP/1.1 ${c} OK`) },
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'HTTP/0.9', 'http/1.1', 'HTTP/1.1 '), fc.constantFrom(...CODES), fc.constantFrom('OK', '', 'Moved', 'Ça va', 'x'.repeat(300))).map(([v, c, r]) => `${v} ${c}${r === '' ? '' : ' ' + r}`) },
  { weight: 1, arbitrary: fc.constantFrom('garbage', '', 'HTTP/1.1', 'HTTP/1.1 2OO OK', 'HTTP/1.1 200 OK\nX-Bare-LF: y', '\r\nHTTP/1.1 200 OK', 'ICY 200 OK', '\u0000\u0001\u0002') },
);

/** `Location` values: other fuzz pages, relative or absolute, and everything that must not be followed. */
function locations(origin: string, pages: number): fc.Arbitrary<string> {
  const k = fc.nat(pages - 1);
  return fc.oneof(
    k.map((i) => `/f/${i}`),
    k.map((i) => `f/${i}`),
    k.map((i) => `${origin}/f/${i}`),
    k.map((i) => `//${origin.slice('http://'.length)}/f/${i}?via=protocol-relative`),
    k.map((i) => `/f/${i}#frag`),
    fc.constantFrom(
      '',
      ' ',
      '\t/f/0',
      'http://[::1',
      'http://127.0.0.1:1/refused',
      'http://[::1]:80/',
      'http://localhost/',
      'http://example.com/elsewhere',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'ftp://127.0.0.1/x',
      'data:text/html,x',
      '/\u00e9t\u00e9',
      '/%zz',
      'http://a b/',
      '/' + 'l'.repeat(20_000),
    ),
  );
}

function headerArb(origin: string, pages: number): fc.Arbitrary<readonly [string, string]> {
  const codings = fc.array(fc.constantFrom('gzip', 'x-gzip', 'deflate', 'br', 'identity', 'zstd', 'compress', 'GZIP', ' gzip ', ''), { minLength: 1, maxLength: 6 }).map((c) => c.join(', '));
  return fc.oneof(
    fc.constantFrom('text/html', 'text/html; charset=utf-8', 'text/html; charset=utf-16le', 'text/html; charset=bogus', 'application/xhtml+xml', 'text/plain', '', 'text/html;;;', '*/*').map((v) => ['content-type', v] as const),
    fc.constantFrom('-1', '0', '5', '999999999999', 'abc', '1e3', ' 12', '12, 13', '18446744073709551616').map((v) => ['content-length', v] as const),
    codings.map((v) => ['content-encoding', v] as const),
    locations(origin, pages).map((v) => ['location', v] as const),
    fc.constantFrom('chunked', 'gzip, chunked', 'chunked, gzip', 'identity', 'bogus').map((v) => ['transfer-encoding', v] as const),
    fc.constantFrom('close', 'keep-alive', 'upgrade').map((v) => ['connection', v] as const),
    fc.constantFrom(['content-location', '/f/0'] as const, ['set-cookie', 'a=b'] as const, ['x-big', 'v'.repeat(20_000)] as const, ['bad header', 'x'] as const, ['x-ctl', 'a\u0001b'] as const, ['x-latin1', '\u00ff\u00fe'] as const),
  );
}

function linkArb(pages: number): fc.Arbitrary<string> {
  const k = fc.nat(pages - 1);
  return fc.oneof(
    { weight: 6, arbitrary: k.map((i) => `/f/${i}`) },
    { weight: 2, arbitrary: k.map((i) => `../f/${i}`) },
    { weight: 1, arbitrary: k.map((i) => `/f/${i}?q=${i}`) },
    { weight: 1, arbitrary: fc.constantFrom('mailto:x@y', 'javascript:void(0)', 'http://[bad', '//127.0.0.1:1/', 'http://example.com/', '#top', '', '/robots.txt') },
  );
}

/** Anything goes: every field from its whole range. */
function wildAnswer(origin: string, pages: number): fc.Arbitrary<FuzzAnswer> {
  const html = fc.constant(['content-type', 'text/html'] as const);
  return fc.record({
    statusLine,
    headers: fc.tuple(fc.option(html, { freq: 4 }), fc.array(headerArb(origin, pages), { maxLength: 6 })).map(([h, rest]) => (h === null ? rest : [h, ...rest])),
    body: fc.constantFrom<BodyKind>('html', 'html', 'encoded-html', 'bytes', 'empty'),
    links: fc.array(linkArb(pages), { maxLength: 8 }),
    bytes: fc.uint8Array({ maxLength: 2048 }),
    framing: fc.constantFrom<Framing>('length', 'length', 'chunked', 'bad-chunked', 'close'),
    piece: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 64 }) }),
    delayMs: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
    ending: fc.constantFrom<Ending>('end', 'end', 'end', 'keep-alive', 'keep-alive', 'destroy', 'rst', 'hang'),
  });
}

/** A well-formed answer (an HTML page, a redirect, an error page), so the crawl reaches the rest of the site. */
function saneAnswer(origin: string, pages: number): fc.Arbitrary<FuzzAnswer> {
  const page = fc.record({
    statusLine: fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 404 Not Found', 'HTTP/1.1 500 Oops', 'HTTP/1.0 200 OK'),
    headers: fc.constantFrom<(readonly [string, string])[]>([['content-type', 'text/html']], [['content-type', 'text/html'], ['content-encoding', 'gzip']], [['content-type', 'text/html'], ['content-encoding', 'br, gzip']], []),
    body: fc.constantFrom<BodyKind>('html', 'encoded-html'),
  });
  const redirect = fc.record({
    statusLine: fc.constantFrom('HTTP/1.1 301 Moved', 'HTTP/1.1 302 Found', 'HTTP/1.1 307 X', 'HTTP/1.1 308 X'),
    headers: locations(origin, pages).map((l) => [['location', l] as const]),
    body: fc.constant<BodyKind>('empty'),
  });
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: page }, { weight: 1, arbitrary: redirect }),
      fc.record({
        links: fc.array(linkArb(pages), { maxLength: 8 }),
        framing: fc.constantFrom<Framing>('length', 'chunked', 'close'),
        piece: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 64 }) }),
        delayMs: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }),
        ending: fc.constantFrom<Ending>('end', 'keep-alive'),
      }),
    )
    .map(([head, rest]) => ({ ...head, ...rest, bytes: new Uint8Array(0) }))
    .map((a) => (a.body === 'encoded-html' && !a.headers.some(([n]) => n === 'content-encoding') ? { ...a, body: 'html' as BodyKind } : a))
    .map((a) => (a.framing === 'close' && a.ending === 'keep-alive' ? { ...a, ending: 'end' as Ending } : a));
}

export function fuzzAnswer(origin: string, pages: number): fc.Arbitrary<FuzzAnswer> {
  return fc.oneof({ weight: 3, arbitrary: saneAnswer(origin, pages) }, { weight: 2, arbitrary: wildAnswer(origin, pages) });
}

/** A fuzz site: the answers of `/f/0` … `/f/{n-1}`, and robots.txt (a plain 404, or fuzzed too). */
export interface FuzzSite {
  readonly pages: readonly FuzzAnswer[];
  readonly robots: FuzzAnswer | null;
}

export function fuzzSite(origin: string, pages: number): fc.Arbitrary<FuzzSite> {
  return fc.record({
    pages: fc.array(fuzzAnswer(origin, pages), { minLength: pages, maxLength: pages }),
    // robots.txt a plain 404 four times in five (an unreachable one defers the whole site)
    robots: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fuzzAnswer(origin, pages) }),
  });
}

function encodeBody(html: Buffer, contentEncoding: string | undefined): Buffer {
  let b = html;
  for (const raw of (contentEncoding ?? '').split(',')) {
    const c = raw.trim().toLowerCase();
    if (c === 'gzip' || c === 'x-gzip') b = gzipSync(b);
    else if (c === 'deflate') b = b.length % 2 === 0 ? deflateSync(b) : deflateRawSync(b);
    else if (c === 'br') b = brotliCompressSync(b);
  }
  return b;
}

function bodyOf(a: FuzzAnswer): Buffer {
  switch (a.body) {
    case 'empty':
      return Buffer.alloc(0);
    case 'bytes':
      return Buffer.from(a.bytes);
    case 'html':
    case 'encoded-html': {
      const html = Buffer.from(`<!doctype html><title>f</title>${a.links.map((l) => `<a href="${l.replace(/"/g, '&quot;')}">x</a>`).join('')}`);
      if (a.body === 'html') return html;
      const ce = a.headers.find(([n]) => n === 'content-encoding')?.[1];
      return encodeBody(html, ce);
    }
  }
}

/** The bytes of `a` on the wire (head and framed body). */
export function answerBytes(a: FuzzAnswer): Buffer {
  const body = bodyOf(a);
  const headers = [...a.headers];
  if (a.framing === 'length') headers.push(['content-length', String(body.length)]);
  if (a.framing === 'chunked' || a.framing === 'bad-chunked') headers.push(['transfer-encoding', 'chunked']);
  const head = Buffer.from(`${a.statusLine}\r\n${headers.map(([n, v]) => `${n}: ${v}`).join('\r\n')}\r\n\r\n`, 'latin1');
  if (a.framing !== 'chunked' && a.framing !== 'bad-chunked') return Buffer.concat([head, body]);
  const parts: Buffer[] = [head];
  for (let i = 0; i < body.length; i += 100) {
    const chunk = body.subarray(i, i + 100);
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  if (a.framing === 'chunked') parts.push(Buffer.from('0\r\n\r\n'));
  else parts.push(Buffer.from(body.length % 2 === 0 ? 'zz\r\n' : 'fffffff\r\nshort'));
  return Buffer.concat(parts);
}

/** Write `a` to `socket` as it says (delay, pieces, ending); `next` reads the next request (keep-alive). */
export function writeAnswer(a: FuzzAnswer, socket: Socket, next: () => void, timers: Set<NodeJS.Timeout>): void {
  const bytes = answerBytes(a);
  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      if (!socket.destroyed) fn();
    }, ms);
    timers.add(t);
  };
  const finish = (): void => {
    switch (a.ending) {
      case 'end':
        return void socket.end();
      case 'destroy':
        return void socket.destroy();
      case 'rst':
        return void socket.resetAndDestroy();
      case 'hang':
        return; // the socket stays open until the client gives up (or the server closes)
      case 'keep-alive':
        return next();
    }
  };
  const send = (): void => {
    if (a.piece === 0) {
      socket.write(bytes);
      return finish();
    }
    let at = 0;
    const step = (): void => {
      socket.write(bytes.subarray(at, at + a.piece));
      at += a.piece;
      if (at < bytes.length) later(1, step);
      else finish();
    };
    step();
  };
  if (a.delayMs > 0) later(a.delayMs, send);
  else send();
}
