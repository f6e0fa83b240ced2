/**
 * Behaviours of paths: trailing slashes, default documents, extension-less permalinks, moved
 * prefixes. Each is written from the server's own documentation, cited on its `source`.
 */
import type { Answer, BehaviourKind, SimDoc, SimRequest, SiteBuilder } from '../model.js';
import { decodeUnreserved, esc } from '../site.js';

/** The document `path` names on `host`, by the documents' canonical paths. */
function docAt(docs: Map<string, SimDoc>, host: string, path: string): SimDoc | undefined {
  for (const d of docs.values()) if (d.host === host && d.path === path && d.query === undefined) return d;
  return undefined;
}

function target(req: SimRequest, path: string): string {
  return path + (req.query === undefined ? '' : `?${req.query}`);
}

/**
 * The reference from a page at `fromPath` to `to` (a root-relative path and query) as a
 * documentation generator writes it: relative to the page's directory (RFC 3986 §4.2), `./` for
 * the directory itself and before a first segment that would read as a scheme.
 */
export function relativeReference(fromPath: string, to: string): string {
  const q = to.indexOf('?');
  const toPath = q === -1 ? to : to.slice(0, q);
  const query = q === -1 ? '' : to.slice(q);
  const fromDir = fromPath.split('/').slice(1, -1);
  const toSegs = toPath.split('/').slice(1);
  const toDir = toSegs.slice(0, -1);
  const name = toSegs[toSegs.length - 1] ?? '';
  let same = 0;
  while (same < fromDir.length && same < toDir.length && fromDir[same] === toDir[same]) same++;
  let rel = '../'.repeat(fromDir.length - same) + toDir.slice(same).map((s) => `${s}/`).join('') + name;
  if (rel === '') rel = './';
  else if (/^[^/?#]*:/.test(rel)) rel = `./${rel}`;
  return rel + query;
}

/** One insertion, omission, transposition or wrong character between `a` and `b` (mod_speling.c `spdist`), case ignored; or none. */
function nearMiss(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x === y) return true;
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  if (x.length === y.length) return x.slice(i + 1) === y.slice(i + 1) || (x[i] === y[i + 1] && x[i + 1] === y[i] && x.slice(i + 2) === y.slice(i + 2));
  return x.length > y.length ? x.slice(i + 1) === y.slice(i) : x.slice(i) === y.slice(i + 1);
}

/** A name without its extension (mod_speling's basename: up to the first `.`). */
function basename(name: string): string {
  const dot = name.indexOf('.');
  return (dot <= 0 ? name : name.slice(0, dot)).toLowerCase();
}

/** The main host's section pages (`/dir/`, the home page aside) and tree pages. */
function mainDocuments(b: SiteBuilder): { sections: SimDoc[]; pages: SimDoc[] } {
  const mine = [...b.docs.values()].filter((d) => d.host === b.host);
  return { sections: mine.filter((d) => d.kind === 'section' && d.query === undefined && d.path.endsWith('/')), pages: mine.filter((d) => d.kind === 'page') };
}

export const pathBehaviours: BehaviourKind[] = [
  {
    name: 'slash-dir-redirect',
    source: 'Apache httpd mod_dir, DirectorySlash On: "a request for /dir is redirected (301) to /dir/"',
    group: 'slash',
    make: (b) => ({
      name: 'slash-dir-redirect',
      order: 50,
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (!p.endsWith('/') && docAt(b.docs, req.host, p + '/') !== undefined) return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, p + '/') };
        return next(req);
      },
      alias: (l) => (l.to.path.length > 1 && l.to.path.endsWith('/') && l.to.query === undefined ? l.url.replace(/\/$/, '') : undefined),
    }),
  },
  {
    name: 'slash-redirect-drops-query',
    source: 'nginx `return 301 $uri/;` (the usual hand-written trailing-slash redirect: `$uri` is "without arguments", unlike `$request_uri` or `rewrite`, which appends them): /dir?page=2 answers 301 to /dir/, the query lost; sections paginate with ?page=N, and some templates write the link without the slash',
    group: 'slash',
    make: (b) => {
      const page = b.names.word();
      return {
        name: 'slash-redirect-drops-query',
        order: 50,
        setup: () => {
          // a section of three pages or more lists its later pages on a page 2 of its own
          const { sections, pages } = mainDocuments(b);
          for (const sec of sections) {
            const entries = pages.filter((d) => d.section === sec.path);
            if (entries.length < 3) continue;
            const later = entries.slice(Math.ceil(entries.length / 2));
            const second = b.addDoc({ id: `page2:${sec.path}`, host: b.host, path: sec.path, query: `${page}=2`, title: `${sec.title}, page 2`, text: `Entries ${entries.length - later.length + 1} to ${entries.length} of ${entries.length} under ${sec.path}.`, kind: 'generated', links: later.map((d) => d.id) });
            sec.links.push(second.id);
            // a sidebar template writing the section without its slash: /dir?page=2
            const writer = b.rng.pick(pages);
            writer.hrefs.push(`${sec.path.slice(0, -1)}?${page}=2`);
          }
        },
        handle: (req, next) => {
          const p = decodeUnreserved(req.path);
          if (!p.endsWith('/') && docAt(b.docs, req.host, p + '/') !== undefined) return { kind: 'redirect', status: 301, location: b.origin(req.host) + p + '/' };
          return next(req);
        },
        alias: (l) => (l.to.path.length > 1 && l.to.path.endsWith('/') && l.to.query === undefined ? l.url.replace(/\/$/, '') : undefined),
      };
    },
  },
  {
    name: 'slash-remove-redirect',
    source: 'Netlify Pretty URLs / Next.js trailingSlash: false: "/about/ redirects (308) to /about"',
    group: 'slash',
    make: (b) => ({
      name: 'slash-remove-redirect',
      order: 50,
      setup: () => {
        for (const d of b.docs.values()) if (d.path.length > 1 && d.path.endsWith('/')) d.path = d.path.slice(0, -1);
      },
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (p.length > 1 && p.endsWith('/') && docAt(b.docs, req.host, p.slice(0, -1)) !== undefined) return { kind: 'redirect', status: 308, location: b.origin(req.host) + target(req, p.slice(0, -1)) };
        return next(req);
      },
      alias: (l) => (l.to.kind === 'section' && l.to.path.length > 1 && l.to.query === undefined ? l.url.replace(/(\?|$)/, '/$1') : undefined),
    }),
  },
  {
    name: 'slash-either',
    source: 'Express (`strict` routing off, the default: "/foo" and "/foo/" are treated the same by the router), Flask `strict_slashes=False`: a directory\'s page answers 200 under both names, no redirect; a file\'s name with a slash added is a 404',
    group: 'slash',
    make: (b) => ({
      name: 'slash-either',
      order: 50,
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (!p.endsWith('/') && docAt(b.docs, req.host, p + '/') !== undefined) return next({ ...req, path: p + '/' });
        return next(req);
      },
      alias: (l) => (l.to.path.length > 1 && l.to.path.endsWith('/') && l.to.query === undefined ? l.url.replace(/\/$/, '') : undefined),
    }),
  },
  {
    name: 'relative-links',
    source: 'Sphinx (`pathto()`), DocBook XSL, Javadoc and Hugo with `relativeURLs`: a page links others relative to its own directory (`../library/os.html`, `./`), so a page served under a name in another directory (`/a//b.html`, `/dir` beside `/dir/`) links other URLs than its canonical name does',
    make: () => ({
      name: 'relative-links',
      order: 0,
      write: (l, href) => (href.startsWith('/') ? relativeReference(l.from.path, href) : href),
    }),
  },
  {
    name: 'lowercase-redirect',
    source: 'IIS URL Rewrite, the "Enforce lowercase URLs" rule template (`<match url="[A-Z]" ignoreCase="false" />`, `<action type="Redirect" url="{ToLower:{R:0}}" redirectType="Permanent" />`): every path with a capital letter answers 301 to its lower-case form',
    group: 'case',
    make: (b) => ({
      name: 'lowercase-redirect',
      order: 9,
      setup: () => {
        const taken = new Set([...b.docs.values()].map((d) => d.host + d.path));
        for (const d of b.docs.values()) {
          const lower = d.path.toLowerCase();
          if (lower !== d.path && !taken.has(d.host + lower)) d.path = lower;
        }
      },
      handle: (req, next) => {
        if (!/[A-Z]/.test(req.path.replace(/%[0-9A-Fa-f]{2}/g, ''))) return next(req);
        const lower = req.path.replace(/%[0-9A-Fa-f]{2}|[A-Z]+/g, (m) => (m.startsWith('%') ? m : m.toLowerCase()));
        return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, lower) };
      },
      alias: (l) => {
        if (l.to.query !== undefined) return undefined;
        const u = new URL(l.url);
        const slash = u.pathname.lastIndexOf('/', u.pathname.length - 2);
        const seg = u.pathname.slice(slash + 1);
        if (!/^[a-z]/.test(seg)) return undefined;
        // a capitalized name (a link typed by hand) or a letter in the wrong case
        const at = l.rng.chance(0.5) ? 0 : l.rng.int(0, seg.length - 1);
        if (!/[a-z]/.test(seg.charAt(at))) return undefined;
        u.pathname = u.pathname.slice(0, slash + 1) + seg.slice(0, at) + seg.charAt(at).toUpperCase() + seg.slice(at + 1);
        return u.href;
      },
    }),
  },
  {
    name: 'spelling-redirect',
    source: 'Apache httpd mod_speling, `CheckSpelling On` (`CheckBasenameMatch On`, the default): a request no other module answers is compared with each name in its directory, ignoring case and allowing one misspelling (insertion, omission, transposition, wrong character) or another extension; one match answers 301 to it, several answer 300 Multiple Choices listing them',
    make: (b) => ({
      name: 'spelling-redirect',
      order: 58,
      handle: (req, next) => {
        const a = next(req);
        if (a.kind !== 'none' || a.why !== 'not-found') return a;
        const p = decodeUnreserved(req.path);
        const slash = p.lastIndexOf('/');
        const dir = p.slice(0, slash + 1);
        const name = p.slice(slash + 1);
        if (name === '') return a;
        const names = new Set<string>();
        for (const d of b.docs.values()) {
          if (d.host !== req.host || d.query !== undefined || d.path.endsWith('/') || !d.path.startsWith(dir)) continue;
          const file = d.path.slice(dir.length);
          if (!file.includes('/') && (nearMiss(file, name) || basename(file) === basename(name))) names.add(file);
        }
        if (names.size === 1) return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, dir + [...names][0]!) };
        if (names.size === 0) return a;
        const list = [...names].sort().map((n) => `<li><a href="${esc(dir + n)}">${esc(n)}</a></li>`).join('');
        return { kind: 'none', status: 300, why: 'not-found', id: a.id, type: a.type, body: () => `<!DOCTYPE html><html><head><title>300 Multiple Choices</title></head><body><h1>Multiple Choices</h1><p>The document name you requested (<code>${esc(name)}</code>) could not be found on this server. However, we found documents with names similar to the one you requested.</p><ul>${list}</ul></body></html>` };
      },
      alias: (l) => {
        if (l.to.query !== undefined || l.to.path.endsWith('/')) return undefined;
        const u = new URL(l.url);
        const slash = u.pathname.lastIndexOf('/');
        const name = u.pathname.slice(slash + 1);
        if (!/^[A-Za-z0-9._-]+$/.test(name) || name.length < 3) return undefined;
        const dot = name.indexOf('.');
        // what links a site writes get wrong, most often: a capital (a name typed by hand), an
        // old extension; now and then a letter dropped or two swapped, which no rule can say
        const r = l.rng.int(0, 19);
        const pick = r < 9 ? 0 : r < 18 ? 1 : r === 18 ? 2 : 3;
        let typo: string;
        if (pick === 0) typo = name.charAt(0) === name.charAt(0).toUpperCase() ? name.charAt(0).toLowerCase() + name.slice(1) : name.charAt(0).toUpperCase() + name.slice(1);
        else if (pick === 1 && dot > 0) typo = name.slice(0, dot) + l.rng.pick(['.htm', '.php', '.HTML', '']);
        else if (pick === 2) {
          const at = l.rng.int(1, name.length - 2);
          typo = name.slice(0, at) + name.slice(at + 1);
        } else {
          const at = l.rng.int(0, name.length - 2);
          typo = name.slice(0, at) + name.charAt(at + 1) + name.charAt(at) + name.slice(at + 2);
        }
        if (typo === name) return undefined;
        u.pathname = u.pathname.slice(0, slash + 1) + typo;
        return u.href;
      },
    }),
  },
  {
    name: 'merge-slashes',
    source: 'nginx `merge_slashes on` (the default: "compression of two or more adjacent slashes into a single slash"): /a//b.html answers /a/b.html, links written by templates that join a base ending in "/" with a path starting with one',
    make: () => ({
      name: 'merge-slashes',
      order: 3,
      handle: (req, next) => next(req.path.includes('//') ? { ...req, path: req.path.replace(/\/{2,}/g, '/') } : req),
      alias: (l) => {
        const at = l.url.indexOf('/', l.url.indexOf('//') + 2);
        const path = l.url.slice(at);
        const slash = path.indexOf('/', 1);
        // the template's join: the path's first slash doubled, or the one after its first segment
        return path.length > 1 ? l.url.slice(0, at) + (slash !== -1 && l.rng.chance(0.5) ? path.slice(0, slash) + '/' + path.slice(slash) : '/' + path) : undefined;
      },
    }),
  },
  {
    name: 'extensionless',
    source: 'WordPress / Hugo permalinks ("pretty URLs"): posts at /section/name beside sections at /section/; the old /name.html answers 301',
    group: 'layout',
    make: (b) => ({
      name: 'extensionless',
      order: 52,
      setup: () => {
        for (const d of b.docs.values()) if (d.path.endsWith('.html')) d.path = d.path.slice(0, -5);
      },
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (p.endsWith('.html') && docAt(b.docs, req.host, p.slice(0, -5)) !== undefined) return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, p.slice(0, -5)) };
        return next(req);
      },
      alias: (l) => (l.to.kind === 'page' && !l.to.path.endsWith('/') && l.to.query === undefined ? l.url + '.html' : undefined),
    }),
  },
  {
    name: 'default-document',
    source: 'Apache httpd mod_dir DirectoryIndex index.html: /dir/ and /dir/index.html serve the same file (200)',
    group: 'default-document',
    make: (b) => ({
      name: 'default-document',
      order: 45,
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (p.endsWith('/index.html') && docAt(b.docs, req.host, p.slice(0, -10)) !== undefined) return next({ ...req, path: p.slice(0, -10) });
        return next(req);
      },
      alias: (l) => (l.to.path.endsWith('/') && l.to.query === undefined ? l.url + 'index.html' : undefined),
    }),
  },
  {
    name: 'stale-index',
    source: 'Apache httpd mod_dir `DirectoryIndex index.php index.html` ("the first one found" is served): /dir/ and /dir/index.html serve the same file, except in directories where an index.php was added since and the old index.html left beside it, still linked from older pages',
    group: 'default-document',
    make: (b) => {
      const stale = new Map<string, SimDoc>();
      return {
        name: 'stale-index',
        order: 45,
        setup: () => {
          const { sections, pages } = mainDocuments(b);
          for (const sec of b.rng.sample(sections, Math.min(sections.length, b.rng.int(1, 2)))) {
            const old = b.addDoc({ id: `stale:${sec.path}`, host: b.host, path: `${sec.path}index.html`, title: `${sec.title} (old index)`, text: `The pages under ${sec.path}, as they were listed before this directory moved to the application. ${sec.text}`, kind: 'generated', links: sec.links.slice(0, 3) });
            stale.set(sec.path, old);
            if (pages.length > 0) b.rng.pick(pages).links.push(old.id);
          }
        },
        handle: (req, next) => {
          const p = decodeUnreserved(req.path);
          if (p.endsWith('/index.html') && !stale.has(p.slice(0, -10)) && docAt(b.docs, req.host, p.slice(0, -10)) !== undefined) return next({ ...req, path: p.slice(0, -10) });
          return next(req);
        },
        alias: (l) => (l.to.path.endsWith('/') && l.to.query === undefined && !stale.has(l.to.path) ? l.url + 'index.html' : undefined),
      };
    },
  },
  {
    name: 'default-document-redirect',
    source: 'nginx `index` with `rewrite ^(.*/)index\\.html$ $1 permanent;`, the usual canonical-URL recipe',
    group: 'default-document',
    make: (b) => ({
      name: 'default-document-redirect',
      order: 44,
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (p.endsWith('/index.html') && docAt(b.docs, req.host, p.slice(0, -10)) !== undefined) return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, p.slice(0, -10)) };
        return next(req);
      },
      alias: (l) => (l.to.path.endsWith('/') && l.to.query === undefined ? l.url + 'index.html' : undefined),
    }),
  },
  {
    name: 'moved-prefix',
    source: 'Apache mod_alias `RedirectMatch 301 ^/old/(.*)$ /new/$1` after a section moved; /old/ itself stays an archive page',
    make: (b) => {
      const old = `/${b.names.word()}/`;
      let section = '/';
      return {
        name: 'moved-prefix',
        order: 48,
        setup: () => {
          const sections = b.sections().filter((s) => s !== '/');
          section = sections.length > 0 ? b.rng.pick(sections) : '/';
          // the old prefix's own page: an archive notice, a document of its own
          const home = [...b.docs.values()].find((d) => d.kind === 'home');
          const archive = b.addDoc({ id: `archive:${old}`, host: b.host, path: old, title: 'Archive', text: `This section moved to ${section}. Old notes are kept here.`, kind: 'generated' });
          home?.links.push(archive.id);
        },
        handle: (req, next) => {
          const p = decodeUnreserved(req.path);
          if (req.host === b.host && p.startsWith(old) && p !== old) return { kind: 'redirect', status: 301, location: b.origin(req.host) + target(req, section + p.slice(old.length)) };
          return next(req);
        },
        alias: (l) => (l.to.host === b.host && l.to.path.startsWith(section) && l.to.path !== section ? l.url.replace(`${b.origin(b.host)}${section}`, `${b.origin(b.host)}${old}`) : undefined),
      };
    },
  },
  {
    name: 'relative-location',
    source: 'nginx `absolute_redirect off;` (the Location of a redirect nginx makes is the path alone, `/new/x.html`), and a PHP script\'s `header("Location: x.html")`, sent as written: RFC 9110 §10.2.2 lets Location be a relative reference, resolved against the request\'s target URI',
    make: (b) => {
      // a site of scripts writes each redirect relative to the request's directory
      const scripted = b.rng.chance(0.4);
      return {
        name: 'relative-location',
        order: 2,
        handle: (req, next) => {
          const a = next(req);
          if (a.kind !== 'redirect' || a.stub !== undefined) return a;
          const here = `${b.origin(req.host)}${req.path}${req.query === undefined ? '' : `?${req.query}`}`;
          let to: URL;
          try {
            to = new URL(a.location, here);
          } catch {
            return a;
          }
          if (to.origin !== new URL(here).origin) return a;
          const path = to.pathname + to.search;
          const rel = scripted ? relativeReference(req.path, path) : path;
          // a reference that would not resolve back (a dot segment in the request) is sent whole
          return { ...a, location: new URL(rel, here).href === to.href ? rel : path };
        },
      };
    },
  },
  {
    name: 'meta-refresh-moved',
    source: 'jekyll-redirect-from (`redirect_from:` front matter; GitHub Pages sends no redirects) and sphinx-reredirects: each old URL of a moved page is a static page of its own, served 200, that names the new URL in `<meta http-equiv="refresh" content="0; url=…">` (jekyll: absolute, with rel=canonical and a link; sphinx-reredirects: relative, inside <noscript>); pages were renamed in place and moved out of one flat old folder into the sections',
    make: (b) => {
      const jekyll = b.rng.chance(0.5);
      const folder = `/${b.names.word()}/`;
      // old path → the page's document id
      const moved = new Map<string, string>();
      const oldOf = new Map<string, string>();
      const stub = (location: string, requestPath: string): string => {
        const to = new URL(location);
        if (jekyll) {
          const href = esc(to.href);
          return `<!DOCTYPE html>\n<html lang="en-US">\n  <meta charset="utf-8">\n  <title>Redirecting&hellip;</title>\n  <link rel="canonical" href="${href}">\n  <script>location="${href}"</script>\n  <meta http-equiv="refresh" content="0; url=${href}">\n  <meta name="robots" content="noindex">\n  <h1>Redirecting&hellip;</h1>\n  <a href="${href}">Click here if you are not redirected.</a>\n</html>\n`;
        }
        const rel = esc(relativeReference(requestPath, to.pathname + to.search));
        return `<html>\n  <head>\n    <noscript>\n      <meta http-equiv="refresh" content="0; url=${rel}"/>\n    </noscript>\n  </head>\n  <body>\n    <script>\n      window.location.href = "${rel}" + (window.location.search || "") + (window.location.hash || "");\n    </script>\n  </body>\n</html>\n`;
      };
      return {
        name: 'meta-refresh-moved',
        order: 47,
        setup: () => {
          const pages = [...b.docs.values()].filter((d) => d.host === b.host && d.kind === 'page' && d.query === undefined && /\/[^/]+\.html?$/.test(d.path));
          const taken = new Set([...b.docs.values()].map((d) => d.host + d.path));
          for (const d of b.rng.sample(pages, Math.ceil(pages.length * 0.3))) {
            const name = d.path.slice(d.path.lastIndexOf('/') + 1);
            const ext = name.slice(name.indexOf('.'));
            // renamed in its folder, or moved out of the old flat folder
            const old = b.rng.chance(0.5) ? `${d.section}${b.names.word()}${ext}` : `${folder}${name}`;
            if (taken.has(b.host + old) || moved.has(old)) continue;
            moved.set(old, d.id);
            oldOf.set(d.id, old);
          }
        },
        handle: (req, next) => {
          const id = req.host === b.host ? moved.get(decodeUnreserved(req.path)) : undefined;
          const d = id === undefined ? undefined : b.docs.get(id);
          if (d === undefined) return next(req);
          // the stub is a file: a query changes nothing (a static host ignores it)
          return { kind: 'redirect', status: 301, location: b.urlOf(d), stub };
        },
        alias: (l) => {
          const old = l.to.host === b.host && l.to.query === undefined ? oldOf.get(l.to.id) : undefined;
          return old !== undefined && l.rng.chance(0.5) ? b.origin(b.host) + old : undefined;
        },
      };
    },
  },
];

export type { Answer };
