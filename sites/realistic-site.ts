// A realistic site with ground truth, for the learner's proof (test/crawler/realistic-site.test.ts)
// and bench (bench/crawl-realistic-site.ts): Debian's sqlite3-doc HTML manual (766 pages in five
// folders) served on loopback beside the parts of a site real servers have, each a way a learner
// that merges on weak evidence loses documents:
//
//   1. one shared 404 body for every missing URL (the manual's own dead links, listing pages past
//      the last one, releases removed from the download area);
//   2. soft 404s: `/<soft>/view?<id>=x` answers 200 with one "not found" body for unknown ids;
//   3. an application shell: every URL under `/<app>/` answers 200 with one body;
//   4. folders that redirect `/dir` → `/dir/` (301) beside extension-less files (`/<api>/users`,
//      `/<login>`, the listings, the topics) that are documents and 404 with a slash appended;
//   5. pages with a fresh token on every fetch (CSRF, time), linked under variants the server
//      treats as the same page (`/index.html` ↔ `/`, a session id);
//   6. a login wall: `/<account>/*` → 302 → `/<login>?next=…`;
//   7. an archive under a moved prefix: `/<old>/<topics>/x` → 301 → `/<topics>/x`, while
//      `/<old>/<notes>/…` still lives there (200, its own content);
//   8. `www.` hosts: `www.A` redirects to A; `www.B` redirects its legacy pages to B but serves its
//      own blog (B has no blog);
//   9. parameters that matter: page, sort and language of the listings;
//  10. tracking parameters, always `utm_source`, `utm_medium` and `utm_campaign` together;
//  11. session ids: `;jsessionid=` and `?<visit>=<hex>`, a name in no preset;
//  12. `/<search>?` (every result) is not `/<search>` (the form); documents reachable only through
//      `<link rel=search>`, `rel=next` (listing pages past the widget) and `rel=alternate`
//      (languages).
// Names of prefixes, parameters and hosts are drawn from `seed`, so nothing can be recognised by
// name. About a fifth of the manual's links are rewritten into aliases (chosen by a hash of seed,
// page and position: every run of one seed sees the same site).
//
// Ground truth: `truth(url)` follows the server's own routing (and redirects) to a document id or
// to what is not a document (not-found, soft-404, shell, asset). `documents` are the ids reachable
// from the seeds over the links the pages carry (robots.txt obeyed), computed at start; `links`
// holds every link URL met on the way with its truth. Requests are logged like
// sites/alias-site.ts logs them, and absolute-form requests are answered, so wget can use
// the server as its proxy.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SiteRequest } from './alias-site.js';
import { mulberry32 } from './mulberry32.js';

export const SQLITE_DOCS = '/usr/share/doc/sqlite3';

export type Truth = { readonly kind: 'document'; readonly id: string } | { readonly kind: 'none'; readonly why: NotADocument };
export type NotADocument = 'not-found' | 'soft-404' | 'shell' | 'asset' | 'off-site' | 'redirect-loop';

export interface RealisticSiteOptions {
  /** Draws the names of hosts, prefixes and parameters. @default 1 */
  readonly seed?: number;
  /** @default SQLITE_DOCS */
  readonly root?: string;
  /** Manual pages served (the first ones met from index.html; the others are dead links). @default Infinity */
  readonly manualPages?: number;
  /** Share of the manual's links rewritten into an alias, percent. @default 20 */
  readonly aliasPercent?: number;
  /** @default 0 */
  readonly port?: number;
}

export interface RealisticSite {
  readonly seed: number;
  readonly port: number;
  /** The first seed (the manual's host). */
  readonly url: string;
  readonly seeds: readonly string[];
  /** The registrable names, for wget's --domains. */
  readonly domains: readonly string[];
  /** Document ids reachable from the seeds (robots.txt-disallowed ones excluded). */
  readonly documents: readonly string[];
  /** Request targets robots.txt disallows. */
  readonly disallowed: readonly string[];
  /** Documents reachable only through `<link rel=search>`, which crawlers may not follow. */
  readonly onlyViaRelSearch: readonly string[];
  /** Every link URL (absolute, no fragment) met from the seeds, with its truth. */
  readonly links: ReadonlyMap<string, Truth>;
  readonly requests: SiteRequest[];
  /** Links rewritten into each kind of alias, and links in all (over the reachable pages). */
  readonly aliasLinks: Readonly<Record<string, number>>;
  readonly linkCount: number;
  /** Links between manual pages (the ones `aliasLinks` counts rewrites of). */
  readonly manualLinks: number;
  /** The names drawn from the seed. */
  readonly names: Readonly<Record<string, string>>;
  /**
   * The fewest requests a crawler that knew every alias would make: robots.txt once per host it
   * must contact, each document once by its shortest redirect chain, and each URL that answers no
   * document (a 404, a soft 404, a shell, a loop) once, as no crawler can tell it from a link.
   */
  readonly floor: number;
  truth(url: string): Truth;
  close(): Promise<void>;
}

type Answer =
  | { readonly kind: 'document'; readonly id: string; readonly type: string; readonly body: () => Buffer }
  | { readonly kind: 'redirect'; readonly status: 301 | 302; readonly location: string }
  | { readonly kind: 'none'; readonly status: 200 | 404; readonly why: NotADocument; readonly type: string; readonly body: () => Buffer };

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'si', 'pe', 'da', 'fu', 'go', 'hi', 'ju', 'be', 'zo', 'ri', 'mu', 'xa', 'wen'];
const HTML = 'text/html; charset=utf-8';
const NOT_FOUND = Buffer.from('<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n');

function h32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

function hex(text: string, n = 32): string {
  return createHash('sha256').update(text).digest('hex').slice(0, n);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function page(title: string, body: string, head = ''): Buffer {
  return Buffer.from(`<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title>${head}</head><body><h1>${esc(title)}</h1>${body}</body></html>\n`);
}

const a = (href: string, text: string): string => `<a href="${esc(href)}">${esc(text)}</a>`;

/** `href="…"`, `href='…'` and `src` of a, area, link, iframe and frame: what crawlers follow. */
const LINK_ATTR = /<(a|area|link|iframe|frame)\b([^>]*)>/gi;

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m === null ? undefined : (m[1] ?? m[2] ?? m[3])?.replace(/&amp;/g, '&');
}

/** The references of a page as a crawler that follows `link rel=search` too sees them. */
/** `href` resolved against `base` as an http URL without its fragment, as a crawler queues it; undefined otherwise. */
export function absoluteHttp(href: string, base: string): string | undefined {
  try {
    const u = new URL(href, base);
    if (u.protocol !== 'http:') return undefined;
    u.hash = '';
    return u.href;
  } catch {
    return undefined;
  }
}

function references(html: string): { href: string; rel: string[] }[] {
  const out: { href: string; rel: string[] }[] = [];
  for (const m of html.matchAll(LINK_ATTR)) {
    const tag = m[1]!.toLowerCase();
    const attrs = m[2]!;
    const href = attr(attrs, tag === 'iframe' || tag === 'frame' ? 'src' : 'href');
    if (href === undefined) continue;
    const rel = tag === 'link' ? (attr(attrs, 'rel') ?? '').toLowerCase().split(/\s+/).filter((r) => r !== '') : [];
    if (tag === 'link' && !rel.some((r) => ['alternate', 'canonical', 'next', 'prev', 'search'].includes(r))) continue;
    out.push({ href, rel });
  }
  return out;
}

/** Start the server; throws when the tree is missing (`apt-get install -y sqlite3-doc`). */
export async function startRealisticSite(options: RealisticSiteOptions = {}): Promise<RealisticSite> {
  const root = options.root ?? SQLITE_DOCS;
  if (!existsSync(join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: install the documentation (apt-get install -y sqlite3-doc)`);
  }
  const seed = options.seed ?? 1;
  const aliasPercent = options.aliasPercent ?? 20;
  const random = mulberry32(seed);
  const used = new Set<string>(['utm', 'www', 'index', 'api', 'app', 'login', 'sid', 'jsessionid', 'page', 'sort', 'lang', 'id']);
  const word = (): string => {
    for (;;) {
      const n = 2 + Math.floor(random() * 2);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
      if (!used.has(w)) {
        used.add(w);
        return w;
      }
    }
  };
  const N = {
    hostA: word(), hostB: word(), manual: word(), priv: word(), search: word(), login: word(), account: word(), app: word(),
    api: word(), topics: word(), old: word(), notes: word(), release: word(), version: word(), soft: word(), id: word(),
    page: word(), sort: word(), lang: word(), visit: word(), blog: word(),
  };
  const sorts = [word(), word()] as const; // the first is the default
  const langs = ['en', 'de', 'fr'] as const;
  const listingNames = [word(), word(), word()];
  const count = (least: number): number => least + Math.floor(random() * 5);
  const topics = Array.from({ length: count(10) }, () => word());
  const notes = Array.from({ length: count(10) }, () => word());
  const apiNames = Array.from({ length: 5 }, () => word());
  const accountPages = Array.from({ length: 5 }, () => word());
  const appViews = Array.from({ length: 3 }, () => word());
  const posts = Array.from({ length: count(8) }, () => word());
  const staleIds = Array.from({ length: count(6) }, () => word());
  const queries = Array.from({ length: 4 }, () => word());

  // ---- the manual: the first `manualPages` HTML files met from index.html -------------------
  const linkRe = /\bhref\s*=\s*(["'])([^"']*)\1/gi;
  const isFile = (f: string): boolean => {
    try {
      return statSync(join(root, f)).isFile();
    } catch {
      return false;
    }
  };
  const manual: string[] = [];
  const inManual = new Set<string>();
  {
    const cap = options.manualPages ?? Infinity;
    const queue = ['index.html'];
    const met = new Set(queue);
    while (queue.length > 0 && manual.length < cap) {
      const f = queue.shift()!;
      manual.push(f);
      inManual.add(f);
      for (const m of readFileSync(join(root, f), 'utf8').matchAll(linkRe)) {
        const href = m[2]!.split('#')[0]!;
        if (!/^[a-z0-9_./-]+\.html$/i.test(href) || href.startsWith('/')) continue;
        const t = posix.normalize(posix.join(posix.dirname(f), href));
        if (t.startsWith('..') || met.has(t) || !isFile(t)) continue;
        met.add(t);
        queue.push(t);
      }
    }
  }
  const folders = [...new Set(readdirSync(root).filter((d) => statSync(join(root, d)).isDirectory() && !d.startsWith('images') && d !== 'search.d'))].sort();
  const releases = readdirSync(join(root, 'releaselog'))
    .filter((f) => /^\d+_\d+_\d+(_\d+)?\.html$/.test(f))
    .map((f) => f.slice(0, -5).split('_').map(Number))
    .sort((x, y) => { for (let i = 0; i < 4; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0); return 0; })
    .map((v) => v.join('.'));
  const currentReleases = new Set(releases.slice(-12));
  const cards = manual.filter((f) => f.startsWith('c3ref/')).map((f) => f.slice(6, -5)).slice(0, 40);
  const cardSet = new Set(cards);

  const requests: SiteRequest[] = [];
  const aliasLinks: Record<string, number> = {};
  let manualLinks = 0;
  const sockets = new Set<Socket>();
  let port = 0;
  let A = '';
  let B = '';
  const M = () => `/${N.manual}/`;

  /** One link of manual page `file` to manual page `target`, maybe rewritten into an alias. */
  const rewrite = (file: string, i: number, orig: string, target: string, fragment: string): string => {
    const r = h32(`${seed}:${file}#${i}`);
    manualLinks++;
    if (r % 100 >= aliasPercent) return orig + fragment;
    const kinds = target === 'index.html' ? ['directory', 'default-document', 'www', 'session-path', 'session-query'] : ['www', 'case', 'dot-segments', 'session-path', 'session-query', 'tracking', 'tracking'];
    const kind = kinds[(r >>> 8) % kinds.length]!;
    const path = M() + target;
    const v = hex(`${seed}:${file}:${i}`);
    let out: string;
    switch (kind) {
      case 'directory': out = M(); break;
      case 'default-document': out = `${M()}index.html`; break;
      case 'www': out = `http://www.${A}${path}`; break;
      case 'case': out = `HTTP://${A.toUpperCase()}${path}`; break;
      case 'dot-segments': out = `./${orig}`; break;
      case 'session-path': out = `${orig};jsessionid=${v.toUpperCase()}`; break;
      case 'session-query': out = `${orig}?${N.visit}=${v.slice(0, 16)}`; break;
      default: out = `${orig}?utm_source=${word0(r)}&utm_medium=email&utm_campaign=${v.slice(0, 6)}`;
    }
    aliasLinks[kind] = (aliasLinks[kind] ?? 0) + 1;
    return out + fragment;
  };
  const word0 = (r: number): string => ['newsletter', 'partner', 'feed', 'social'][r % 4]!;

  const rendered = new Map<string, Buffer>();
  const manualPage = (file: string): Buffer => {
    const cached = rendered.get(file);
    if (cached !== undefined) return cached;
    let i = 0;
    let body = readFileSync(join(root, file), 'utf8').replace(linkRe, (whole, q: string, href: string) => {
      const [p, f] = [href.split('#')[0]!, href.includes('#') ? href.slice(href.indexOf('#')) : ''];
      if (!/^[a-z0-9_./-]+\.html$/i.test(p) || p.startsWith('/')) return whole;
      const t = posix.normalize(posix.join(posix.dirname(file), p));
      if (!inManual.has(t)) return whole; // a dead link: the shared 404
      return `href=${q}${esc(rewrite(file, i++, p, t, f))}${q}`;
    });
    const extra: string[] = [];
    if (file === 'index.html') {
      extra.push(`<p class="browse">Browse: ${folders.map((d) => a(`${M()}${d}`, d)).join(' · ')} · ${a(`/${N.priv}/secret.html`, 'staff')} · ${a('/', 'site home')}</p>`);
    }
    const dir = file.startsWith('c3ref/') ? file.slice(6, -5) : undefined;
    if (dir !== undefined && cardSet.has(dir)) extra.push(`<p>${a(`/${N.soft}/view?${N.id}=${dir}`, 'API card')}</p>`);
    const rel = /^releaselog\/(\d+(?:_\d+)+)\.html$/.exec(file);
    if (rel !== null) extra.push(`<p>${a(`/${N.release}?${N.version}=${rel[1]!.replace(/_/g, '.')}`, 'download this release')}</p>`);
    if (extra.length > 0) body = body.replace(/<body[^>]*>/i, (b) => `${b}\n${extra.join('\n')}`);
    const out = Buffer.from(body);
    rendered.set(file, out);
    return out;
  };

  const listings = listingNames.map((name, k) => {
    const items = manual.filter((_, j) => j % 3 === k && j > 0);
    return { name, items, pages: Math.max(1, Math.ceil(items.length / 10)) };
  });

  // token pages: a fresh token and time in every answer
  const token = (): string => `<form method="post"><input type="hidden" name="csrf" value="${randomBytes(16).toString('hex')}"></form><p class="time">${new Date().toISOString()} ${process.hrtime.bigint()}</p>`;

  const home = (): Buffer =>
    page(
      `${N.hostA} home`,
      [
        // the folders are linked without their slash, as people type them (each a 301 to dir/)
        `<nav>${folders.map((d) => a(`${M()}${d}`, d)).join(' ')} ${a(`/${N.topics}`, 'Topics')} ${a(M(), 'Manual')} ${a('/index.html', 'Home')} ${a(`/?${N.visit}=${hex(`${seed}home`, 16)}`, 'Home (tracked visit)')} ${a(`/${N.old}/`, 'Archive')} ${a(`/${N.api}/`, 'API')}</nav>`,
        `<p>Our app: ${appViews.flatMap((v, j) => [a(`/${N.app}/${v}?${N.sort}=${sorts[j % 2]}`, v), a(`/${N.app}/${v}?${N.sort}=${sorts[(j + 1) % 2]}`, `${v} reversed`), a(`/${N.app}/${v}?${N.sort}=${word0(j)}`, `${v} by ${word0(j)}`)]).join(' ')} ${a(`/${N.app}/`, 'open the app')}</p>`,
        `<p>Popular API cards: ${staleIds.map((c) => a(`/${N.soft}/view?${N.id}=${c}`, c)).join(' ')}</p>`,
        `<p>Lists: ${listings.map((l) => a(`/${l.name}`, l.name)).join(' ')}</p>`,
        `<p>${a(`/${N.search}`, 'Search')} ${a(`/${N.search}?`, 'every page')} ${queries.map((q) => a(`/${N.search}?q=${q}`, q)).join(' ')}</p>`,
        `<p>${a(`/${N.login}`, 'Sign in')} ${accountPages.map((p) => a(`/${N.account}/${p}`, p)).join(' ')}</p>`,
        `<p>API: ${apiNames.map((p) => a(`/${N.api}/${p}`, p)).join(' ')}</p>`,
        `<p>${a(`/${N.release}/all`, 'All releases')}</p>`,
        token(),
      ].join('\n'),
      `<link rel="search" type="application/opensearchdescription+xml" href="/${N.search}/opensearch.xml">`,
    );

  const listingPage = (l: (typeof listings)[number], n: number, sort: string, lang: string): Buffer => {
    const order = sort === sorts[0] ? l.items : [...l.items].reverse();
    const q = (p: number, s = sort): string => `/${l.name}?${N.page}=${p}${s === sorts[0] ? '' : `&${N.sort}=${s}`}`;
    const label = lang === 'en' ? 'page' : lang === 'de' ? 'Seite' : 'page n°';
    const head = [
      n < l.pages + 2 && lang === 'en' ? `<link rel="next" href="${esc(q(n + 1))}">` : '',
      n > 1 && lang === 'en' ? `<link rel="prev" href="${esc(q(n - 1))}">` : '',
      ...(n === 1 && lang === 'en' ? langs.filter((x) => x !== 'en').map((x) => `<link rel="alternate" hreflang="${x}" href="${esc(`/${l.name}?${N.lang}=${x}${sort === sorts[0] ? '' : `&${N.sort}=${sort}`}`)}">`) : []),
    ].join('');
    const items = order.slice((n - 1) * 10, n * 10).map((f, j) => `<li>${a(j % 5 === 4 ? `${M()}${f}?${N.visit}=${hex(`${seed}${l.name}${n}${j}`, 16)}` : `${M()}${f}`, f)}</li>`);
    // the pagination widget shows the first three pages and, by an off-by-one, two past the last
    const widget = lang === 'en' ? [1, 2, 3, l.pages + 1, l.pages + 2].filter((p, j, all) => all.indexOf(p) === j).map((p) => a(q(p), String(p))).join(' ') : '';
    const sortLinks = n === 1 && lang === 'en' ? sorts.map((s) => a(`/${l.name}?${N.sort}=${s}`, `by ${s}`)).join(' ') : '';
    return page(`${l.name}: ${label} ${n} of ${l.pages}, ${sort}, ${lang}`, `<ul>${items.join('')}</ul><p>${widget}</p><p>${sortLinks} ${a('/index.html', 'home')}</p>`, head);
  };

  const docAnswer = (id: string, body: () => Buffer, type = HTML): Answer => ({ kind: 'document', id, type, body });
  const notFound: Answer = { kind: 'none', status: 404, why: 'not-found', type: HTML, body: () => NOT_FOUND };
  const softBody = page('API card', '<p>Sorry, we could not find that card.</p><p><a href="/">home</a></p>');
  const shellBody = Buffer.from(`<!doctype html><html><head><title>${N.app}</title><script src="/${N.app}.js"></script></head><body><div id="root"></div><noscript>This app needs JavaScript.</noscript></body></html>\n`);

  /** The server's routing: one request (host with port, path and raw query) to its answer. */
  const route = (host: string, rawPath: string, query: string | undefined): Answer => {
    // a servlet container strips the session path parameter; percent-encoded unreserved bytes decode
    const path = rawPath.replace(/;jsessionid=[^/;?]*/gi, '').replace(/%([0-9a-f]{2})/gi, (m, x: string) => {
      const c = String.fromCharCode(parseInt(x, 16));
      return /[A-Za-z0-9._~-]/.test(c) ? c : m.toUpperCase();
    });
    const params = new Map<string, string>();
    for (const f of (query ?? '').split('&')) {
      if (f === '') continue;
      const eq = f.indexOf('=');
      const dec = (s: string): string => { try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; } };
      params.set(dec(eq === -1 ? f : f.slice(0, eq)), dec(eq === -1 ? '' : f.slice(eq + 1)));
    }
    if (path === '/robots.txt' && host !== `www.${A}`) {
      const text = host === A ? `User-agent: *\nDisallow: /${N.priv}/\n` : 'User-agent: *\nDisallow:\n';
      return docAnswer('/robots.txt', () => Buffer.from(text), 'text/plain');
    }
    const target = path + (query === undefined ? '' : `?${query}`);
    if (host === `www.${A}`) return { kind: 'redirect', status: 301, location: `http://${A}${target}` };
    if (host === `www.${B}`) {
      if (['/', '/about', '/pricing', '/contact'].includes(path)) return { kind: 'redirect', status: 301, location: `http://${B}${target}` };
      if (path === `/${N.blog}`) return { kind: 'redirect', status: 301, location: `/${N.blog}/` };
      if (path === `/${N.blog}/`) return docAnswer(`www.B:/${N.blog}/`, () => page(`${N.blog}`, `<ul>${posts.map((p) => `<li>${a(p, p)}</li>`).join('')}</ul><p>${a(`http://${B}/`, 'shop')}</p>`));
      const post = path.startsWith(`/${N.blog}/`) ? path.slice(N.blog.length + 2) : '';
      if (posts.includes(post)) return docAnswer(`www.B:/${N.blog}/${post}`, () => page(`${post}`, `<p>A post about ${post}, on the www host only.</p><p>${a('./', 'all posts')}</p>`));
      return notFound;
    }
    if (host === B) {
      if (path === '/') {
        return docAnswer('B:/', () => page(`${N.hostB} shop`, `<nav>${['', 'about', 'pricing', 'contact'].map((p) => a(`http://www.${B}/${p}`, p || 'home')).join(' ')}</nav><p>${['about', 'pricing', 'contact'].map((p) => a(`/${p}`, p)).join(' ')}</p><p>${a(`http://www.${B}/${N.blog}`, 'our blog')} ${a(`http://${A}/`, N.hostA)}</p>`));
      }
      if (['/about', '/pricing', '/contact'].includes(path)) return docAnswer(`B:${path}`, () => page(`${N.hostB} ${path.slice(1)}`, `<p>The shop's ${path.slice(1)} page.</p><p>${a('/', 'home')}</p>`));
      return notFound;
    }
    if (host !== A) return notFound;
    // host A
    if (path === '/' || path === '/index.html') return docAnswer('/', home);
    const m = M();
    if (path.startsWith(m)) {
      let rest = path.slice(m.length);
      if (rest === '') rest = 'index.html';
      if (folders.includes(rest)) return { kind: 'redirect', status: 301, location: `${m}${rest}/` };
      if (rest.endsWith('/') && folders.includes(rest.slice(0, -1))) {
        const d = rest.slice(0, -1);
        return docAnswer(`${m}${rest}`, () => page(`Index of ${m}${rest}`, `<ul>${manual.filter((f) => f.startsWith(rest)).map((f) => `<li>${a(f.slice(rest.length), f)}</li>`).join('')}</ul><p>${a('../', 'parent')}</p><!-- ${d} -->`));
      }
      if (inManual.has(rest)) return docAnswer(m + (rest === 'index.html' ? '' : rest), () => manualPage(rest)); // a static file: the query is ignored
      if (!rest.endsWith('.html') && !rest.endsWith('/') && isFile(rest)) return { kind: 'none', status: 200, why: 'asset', type: rest.endsWith('.css') ? 'text/css' : 'application/octet-stream', body: () => readFileSync(join(root, rest)) };
      return notFound;
    }
    if (path === `/${N.priv}/secret.html`) return docAnswer(path, () => page('staff only', '<p>private</p>'));
    for (const l of listings) {
      if (path !== `/${l.name}`) continue;
      const n = Number(params.get(N.page) ?? '1');
      const sort = params.get(N.sort) ?? sorts[0];
      const lang = params.get(N.lang) ?? 'en';
      if (!Number.isInteger(n) || n < 1 || n > l.pages || !(sorts as readonly string[]).includes(sort) || !(langs as readonly string[]).includes(lang)) return notFound;
      return docAnswer(`/${l.name}?page=${n}&sort=${sort}&lang=${lang}`, () => listingPage(l, n, sort, lang));
    }
    if (path === `/${N.search}`) {
      if (query === undefined) return docAnswer(`/${N.search}`, () => page('Search', `<form action="/${N.search}"><input name="q"></form>${token()}`));
      const q = params.get('q');
      if (q === undefined || q === '') return docAnswer(`/${N.search}?`, () => page('Every page', `<ul>${manual.slice(0, 30).map((f) => `<li>${a(`${m}${f}`, f)}</li>`).join('')}</ul>`));
      return docAnswer(`/${N.search}?q=${q}`, () => page(`Results for ${q}`, `<p>${hex(q, 8)}</p><ul>${manual.slice(h32(q) % 200, (h32(q) % 200) + 5).map((f) => `<li>${a(`${m}${f}`, f)}</li>`).join('')}</ul>`));
    }
    if (path === `/${N.search}/opensearch.xml`) {
      return docAnswer(path, () => Buffer.from(`<?xml version="1.0"?><OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/"><ShortName>${N.hostA}</ShortName><Url type="text/html" template="http://${A}/${N.search}?q={searchTerms}"/></OpenSearchDescription>\n`), 'application/opensearchdescription+xml');
    }
    if (path === `/${N.login}`) {
      const next = params.get('next');
      return docAnswer(next === undefined ? path : `${path}?next=${next}`, () => page('Sign in', `<p>Sign in to continue${next === undefined ? '' : ` to ${esc(next)}`}.</p>${token()}`));
    }
    if (path.startsWith(`/${N.account}/`)) return { kind: 'redirect', status: 302, location: `/${N.login}?next=${encodeURIComponent(path)}` };
    if (path === `/${N.app}` || path.startsWith(`/${N.app}/`)) return { kind: 'none', status: 200, why: 'shell', type: HTML, body: () => shellBody };
    if (path === `/${N.api}/`) return docAnswer(path, () => page('API', `<ul>${apiNames.map((p) => `<li>${a(p, p)}</li>`).join('')}</ul>`));
    if (path.startsWith(`/${N.api}/`) && apiNames.includes(path.slice(N.api.length + 2))) {
      return docAnswer(path, () => page(`API: ${path}`, `<pre>{"resource": "${path.slice(N.api.length + 2)}", "fields": ${h32(path) % 50}}</pre>`));
    }
    if (path === `/${N.topics}`) return { kind: 'redirect', status: 301, location: `/${N.topics}/` };
    if (path === `/${N.topics}/`) return docAnswer(path, () => page('Topics', `<ul>${topics.map((t) => `<li>${a(t, t)}</li>`).join('')}</ul>`));
    if (path.startsWith(`/${N.topics}/`) && topics.includes(path.slice(N.topics.length + 2))) {
      const t = path.slice(N.topics.length + 2);
      return docAnswer(path, () => page(`Topic ${t}`, `<p>${manual.slice(h32(t) % 300, (h32(t) % 300) + 4).map((f) => a(`${m}${f}`, f)).join(' ')}</p>`));
    }
    if (path === `/${N.old}/`) {
      return docAnswer(path, () => page('Archive', `<ul>${topics.map((t) => `<li>${a(`${N.topics}/${t}`, `${t} (moved)`)}</li>`).join('')}${notes.map((t) => `<li>${a(`${N.notes}/${t}`, `note ${t}`)}</li>`).join('')}</ul>`));
    }
    if (path.startsWith(`/${N.old}/${N.topics}/`)) return { kind: 'redirect', status: 301, location: path.slice(N.old.length + 1) };
    if (path.startsWith(`/${N.old}/${N.notes}/`) && notes.includes(path.slice(N.old.length + N.notes.length + 3))) {
      return docAnswer(path, () => page(`Old note ${path}`, `<p>Kept in the archive: ${hex(path, 12)}.</p>`));
    }
    if (path === `/${N.release}/all`) {
      return docAnswer(path, () => page('Every release, oldest first', `<ul>${releases.map((v) => `<li>${a(`/${N.release}?${N.version}=${v}`, v)}</li>`).join('')}</ul>`));
    }
    if (path === `/${N.release}`) {
      const v = params.get(N.version);
      if (v === undefined || !currentReleases.has(v)) return notFound; // older releases were removed
      return docAnswer(`/${N.release}?v=${v}`, () => page(`Download ${v}`, `<p>sqlite-${v}.tar.gz, ${h32(v) % 9000} kB</p>`));
    }
    if (path === `/${N.soft}/view`) {
      const id = params.get(N.id) ?? '';
      if (!cardSet.has(id)) return { kind: 'none', status: 200, why: 'soft-404', type: HTML, body: () => softBody };
      return docAnswer(`/${N.soft}/view?id=${id}`, () => page(`API card ${id}`, `<p>${a(`${m}c3ref/${id}.html`, id)}</p>`));
    }
    return notFound;
  };

  const parseTarget = (url: string): { host: string; path: string; query: string | undefined } | undefined => {
    const m = /^(https?):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?/i.exec(url);
    if (m === null || m[1]!.toLowerCase() !== 'http') return undefined;
    const host = m[2]!.toLowerCase().replace(/:0+(\d)/, ':$1');
    return { host, path: m[3] === '' ? '/' : m[3]!, query: m[4] === undefined ? undefined : m[4].slice(1) };
  };

  const truth = (url: string): Truth => {
    let cur = url;
    for (let hop = 0; hop <= 10; hop++) {
      const t = parseTarget(cur);
      if (t === undefined || ![A, `www.${A}`, B, `www.${B}`].includes(t.host)) return { kind: 'none', why: 'off-site' };
      const ans = route(t.host, t.path, t.query);
      if (ans.kind === 'document') return { kind: 'document', id: ans.id };
      if (ans.kind === 'none') return { kind: 'none', why: ans.why };
      cur = new URL(ans.location, cur).href;
    }
    return { kind: 'none', why: 'redirect-loop' };
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let host = String(req.headers.host ?? '').toLowerCase();
    let target = req.url ?? '/';
    if (/^https?:\/\//i.test(target)) {
      const u = parseTarget(target); // absolute form: we are the client's proxy
      if (u !== undefined) {
        host = u.host;
        target = u.path + (u.query === undefined ? '' : `?${u.query}`);
      }
    }
    host = host.replace(/:0+(\d)/, ':$1');
    const client = String(req.headers['user-agent'] ?? '').split('/')[0]!.toLowerCase();
    const q = target.indexOf('?');
    const ans = route(host, q === -1 ? target : target.slice(0, q), q === -1 ? undefined : target.slice(q + 1));
    if (ans.kind === 'redirect') {
      requests.push({ client, host, target, status: ans.status });
      res.writeHead(ans.status, { location: ans.location, 'content-length': '0' }).end();
      return;
    }
    const status = ans.kind === 'document' ? 200 : ans.status;
    requests.push(ans.kind === 'document' ? { client, host, target, status, document: ans.id } : { client, host, target, status });
    const body = ans.body();
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && body.length > 512;
    const data = gzip ? gzipSync(body, { level: 1 }) : body;
    res.writeHead(status, { 'content-type': ans.type, 'content-length': String(data.length), ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(data);
  };

  const server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  A = `${N.hostA}.localhost:${port}`;
  B = `${N.hostB}.localhost:${port}`;
  const seeds = [`http://${A}/`, `http://${B}/`];

  // ---- ground truth: the documents reachable from the seeds, robots.txt obeyed ---------------
  const disallowed = (url: string): boolean => {
    const t = parseTarget(url);
    return t !== undefined && (t.host === A || t.host === `www.${A}`) && t.path.startsWith(`/${N.priv}/`);
  };
  const resolved = new Map<string, { abs: string; search: boolean }[]>();
  /** Breadth-first over the pages' references, with or without `link rel=search`. */
  const explore = (followSearch: boolean): { reached: Set<string>; links: Map<string, Truth>; count: number } => {
    const links = new Map<string, Truth>();
    const reached = new Set<string>();
    let count = 0;
    const queue = [...seeds];
    const met = new Set(queue);
    while (queue.length > 0) {
      const url = queue.shift()!;
      const tr = truth(url);
      links.set(url, tr);
      if (tr.kind !== 'document') continue;
      reached.add(tr.id);
      // the URL that answers (after redirects) is the base of the page's relative links
      let final = url;
      let ans: Answer | undefined;
      for (let hop = 0; hop <= 10; hop++) {
        const t = parseTarget(final)!;
        ans = route(t.host, t.path, t.query);
        if (ans.kind !== 'redirect') break;
        final = new URL(ans.location, final).href;
        if (!links.has(final)) links.set(final, tr); // a redirect target is a URL crawlers meet too
      }
      if (ans?.kind !== 'document' || !ans.type.startsWith('text/html')) continue;
      // a page's links are the same on every fetch (tokens aside): resolve them once per folder
      const base = final.replace(/[?#].*$/, '').replace(/[^/]*$/, '');
      const ck = `${ans.id}\n${base}`;
      let refs = resolved.get(ck);
      if (refs === undefined) {
        refs = [];
        const seen = new Set<string>();
        for (const { href, rel } of references(ans.body().toString('utf8'))) {
          const abs = absoluteHttp(href, final);
          if (abs === undefined) continue;
          const search = rel.includes('search');
          if (seen.has(`${search}${abs}`)) continue;
          seen.add(`${search}${abs}`);
          refs.push({ abs, search });
        }
        resolved.set(ck, refs);
      }
      for (const { abs, search } of refs) {
        if (search && !followSearch) continue;
        count++;
        if (met.has(abs) || disallowed(abs)) continue;
        met.add(abs);
        queue.push(abs);
      }
    }
    return { reached, links, count };
  };
  for (const k of Object.keys(aliasLinks)) delete aliasLinks[k];
  rendered.clear();
  manualLinks = 0;
  const all = explore(true);
  const counted = { ...aliasLinks };
  const withoutSearch = explore(false).reached;
  const onlyViaRelSearch = [...all.reached].filter((d) => !withoutSearch.has(d));
  const links = all.links;
  const reached = all.reached;
  const linkCount = all.count;
  for (const k of Object.keys(aliasLinks)) delete aliasLinks[k];
  Object.assign(aliasLinks, counted);

  // ---- the floor: each resource once, by its shortest chain; robots.txt once per host --------
  const fewestHops = new Map<string, number>();
  const hostsContacted = new Set<string>();
  for (const url of links.keys()) {
    let cur = url;
    let hops = 0;
    let key: string | undefined;
    for (; hops <= 10; hops++) {
      const t = parseTarget(cur);
      if (t === undefined || ![A, `www.${A}`, B, `www.${B}`].includes(t.host)) break; // off-site: never fetched
      hostsContacted.add(t.host);
      const ans = route(t.host, t.path, t.query);
      if (ans.kind === 'document') key = `d:${ans.id}`;
      else if (ans.kind === 'none') key = `n:${cur}`;
      else {
        cur = new URL(ans.location, cur).href.replace(/#.*$/, '');
        continue;
      }
      break;
    }
    if (hops > 10) key = `n:${url}`; // a loop or a chain past every crawler's cap: its requests, once
    if (key === undefined || key === 'd:/robots.txt') continue;
    fewestHops.set(key, Math.min(fewestHops.get(key) ?? Infinity, Math.min(hops, 10)));
  }
  let floor = hostsContacted.size;
  for (const hops of fewestHops.values()) floor += 1 + hops;

  return {
    seed,
    port,
    url: seeds[0]!,
    seeds,
    domains: [`${N.hostA}.localhost`, `${N.hostB}.localhost`],
    documents: [...reached].filter((d) => d !== '/robots.txt').sort(),
    disallowed: [`/${N.priv}/secret.html`],
    onlyViaRelSearch,
    links,
    requests,
    aliasLinks: { ...aliasLinks },
    linkCount,
    manualLinks,
    names: { ...N, sorts: sorts.join(','), listings: listingNames.join(',') },
    floor,
    truth,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
