/**
 * Behaviours of paths: trailing slashes, default documents, extension-less permalinks, moved
 * prefixes. Each is written from the server's own documentation, cited on its `source`.
 */
import type { Answer, BehaviourKind, SimDoc, SimRequest } from '../model.js';
import { decodeUnreserved } from '../site.js';

/** The document `path` names on `host`, by the documents' canonical paths. */
function docAt(docs: Map<string, SimDoc>, host: string, path: string): SimDoc | undefined {
  for (const d of docs.values()) if (d.host === host && d.path === path && d.query === undefined) return d;
  return undefined;
}

function target(req: SimRequest, path: string): string {
  return path + (req.query === undefined ? '' : `?${req.query}`);
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
];

export type { Answer };
