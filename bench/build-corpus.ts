// Builds the fixed benchmark corpus bench/corpus/{urls.txt,normal.txt,SHA256SUMS,README.md}.
//
// Input: the HTML of the PostgreSQL 15 manual as shipped by Debian's postgresql-doc-15
// (/usr/share/doc/postgresql-doc-15/html/*.html). Origin assumed: the pages are treated as if
// served at https://www.postgresql.org/docs/15/<file>, which is where postgresql.org publishes
// the same manual, so relative links resolve to the URLs a crawler of that site would see.
//
// Steps:
//   1. extract every link with htmlparser2's streaming Parser, honouring <base href>;
//   2. resolve each against its page URL with the WHATWG parser (`new URL(href, base)`; corpus
//      building only) and keep the http/https results;
//   3. emit 40 % of the lines exactly as extracted (also written to normal.txt) and 60 % as
//      alias variants, every random choice drawn from one seeded mulberry32 stream.
// The output depends only on the input files and this script: running it twice gives identical
// files (`--check` rebuilds in memory and compares with what is on disk).
//
//   npx tsc -p tsconfig.build.json && node dist/bench/build-corpus.js [--html DIR] [--out DIR] [--check]

import { createReadStream, readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import { findRepoRoot } from './harness.js';
import { mulberry32, shuffleInPlace } from '../sites/mulberry32.js';

const DEFAULT_HTML_DIR = '/usr/share/doc/postgresql-doc-15/html';
const SOURCE_PACKAGE = 'postgresql-doc-15';
/** Where the pages are assumed to be served (see the header comment). */
const ORIGIN_BASE = 'https://www.postgresql.org/docs/15/';
const SEED = 0x75726c64; // "urld"
const TOTAL_LINES = 200_000;
const NORMAL_LINES = 80_000; // 40 % exactly as extracted

/** Variant kinds and their exact line counts (sum: TOTAL_LINES - NORMAL_LINES). */
const VARIANT_COUNTS = {
  'host-case': 10_000,
  'scheme-case': 6_000,
  'default-port': 8_000,
  'empty-port': 3_000,
  'pct-unreserved': 10_000,
  'pct-lowercase-hex': 5_000,
  'dot-segments': 10_000,
  fragment: 10_000,
  'tracking-params': 12_000,
  'session-id': 6_000,
  'query-reorder': 6_000,
  'trailing-slash': 5_000,
  'index-html': 4_000,
  'www-toggle': 5_000,
  'idn-host': 2_000,
  'ipv4-number-form': 1_000,
  'non-ascii-path': 3_000,
  'space-in-path': 2_000,
  backslash: 2_000,
  combo: 9_000,
  invalid: 1_000,
} as const;
type VariantKind = keyof typeof VARIANT_COUNTS;
type LineKind = 'as-extracted' | VariantKind;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

class Random {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#next() * n);
  }
  chance(p: number): boolean {
    return this.#next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from empty list');
    return items[this.int(items.length)] as T;
  }
  shuffle<T>(items: T[]): T[] {
    return shuffleInPlace(items, this.#next);
  }
  string(alphabet: string, length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Extraction

/** Elements and the attribute holding a URL a crawler follows or fetches. */
const LINK_ATTRIBUTES: Readonly<Record<string, string>> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  script: 'src',
  iframe: 'src',
  frame: 'src',
  // Not in the brief's list, but the manual embeds its SVG figures this way.
  object: 'data',
};

interface Extraction {
  readonly pages: number;
  readonly inputSha256: string;
  /** Every http/https link occurrence in document order, resolved and serialized. */
  readonly occurrences: string[];
  readonly byElement: Map<string, number>;
  readonly nonHttp: Map<string, number>;
  readonly unresolvable: number;
  readonly baseElements: number;
}

async function extract(htmlDir: string): Promise<Extraction> {
  const files = readdirSync(htmlDir)
    .filter((f) => f.endsWith('.html'))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (files.length === 0) throw new Error(`no *.html in ${htmlDir}`);
  const inputHash = createHash('sha256');
  const occurrences: string[] = [];
  const byElement = new Map<string, number>();
  const nonHttp = new Map<string, number>();
  let unresolvable = 0;
  let baseElements = 0;

  for (const file of files) {
    const pageUrl = ORIGIN_BASE + file;
    const refs: { element: string; value: string }[] = [];
    let baseHref: string | undefined;
    const parser = new Parser(
      {
        onopentag(name, attribs) {
          if (name === 'base') {
            // HTML: the first <base> with an href sets the document base URL, for every link.
            if (baseHref === undefined && attribs.href !== undefined) {
              baseHref = attribs.href;
              baseElements++;
            }
            return;
          }
          const attribute = LINK_ATTRIBUTES[name];
          if (attribute === undefined) return;
          const value = attribs[attribute];
          if (value !== undefined) refs.push({ element: `${name}[${attribute}]`, value });
        },
      },
      { decodeEntities: true },
    );
    const stream = createReadStream(join(htmlDir, file), { encoding: 'utf8', highWaterMark: 64 * 1024 });
    for await (const chunk of stream) parser.write(chunk as string);
    parser.end();
    inputHash.update(file).update('\0').update(readFileSync(join(htmlDir, file))).update('\0');

    let base = pageUrl;
    if (baseHref !== undefined) {
      try {
        base = new URL(baseHref, pageUrl).href;
      } catch {
        // an unparsable <base href> leaves the document URL as the base (HTML "fallback base URL")
      }
    }
    for (const { element, value } of refs) {
      let href: string;
      let protocol: string;
      try {
        const url = new URL(value, base);
        href = url.href;
        protocol = url.protocol;
      } catch {
        unresolvable++;
        continue;
      }
      if (protocol !== 'http:' && protocol !== 'https:') {
        nonHttp.set(protocol, (nonHttp.get(protocol) ?? 0) + 1);
        continue;
      }
      occurrences.push(href);
      byElement.set(element, (byElement.get(element) ?? 0) + 1);
    }
  }
  return {
    pages: files.length,
    inputSha256: inputHash.digest('hex'),
    occurrences,
    byElement,
    nonHttp,
    unresolvable,
    baseElements,
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Alias variants, on a split form of a WHATWG-serialized http(s) URL

interface Parts {
  scheme: string;
  userinfo: string; // with its '@', or ''
  host: string;
  port: string; // with its ':', or ''
  path: string;
  query: string; // with its '?', or ''
  fragment: string; // with its '#', or ''
}

// RFC 3986 Appendix B, specialised to the serialized hrefs the extractor produces.
const SPLIT = /^([a-z]+):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;

function split(href: string): Parts {
  const m = SPLIT.exec(href);
  if (m === null) throw new Error(`cannot split ${href}`);
  const authority = m[2] ?? '';
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostPort = authority.slice(at + 1);
  const portMatch = /:\d*$/.exec(hostPort.startsWith('[') ? hostPort.slice(hostPort.indexOf(']')) : hostPort);
  const port = portMatch === null ? '' : portMatch[0];
  return {
    scheme: m[1] ?? '',
    userinfo,
    host: hostPort.slice(0, hostPort.length - port.length),
    port,
    path: m[3] ?? '',
    query: m[4] ?? '',
    fragment: m[5] ?? '',
  };
}

function join3986(p: Parts): string {
  return `${p.scheme}://${p.userinfo}${p.host}${p.port}${p.path}${p.query}${p.fragment}`;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const HEX_HAS_LETTER = /[\-._~J-OZj-oz]/; // unreserved characters whose hex code contains A-F
const DEFAULT_PORT: Readonly<Record<string, string>> = { http: ':80', https: ':443' };

function hex(code: number, lower: boolean): string {
  const h = code.toString(16).toUpperCase().padStart(2, '0');
  return '%' + (lower ? h.toLowerCase() : h);
}

/** Indices of characters matching `re` that are not inside a %XX triplet. */
function candidateIndices(s: string, re: RegExp): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%') {
      i += 2;
      continue;
    }
    if (re.test(s[i] as string)) out.push(i);
  }
  return out;
}

function utf8PercentEncode(s: string, lower: boolean): string {
  let out = '';
  for (const ch of s) {
    if (/[A-Za-z0-9\-._~/]/.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += hex(byte, lower);
  }
  return out;
}

function withQueryParams(p: Parts, params: string[], rng: Random): void {
  const existing = p.query.length > 1 ? p.query.slice(1).split('&') : [];
  for (const param of params) existing.splice(rng.int(existing.length + 1), 0, param);
  p.query = '?' + existing.join('&');
}

const TRACKING_PARAMS: readonly ((rng: Random) => string)[] = [
  (r) => `utm_source=${r.pick(['twitter', 'newsletter', 'google', 'hn', 'reddit', 'mastodon'])}`,
  (r) => `utm_medium=${r.pick(['social', 'email', 'cpc', 'referral'])}`,
  (r) => `utm_campaign=${r.pick(['pg15-release', 'docs-week', 'spring_sale', 'launch'])}`,
  (r) => `utm_content=${r.pick(['link', 'banner', 'sidebar'])}`,
  (r) => `utm_term=${r.pick(['postgres', 'sql+select', 'vacuum'])}`,
  (r) => `fbclid=IwAR${r.string(BASE62, 56)}`,
  (r) => `gclid=Cj0KCQjw${r.string(BASE62 + '-_', 80)}`,
  (r) => `msclkid=${r.string(HEX_LOWER, 32)}`,
  (r) => `mc_cid=${r.string(HEX_LOWER, 10)}`,
  (r) => `mc_eid=${r.string(HEX_LOWER, 10)}`,
  (r) => `_ga=2.${r.int(1e9)}.${r.int(1e9)}.${1_700_000_000 + r.int(1e7)}`,
  (r) => `yclid=${r.int(1e9)}${r.int(1e9)}`,
];
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX_LOWER = '0123456789abcdef';
const HEX_UPPER = '0123456789ABCDEF';

const QUERY_POOL = ['lang=en', 'version=15', 'page=2', 'sort=asc', 'q=select', 'view=print', 'id=42', 'format=html'];

const IDN_HOSTS: readonly (readonly [unicode: string, ascii: string])[] = [
  ['bücher.example', 'xn--bcher-kva.example'],
  ['münchen.example', 'xn--mnchen-3ya.example'],
  ['café.example', 'xn--caf-dma.example'],
  ['straße.example', 'xn--strae-oqa.example'],
  ['пример.испытание', 'xn--e1afmkfd.xn--80akhbyknj4f'],
  ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
];

const IPV4_ADDRESSES: readonly (readonly [number, number, number, number])[] = [
  [192, 0, 2, 1],
  [198, 51, 100, 7],
  [203, 0, 113, 9],
  [127, 0, 0, 1],
];

const NON_ASCII_NAMES = ['café', 'größe', 'naïve', 'résumé', 'Ωmega', '日本語', 'привет', 'ñandú'];
const SPACED_NAMES = ['release notes', 'sql select', 'Data Types', 'how to', 'a b c'];

/** The generators of `invalid` lines: inputs RFC 3986 rejects (most of them WHATWG too). */
const INVALID: readonly { readonly name: string; make(p: Parts, rng: Random): string }[] = [
  { name: 'port out of range', make: (p, r) => join3986({ ...p, port: r.pick([':65536', ':99999', ':123456789']) }) },
  { name: 'port not a number', make: (p, r) => join3986({ ...p, port: r.pick([':8o80', ':-1', ':80:80', ':http']) }) },
  { name: 'unclosed IPv6 literal', make: (p) => `${p.scheme}://[::1${p.path}` },
  { name: 'malformed IPv6 literal', make: (p, r) => `${p.scheme}://${r.pick(['[::1]x', '[2001:db8::1::2]', '[::g]', '[1:2:3:4:5:6:7:8:9]'])}${p.path}` },
  { name: '%zz in host', make: (p) => join3986({ ...p, host: '%zz.' + p.host }) },
  { name: '%zz or bare % in path (RFC 3986 only)', make: (p, r) => join3986({ ...p, path: p.path.replace(/\/[^/]*$/, r.pick(['/%zz.html', '/100%.html', '/a%2'])) }) },
  { name: 'empty host', make: (p, r) => `${p.scheme}://${r.pick([':80', 'user@', ':'])}${p.path}` },
  { name: 'forbidden host code point', make: (p, r) => join3986({ ...p, host: p.host.replace('.', r.pick([' ', '<', '^', '|'])) }) },
  { name: 'IPv4 out of range', make: (p, r) => join3986({ ...p, host: r.pick(['256.256.256.256', '1.2.3.4.5', '0x100000000', '4294967296']) }) },
];

function applyVariant(kind: Exclude<VariantKind, 'combo' | 'invalid'>, p: Parts, ctx: Context): boolean {
  const rng = ctx.rng;
  switch (kind) {
    case 'host-case': {
      if (!/[a-z]/.test(p.host)) return false;
      const style = rng.int(4);
      let h: string;
      if (style === 0 && p.host === 'www.postgresql.org') h = 'WWW.PostgreSQL.org';
      else if (style <= 1) h = p.host.toUpperCase();
      else if (style === 2) h = p.host.replace(/(^|\.)([a-z])/g, (_m, dot: string, c: string) => dot + c.toUpperCase());
      else h = [...p.host].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c)).join('');
      if (h === p.host) h = p.host.toUpperCase();
      p.host = h;
      return true;
    }
    case 'scheme-case': {
      const style = rng.int(3);
      let s = style === 0 ? p.scheme.toUpperCase() : style === 1 ? p.scheme[0]?.toUpperCase() + p.scheme.slice(1) : [...p.scheme].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c)).join('');
      if (s === p.scheme) s = p.scheme.toUpperCase();
      p.scheme = s;
      return true;
    }
    case 'default-port': {
      const port = DEFAULT_PORT[p.scheme];
      if (p.port !== '' || port === undefined) return false;
      p.port = port;
      return true;
    }
    case 'empty-port':
      if (p.port !== '') return false;
      p.port = ':';
      return true;
    case 'pct-unreserved': {
      const tilde = p.path.indexOf('~');
      const candidates = candidateIndices(p.path, UNRESERVED);
      if (candidates.length === 0) return false;
      const chosen = new Set<number>(tilde >= 0 ? [tilde] : []);
      const n = 1 + rng.int(3);
      while (chosen.size < Math.min(n, candidates.length)) chosen.add(rng.pick(candidates));
      p.path = [...p.path].map((c, i) => (chosen.has(i) ? hex(c.charCodeAt(0), false) : c)).join('');
      return true;
    }
    case 'pct-lowercase-hex': {
      const existing = /%[0-9A-F]*[A-F][0-9A-F]*/;
      if (existing.test(p.path) || existing.test(p.query)) {
        const lower = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
        p.path = lower(p.path);
        p.query = lower(p.query);
        return true;
      }
      const candidates = candidateIndices(p.path, HEX_HAS_LETTER);
      if (candidates.length === 0) return false;
      const i = rng.pick(candidates);
      p.path = p.path.slice(0, i) + hex(p.path.charCodeAt(i), true) + p.path.slice(i + 1);
      return true;
    }
    case 'dot-segments': {
      const segments = p.path.split('/'); // ['', 'docs', '15', 'x.html']
      if (segments.length < 2) return false;
      const encoded = rng.chance(0.2); // %2e forms, which the URL Standard treats as dots
      const dot = encoded ? rng.pick(['%2e', '%2E']) : '.';
      const dotdot = encoded ? rng.pick(['%2e%2e', '%2E%2E', '.%2e', '%2e.']) : '..';
      const at = 1 + rng.int(segments.length - 1); // insert before segments[at]
      const style = rng.int(4);
      if (style === 0) segments.splice(at, 0, dot);
      else if (style === 1) segments.splice(at, 0, rng.pick(['a', 'tmp', 'x', '16']), dotdot);
      else if (style === 2 && at > 1) segments.splice(at, 0, dotdot, segments[at - 1] as string);
      else if (style === 3) segments.splice(1, 0, dotdot); // above the root: dropped by §5.2.4
      else segments.splice(at, 0, dot, dot);
      p.path = segments.join('/');
      return true;
    }
    case 'fragment':
      if (p.fragment !== '' && rng.chance(0.5)) p.fragment = '';
      else p.fragment = rng.chance(0.1) ? '#' : rng.chance(0.05) ? '#:~:text=PostgreSQL' : '#' + rng.pick(ctx.fragments);
      return true;
    case 'tracking-params': {
      const n = 1 + rng.int(3);
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(rng.int(TRACKING_PARAMS.length));
      withQueryParams(p, [...chosen].map((i) => (TRACKING_PARAMS[i] as (r: Random) => string)(rng)), rng);
      return true;
    }
    case 'session-id': {
      const style = rng.int(5);
      if (style === 0) p.path += `;jsessionid=${rng.string(HEX_UPPER, 32)}`;
      else if (style === 1) p.path += `;JSESSIONID=${rng.string(HEX_UPPER, 32)}.node0`;
      else if (style === 2) withQueryParams(p, [`PHPSESSID=${rng.string('abcdefghijklmnopqrstuv0123456789', 26)}`], rng);
      else if (style === 3) withQueryParams(p, [`sid=${rng.string(HEX_LOWER, 32)}`], rng);
      else withQueryParams(p, [`sessionid=${rng.string(BASE62, 24)}`], rng);
      return true;
    }
    case 'query-reorder': {
      let params = p.query.length > 1 ? p.query.slice(1).split('&') : [];
      if (params.length < 2) {
        // a fixed parameter set per path, so that the same URL recurs in several orders
        let h = 0;
        for (let i = 0; i < p.path.length; i++) h = (Math.imul(h, 31) + p.path.charCodeAt(i)) >>> 0;
        const n = 2 + (h % 3);
        params = [];
        for (let i = 0; i < n; i++) params.push(QUERY_POOL[(h + i) % QUERY_POOL.length] as string);
      }
      p.query = '?' + rng.shuffle(params).join('&');
      return true;
    }
    case 'trailing-slash':
      if (p.path === '/' || p.path === '') return false;
      p.path = p.path.endsWith('/') ? p.path.slice(0, -1) : p.path + '/';
      return true;
    case 'index-html':
      if (p.path.endsWith('/index.html')) p.path = p.path.slice(0, -'index.html'.length);
      else p.path = p.path.slice(0, p.path.lastIndexOf('/') + 1) + 'index.html';
      return true;
    case 'www-toggle':
      if (/^[\d.]+$/.test(p.host) || p.host.startsWith('[')) return false;
      p.host = p.host.startsWith('www.') ? p.host.slice(4) : 'www.' + p.host;
      return true;
    case 'idn-host': {
      const [unicode, ascii] = rng.pick(IDN_HOSTS);
      const style = rng.int(5);
      // upper-cased per character, keeping those with no single-character capital: 'ß'.toUpperCase()
      // is 'SS', and STRASSE.example is a different host from straße.example under UTS #46
      const upper = [...unicode].map((c) => (c.toUpperCase().length === 1 ? c.toUpperCase() : c)).join('');
      p.host = [unicode, upper, ascii, ascii.toUpperCase(), unicode.replace('.', '\u3002')][style] as string;
      p.port = '';
      return true;
    }
    case 'ipv4-number-form': {
      const [a, b, c, d] = rng.pick(IPV4_ADDRESSES);
      const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
      const forms = [
        `${a}.${b}.${c}.${d}`,
        String(n),
        '0x' + n.toString(16),
        `0x${a.toString(16)}.0x${b.toString(16)}.0x${c.toString(16)}.0x${d.toString(16)}`,
        `0${a.toString(8)}.${b}.0${c.toString(8)}.${d}`,
        `${a}.${b}.${(c << 8) + d}`,
        `${a}.${(b << 16) + (c << 8) + d}`,
      ];
      p.host = rng.pick(forms);
      p.port = '';
      return true;
    }
    case 'non-ascii-path': {
      let name = rng.pick(NON_ASCII_NAMES);
      const style = rng.int(10);
      if (style === 9) name = name.normalize('NFD'); // a different URL: must not merge with NFC
      const segment = style < 5 || style === 9 ? name : utf8PercentEncode(name, style === 8);
      p.path = p.path.slice(0, p.path.lastIndexOf('/') + 1) + segment + (rng.chance(0.5) ? '.html' : '/');
      return true;
    }
    case 'space-in-path': {
      const name = rng.pick(SPACED_NAMES);
      p.path = p.path.slice(0, p.path.lastIndexOf('/') + 1) + (rng.chance(0.6) ? name : name.replaceAll(' ', '%20')) + '.html';
      return true;
    }
    case 'backslash':
      if (!p.path.includes('/')) return false;
      p.path = rng.chance(0.5) ? p.path.replaceAll('/', '\\') : p.path.replace(/\/(?=[^/]*$)/, '\\');
      return true;
  }
}

/** Transforms that combine well; `combo` applies two or three of them in this order. */
const COMBINABLE: readonly Exclude<VariantKind, 'combo' | 'invalid'>[] = [
  'scheme-case',
  'www-toggle', // before host-case, which may upper-case the "www."
  'host-case',
  'default-port',
  'pct-unreserved',
  'dot-segments',
  'trailing-slash',
  'session-id',
  'tracking-params',
  'query-reorder',
  'fragment',
  'backslash',
];

interface Context {
  readonly rng: Random;
  readonly fragments: readonly string[];
  readonly invalidCounts: Map<string, number>;
}

function makeVariant(kind: VariantKind, bases: readonly string[], ctx: Context): string {
  const { rng } = ctx;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 1000) throw new Error(`no base URL fits variant ${kind}`);
    const p = split(rng.pick(bases));
    if (kind === 'invalid') {
      const generator = rng.pick(INVALID);
      ctx.invalidCounts.set(generator.name, (ctx.invalidCounts.get(generator.name) ?? 0) + 1);
      return generator.make(p, rng);
    }
    if (kind === 'combo') {
      const n = 2 + rng.int(2);
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(rng.int(COMBINABLE.length));
      let applied = 0;
      for (const i of [...chosen].sort((x, y) => x - y)) if (applyVariant(COMBINABLE[i] as (typeof COMBINABLE)[number], p, ctx)) applied++;
      if (applied >= 2) return join3986(p);
      continue;
    }
    if (applyVariant(kind, p, ctx)) return join3986(p);
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Assembly

interface Corpus {
  readonly urls: string;
  readonly normal: string;
  readonly readme: string;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function packageVersion(): string {
  try {
    return execFileSync('dpkg-query', ['-W', '-f', '${Version}', SOURCE_PACKAGE], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown (dpkg-query unavailable)';
  }
}

async function build(htmlDir: string): Promise<Corpus> {
  const ex = await extract(htmlDir);
  const unique = [...new Set(ex.occurrences)];
  const fragments = [...new Set(unique.map((u) => u.split('#')[1]).filter((f): f is string => f !== undefined && f !== ''))].sort();
  if (fragments.length === 0) fragments.push('top');
  const rng = new Random(SEED);
  const ctx: Context = { rng, fragments, invalidCounts: new Map() };

  const kinds: LineKind[] = new Array<LineKind>(NORMAL_LINES).fill('as-extracted');
  for (const [kind, count] of Object.entries(VARIANT_COUNTS) as [VariantKind, number][]) for (let i = 0; i < count; i++) kinds.push(kind);
  if (kinds.length !== TOTAL_LINES) throw new Error(`kind table sums to ${kinds.length}`);
  rng.shuffle(kinds);

  const lines: string[] = [];
  const normalLines: string[] = [];
  for (const kind of kinds) {
    let line: string;
    if (kind === 'as-extracted') {
      // sampled from the occurrence list, so nav links recur as often as a crawler meets them
      line = rng.pick(ex.occurrences);
      normalLines.push(line);
    } else line = makeVariant(kind, unique, ctx);
    if (line === '' || /[\t\n\r]/.test(line)) throw new Error(`unusable line from ${kind}: ${JSON.stringify(line)}`);
    lines.push(line);
  }
  const urls = lines.join('\n') + '\n';
  const normal = normalLines.join('\n') + '\n';

  const table = (rows: [string, number | string][]): string => ['| kind | lines |', '|---|---:|', ...rows.map(([k, n]) => `| ${k} | ${n} |`)].join('\n');
  const sortedEntries = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const readme = `# Benchmark corpus

Generated by \`bench/build-corpus.ts\`; do not edit by hand. Checksums in \`SHA256SUMS\`
(\`cd bench/corpus && sha256sum -c SHA256SUMS\`).

## Source
- Debian package \`${SOURCE_PACKAGE}\` version \`${packageVersion()}\`: the PostgreSQL 15 manual,
  ${ex.pages} pages from \`${DEFAULT_HTML_DIR}/*.html\` (sha256 of names and contents: \`${ex.inputSha256.slice(0, 16)}…\`).
- Origin assumed: each page \`F.html\` is treated as served at \`${ORIGIN_BASE}F.html\`,
  where postgresql.org publishes the same manual.

## How it is built
1. Links are extracted with htmlparser2's streaming \`Parser\` from a[href], area[href], link[href],
   img[src], script[src], iframe[src], frame[src] and object[data] (the manual embeds its SVG
   figures with \`<object data>\`); the first \`<base href>\` is honoured (${ex.baseElements} pages have one).
2. Each is resolved with \`new URL(href, base)\` and kept when http or https:
   ${ex.occurrences.length} link occurrences, ${unique.length} distinct URLs
   (by element: ${sortedEntries(ex.byElement).map(([k, n]) => `${k} ${n}`).join(', ')};
   dropped: ${sortedEntries(ex.nonHttp).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}, unresolvable ${ex.unresolvable}).
3. ${TOTAL_LINES} lines, one URL each, in an order shuffled by mulberry32 (seed \`0x${SEED.toString(16)}\`):
   ${NORMAL_LINES} (40 %) are extracted URLs exactly as serialized, sampled from the occurrence list
   (so navigation links recur as often as a crawler meets them; also in \`normal.txt\`, in corpus
   order, for the fast-path pass); the other ${TOTAL_LINES - NORMAL_LINES} are alias variants of a
   distinct extracted URL, drawn from the same stream.

Note: "as extracted" means the WHATWG serialization of the resolved link, fragment included
(${normalLines.filter((l) => l.includes('#')).length} of the ${NORMAL_LINES} carry one).

## Lines by kind
${table([['as-extracted', NORMAL_LINES], ...(Object.entries(VARIANT_COUNTS) as [string, number][])])}

- host-case: \`WWW.PostgreSQL.org\`, all upper, label-capitalised, random case.
- scheme-case: \`HTTPS\`, \`Https\`, random case.
- default-port / empty-port: \`:443\` or \`:80\` added; \`host:\`.
- pct-unreserved: one to three unreserved characters of the path as uppercase \`%XX\` (\`~\` first when present).
- pct-lowercase-hex: existing escapes lowercased (\`%e2%80%93\`), else an unreserved character as lowercase \`%2d\`.
- dot-segments: \`/./\`, \`/a/../\`, \`/15/../15/\`, \`/../\` above the root; a fifth in \`%2e\` forms.
- fragment: added (\`#ID\` from the manual, empty \`#\`, \`#:~:text=\`), replaced or removed.
- tracking-params: one to three of utm_*, fbclid, gclid, msclkid, mc_cid, mc_eid, _ga, yclid, inserted among existing parameters.
- session-id: \`;jsessionid=\`, \`;JSESSIONID=….node0\`, \`PHPSESSID=\`, \`sid=\`, \`sessionid=\`.
- query-reorder: the URL's parameters, or a fixed set per path, in a shuffled order.
- trailing-slash: toggled. index-html: \`index.html\` appended to the directory, or removed.
- www-toggle: \`www.\` removed, or added where absent.
- idn-host: ${IDN_HOSTS.map(([u]) => u).join(', ')}: Unicode, upper-case Unicode, punycode, upper-case punycode, U+3002 as the dot.
- ipv4-number-form: ${IPV4_ADDRESSES.map((a) => a.join('.')).join(', ')} as dotted, 32-bit decimal, hex, per-part hex, octal, two- and three-part forms.
- non-ascii-path: raw UTF-8 names, their uppercase or lowercase percent-encoding, and NFD forms (a different URL).
- space-in-path: raw space or \`%20\`. backslash: every \`/\` of the path, or the last one, as \`\\\`.
- combo: two or three of ${COMBINABLE.join(', ')} stacked.
- invalid (RFC 3986; the path-only \`%zz\` ones are accepted by the URL Standard):

${table(sortedEntries(ctx.invalidCounts))}

## Files
| file | lines | bytes | sha256 |
|---|---:|---:|---|
| urls.txt | ${lines.length} | ${Buffer.byteLength(urls)} | \`${sha256(urls)}\` |
| normal.txt | ${normalLines.length} | ${Buffer.byteLength(normal)} | \`${sha256(normal)}\` |
`;
  return { urls, normal, readme };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (args.includes('--help')) {
    console.log('usage: node dist/bench/build-corpus.js [--html DIR] [--out DIR] [--check]\n' + `  e.g. node dist/bench/build-corpus.js --html ${DEFAULT_HTML_DIR}`);
    return;
  }
  const htmlDir = option('--html') ?? DEFAULT_HTML_DIR;
  const outDir = option('--out') ?? join(findRepoRoot(), 'bench', 'corpus');
  const corpus = await build(htmlDir);
  const files: [string, string][] = [
    ['urls.txt', corpus.urls],
    ['normal.txt', corpus.normal],
  ];
  const sums = files.map(([name, text]) => `${sha256(text)}  ${name}\n`).join('');
  if (args.includes('--check')) {
    let same = true;
    for (const [name, text] of [...files, ['SHA256SUMS', sums] as [string, string]]) {
      const path = join(outDir, name);
      const ok = existsSync(path) && readFileSync(path, 'utf8') === text;
      console.error(`${ok ? 'same' : 'DIFFERENT'}  ${path}`);
      same &&= ok;
    }
    process.exitCode = same ? 0 : 1;
    return;
  }
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of files) writeFileSync(join(outDir, name), text);
  writeFileSync(join(outDir, 'SHA256SUMS'), sums);
  writeFileSync(join(outDir, 'README.md'), corpus.readme);
  process.stderr.write(sums);
}

await main();
