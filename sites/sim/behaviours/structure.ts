/**
 * Behaviours of a site's structure: canonical and distinct hosts, mirrors, listings with
 * pagination and sorting, parameter order, calendars (a crawler trap), documentation versions,
 * chains and loops of redirects, front-controller paths, soft 404s, robots.txt wildcards and
 * temporary redirects. Each is written from the server's own documentation, cited on its `source`.
 */
import type { Answer, BehaviourKind, SimDoc, SiteBuilder } from '../model.js';
import { decodeUnreserved, esc, fields } from '../site.js';

const HTML = 'text/html; charset=utf-8';

/** The site's home page: the main host's `/` (a tree's own index.html, or the generated home). */
function homeOf(b: SiteBuilder): SimDoc | undefined {
  for (const d of b.docs.values()) if (d.host === b.host && d.path === '/' && d.query === undefined) return d;
  return [...b.docs.values()].find((d) => d.kind === 'home');
}

/** Tree pages of the main host (not sections, nothing a behaviour generated), in a stable order. */
function pagesOf(b: SiteBuilder, section?: string): SimDoc[] {
  return [...b.docs.values()].filter((d) => d.host === b.host && d.kind === 'page' && d.query === undefined && (section === undefined || d.section === section));
}

/** The page of a section (`/` included): the document that lists it. */
function sectionPage(b: SiteBuilder, s: string): SimDoc | undefined {
  for (const d of b.docs.values()) if (d.host === b.host && d.section === s && d.query === undefined && (d.kind === 'section' || d.kind === 'home')) return d;
  return undefined;
}

/** Sections of the main host that have a section page. */
function sectionsOf(b: SiteBuilder): string[] {
  return b.sections().filter((s) => sectionPage(b, s) !== undefined);
}

function withQuery(path: string, query: string | undefined): string {
  return path + (query === undefined ? '' : `?${query}`);
}

function decodeValue(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

/** The query as a map, the way PHP's $_GET or Express's req.query read it (the last field of a name wins). */
function fieldMap(query: string | undefined): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of fields(query)) m.set(decodeValue(k), decodeValue(v));
  return m;
}

/** Words of the tree's text, for made-up content (bodies, not names). */
function wordsOf(b: SiteBuilder): string[] {
  const out = new Set<string>();
  for (const d of b.docs.values()) for (const w of d.text.toLowerCase().match(/[a-z]{3,12}/g) ?? []) out.add(w);
  return [...out].sort();
}

function prose(b: SiteBuilder, words: readonly string[], n: number): string {
  if (words.length === 0) return b.names.word();
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(b.rng.pick(words));
  const s = out.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function monthOf(index: number): string {
  const y = Math.floor(index / 12);
  return `${String(y).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The documentation versions shared by version-picker and version-latest-redirect. */
interface Versions {
  readonly prefix: string;
  readonly latest: string;
  readonly newest: string;
  readonly names: readonly string[];
}

function makeVersions(b: SiteBuilder): Versions {
  const prefix = `/${b.names.word()}/`;
  const count = b.rng.int(2, 3);
  let major = b.rng.int(1, 5);
  let minor = b.rng.int(0, 9);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    names.push(`${major}.${minor}`);
    if (b.rng.chance(0.5)) {
      major++;
      minor = 0;
    } else minor += b.rng.int(1, 3);
  }
  return { prefix, latest: b.rng.pick(['latest', 'stable', 'current']), newest: names[names.length - 1]!, names };
}

/** Versioned copies of some pages, an index per version and one of all versions, linked from home. */
function setupVersions(b: SiteBuilder, v: Versions): void {
  const pages = b.rng.sample(pagesOf(b), b.rng.int(3, 6)).sort((x, y) => (x.id < y.id ? -1 : 1));
  if (pages.length === 0) return;
  const picked = new Set(pages.map((p) => p.id));
  const versionIndexes: string[] = [];
  v.names.forEach((name, i) => {
    const older = i < v.names.length - 1;
    const ids: string[] = [];
    for (const p of pages) {
      // an older release documents an older behaviour: its text lacks what came later
      const text = older ? `${p.text.slice(0, Math.max(40, Math.floor(p.text.length * (0.5 + 0.15 * i))))} (This describes release ${name}; later releases changed it.)` : p.text;
      const d = b.addDoc({
        id: `ver:${name}:${p.id}`,
        host: b.host,
        path: `${v.prefix}${name}${p.path}`,
        title: `${p.title} (${name})`,
        text,
        kind: 'generated',
        links: p.links.filter((l) => picked.has(l)).map((l) => `ver:${name}:${l}`),
      });
      ids.push(d.id);
    }
    const idx = b.addDoc({ id: `ver:${name}:`, host: b.host, path: `${v.prefix}${name}/`, title: `Documentation ${name}`, text: `The documentation of release ${name}.`, kind: 'generated', links: ids });
    versionIndexes.push(idx.id);
  });
  const all = b.addDoc({ id: `ver:index`, host: b.host, path: v.prefix, title: 'Documentation versions', text: `Releases: ${v.names.join(', ')}; ${v.latest} is ${v.newest}.`, kind: 'generated', links: versionIndexes, hrefs: [`${v.prefix}${v.latest}/`] });
  homeOf(b)?.links.push(all.id);
}

/** The `latest` form of a link to the newest version's documents. */
function latestAlias(b: SiteBuilder, v: Versions, to: SimDoc, url: string): string | undefined {
  if (to.host !== b.host || !to.id.startsWith(`ver:${v.newest}:`)) return undefined;
  const from = `${b.origin(b.host)}${v.prefix}${v.newest}`;
  return url.startsWith(from) ? `${b.origin(b.host)}${v.prefix}${v.latest}${url.slice(from.length)}` : undefined;
}

/**
 * `a` with a redirect's location under `from` (an origin, or an origin and a path prefix) named
 * under `to` instead: the server's own redirects keep the name the client asked for
 * (`UseCanonicalName Off`, a symlinked release tree).
 */
function rebased(a: Answer, from: string, to: string): Answer {
  if (a.kind !== 'redirect') return a;
  const under = a.location === from || a.location.startsWith(from + '/') || a.location.startsWith(from + '?');
  return under ? { ...a, location: to + a.location.slice(from.length) } : a;
}

/** `rest` when `path` is `prefix` itself or lies under it, else undefined. */
function under(path: string, prefix: string): string | undefined {
  if (path === prefix) return '';
  if (path.startsWith(prefix + '/')) return path.slice(prefix.length);
  return undefined;
}

export const structureBehaviours: BehaviourKind[] = [
  // 1 -------------------------------------------------------------------------------------------
  {
    name: 'www-redirect',
    source: 'nginx canonical host: a separate `server { server_name www.example.org; return 301 $scheme://example.org$request_uri; }` (nginx "Converting rewrite rules"; Apache "Canonical Hostnames" in the mod_rewrite remapping guide)',
    group: 'www',
    make: (b) => {
      const www = `www.${b.host}`;
      return {
        name: 'www-redirect',
        order: 10,
        setup: () => {
          b.hosts.add(www);
        },
        handle: (req, next) => (req.host === www ? { kind: 'redirect', status: 301, location: b.origin(b.host) + withQuery(req.path, req.query) } : next(req)),
        alias: (l) => (l.to.host === b.host && l.url.startsWith(b.origin(b.host)) ? b.origin(www) + l.url.slice(b.origin(b.host).length) : undefined),
      };
    },
  },
  // 2 -------------------------------------------------------------------------------------------
  {
    name: 'www-distinct',
    source: 'Name-based virtual hosts (Apache <VirtualHost> with its own ServerName, nginx server_name): www.example.org may be a different site (a blog) with its own DocumentRoot; same paths, other documents',
    group: 'www',
    make: (b) => {
      const www = `www.${b.host}`;
      return {
        name: 'www-distinct',
        order: 10,
        setup: () => {
          b.hosts.add(www);
          const words = wordsOf(b);
          const posts: string[] = [];
          // some posts lie at paths the main host also serves (different documents)
          for (const p of b.rng.sample(pagesOf(b), b.rng.int(2, 3))) {
            posts.push(b.addDoc({ id: `www:${p.path}`, host: www, path: p.path, title: `${b.names.word()} ${b.names.word()}`, text: `Blog post. ${prose(b, words, 40)}`, kind: 'generated' }).id);
          }
          const dir = `/${b.names.word()}/`;
          for (let i = b.rng.int(1, 2); i > 0; i--) {
            const path = `${dir}${b.names.word()}.html`;
            posts.push(b.addDoc({ id: `www:${path}`, host: www, path, title: `${b.names.word()} ${b.names.word()}`, text: `Blog post. ${prose(b, words, 40)}`, kind: 'generated' }).id);
          }
          const blogHome = b.addDoc({ id: 'www:/', host: www, path: '/', title: `The ${b.names.word()} blog`, text: `Notes and news. ${prose(b, words, 20)}`, kind: 'generated', links: posts });
          for (const id of posts) b.docs.get(id)!.links.push(blogHome.id);
          homeOf(b)?.links.push(blogHome.id);
        },
      };
    },
  },
  // 3 -------------------------------------------------------------------------------------------
  {
    name: 'mirror-host',
    source: 'Apache <VirtualHost> ServerAlias (a second name for the same DocumentRoot, answered 200, no redirect) with UseCanonicalName Off, so the server\'s own redirects name the host asked for',
    make: (b) => {
      const mirror = `${b.names.word()}.${b.host}`;
      const main = (): string => b.origin(b.host);
      return {
        name: 'mirror-host',
        order: 8,
        setup: () => {
          b.hosts.add(mirror);
        },
        handle: (req, next) => {
          if (req.host !== mirror) return next(req);
          return rebased(next({ ...req, host: b.host }), main(), b.origin(mirror));
        },
        alias: (l) => (l.to.host === b.host && l.url.startsWith(main()) && l.rng.chance(0.6) ? b.origin(mirror) + l.url.slice(main().length) : undefined),
      };
    },
  },
  // 3b ------------------------------------------------------------------------------------------
  {
    name: 'staging-host',
    source: 'A staging or preview virtual host (a second ServerName on a copy of the DocumentRoot, a CMS preview domain, a CDN pull zone serving a stale origin): most paths answer what the main host answers, byte for byte, and the pages edited since the copy answer their own text; links leak into it from the main site (a preview link to a page under edit, the others under the copy\'s name)',
    make: (b) => {
      const staging = `${b.names.word()}.${b.host}`;
      const main = (): string => b.origin(b.host);
      /** The staging copies that are documents of their own (their paths read at each request: a later setup may move them). */
      const copies: SimDoc[] = [];
      /** A main page's id → its edited copy. */
      const copyOf = new Map<string, SimDoc>();
      return {
        name: 'staging-host',
        order: 8,
        setup: () => {
          b.hosts.add(staging);
          const words = wordsOf(b);
          const pages = pagesOf(b);
          // 10–30 % of the pages edited, drawn across the tree: a few pages of a directory, not all of it
          for (const p of b.rng.sample(pages, Math.max(2, Math.round(pages.length * b.rng.int(10, 30) / 100)))) {
            const copy = b.addDoc({ id: `staging:${withQuery(p.path, p.query)}`, host: staging, path: p.path, ...(p.query === undefined ? {} : { query: p.query }), title: p.title, text: `${p.text} ${prose(b, words, 12)}`, kind: 'generated', links: [...p.links] });
            copies.push(copy);
            copyOf.set(p.id, copy);
            // a preview link shared while the page was edited, left on a page of the main site
            if (b.rng.chance(0.5) && pages.length > 0) b.rng.pick(pages).links.push(copy.id);
          }
        },
        handle: (req, next) => {
          if (req.host !== staging || copies.some((d) => d.path === req.path && d.query === req.query)) return next(req);
          const a = next({ ...req, host: b.host });
          // the copy runs the same application: any name of an edited page answers the edit (a
          // session segment, a twin's name), not only its canonical path
          const copy = a.kind === 'document' ? copyOf.get(a.id) : undefined;
          if (copy !== undefined) return next({ ...req, host: staging, path: copy.path, query: copy.query });
          return rebased(a, main(), b.origin(staging));
        },
        alias: (l) => (l.to.host === b.host && l.url.startsWith(main()) && l.rng.chance(0.4) ? b.origin(staging) + l.url.slice(main().length) : undefined),
      };
    },
  },
  // 4 -------------------------------------------------------------------------------------------
  {
    name: 'listing-params',
    source: 'WordPress archives: the `paged` query var (404 past max_num_pages) and `order=ASC|DESC` reversing the list (WP_Query parameters); a category with 0 or 1 posts reads the same in either order',
    make: (b) => {
      const list = b.names.word();
      const page = b.names.word();
      const sort = b.names.word();
      const asc = b.names.word();
      const desc = b.names.word();
      const PER = 5;
      // listing path → its number of pages and whether sorting changes it
      const listings = new Map<string, { pages: number; sortable: boolean }>();
      return {
        name: 'listing-params',
        order: 60,
        setup: () => {
          const secs = sectionsOf(b);
          const withPages = secs.filter((s) => pagesOf(b, s).length >= 2);
          const drawn = b.rng.sample(withPages.length > 0 ? withPages : secs, b.rng.int(1, 3));
          const make = (s: string, path: string, title: string, items: SimDoc[]): void => {
            const ids = items.map((d) => d.id).sort();
            const pages = Math.max(1, Math.ceil(ids.length / PER));
            const sortable = ids.length > 1;
            listings.set(path, { pages, sortable });
            const orders: [boolean, string[]][] = sortable ? [[false, ids], [true, [...ids].reverse()]] : [[false, ids]];
            const firsts: SimDoc[] = [];
            for (const [reversed, order] of orders) {
              const docs: SimDoc[] = [];
              for (let n = 1; n <= pages; n++) {
                const query = `${page}=${n}${reversed ? `&${sort}=${desc}` : ''}`;
                const text = ids.length === 0 ? `${title}: nothing here yet.` : `${title}: entries ${(n - 1) * PER + 1} to ${Math.min(n * PER, ids.length)} of ${ids.length}.`;
                docs.push(b.addDoc({ id: `list:${path}?${query}`, host: b.host, path, query, title: `${title}, page ${n}`, text, kind: 'generated', links: order.slice((n - 1) * PER, n * PER) }));
              }
              // page 1 links the next pages
              for (const d of docs.slice(1)) docs[0]!.links.push(d.id);
              firsts.push(docs[0]!);
            }
            const first = firsts[0]!;
            if (firsts[1] !== undefined) first.links.push(firsts[1].id);
            // the sort choices as the page writes them: explicit ascending, and descending (the same page when 0 or 1 items)
            first.hrefs.push(`${path}?${page}=1&${sort}=${asc}`);
            if (!sortable) first.hrefs.push(`${path}?${page}=1&${sort}=${desc}`);
            sectionPage(b, s)?.links.push(first.id);
          };
          for (const s of drawn) make(s, `${s}${list}`, `${sectionPage(b, s)?.title ?? s} list`, pagesOf(b, s));
          // categories with 0 or 1 entries, beside the long listings
          const s0 = drawn[0] ?? '/';
          const all = pagesOf(b);
          for (const n of [0, 1, 1]) {
            const cat = b.names.word();
            make(s0, `${s0}${cat}`, `Category ${cat}`, b.rng.sample(all, n));
          }
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const path = decodeUnreserved(req.path);
          const l = listings.get(path);
          if (l === undefined) return next(req);
          const f = fieldMap(req.query);
          const p = f.get(page) ?? '1';
          if (!/^[0-9]{1,9}$/.test(p)) return next(req);
          const n = Number(p);
          const reversed = l.sortable && f.get(sort) === desc;
          return next({ ...req, path, query: `${page}=${n}${reversed ? `&${sort}=${desc}` : ''}` });
        },
        alias: (l) => {
          if (l.to.host !== b.host || l.to.query === undefined || !listings.has(l.to.path)) return undefined;
          if (l.to.query === `${page}=1` && l.rng.chance(0.3)) return l.url.slice(0, l.url.indexOf('?'));
          return l.to.query.includes(`${sort}=`) ? undefined : `${l.url}&${sort}=${asc}`;
        },
      };
    },
  },
  // 5 -------------------------------------------------------------------------------------------
  {
    name: 'param-order-insensitive',
    source: 'Query strings parsed into a map (PHP $_GET, Django request.GET, Express req.query, Rails params): `?a=1&b=2` and `?b=2&a=1` reach the handler as the same arguments',
    make: (b) => {
      const search = b.names.word();
      const q = b.names.word();
      const within = b.names.word();
      const where = [b.names.word(), b.names.word()] as const; // title, text
      const known = new Set<string>();
      return {
        name: 'param-order-insensitive',
        order: 61,
        setup: () => {
          const pages = pagesOf(b);
          const terms = new Set<string>();
          for (const p of pages) for (const w of p.title.toLowerCase().match(/\b[a-z]{4,12}\b/g) ?? []) terms.add(w);
          const chosen = b.rng.sample([...terms].sort(), b.rng.int(2, 3));
          const ids: string[] = [];
          for (const term of chosen) {
            for (const [i, w] of where.entries()) {
              const hits = pages.filter((p) => (i === 0 ? p.title : p.text).toLowerCase().includes(term)).slice(0, 8);
              const query = `${q}=${term}&${within}=${w}`;
              known.add(query);
              ids.push(b.addDoc({ id: `search:${query}`, host: b.host, path: `/${search}`, query, title: `Search: ${term} (${i === 0 ? 'titles' : 'full text'})`, text: `${hits.length} result(s) for ${term}.`, kind: 'generated', links: hits.map((h) => h.id) }).id);
            }
          }
          homeOf(b)?.links.push(...ids);
        },
        handle: (req, next) => {
          if (req.host !== b.host || decodeUnreserved(req.path) !== `/${search}`) return next(req);
          const f = fieldMap(req.query);
          const query = `${q}=${f.get(q) ?? ''}&${within}=${f.get(within) ?? ''}`;
          return known.has(query) ? next({ ...req, path: `/${search}`, query }) : next(req);
        },
        // any query of two fields or more, reordered: the truth keeps it only where the server reads a map
        alias: (l) => {
          if (l.to.query === undefined) return undefined;
          const fs = l.to.query.split('&');
          if (fs.length < 2) return undefined;
          return `${l.url.slice(0, l.url.indexOf('?'))}?${[...fs].reverse().join('&')}`;
        },
      };
    },
  },
  // 6 -------------------------------------------------------------------------------------------
  {
    name: 'calendar-trap',
    source: 'Event calendars (WordPress The Events Calendar month view): every month answers 200 with links to the previous and next month, without end; Google Search Central names calendars among "infinite spaces" in its URL-structure guide',
    make: (b) => {
      const cal = b.names.word();
      const m = b.names.word();
      const current = b.rng.int(2015, 2026) * 12 + b.rng.int(0, 11);
      const events = new Map<number, string>(); // month index → document id
      return {
        name: 'calendar-trap',
        order: 62,
        setup: () => {
          const pages = pagesOf(b);
          for (const off of b.rng.sample([-7, -5, -3, -2, -1, 0, 1, 2, 4, 6, 9], 3)) if (pages.length > 0) events.set(current + off, b.rng.pick(pages).id);
          homeOf(b)?.hrefs.push(`/${cal}?${m}=${monthOf(current)}`);
        },
        handle: (req, next) => {
          if (req.host !== b.host || decodeUnreserved(req.path) !== `/${cal}`) return next(req);
          const v = fieldMap(req.query).get(m);
          let index = current;
          if (v !== undefined) {
            const mm = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(v);
            if (mm === null) return next(req);
            index = Number(mm[1]) * 12 + Number(mm[2]) - 1;
          }
          const month = monthOf(index);
          const name = `${MONTHS[index % 12]} ${Math.floor(index / 12)}`;
          return {
            kind: 'document',
            id: `trap:${cal}:${month}`,
            type: HTML,
            body: () => {
              const items: string[] = [];
              if (index > 0) items.push(`<li><a href="/${cal}?${m}=${monthOf(index - 1)}">previous month</a></li>`);
              if (index < 9999 * 12 + 11) items.push(`<li><a href="/${cal}?${m}=${monthOf(index + 1)}">next month</a></li>`);
              const ev = events.get(index);
              const doc = ev === undefined ? undefined : b.docs.get(ev);
              const event = doc === undefined ? '<p>No events this month.</p>' : `<p>Event: <a href="${esc(withQuery(doc.path, doc.query))}">${esc(doc.title)}</a></p>`;
              return `<!doctype html><html><head><meta charset="utf-8"><title>Events: ${name}</title></head><body><h1>${name}</h1>${event}<ul>${items.join('')}</ul></body></html>\n`;
            },
          };
        },
      };
    },
  },
  // 7 -------------------------------------------------------------------------------------------
  {
    name: 'version-picker',
    source: 'Read the Docs versions: /<version>/ per release, and `stable`/`latest` serving the build of the highest release (a symlinked `current`, as /docs/current/ on postgresql.org) with 200, no redirect',
    group: 'version',
    make: (b) => {
      const v = makeVersions(b);
      const latest = v.prefix + v.latest;
      const newest = v.prefix + v.newest;
      return {
        name: 'version-picker',
        order: 41,
        setup: () => setupVersions(b, v),
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const rest = under(decodeUnreserved(req.path), latest);
          if (rest === undefined) return next(req);
          // the server's own redirects under the link keep the name asked for
          return rebased(next({ ...req, path: newest + rest }), b.origin(b.host) + newest, b.origin(b.host) + latest);
        },
        alias: (l) => latestAlias(b, v, l.to, l.url),
      };
    },
  },
  // 8 -------------------------------------------------------------------------------------------
  {
    name: 'version-latest-redirect',
    source: 'nginx `rewrite ^/docs/latest/(.*)$ /docs/3.2/$1 redirect;` (the `redirect` flag answers 302); Read the Docs user redirects `/en/latest/$rest -> /en/3.2/$rest`',
    group: 'version',
    make: (b) => {
      const v = makeVersions(b);
      const latest = v.prefix + v.latest;
      const newest = v.prefix + v.newest;
      return {
        name: 'version-latest-redirect',
        order: 41,
        setup: () => setupVersions(b, v),
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const rest = under(decodeUnreserved(req.path), latest);
          return rest === undefined ? next(req) : { kind: 'redirect', status: 302, location: b.origin(b.host) + withQuery(newest + rest, req.query) };
        },
        alias: (l) => latestAlias(b, v, l.to, l.url),
      };
    },
  },
  // 9 -------------------------------------------------------------------------------------------
  {
    name: 'redirect-chain',
    source: 'Apache mod_alias `Redirect permanent /old/ /new/` (prefix match) kept after a second rename added `Redirect permanent /new/ /current/`: /old/x answers 301 /new/x, which answers 301 /current/x',
    make: (b) => {
      const oldest = `/${b.names.word()}/`;
      const middle = `/${b.names.word()}/`;
      let section = '/';
      return {
        name: 'redirect-chain',
        order: 47,
        setup: () => {
          const secs = sectionsOf(b).filter((s) => s !== '/' && pagesOf(b, s).length > 0);
          section = secs.length > 0 ? b.rng.pick(secs) : '/';
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const p = decodeUnreserved(req.path);
          if (p.startsWith(oldest)) return { kind: 'redirect', status: 301, location: b.origin(b.host) + withQuery(middle + p.slice(oldest.length), req.query) };
          if (p.startsWith(middle)) return { kind: 'redirect', status: 301, location: b.origin(b.host) + withQuery(section + p.slice(middle.length), req.query) };
          return next(req);
        },
        alias: (l) => {
          if (l.to.host !== b.host || !l.to.path.startsWith(section)) return undefined;
          return b.origin(b.host) + withQuery(oldest + l.to.path.slice(section.length), l.to.query);
        },
      };
    },
  },
  // 10 ------------------------------------------------------------------------------------------
  {
    name: 'slash-loop',
    source: 'Two rewrite rules that disagree on the trailing slash for some URLs (a WordPress Redirection-plugin or redirect_canonical rule adding it, nginx `rewrite ^(.+)/$ $1 permanent;` removing it): /x → 301 /x/ → 301 /x, ERR_TOO_MANY_REDIRECTS',
    make: (b) => {
      let ids: string[] = [];
      let paths: Set<string> | undefined;
      return {
        name: 'slash-loop',
        order: 46,
        setup: () => {
          const secs = sectionsOf(b).filter((s) => pagesOf(b, s).length >= 3);
          const s = secs.length > 0 ? b.rng.pick(secs) : '/';
          ids = b.rng.sample(pagesOf(b, s), b.rng.int(2, 3)).map((d) => d.id);
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          // the looping paths, read once every behaviour has set the canonical paths
          paths ??= new Set(ids.map((id) => b.docs.get(id)?.path).filter((p): p is string => p !== undefined && p.length > 1 && !p.endsWith('/')));
          const p = decodeUnreserved(req.path);
          if (paths.has(p)) return { kind: 'redirect', status: 301, location: b.origin(b.host) + withQuery(p + '/', req.query) };
          if (p.endsWith('/') && paths.has(p.slice(0, -1))) return { kind: 'redirect', status: 301, location: b.origin(b.host) + withQuery(p.slice(0, -1), req.query) };
          return next(req);
        },
      };
    },
  },
  // 11 ------------------------------------------------------------------------------------------
  {
    name: 'index-php-prefix',
    source: 'WordPress PATHINFO ("almost pretty") permalinks /index.php/%postname%/ (WP_Rewrite::using_index_permalinks), CodeIgniter $config[\'index_page\'] = \'index.php\': /index.php/x serves what /x serves',
    make: (b) => ({
      name: 'index-php-prefix',
      order: 20,
      handle: (req, next) => {
        if (req.host !== b.host) return next(req);
        const rest = under(req.path, '/index.php');
        return rest === undefined ? next(req) : next({ ...req, path: rest === '' ? '/' : rest });
      },
      alias: (l) => (l.to.host === b.host ? b.origin(b.host) + withQuery('/index.php' + l.to.path, l.to.query) : undefined),
    }),
  },
  // 12 ------------------------------------------------------------------------------------------
  {
    name: 'soft-404-by-id',
    source: 'A catalogue script (`item.php?id=N`) that answers 200 "no such item" for ids it does not know: a soft 404 (Google Search Central, "Soft 404 errors")',
    make: (b) => {
      const item = `/${b.names.word()}`;
      const idName = b.names.word();
      const known = new Set<string>();
      return {
        name: 'soft-404-by-id',
        order: 63,
        setup: () => {
          const pages = pagesOf(b);
          if (pages.length === 0) return;
          const home = homeOf(b);
          const numbers = b.rng.sample(Array.from({ length: 90 }, (_, i) => 100 + i * 7 + b.rng.int(0, 6)), 7);
          const good = numbers.slice(0, 4);
          const bad = numbers.slice(4);
          for (const n of good) {
            const p = b.rng.pick(pages);
            known.add(String(n));
            const d = b.addDoc({ id: `item:${n}`, host: b.host, path: item, query: `${idName}=${n}`, title: `Item ${n}`, text: `Item ${n}, about ${p.title}. ${p.text.slice(0, 160)}`, kind: 'generated', links: [p.id] });
            (b.rng.chance(0.5) || home === undefined ? b.rng.pick(pages) : home).links.push(d.id);
          }
          for (const n of bad) (b.rng.chance(0.5) || home === undefined ? b.rng.pick(pages) : home).hrefs.push(`${item}?${idName}=${n}`);
        },
        handle: (req, next) => {
          if (req.host !== b.host || decodeUnreserved(req.path) !== item) return next(req);
          const v = fieldMap(req.query).get(idName);
          if (v !== undefined && known.has(v)) return next({ ...req, path: item, query: `${idName}=${v}` });
          const shown = v ?? '';
          return { kind: 'none', status: 200, why: 'soft-404', id: `soft404:${b.host}${item}?${idName}=${shown}`, type: HTML, body: () => `<!doctype html><html><head><meta charset="utf-8"><title>Item</title></head><body><h1>Item</h1><p>There is no such item ${esc(shown)}.</p></body></html>\n` };
        },
      };
    },
  },
  // 13 ------------------------------------------------------------------------------------------
  {
    name: 'robots-wildcards',
    source: 'robots.txt with Google\'s extensions, standardised in RFC 9309 §2.2.3: `*` for any characters, `$` for the end of the URL, the longest match winning (`Allow: /private/public` inside `Disallow: /private/`); print views kept out with `Disallow: /*?print=`',
    make: (b) => {
      const print = b.names.word();
      const priv = b.names.word();
      const pub = b.names.word();
      const ext = b.names.word();
      return {
        name: 'robots-wildcards',
        // no layer of routing; set up before the path policies (order 44–52) so they apply to its pages too
        order: 7,
        setup: () => {
          b.robots(b.host, `Disallow: /*?${print}=`);
          b.robots(b.host, `Disallow: /${priv}/`);
          b.robots(b.host, `Allow: /${priv}/${pub}`);
          b.robots(b.host, `Disallow: /*.${ext}$`);
          const words = wordsOf(b);
          const home = homeOf(b);
          // printer-friendly views: other documents (no navigation), disallowed
          for (const p of b.rng.sample(pagesOf(b), b.rng.int(2, 4))) {
            const d = b.addDoc({ id: `print:${p.id}`, host: b.host, path: p.path, query: `${print}=1`, title: `${p.title} (printer-friendly)`, text: p.text, kind: 'generated' });
            p.links.push(d.id);
          }
          // a private area with a public corner
          const privPages: string[] = [];
          for (let i = b.rng.int(1, 2); i > 0; i--) privPages.push(b.addDoc({ id: `private:${i}`, host: b.host, path: `/${priv}/${b.names.word()}.html`, title: `Internal ${b.names.word()}`, text: prose(b, words, 30), kind: 'generated' }).id);
          const pubPage = b.addDoc({ id: 'public:page', host: b.host, path: `/${priv}/${pub}/${b.names.word()}.html`, title: `Public ${b.names.word()}`, text: prose(b, words, 30), kind: 'generated' });
          const pubIndex = b.addDoc({ id: 'public:index', host: b.host, path: `/${priv}/${pub}/`, title: `Public ${pub}`, text: prose(b, words, 12), kind: 'generated', links: [pubPage.id] });
          const privIndex = b.addDoc({ id: 'private:index', host: b.host, path: `/${priv}/`, title: `Internal ${priv}`, text: prose(b, words, 12), kind: 'generated', links: [...privPages, pubIndex.id] });
          // files by extension: disallowed as such, allowed with a query (`$` anchors the end)
          const files: string[] = [];
          for (let i = b.rng.int(1, 2); i > 0; i--) files.push(b.addDoc({ id: `file:${i}`, host: b.host, path: `/${b.names.word()}.${ext}`, title: `File ${i}`, text: prose(b, words, 20), kind: 'generated' }).id);
          files.push(b.addDoc({ id: 'file:query', host: b.host, path: `/${b.names.word()}.${ext}`, query: `${b.names.word()}=1`, title: 'File view', text: prose(b, words, 20), kind: 'generated' }).id);
          home?.links.push(privIndex.id, pubIndex.id, ...files);
        },
      };
    },
  },
  // 14 ------------------------------------------------------------------------------------------
  {
    name: 'rate-limit',
    source: 'nginx limit_req (`limit_req_zone $binary_remote_addr zone=one:10m rate=150r/s; limit_req zone=one burst=20 nodelay;`): a request over the zone\'s rate is refused with `limit_req_status`, 503 by default, without Retry-After, until the bucket refills',
    make: () => {
      const rate = 150;
      const burst = 20;
      let tokens = burst;
      let last = 0;
      let refused = 0;
      return {
        name: 'rate-limit',
        order: 1,
        handle: (req, next) => {
          if (req.live !== true) return next(req);
          const now = performance.now();
          tokens = Math.min(burst, tokens + ((now - last) / 1000) * rate);
          last = now;
          if (tokens >= 1) {
            tokens--;
            return next(req);
          }
          refused++;
          return { kind: 'none', status: 503, why: 'error', id: `limit:${req.host}:${refused}`, type: HTML, body: () => '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>\n' };
        },
      };
    },
  },
  {
    name: 'temporary-redirect',
    source: 'A "latest post" link: nginx `location = /latest { return 302 /posts/newest.html; }` (or a WordPress Redirection-plugin 302), its target changing as posts are published',
    make: (b) => {
      const latest = `/${b.names.word()}`;
      let target: string | undefined;
      return {
        name: 'temporary-redirect',
        order: 40,
        setup: () => {
          const pages = pagesOf(b);
          if (pages.length === 0) return;
          target = b.rng.pick(pages).id;
          homeOf(b)?.hrefs.push(latest);
        },
        handle: (req, next): Answer => {
          if (req.host !== b.host || target === undefined || decodeUnreserved(req.path) !== latest) return next(req);
          const d = b.docs.get(target)!;
          return { kind: 'redirect', status: 302, location: b.origin(b.host) + withQuery(d.path, d.query) };
        },
      };
    },
  },
];
