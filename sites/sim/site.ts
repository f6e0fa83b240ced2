/**
 * A simulated site: documents of a real documentation tree served on loopback through a stack of
 * server behaviours drawn at random from a seed (sim/behaviours/), with its exact ground truth
 * (what document each URL names, found by running the same stack without a network), the
 * documents reachable from the seed with robots.txt obeyed, and the floor: the fewest requests
 * any crawler needs to fetch each of them once (each document once, the redirects and failures
 * no crawler can skip, one robots.txt per host).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { absoluteHttp } from '../realistic-site.js';
import { BEHAVIOURS, LATER_BEHAVIOURS } from './behaviours/index.js';
import type { Answer, Behaviour, BehaviourKind, LinkContext, NotADocument, SimDoc, SimRequest, SiteBuilder } from './model.js';
import { allowed, parseRobots, type RobotsRule } from './robots.js';
import { hash32, Names, Rng } from './random.js';
import { availableTrees, loadTree, TREE_PACKAGES } from './tree.js';

export interface SimOptions {
  readonly seed: number;
  /** Tree pages served. @default 24–60, drawn */
  readonly pages?: number;
  /** Behaviours by name (the shrinker and the regressions name them); default: drawn. */
  readonly behaviours?: readonly string[];
  /** Behaviours drawn when not named. @default 6–12, drawn */
  readonly count?: number;
  /** Share of links written under another name, percent. @default 20 */
  readonly aliasPercent?: number;
  /** The tree (a folder); default: drawn among the available ones. */
  readonly tree?: string;
}

export interface SiteRequestLog {
  readonly client: string;
  readonly host: string;
  readonly target: string;
  readonly status: number;
  readonly document?: string;
}

export type Truth = { readonly kind: 'document'; readonly id: string; readonly hops: number } | { readonly kind: 'none'; readonly why: NotADocument; readonly id: string; readonly hops: number };

export interface SimSite {
  readonly seed: number;
  readonly port: number;
  readonly tree: string;
  readonly behaviours: readonly string[];
  readonly pages: number;
  readonly url: string;
  readonly seeds: readonly string[];
  /** The site's registrable name (`<word>.localhost`), for a crawl scope and wget's --domains. */
  readonly domain: string;
  /** Document ids reachable from the seed, robots.txt obeyed (trap pages left out). */
  readonly documents: readonly string[];
  /** Request targets (host and path) robots.txt disallows that links lead to. */
  readonly disallowed: ReadonlySet<string>;
  /** Every link URL met from the seed (absolute, no fragment), with its truth. */
  readonly links: ReadonlyMap<string, Truth>;
  /** Links written under another name than the canonical one. */
  readonly aliasLinks: number;
  readonly linkCount: number;
  /** The fewest requests a crawler needs. */
  readonly floor: number;
  readonly requests: SiteRequestLog[];
  truth(url: string): Truth;
  close(): Promise<void>;
}

const HTML = 'text/html; charset=utf-8';

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The shared not-found page (Apache's wording). */
export const NOT_FOUND_BODY = '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n';

/** Split a request target into path and query. */
export function splitTarget(target: string): { path: string; query: string | undefined } {
  const q = target.indexOf('?');
  return q === -1 ? { path: target, query: undefined } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** Parse an absolute http URL into a request (host lower-cased, port dropped); undefined for others. */
export function requestOf(url: string): (SimRequest & { port: string }) | undefined {
  const m = /^http:\/\/([^/?#:]*)(?::(\d+))?([^?#]*)(\?[^#]*)?/i.exec(url);
  if (m === null) return undefined;
  return { host: m[1]!.toLowerCase().replace(/\.$/, ''), port: m[2] ?? '80', path: m[3] === '' ? '/' : m[3]!, query: m[4] === undefined ? undefined : m[4].slice(1) };
}

/** Percent-encoded unreserved bytes decoded, others upper-cased (what servers do before routing). */
export function decodeUnreserved(path: string): string {
  return path.replace(/%([0-9a-f]{2})/gi, (m, x: string) => {
    const c = String.fromCharCode(parseInt(x, 16));
    return /[A-Za-z0-9._~-]/.test(c) ? c : m.toUpperCase();
  });
}

/** Query fields as [name, value] (raw). */
export function fields(query: string | undefined): [string, string][] {
  if (query === undefined || query === '') return [];
  return query.split('&').filter((f) => f !== '').map((f) => {
    const eq = f.indexOf('=');
    return eq === -1 ? [f, ''] : [f.slice(0, eq), f.slice(eq + 1)];
  });
}

export function joinFields(fs: readonly (readonly [string, string])[]): string | undefined {
  return fs.length === 0 ? undefined : fs.map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join('&');
}

/** The directory above a path (`/a/b` and `/a/b/` → `/a/`), undefined for `/`. */
export function parentDir(path: string): string | undefined {
  if (path === '/' || path === '') return undefined;
  const p = path.endsWith('/') ? path.slice(0, -1) : path;
  return p.slice(0, p.lastIndexOf('/') + 1) || '/';
}

/** Render a document's page. */
function renderPage(doc: SimDoc, links: readonly string[]): string {
  const items = links.map((href, i) => `<li><a href="${esc(href)}">${esc(i < doc.links.length ? `link ${i + 1}` : href)}</a></li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(doc.title)}</title>${doc.head ?? ''}</head><body><h1>${esc(doc.title)}</h1><p>${esc(doc.text)}</p><ul>${items}</ul></body></html>\n`;
}

/** `href` values of `<a>` and `<area>` (what the ground truth follows). */
function hrefsOf(html: string): string[] {
  const out: string[] = [];
  // a block drawn per response (behaviours/content.ts `random-posts`) links what a draw gives:
  // the documents to reach are those the site's own links reach, whatever the draws
  const fixed = html.replace(/<aside data-per-response>[\s\S]*?<\/aside>/g, '');
  for (const m of fixed.matchAll(/<(?:a|area)\b[^>]*?\bhref\s*=\s*"([^"]*)"/gi)) out.push(m[1]!.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
  return out;
}

/**
 * Draw the behaviours of a site: `count` of them, one per group. The first library's from `rng`;
 * then each later behaviour (behaviours/index.ts `LATER_BEHAVIOURS`), from a stream of the seed's
 * own, takes the place of a drawn one with the chance it would have had in one draw of the
 * library it joined.
 */
function drawBehaviours(rng: Rng, count: number, seed: number): BehaviourKind[] {
  const out: BehaviourKind[] = [];
  const groups = new Set<string>();
  for (const k of rng.sample(FIRST_BEHAVIOURS, FIRST_BEHAVIOURS.length)) {
    if (out.length >= count) break;
    if (k.group !== undefined && groups.has(k.group)) continue;
    if (k.group !== undefined) groups.add(k.group);
    out.push(k);
  }
  const late = new Rng(seed * 6151 + 29);
  // in the order they were added, each with the chance it had in the library of its day (the
  // first three were drawn from 42 together): a behaviour added later changes no earlier draw
  let added = 0;
  for (const name of LATER_BEHAVIOURS) {
    const k = BEHAVIOURS.find((x) => x.name === name)!;
    const library = Math.max(42, FIRST_BEHAVIOURS.length + ++added);
    if (!late.chance(out.length / library)) continue;
    const at = late.int(0, out.length - 1);
    if (k.group !== undefined && out.some((o, i) => i !== at && o.group === k.group)) continue;
    out[at] = k;
  }
  return out;
}

/** The behaviours of the first library, drawn from the site's own stream. */
const FIRST_BEHAVIOURS = BEHAVIOURS.filter((k) => !LATER_BEHAVIOURS.has(k.name));

export async function startSimSite(options: SimOptions): Promise<SimSite> {
  const trees = availableTrees();
  if (trees.length === 0 && options.tree === undefined) throw new Error(`no documentation tree found: apt-get install -y ${TREE_PACKAGES}`);
  const rng = new Rng(options.seed * 7919 + 17);
  const names = new Names(rng);
  const treeRoot = options.tree ?? trees[options.seed % trees.length]!;
  const tree = loadTree(treeRoot);
  const pages = Math.min(tree.pages.length, options.pages ?? rng.int(24, 60));
  // drawn whether or not the behaviours are given, so that a case naming the behaviours its seed
  // drew (the shrinker's first run, a regression) builds the very site the seed did
  const drawn = drawBehaviours(rng, options.count ?? rng.int(6, 12), options.seed);
  const kinds = options.behaviours !== undefined
    ? options.behaviours.map((n) => {
        const k = BEHAVIOURS.find((b) => b.name === n);
        if (k === undefined) throw new Error(`unknown behaviour ${n}`);
        return k;
      })
    : drawn;
  const aliasPercent = options.aliasPercent ?? 20;

  // ---- the base: tree pages under their own paths, a home page, a page per section -------
  const host = `${names.word()}.localhost`;
  const hosts = new Set([host]);
  const docs = new Map<string, SimDoc>();
  const robotsLines = new Map<string, string[]>();
  let port = 0;
  const origin = (h: string): string => `http://${h}:${port}`;
  const b: SiteBuilder = {
    rng,
    names,
    host,
    hosts,
    docs,
    sections: () => [...new Set([...docs.values()].map((d) => d.section))].sort(),
    addDoc: (d) => {
      const doc: SimDoc = { ...d, links: d.links ?? [], hrefs: d.hrefs ?? [], section: d.path.endsWith('/') ? d.path : (parentDir(d.path) ?? '/') };
      docs.set(doc.id, doc);
      return doc;
    },
    robots: (h, line) => robotsLines.set(h, [...(robotsLines.get(h) ?? []), line]),
    urlOf: (d) => `${origin(d.host)}${d.path}${d.query === undefined ? '' : `?${d.query}`}`,
    origin,
  };
  // the first `pages` pages met from a drawn start page (then from index.html), breadth first
  const byFile = new Map(tree.pages.map((p) => [p.file, p]));
  const chosen: string[] = [];
  const met = new Set<string>();
  for (const start of [rng.pick(tree.pages).file, 'index.html', ...tree.pages.map((p) => p.file)]) {
    const queue = [start];
    while (queue.length > 0 && chosen.length < pages) {
      const f = queue.shift()!;
      if (met.has(f)) continue;
      met.add(f);
      chosen.push(f);
      for (const l of byFile.get(f)?.links ?? []) if (!met.has(l)) queue.push(l);
    }
    if (chosen.length >= pages) break;
  }
  const chosenSet = new Set(chosen);
  for (const f of chosen) {
    const p = byFile.get(f)!;
    const isIndex = f === 'index.html' || f.endsWith('/index.html');
    b.addDoc({ id: f, host, path: '/' + (isIndex ? f.slice(0, -'index.html'.length) : f), title: p.title, text: p.text, kind: f === 'index.html' ? 'home' : isIndex ? 'section' : 'page', links: p.links.filter((l) => chosenSet.has(l)) });
  }
  // every section has a page that links its documents and subsections, the home page included
  const sectionDoc = (dir: string): SimDoc => {
    const found = [...docs.values()].find((d) => d.path === dir && d.host === host);
    if (found !== undefined) return found;
    return b.addDoc({ id: dir === '/' ? 'home' : `section:${dir}`, host, path: dir, title: dir === '/' ? `${host} home` : `Index of ${dir}`, text: `The pages under ${dir}.`, kind: dir === '/' ? 'home' : 'section' });
  };
  for (const d of [...docs.values()]) {
    let child = d;
    for (let dir = parentDir(d.path); dir !== undefined; dir = parentDir(dir)) {
      const s = sectionDoc(dir);
      if (s !== child && !s.links.includes(child.id)) s.links.push(child.id);
      child = s;
    }
  }

  // ---- behaviours: build time -------------------------------------------------------------
  const behaviours: Behaviour[] = kinds.map((k) => k.make(b)).sort((x, y) => x.order - y.order);
  for (const bh of behaviours) bh.setup?.(b);

  // ---- routing ----------------------------------------------------------------------------
  const byUrl = new Map<string, string>();
  const index = (): void => {
    byUrl.clear();
    for (const d of docs.values()) byUrl.set(`${d.host}${d.path}${d.query === undefined ? '' : `?${d.query}`}`, d.id);
  };
  const rendered = new Map<string, string[]>(); // doc id → its hrefs, aliases chosen
  const base = (req: SimRequest): Answer => {
    if (req.path === '/robots.txt') {
      const lines = robotsLines.get(req.host) ?? [];
      return { kind: 'document', id: `robots:${req.host}`, type: 'text/plain', body: () => `User-agent: *\n${lines.length === 0 ? 'Disallow:\n' : lines.join('\n') + '\n'}` };
    }
    const path = decodeUnreserved(req.path);
    const id = byUrl.get(`${req.host}${path}${req.query === undefined ? '' : `?${req.query}`}`);
    if (id !== undefined) {
      const doc = docs.get(id)!;
      return { kind: 'document', id, type: HTML, body: () => renderPage(doc, rendered.get(id) ?? []) };
    }
    return { kind: 'none', status: 404, why: 'not-found', id: `nf:${req.host}${path}${req.query === undefined ? '' : `?${req.query}`}`, type: HTML, body: () => NOT_FOUND_BODY };
  };
  let route = base;
  for (const bh of [...behaviours].reverse()) {
    if (bh.handle === undefined) continue;
    const next = route;
    const h = bh.handle.bind(bh);
    route = (req) => h(req, next, b);
  }

  const truthCache = new Map<string, Truth>();
  const truth = (url: string): Truth => {
    const known = truthCache.get(url);
    if (known !== undefined) return known;
    let cur = url;
    const seen = new Set<string>();
    let out: Truth | undefined;
    for (let hop = 0; hop <= 10 && out === undefined; hop++) {
      const r = requestOf(cur);
      if (r === undefined || !hosts.has(r.host) || r.port !== String(port)) {
        out = { kind: 'none', why: 'off-site', id: `off:${cur}`, hops: hop };
        break;
      }
      if (seen.has(cur)) {
        // a loop: one resource for the floor, whichever of its URLs a link names
        out = { kind: 'none', why: 'redirect-loop', id: `loop:${[...seen].slice([...seen].indexOf(cur)).sort().join(' ')}`, hops: seen.size - 1 };
        break;
      }
      seen.add(cur);
      const ans = route(r);
      if (ans.kind === 'document') out = { kind: 'document', id: ans.id, hops: hop };
      else if (ans.kind === 'none') out = { kind: 'none', why: ans.why, id: ans.id, hops: hop };
      else cur = new URL(ans.location, cur).href.replace(/#.*$/, '');
    }
    out ??= { kind: 'none', why: 'redirect-loop', id: `loop:${url}`, hops: 10 };
    truthCache.set(url, out);
    return out;
  };

  // ---- the server -------------------------------------------------------------------------
  const requests: SiteRequestLog[] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let h = String(req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    let target = req.url ?? '/';
    if (/^http:\/\//i.test(target)) {
      const r = requestOf(target); // absolute form: we are the client's proxy (wget)
      if (r !== undefined) {
        h = r.host;
        target = r.path + (r.query === undefined ? '' : `?${r.query}`);
      }
    }
    const client = String(req.headers['user-agent'] ?? '').split('/')[0]!.toLowerCase();
    const { path, query } = splitTarget(target);
    let ans: Answer;
    try {
      ans = hosts.has(h) ? route({ host: h, path: path === '' ? '/' : path, query, live: true }) : { kind: 'none', status: 404, why: 'off-site', id: 'off', body: () => NOT_FOUND_BODY };
    } catch {
      ans = { kind: 'none', status: 500, why: 'error', id: 'error', body: () => 'error' };
    }
    if (ans.kind === 'redirect' && ans.stub !== undefined) {
      requests.push({ client, host: h, target, status: 200 });
      const body = Buffer.from(ans.stub(ans.location, path === '' ? '/' : path));
      res.writeHead(200, { 'content-type': HTML, 'content-length': String(body.length) }).end(body);
      return;
    }
    if (ans.kind === 'redirect') {
      requests.push({ client, host: h, target, status: ans.status });
      res.writeHead(ans.status, { location: ans.location, 'content-length': '0' }).end();
      return;
    }
    const status = ans.kind === 'document' ? 200 : ans.status;
    requests.push(ans.kind === 'document' ? { client, host: h, target, status, document: ans.id } : { client, host: h, target, status });
    const body = Buffer.from(ans.body());
    res.writeHead(status, { 'content-type': ans.type ?? HTML, 'content-length': String(body.length), ...(ans.kind === 'document' ? ans.headers : {}) });
    res.end(body);
  };
  const server = createServer(handle);
  server.keepAliveTimeout = 2000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  index();

  // ---- robots.txt, as a crawler reads it ---------------------------------------------------
  const robotsOf = new Map<string, RobotsRule[]>();
  const robotsFor = (h: string): RobotsRule[] => {
    let r = robotsOf.get(h);
    if (r === undefined) {
      // RFC 9309 §2.3.1.2: a crawler follows at least five redirects for robots.txt
      let ans = route({ host: h, path: '/robots.txt', query: undefined });
      let at = `${origin(h)}/robots.txt`;
      for (let hop = 0; hop < 5 && ans.kind === 'redirect'; hop++) {
        at = new URL(ans.location, at).href;
        const rr = requestOf(at);
        if (rr === undefined || !hosts.has(rr.host)) break;
        ans = route(rr);
      }
      r = ans.kind === 'document' ? parseRobots(ans.body()) : [];
      robotsOf.set(h, r);
    }
    return r;
  };

  // ---- links: each document's hrefs, some written under another name ----------------------
  let aliasLinks = 0;
  for (const d of docs.values()) {
    const out: string[] = [];
    d.links.forEach((id, i) => {
      const to = docs.get(id);
      if (to === undefined) return;
      const url = b.urlOf(to);
      const local = to.host === d.host ? url.slice(origin(d.host).length) : url;
      let href = local;
      if (to.host === d.host) for (const bh of behaviours) if (bh.write !== undefined) href = bh.write({ from: d, to, url, rng: new Rng(hash32(`${options.seed}:${d.id}:${i}:w`)) }, href);
      const r = hash32(`${options.seed}:${d.id}:${i}`);
      if (r % 100 < aliasPercent) {
        const lr = new Rng(r);
        const l: LinkContext = { from: d, to, url, rng: lr };
        const offers = behaviours.filter((bh) => bh.alias !== undefined);
        for (const bh of lr.sample(offers, offers.length)) {
          const alt = bh.alias!(l, b);
          if (alt === undefined) continue;
          // a behaviour offers a name; only the server's answer says it names this document
          const abs = new URL(alt, url).href.replace(/#.*$/, '');
          const t = truth(abs);
          // an alias never opens what robots.txt closes: a link to a disallowed page under an
          // allowed name (a query after a `$` rule) names what the site keeps out
          const ar = requestOf(abs);
          const cr = requestOf(url);
          const open = (q: ReturnType<typeof requestOf>): boolean => q !== undefined && allowed(robotsFor(q.host), q.path + (q.query === undefined ? '' : `?${q.query}`));
          if (t.kind === 'document' && t.id === to.id && (open(cr) || !open(ar))) {
            href = alt;
            aliasLinks++;
            break;
          }
        }
      }
      out.push(href);
    });
    out.push(...d.hrefs);
    rendered.set(d.id, out);
  }

  // ---- ground truth: breadth first from the seed, robots.txt obeyed -----------------------
  const seeds = [`${origin(host)}/`];
  const links = new Map<string, Truth>();
  /** URLs met as links (or seeds): where a crawler starts from, unlike a redirect's target. */
  const linked = new Set<string>(seeds);
  const reached = new Set<string>();
  const disallowed = new Set<string>();
  const hostsContacted = new Set<string>();
  const queue = [...seeds];
  const queuedSet = new Set(queue);
  let linkCount = 0;
  while (queue.length > 0) {
    const url = queue.shift()!;
    const r = requestOf(url)!;
    const t = truth(url);
    links.set(url, t);
    hostsContacted.add(r.host);
    if (t.kind !== 'document') continue;
    // the URL that answers, each hop obeying robots.txt (RFC 9309 §2.2: a crawler checks every URL it fetches)
    let final = url;
    let ans: Answer = route(r);
    let blocked = false;
    for (let hop = 0; hop < 10 && ans.kind === 'redirect'; hop++) {
      final = new URL(ans.location, final).href.replace(/#.*$/, '');
      const fr = requestOf(final);
      if (fr === undefined || !hosts.has(fr.host)) break;
      if (!allowed(robotsFor(fr.host), fr.path + (fr.query === undefined ? '' : `?${fr.query}`))) {
        blocked = true;
        break;
      }
      hostsContacted.add(fr.host);
      if (!links.has(final)) links.set(final, truth(final));
      ans = route(fr);
    }
    if (blocked || ans.kind !== 'document') continue;
    const doc = docs.get(t.id);
    // a document whose own name robots.txt closes is not one a crawler must reach, whatever
    // name left open led here (`//private/a.html` on a server merging slashes): a crawler may
    // check robots.txt on the name it maps a URL to
    if (doc !== undefined && doc.kind !== 'trap' && allowed(robotsFor(doc.host), doc.path + (doc.query === undefined ? '' : `?${doc.query}`))) reached.add(t.id);
    if (doc === undefined || doc.kind === 'trap') continue;
    for (const href of hrefsOf(ans.body())) {
      const abs = absoluteHttp(href, final);
      if (abs === undefined) continue;
      linkCount++;
      const ar = requestOf(abs);
      if (ar === undefined || !(ar.host === host || ar.host.endsWith(`.${host}`)) || !hosts.has(ar.host)) continue;
      if (!allowed(robotsFor(ar.host), ar.path + (ar.query === undefined ? '' : `?${ar.query}`))) {
        disallowed.add(`${ar.host}${ar.path}${ar.query === undefined ? '' : `?${ar.query}`}`);
        continue;
      }
      linked.add(abs);
      if (queuedSet.has(abs)) continue;
      queuedSet.add(abs);
      queue.push(abs);
    }
  }

  // ---- the floor -----------------------------------------------------------------------------
  const fewestHops = new Map<string, number>();
  for (const [u, t] of links) {
    if (!linked.has(u)) continue;
    const k = t.kind === 'document' ? `d:${t.id}` : `n:${t.id}`;
    fewestHops.set(k, Math.min(fewestHops.get(k) ?? Infinity, t.hops));
  }
  let floor = hostsContacted.size; // robots.txt
  for (const [, hops] of fewestHops) floor += 1 + hops;

  return {
    seed: options.seed,
    port,
    tree: treeRoot,
    behaviours: kinds.map((k) => k.name),
    pages,
    url: seeds[0]!,
    seeds,
    domain: host,
    documents: [...reached].sort(),
    disallowed,
    links,
    aliasLinks,
    linkCount,
    floor,
    requests,
    truth,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
