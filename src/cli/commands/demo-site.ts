/**
 * The built-in demo site: a small documentation site on 127.0.0.1 (an ephemeral port) with the
 * aliases real sites have, so `urldedup crawl` with no URL shows deduplication on a fresh machine
 * with no network. It counts every request it answers.
 *
 * Names: `demo.localhost` is the site; `www.demo.localhost` answers every request with a 301 to the
 * same path on `demo.localhost` (a www alias). Both are loopback names (RFC 6761 §6.3), which the
 * crawler's guard resolves to 127.0.0.1 without DNS.
 *
 * The aliases its links use (each a few times, so the store can learn the host rules):
 * - trailing slash: `/guide` → 301 `/guide/` (and `/api`, `/blog`, `/tags`, `/files`, …);
 * - `www.`: `http://www.demo.localhost:PORT/x` → 301 `http://demo.localhost:PORT/x`;
 * - default document: `/guide/index.html` serves the same bytes as `/guide/`;
 * - tracking and session parameters the server ignores: `?utm_source=…`, `?sid=<32 hex>`,
 *   `;jsessionid=…`;
 * - syntax and scheme variants: `HTTP://DEMO.LOCALHOST:PORT/…`, `%67uide`, `%2d`, `./`, `../`,
 *   fragments, the port written with a leading zero;
 * - a `<base href>`, a meta refresh, `rel=canonical`, `Content-Location`, an iframe, `rel=next`;
 * - redirects that are not aliases of a rule: a 301 `/moved.html` → `/about.html`, a 302
 *   `/latest.html` → `/blog/post-8.html`;
 * - lookalikes that are distinct documents: `/files/a%2Fb.html` vs `/files/a/b.html`, `/Case.html`
 *   vs `/case.html`, `/news/?page=1` vs `?page=2`, `/search.html?a=1&b=2` vs `?b=2&a=1`;
 * - robots.txt disallows `/private/` but allows `/private/press.html`.
 * Bodies are sent gzip- or br-encoded when the client accepts it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export const DEMO_HOST = 'demo.localhost';
export const DEMO_WWW_HOST = 'www.demo.localhost';

export interface DemoRequest {
  readonly host: string;
  /** The request target as sent (path and query). */
  readonly target: string;
  readonly status: number;
  /** The document served (its canonical path), for a 200. */
  readonly document?: string;
}

export interface DemoSite {
  readonly port: number;
  /** `http://demo.localhost:PORT/`: the seed. */
  readonly url: string;
  readonly origin: string;
  /** The canonical paths (with query) of every document a crawl should reach. */
  readonly documents: readonly string[];
  /** Paths robots.txt disallows (linked, never to be fetched). */
  readonly disallowed: readonly string[];
  /** Every request answered, in order. */
  readonly requests: DemoRequest[];
  /** 200 responses per document. */
  servedCount(document: string): number;
  close(): Promise<void>;
}

export interface DemoSiteOptions {
  /** @default 0 (an ephemeral port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
}

interface Page {
  readonly title: string;
  readonly text: string;
  /** Hrefs; `{O}` is the origin, `{W}` the www origin, `{U}` the origin in capitals, `{Z}` the origin with a leading-zero port. */
  readonly links: readonly string[];
  readonly head?: readonly string[];
}

const SID = '9682993c8daa2c5497996114facdc805';
const JSESSION = ';jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9';

/** The site: canonical path (and query) → page. */
const PAGES: Readonly<Record<string, Page>> = {
  '/': {
    title: 'urldedup demo site',
    text: 'A small documentation site whose links use every alias real sites have.',
    links: ['/guide', '/api', '/blog', '/news/', '/tags', '/files', '/about.html', '{W}/contact.html', '/sitemap.html', '/index.html', '/old-home.html', '/latest.html', '/moved.html', 'mailto:team@demo.localhost', 'javascript:void(0)', 'https://example.com/', '#top', '/Case.html', '/case.html'],
  },
  '/about.html': {
    title: 'About',
    text: 'Who writes the demo site.',
    links: ['/', '{W}/api/key.html', '/private/secret.html', '/guide/index.html', '{U}/guide/install.html', '/blog/post-1.html?utm_source=about'],
    head: ['<iframe src="/embed/map.html"></iframe>'],
  },
  '/contact.html': {
    title: 'Contact',
    text: 'Write to the team.',
    links: ['/', 'mailto:team@demo.localhost', '/private/press.html', '{W}/blog/post-3.html', '/api/index.html', `/api/store.html?sid=${SID}`],
  },
  '/sitemap.html': {
    title: 'Site map',
    text: 'Every section of the demo site.',
    links: ['/guide/', '/api/', '/blog/', '/tags/', '/files/', '/news/?page=1', '/news/?page=2', '/news/?page=3', '/search.html?a=1&b=2', '/search.html?b=2&a=1', '/embed/map.html', '{W}/tags/http.html', '{W}/about.html', '/blog/index.html', '/tags/index.html', '{Z}/about.html'],
  },
  '/old-home.html': {
    title: 'Old home',
    text: 'This page moved.',
    links: [],
    head: ['<meta http-equiv="refresh" content="0; URL=\'/\'">'],
  },
  '/embed/map.html': { title: 'Map', text: 'An embedded map.', links: ['/contact.html'] },
  '/guide/': {
    title: 'Guide',
    text: 'How to crawl with urldedup.',
    links: ['./install.html', 'configure.html', '/%67uide/first-crawl.html', 'faq.html#top', '/guide/advanced', '../api/', 'install.html#requirements', `faq.html${JSESSION}`],
  },
  '/guide/install.html': { title: 'Install', text: 'npm install urldedup.', links: ['/guide/', 'configure.html', '../blog', '/guide/./faq.html'] },
  '/guide/configure.html': { title: 'Configure', text: 'Flags and defaults.', links: ['/guide/', 'install.html', '/guide/advanced/', `/api/crawl.html?sid=${SID}`] },
  '/guide/first-crawl.html': { title: 'First crawl', text: 'Run urldedup crawl.', links: ['/guide/', '/GUIDE/install.html', '{U}/guide/faq.html', '/blog/post-2.html?utm_source=guide'] },
  '/guide/faq.html': { title: 'FAQ', text: 'Questions and answers.', links: ['/guide/', '/guide/first-crawl.html#top', `/guide/install.html${JSESSION}`] },
  '/guide/advanced/': {
    title: 'Advanced',
    text: 'Presets and learned rules.',
    links: ['presets.html', 'rules.html', '../', '/guide/advanced/index.html'],
    head: ['<base href="/guide/advanced/">'],
  },
  '/guide/advanced/presets.html': { title: 'Presets', text: 'Opt-in policy presets.', links: ['rules.html', '/guide/advanced', `/api/normalize.html?sid=${SID}`] },
  '/guide/advanced/rules.html': { title: 'Rules', text: 'Host rules learned from redirects.', links: ['presets.html', '../install.html', '/blog/post-4.html?utm_source=rules'] },
  '/api/': {
    title: 'API',
    text: 'The library interface.',
    links: ['normalize.html', 'key.html', 'store.html', 'crawl.html', '/api/%6Bey.html', '/api', '#normalize'],
  },
  '/api/normalize.html': { title: 'normalize()', text: 'The ladder.', links: ['/api/', 'key.html', '/guide/advanced/presets.html'] },
  '/api/key.html': { title: 'key()', text: 'The canonical key.', links: ['/api/', 'normalize.html', `/api/key.html?sid=${SID}`] },
  '/api/store.html': { title: 'openStore()', text: 'The seen-store.', links: ['/api/', 'crawl.html', '{W}/api/store.html'] },
  '/api/crawl.html': { title: 'crawl()', text: 'The worker.', links: ['/api/', '/guide/first-crawl.html', '/blog/post-5.html?utm_source=api'] },
  '/blog/': {
    title: 'Blog',
    text: 'News from the project.',
    links: ['post-1.html', 'post-2.html', 'post-3.html', 'post-4.html', '/blog/post%2d5.html', 'post-6.html', 'post-7.html', 'post-8.html', '/blog'],
  },
  ...Object.fromEntries(
    [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [
      `/blog/post-${n}.html`,
      {
        title: `Post ${n}`,
        text: `Blog post number ${n}.`,
        links: ['/blog/', n > 1 ? `post-${n - 1}.html` : '/blog', n < 8 ? `post-${n + 1}.html` : '/tags', '/tags/crawling.html'],
        head: [`<link rel="canonical" href="/blog/post-${n}.html">`],
      } satisfies Page,
    ]),
  ),
  '/tags/': { title: 'Tags', text: 'Posts by tag.', links: ['crawling.html', 'urls.html', 'http.html', '/tags'] },
  '/tags/crawling.html': { title: 'Tag: crawling', text: 'Posts about crawling.', links: ['/tags/', '/blog/post-1.html', '/blog/post-7.html'] },
  '/tags/urls.html': { title: 'Tag: urls', text: 'Posts about URLs.', links: ['/tags/', '/blog/post-2.html', `/blog/post-6.html${JSESSION}`] },
  '/tags/http.html': { title: 'Tag: http', text: 'Posts about HTTP.', links: ['/tags/', '/blog/post-3.html'] },
  '/files/': { title: 'Files', text: 'Two files whose URLs look alike.', links: ['/files/a%2Fb.html', '/files/a/b.html', '/files'] },
  '/files/a%2Fb.html': { title: 'File a%2Fb', text: 'The file named "a/b" (an encoded slash).', links: ['/files/'] },
  '/files/a/b.html': { title: 'File a/b', text: 'The file b in folder a.', links: ['/files/'] },
  '/Case.html': { title: 'Case (capital C)', text: 'Paths are case-sensitive.', links: ['/case.html'] },
  '/case.html': { title: 'case (small c)', text: 'A different document.', links: ['/Case.html'] },
  '/news/': { title: 'News', text: 'All news pages.', links: ['?page=1', '?page=2', '?page=3', '/news'] },
  ...Object.fromEntries(
    [1, 2, 3].map((n) => [
      `/news/?page=${n}`,
      {
        title: `News page ${n}`,
        text: `Items on page ${n}.`,
        links: ['/news/', ...(n < 3 ? [`?page=${n + 1}`] : []), ...(n > 1 ? [`?page=${n - 1}`] : [])],
        head: [...(n < 3 ? [`<link rel="next" href="?page=${n + 1}">`] : []), ...(n > 1 ? [`<link rel="prev" href="?page=${n - 1}">`] : [])],
      } satisfies Page,
    ]),
  ),
  '/search.html?a=1&b=2': { title: 'Search a=1, b=2', text: 'Results in one order.', links: ['/'] },
  '/search.html?b=2&a=1': { title: 'Search b=2, a=1', text: 'Results in the other order.', links: ['/'] },
  '/private/press.html': { title: 'Press kit', text: 'Allowed by an Allow line.', links: ['/'] },
  '/private/secret.html': { title: 'Secret', text: 'robots.txt disallows this page.', links: ['/private/more-secret.html'] },
};

/** Directories (served with a trailing slash; the form without one redirects, index.html is the same document). */
const DIRECTORIES = ['/guide/', '/guide/advanced/', '/api/', '/blog/', '/tags/', '/files/', '/news/', '/'];
const REDIRECTS: Readonly<Record<string, readonly [number, string]>> = {
  '/moved.html': [301, '/about.html'],
  '/latest.html': [302, '/blog/post-8.html'],
};
const ROBOTS = `# urldedup demo site
User-agent: *
Disallow: /private/
Allow: /private/press.html
`;

const DISALLOWED = ['/private/secret.html'];

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function render(page: Page, o: { O: string; W: string; U: string; Z: string }): string {
  const href = (l: string): string => l.replace('{O}', o.O).replace('{W}', o.W).replace('{U}', o.U).replace('{Z}', o.Z);
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(page.title)}</title>
${(page.head ?? []).join('\n')}
</head><body id="top">
<h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.text)}</p>
<ul>
${page.links.map((l) => `<li><a href="${escapeHtml(href(l))}">${escapeHtml(l)}</a></li>`).join('\n')}
</ul>
</body></html>
`;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Percent-encodings of unreserved characters decoded, other hex in uppercase (RFC 3986 §6.2.2). */
function routePath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) => {
    const v = hexValue(h.charCodeAt(0)) * 16 + hexValue(h.charCodeAt(1));
    const c = String.fromCharCode(v);
    return /[A-Za-z0-9\-._~]/.test(c) ? c : m.toUpperCase();
  });
}

/** The query without the parameters the server ignores (tracking, session ids). */
function routeQuery(query: string | undefined): string | undefined {
  if (query === undefined) return undefined;
  const kept = query.split('&').filter((f) => {
    const name = f.split('=')[0]!.toLowerCase();
    return !(name.startsWith('utm_') || name === 'sid');
  });
  return kept.length === 0 ? undefined : kept.join('&');
}

/** Start the demo site. */
export async function startDemoSite(options: DemoSiteOptions = {}): Promise<DemoSite> {
  const requests: DemoRequest[] = [];
  const served = new Map<string, number>();
  let origins = { O: '', W: '', U: '', Z: '' };
  const bodies = new Map<string, string>();

  const send = (req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void => {
    const accept = String(req.headers['accept-encoding'] ?? '');
    let data: Buffer = Buffer.from(body, 'utf8');
    const h: Record<string, string> = { 'content-type': type, ...headers };
    if (/\bbr\b/.test(accept) && body.length > 200 && (req.url ?? '').startsWith('/api')) {
      data = brotliCompressSync(data);
      h['content-encoding'] = 'br';
    } else if (/\bgzip\b/.test(accept) && body.length > 200) {
      data = gzipSync(data);
      h['content-encoding'] = 'gzip';
    }
    h['content-length'] = String(data.length);
    res.writeHead(status, h);
    res.end(data);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let host = String(req.headers.host ?? '').toLowerCase();
    let target = req.url ?? '/';
    // a request in absolute form (RFC 9112 §3.2.2): the site is also its own HTTP proxy, so a client
    // that cannot resolve *.localhost names (wget, Scrapy) reaches them through it
    if (/^http:\/\//i.test(target)) {
      try {
        const u = new URL(target);
        host = u.host.toLowerCase();
        target = u.pathname + u.search;
      } catch {
        // not a URL: answered as the path it is (a 404)
      }
    }
    const log = (status: number, document?: string): void => {
      requests.push(document === undefined ? { host, target, status } : { host, target, status, document });
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      log(405);
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    // the www alias: everything moves to the bare name, same path
    if (host.startsWith('www.')) {
      log(301);
      res.writeHead(301, { location: origins.O + target, 'content-length': '0' }).end();
      return;
    }
    const q = target.indexOf('?');
    const rawPath = q === -1 ? target : target.slice(0, q);
    const query = routeQuery(q === -1 ? undefined : target.slice(q + 1));
    const path = routePath(rawPath.replace(/;jsessionid=[^/;]*/gi, ''));
    if (path === '/robots.txt') {
      log(200, '/robots.txt');
      send(req, res, 200, 'text/plain; charset=utf-8', ROBOTS);
      return;
    }
    const redirect = REDIRECTS[path];
    if (redirect !== undefined) {
      log(redirect[0]);
      res.writeHead(redirect[0], { location: redirect[1], 'content-length': '0' }).end();
      return;
    }
    if (DIRECTORIES.includes(path + '/') && query === undefined) {
      log(301);
      res.writeHead(301, { location: path + '/', 'content-length': '0' }).end();
      return;
    }
    const doc = path.endsWith('/index.html') && DIRECTORIES.includes(path.slice(0, -'index.html'.length)) ? path.slice(0, -'index.html'.length) : path;
    const key = query === undefined ? doc : `${doc}?${query}`;
    const body = bodies.get(key);
    if (body === undefined) {
      log(404);
      send(req, res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title><h1>Not found</h1>\n');
      return;
    }
    log(200, key);
    served.set(key, (served.get(key) ?? 0) + 1);
    const headers: Record<string, string> = DIRECTORIES.includes(doc) && query === undefined ? { 'content-location': `${doc}index.html` } : {};
    send(req, res, 200, 'text/html; charset=utf-8', body, headers);
  };

  const server: Server = createServer(handle);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origins = {
    O: `http://${DEMO_HOST}:${port}`,
    W: `http://${DEMO_WWW_HOST}:${port}`,
    U: `HTTP://${DEMO_HOST.toUpperCase()}:${port}`,
    Z: `http://${DEMO_HOST}:0${port}`,
  };
  for (const [path, page] of Object.entries(PAGES)) bodies.set(path, render(page, origins));
  const documents = Object.keys(PAGES).filter((p) => !DISALLOWED.includes(p));

  return {
    port,
    url: `${origins.O}/`,
    origin: origins.O,
    documents,
    disallowed: DISALLOWED,
    requests,
    servedCount: (document) => served.get(document) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
