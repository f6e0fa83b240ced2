// An alias-injecting server for a real documentation tree (Debian's postgresql-doc-15 HTML), for
// the real-site crawl proof (test/crawler/real-site.test.ts) and bench (bench/crawl-real-site.ts).
//
// It serves the tree on 127.0.0.1 as http://docs.localhost:PORT/docs/15/<file>.html and rewrites
// a fixed share of each page's links (chosen by a hash of the page and the link's position, so
// every run sees the same site) into the aliases real sites have:
//   - www:          http://www.docs.localhost:PORT/docs/15/x.html   (301 to the bare name)
//   - case:         HTTP://DOCS.LOCALHOST:PORT/docs/15/x.html
//   - percent:      %73ql-select.html (an unreserved character percent-encoded, lowercase hex)
//   - port:         http://docs.localhost:0PORT/docs/15/x.html (leading zero)
//   - dot-segments: ./x.html, ../15/x.html
//   - tracking:     x.html?utm_source=toc
//   - session ids:  x.html?sid=<32 hex>, x.html;jsessionid=<32 hex>
//   - directory:    /docs/15 and /docs (301 to /docs/15/), /docs/15/index.html (the same document)
//   - fragments are the tree's own.
// The index links to trap pairs, distinct documents whose URLs look alike (a%2Fb vs a/b, X vs x,
// s vs s/, ?page=1 vs ?page=2, ?b=1&a=2 vs ?a=2&b=1), and to /docs/15/private/secret.html, which
// robots.txt disallows. Every request is logged with the client's User-Agent. A request in
// absolute form (`GET http://docs.localhost:PORT/… HTTP/1.1`) is answered too, so wget can reach the
// *.localhost names by using this server as its proxy.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const POSTGRES_DOCS = '/usr/share/doc/postgresql-doc-15/html';
export const DOCS_HOST = 'docs.localhost';
const PREFIX = '/docs/15/';

export interface SiteRequest {
  readonly client: string;
  readonly host: string;
  readonly target: string;
  readonly status: number;
  /** The canonical document answered (200 only). */
  readonly document?: string;
}

export interface AliasSite {
  readonly port: number;
  readonly origin: string;
  /** The seed: http://docs.localhost:PORT/docs/15/ */
  readonly url: string;
  /** Canonical paths of the documents reachable from the seed (robots-disallowed ones excluded). */
  readonly documents: readonly string[];
  /** The trap documents (a subset of `documents`). */
  readonly traps: readonly string[];
  readonly disallowed: readonly string[];
  readonly requests: SiteRequest[];
  /** Links rewritten into each kind of alias, over the whole site. */
  readonly aliasLinks: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

const TRAPS: Readonly<Record<string, string>> = {
  'traps/a%2Fb.html': 'the file named a/b (an encoded slash)',
  'traps/a/b.html': 'the file b in folder a',
  'traps/X.html': 'capital X',
  'traps/x.html': 'small x',
  'traps/s': 's without a slash',
  'traps/s/': 's with a slash',
  'traps/list.html?page=1': 'list page 1',
  'traps/list.html?page=2': 'list page 2',
  'traps/q.html?b=1&a=2': 'query b=1&a=2',
  'traps/q.html?a=2&b=1': 'query a=2&b=1',
};
const PRIVATE = 'private/secret.html';
const ROBOTS = 'User-agent: *\nDisallow: /docs/15/private/\n';

function h32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

function hex32(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

const FILE_LINK = /^([a-z0-9][a-z0-9._-]*\.html)(#[^"]*)?$/i;

export interface AliasSiteOptions {
  /** @default POSTGRES_DOCS */
  readonly root?: string;
  /** @default 0 */
  readonly port?: number;
  /** Share of links rewritten into an alias, percent. @default 20 */
  readonly aliasPercent?: number;
}

/** Start the server; throws when the tree is missing (`apt-get install -y postgresql-doc-15`). */
export async function startAliasSite(options: AliasSiteOptions = {}): Promise<AliasSite> {
  const root = options.root ?? POSTGRES_DOCS;
  if (!existsSync(join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: install the documentation (apt-get install -y postgresql-doc-15)`);
  }
  const aliasPercent = options.aliasPercent ?? 20;
  const files = new Set(readdirSync(root));
  const requests: SiteRequest[] = [];
  const aliasLinks: Record<string, number> = {};
  const sockets = new Set<Socket>();
  let O = '';
  let port = 0;

  /** One original link, maybe rewritten into an alias. */
  const rewrite = (page: string, i: number, file: string, fragment: string): string => {
    const r = h32(`${page}#${i}`) % 100;
    const pick = aliasPercent <= 0 ? 100 : Math.floor((r * 20) / aliasPercent);
    const path = PREFIX + file;
    let out: string;
    let kind: string;
    if (file === 'index.html' && pick < 20) {
      const forms = [`${PREFIX}`, '/docs/15', `${PREFIX}index.html`, '/docs'];
      out = forms[r % forms.length]!;
      kind = `directory ${out}`;
    } else if (pick < 4) [out, kind] = [`http://www.${DOCS_HOST}:${port}${path}`, 'www'];
    else if (pick < 7) [out, kind] = [`HTTP://${DOCS_HOST.toUpperCase()}:${port}${path}`, 'case'];
    else if (pick < 10) [out, kind] = [`%${file.charCodeAt(0).toString(16)}${file.slice(1)}`, 'percent'];
    else if (pick < 12) [out, kind] = [`http://${DOCS_HOST}:0${port}${path}`, 'port'];
    else if (pick < 15) [out, kind] = [r % 2 === 0 ? `./${file}` : `../15/${file}`, 'dot-segments'];
    else if (pick < 17) [out, kind] = [`${file}?utm_source=toc`, 'tracking'];
    else if (pick < 19) [out, kind] = [`${file}?sid=${hex32(page + i)}`, 'sid'];
    else if (pick < 20) [out, kind] = [`${file};jsessionid=${hex32(page + i).toUpperCase()}`, 'jsessionid'];
    else return file + fragment;
    aliasLinks[kind.startsWith('directory') ? 'directory' : kind] = (aliasLinks[kind.startsWith('directory') ? 'directory' : kind] ?? 0) + 1;
    return out + (kind.startsWith('directory') ? '' : fragment);
  };

  /** The page as served: links rewritten, the index with the trap and private links added. */
  const pages = new Map<string, Buffer>();
  const links = new Map<string, string[]>(); // the canonical link graph (file → files)
  const renderAll = (): void => {
    for (const file of files) {
      if (!file.endsWith('.html')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      const out: string[] = [];
      let i = 0;
      const body = text.replace(/href="([^"]*)"/g, (whole, href: string) => {
        const m = FILE_LINK.exec(href);
        if (m === null || !files.has(m[1]!)) return whole;
        out.push(m[1]!);
        return `href="${rewrite(file, i++, m[1]!, m[2] ?? '')}"`;
      });
      links.set(file, out);
      let served = body;
      if (file === 'index.html') {
        const extra = [...Object.keys(TRAPS), PRIVATE].map((t) => `<a href="${t.replace(/&/g, '&amp;')}">${t}</a>`).join(' ');
        served = body.replace('</body>', `<div class="traps">${extra}</div></body>`);
      }
      pages.set(file, Buffer.from(served));
    }
  };
  const trapPage = (t: string): Buffer =>
    Buffer.from(`<!doctype html><html><head><title>${TRAPS[t]}</title></head><body><h1>${TRAPS[t]}</h1><a href="${PREFIX}">index</a></body></html>\n`);

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let host = String(req.headers.host ?? '').toLowerCase();
    let target = req.url ?? '/';
    if (/^https?:\/\//i.test(target)) {
      const u = new URL(target); // absolute form: we are the client's proxy
      host = u.host;
      target = u.pathname + u.search;
    }
    const client = String(req.headers['user-agent'] ?? '').split('/')[0]!.toLowerCase();
    const log = (status: number, document?: string): void => {
      requests.push(document === undefined ? { client, host, target, status } : { client, host, target, status, document });
    };
    const send = (status: number, type: string, body: Buffer, document?: string): void => {
      log(status, document);
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && body.length > 512;
      const data = gzip ? gzipSync(body, { level: 1 }) : body;
      res.writeHead(status, { 'content-type': type, 'content-length': String(data.length), ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
      res.end(data);
    };
    const redirect = (status: number, location: string): void => {
      log(status);
      res.writeHead(status, { location, 'content-length': '0' }).end();
    };
    if (host.startsWith('www.')) return redirect(301, `${O}${target}`);
    if (target === '/robots.txt') return send(200, 'text/plain', Buffer.from(ROBOTS), '/robots.txt');
    const q = target.indexOf('?');
    let path = q === -1 ? target : target.slice(0, q);
    let query = q === -1 ? undefined : target.slice(q + 1);
    // parameters and path parameters the server ignores; percent-encoded unreserved characters decoded
    path = path.replace(/;jsessionid=[^/;]*/gi, '').replace(/%([0-9a-f]{2})/gi, (m, x: string) => {
      const c = String.fromCharCode(parseInt(x, 16));
      return /[A-Za-z0-9._~-]/.test(c) ? c : m.toUpperCase();
    });
    if (query !== undefined) {
      const kept = query.split('&').filter((f) => !/^(utm_[a-z]+|sid)=/i.test(f));
      query = kept.length === 0 ? undefined : kept.join('&');
    }
    if (path === '/docs' || path === '/docs/15') return redirect(301, PREFIX);
    if (!path.startsWith(PREFIX)) return send(404, 'text/html', Buffer.from('<h1>not found</h1>'));
    let rest = path.slice(PREFIX.length);
    if (rest === '') rest = 'index.html';
    const trapKey = query === undefined ? rest : `${rest}?${query}`;
    if (TRAPS[trapKey] !== undefined) return send(200, 'text/html; charset=utf-8', trapPage(trapKey), PREFIX + trapKey);
    if (rest === PRIVATE) return send(200, 'text/html', Buffer.from('<h1>private</h1>'), PREFIX + PRIVATE);
    if (query === undefined) {
      const page = pages.get(rest);
      if (page !== undefined) return send(200, 'text/html; charset=utf-8', page, rest === 'index.html' ? PREFIX : PREFIX + rest);
      if (files.has(rest)) {
        const type = rest.endsWith('.css') ? 'text/css' : rest.endsWith('.svg') ? 'image/svg+xml' : 'application/octet-stream';
        return send(200, type, readFileSync(join(root, rest)));
      }
    }
    send(404, 'text/html', Buffer.from('<h1>not found</h1>'));
  };

  const server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  O = `http://${DOCS_HOST}:${port}`;
  renderAll();

  // the documents reachable from the index over the original links (plus the injected ones)
  const reached = new Set<string>(['index.html']);
  const queue = ['index.html'];
  while (queue.length > 0) {
    for (const next of links.get(queue.shift()!) ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  const traps = Object.keys(TRAPS).map((t) => PREFIX + t);
  const documents = [...[...reached].map((f) => (f === 'index.html' ? PREFIX : PREFIX + f)), ...traps];

  return {
    port,
    origin: O,
    url: `${O}${PREFIX}`,
    documents,
    traps,
    disallowed: [PREFIX + PRIVATE],
    requests,
    aliasLinks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
