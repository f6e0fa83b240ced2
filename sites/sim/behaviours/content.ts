/**
 * Behaviours of content: what a server writes into its answers (not-found pages, per-response
 * tokens, echoes of the request, rel=canonical), names that serve one page (content negotiation,
 * .htm twins, case-insensitive paths), names that look alike and are not (translations,
 * case-sensitive twins), and URLs that are no documents (application shells, login walls, dead
 * links). Each is written from the server's own documentation, cited on its `source`.
 */
import type { Answer, BehaviourKind, SimDoc, SimRequest, SiteBuilder } from '../model.js';
import { hash32 } from '../random.js';
import { decodeUnreserved, esc } from '../site.js';

/** The site's home page (the document at `/` of the main host). */
function homeOf(b: SiteBuilder): SimDoc | undefined {
  for (const d of b.docs.values()) if (d.host === b.host && d.path === '/' && d.query === undefined) return d;
  return undefined;
}

/** A stream of fresh 32-digit hex tokens: a new one on every call (per response), the same sequence in every run. */
function tokens(salt: string): () => string {
  let n = 0;
  return () => {
    n++;
    let s = '';
    for (let i = 0; i < 4; i++) s += hash32(`${salt}:${n}:${i}`).toString(16).padStart(8, '0');
    return s;
  };
}

/** Insert `piece` before the last `tag` of an HTML text (appended when the tag is missing). */
function insertBefore(html: string, tag: string, piece: string): string {
  const i = html.lastIndexOf(tag);
  return i === -1 ? html + piece : html.slice(0, i) + piece + html.slice(i);
}

/** A document answer with its body changed (id, type and headers kept). */
function withBody(a: Answer, change: (html: string) => string): Answer {
  if (a.kind !== 'document') return a;
  const body = a.body;
  return { ...a, body: () => change(body()) };
}

/** The document a document answer is, when it is one of the site's documents. */
function docOf(b: SiteBuilder, a: Answer): SimDoc | undefined {
  return a.kind === 'document' ? b.docs.get(a.id) : undefined;
}

function target(req: SimRequest): string {
  return req.path + (req.query === undefined ? '' : `?${req.query}`);
}

/** Sections other than `/` of the main host's documents (all of them, `/`, when there is none). */
function subSections(b: SiteBuilder): string[] {
  const s = [...new Set([...b.docs.values()].filter((d) => d.host === b.host).map((d) => d.section))].filter((x) => x !== '/').sort();
  return s.length > 0 ? s : ['/'];
}

/** Pages of the main host whose canonical path ends in `.html` (no query). */
function htmlPages(b: SiteBuilder): SimDoc[] {
  return [...b.docs.values()].filter((d) => d.host === b.host && d.kind === 'page' && d.query === undefined && d.path.endsWith('.html'));
}

/** The main host's pages that may carry extra hrefs (not traps). */
function linkingPages(b: SiteBuilder): SimDoc[] {
  return [...b.docs.values()].filter((d) => d.host === b.host && d.kind !== 'trap');
}

/** Add a href to a document once. */
function addHref(d: SimDoc, href: string): void {
  if (!d.hrefs.includes(href)) d.hrefs.push(href);
}

/** Django's urlencode(safe="/") of a value. */
function quoteKeepSlash(s: string): string {
  return encodeURIComponent(s).replace(/%2F/g, '/');
}

const HTML = 'text/html; charset=utf-8';

export const contentBehaviours: BehaviourKind[] = [
  {
    name: 'soft-404-echo',
    source: 'WordPress themes\' 404.php template ("Nothing Found" / "It looks like nothing was found at this location") answered with status 200 by hosts whose ErrorDocument or nginx `try_files … /index.php` hides the 404 (Google Search Central: "soft 404"); the page prints the requested path and a per-response request id',
    group: 'not-found-page',
    make: () => {
      const rid = tokens('soft-404');
      return {
        name: 'soft-404-echo',
        order: 90,
        handle: (req, next) => {
          const a = next(req);
          if (a.kind !== 'none' || a.why !== 'not-found') return a;
          const shown = decodeUnreserved(req.path) + (req.query === undefined ? '' : `?${req.query}`);
          return {
            kind: 'none',
            status: 200,
            why: 'soft-404',
            id: a.id,
            type: HTML,
            body: () => `<!doctype html><html><head><meta charset="utf-8"><title>Page not found</title></head><body><h1>Nothing Found</h1><p>Nothing found for ${esc(shown)}. It looks like nothing was found at this location. Maybe try a search?</p><p><small>Request id ${rid()}</small></p></body></html>\n`,
          };
        },
      };
    },
  },
  {
    name: 'hard-404-echo',
    source: 'Apache httpd 2.2 default error response (no ErrorDocument): 404 "The requested URL /x was not found on this server." with the path echoed and the server signature (ServerSignature On)',
    group: 'not-found-page',
    make: () => ({
      name: 'hard-404-echo',
      order: 91,
      handle: (req, next) => {
        const a = next(req);
        if (a.kind !== 'none' || a.why !== 'not-found') return a;
        const path = decodeUnreserved(req.path);
        return {
          ...a,
          body: () => `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL ${esc(path)} was not found on this server.</p>\n<hr>\n<address>Apache/2.2.22 (Debian) Server at ${esc(req.host)} Port 80</address>\n</body></html>\n`,
        };
      },
    }),
  },
  {
    name: 'per-response-token',
    source: 'Django CsrfViewMiddleware `{% csrf_token %}` (hidden input csrfmiddlewaretoken, masked with a new salt on every response since Django 1.10, BREACH mitigation) / Rails `protect_from_forgery` authenticity_token (per-request masked since Rails 4.2), with a "generated at" timestamp',
    make: (b) => {
      const field = b.rng.pick(['csrfmiddlewaretoken', 'authenticity_token']);
      const action = `/${b.names.word()}/`;
      const tok = tokens('csrf');
      let sections: string[] = [];
      let stamp = Date.UTC(2024, 0, 15, 9, 0, 0);
      return {
        name: 'per-response-token',
        order: 80,
        setup: () => {
          sections = b.rng.sample(subSections(b), b.rng.int(1, 2));
        },
        handle: (req, next) => {
          const a = next(req);
          const doc = docOf(b, a);
          if (doc === undefined || doc.host !== b.host || !sections.some((s) => doc.section.startsWith(s))) return a;
          return withBody(a, (html) => {
            stamp += 1317;
            return insertBefore(html, '</body>', `<form method="post" action="${esc(action)}"><input type="hidden" name="${field}" value="${tok()}"><input type="email" name="email"><button>Subscribe</button></form><footer>Page generated ${new Date(stamp).toISOString()}</footer>`);
          });
        },
      };
    },
  },
  {
    name: 'echo-request-url',
    source: 'Social share widgets (AddToAny, WordPress Jetpack sharing, og:url from the request) that print the URL the page was requested under, e.g. https://twitter.com/intent/tweet?url=<that URL encoded>, session ids and tracking tags included',
    make: (b) => {
      let sections: string[] = [];
      return {
        name: 'echo-request-url',
        order: 5,
        setup: () => {
          sections = b.rng.sample(subSections(b), 1);
        },
        handle: (req, next) => {
          const a = next(req);
          const doc = docOf(b, a);
          if (doc === undefined || doc.host !== b.host || !sections.some((s) => doc.section.startsWith(s))) return a;
          const requested = b.origin(req.host) + target(req);
          return withBody(a, (html) => {
            const withMeta = insertBefore(html, '</head>', `<meta property="og:url" content="${esc(requested)}">`);
            return insertBefore(withMeta, '</body>', `<p class="share">Share this page: <code>https://twitter.com/intent/tweet?url=${esc(encodeURIComponent(requested))}</code></p>`);
          });
        },
      };
    },
  },
  {
    name: 'rel-canonical',
    source: 'WordPress core rel_canonical() / Yoast SEO: every singular page carries <link rel="canonical" href="its permalink"> in <head> (RFC 6596)',
    group: 'canonical',
    make: (b) => ({
      name: 'rel-canonical',
      order: 81,
      handle: (req, next) => {
        const a = next(req);
        const doc = docOf(b, a);
        if (doc === undefined) return a;
        return withBody(a, (html) => insertBefore(html, '</head>', `<link rel="canonical" href="${esc(b.urlOf(doc))}">`));
      },
    }),
  },
  {
    name: 'canonical-link-header',
    source: 'nginx `add_header Link "<$scheme://$host$uri>; rel=\\"canonical\\"";` (RFC 8288 Link header, RFC 6596 §3; Google Search Central: "rel=canonical HTTP header"): every answer names its path as canonical, `$uri` being without arguments, so a tracking tag is named away rightly and a listing\'s `?page=2` wrongly, onto page 1',
    group: 'canonical',
    make: (b) => ({
      name: 'canonical-link-header',
      order: 81,
      handle: (req, next) => {
        const a = next(req);
        if (a.kind !== 'document' || docOf(b, a) === undefined) return a;
        return { ...a, headers: { ...a.headers, link: `<${b.origin(req.host)}${decodeUnreserved(req.path)}>; rel="canonical"` } };
      },
    }),
  },
  {
    name: 'rel-canonical-wrong',
    source: 'A CMS template that hard-codes the home page in <link rel="canonical"> on every page, a misconfiguration Google Search Central lists among the common rel=canonical mistakes ("5 common mistakes with rel=canonical", 2013); the pages are distinct',
    group: 'canonical',
    make: (b) => ({
      name: 'rel-canonical-wrong',
      order: 81,
      handle: (req, next) => {
        const a = next(req);
        const doc = docOf(b, a);
        if (doc === undefined) return a;
        const home = homeOf(b);
        return withBody(a, (html) => insertBefore(html, '</head>', `<link rel="canonical" href="${esc(home === undefined ? `${b.origin(b.host)}/` : b.urlOf(home))}">`));
      },
    }),
  },
  {
    name: 'content-negotiation',
    source: 'Apache httpd mod_negotiation, Options +MultiViews with language-tagged files (b.en.html, b.de.html, the layout of the httpd manual): /a/b, /a/b.html, /a/b.en and /a/b.en.html negotiate to b.en.html and answer with "Content-Location: b.en.html"; /a/b.de.html is the German translation, another document',
    group: 'layout',
    make: (b) => {
      const chosen: { page: SimDoc; de: SimDoc }[] = [];
      /** host + path → [the document served, the Content-Location] (built on first use, once every setup ran). */
      let names: Map<string, [SimDoc, string | undefined]> | undefined;
      const table = (): Map<string, [SimDoc, string | undefined]> => {
        if (names !== undefined) return names;
        names = new Map();
        for (const { page, de } of chosen) {
          if (!page.path.endsWith('.html') || !de.path.endsWith('.de.html')) continue;
          const stem = page.path.slice(0, -5);
          const variant = `${stem.slice(stem.lastIndexOf('/') + 1)}.en.html`;
          for (const p of [page.path, stem, `${stem}.en`, `${stem}.en.html`]) names.set(page.host + p, [page, variant]);
          names.set(de.host + de.path.slice(0, -5), [de, de.path.slice(de.path.lastIndexOf('/') + 1)]);
        }
        return names;
      };
      return {
        name: 'content-negotiation',
        order: 55,
        setup: () => {
          const taken = new Set([...b.docs.values()].map((d) => d.host + d.path));
          const fit = htmlPages(b).filter((d) => {
            if (/\.[a-z]{2}\.html$/.test(d.path)) return false;
            const stem = d.path.slice(0, -5);
            return [stem, `${stem}/`, `${stem}.en`, `${stem}.en.html`, `${stem}.de`, `${stem}.de.html`].every((p) => !taken.has(d.host + p));
          });
          const n = Math.min(fit.length, Math.max(2, Math.round(fit.length / 4)));
          for (const page of b.rng.sample(fit, n)) {
            const stem = page.path.slice(0, -5);
            const de = b.addDoc({
              id: `de:${page.id}`,
              host: page.host,
              path: `${stem}.de.html`,
              title: `${page.title} (Deutsch)`,
              text: `Diese Seite ist die deutsche Übersetzung von „${page.title}“. Die Übersetzung ist möglicherweise nicht aktuell; im Zweifel gilt die englische Fassung. ${page.text.slice(0, 160)}`,
              kind: 'page',
              links: [page.id],
            });
            page.links.push(de.id);
            chosen.push({ page, de });
          }
        },
        handle: (req, next) => {
          const hit = table().get(req.host + decodeUnreserved(req.path));
          if (hit === undefined) return next(req);
          const [doc, variant] = hit;
          const a = next({ ...req, path: doc.path });
          if (a.kind !== 'document' || variant === undefined) return a;
          return { ...a, headers: { ...a.headers, 'content-location': variant } };
        },
        alias: (l) => {
          if (l.to.query !== undefined) return undefined;
          const c = chosen.find((x) => x.page === l.to || x.de === l.to);
          if (c === undefined || !l.to.path.endsWith('.html')) return undefined;
          const u = new URL(l.url);
          if (c.de === l.to) u.pathname = u.pathname.slice(0, -5);
          else u.pathname = u.pathname.slice(0, -5) + (l.rng.chance(0.5) ? '' : '.en.html');
          return u.href;
        },
      };
    },
  },
  {
    name: 'language-fallback',
    source: 'WPML\'s "Display as translated" and Polylang\'s untranslated-content fallback (also Drupal\'s language fallback): /page?lang=de answers 200 with the German translation where one exists and with the original page where none does; the language switcher on every page links its ?lang= variant',
    make: (b) => {
      const param = b.rng.pick(['lang', 'language', 'hl', b.names.word()]);
      const lang = b.rng.pick(['de', 'fr', 'es', 'ja']);
      /** host + path of the pages with a translation. */
      const translated = new Set<string>();
      return {
        name: 'language-fallback',
        order: 58,
        setup: () => {
          for (const page of htmlPages(b)) {
            const switcher = `${page.path}?${param}=${lang}`;
            if (b.rng.chance(0.4)) {
              const tr = b.addDoc({
                id: `${lang}:${page.id}`,
                host: page.host,
                path: page.path,
                query: `${param}=${lang}`,
                title: `${page.title} [${lang}]`,
                text: `(${lang}) ${[...page.text.slice(0, 400)].reverse().join('')} ${lang}-${hash32(page.id).toString(36)}`,
                kind: 'page',
                links: [page.id],
              });
              page.links.push(tr.id);
              translated.add(page.host + page.path);
            } else addHref(page, switcher);
          }
        },
        handle: (req, next) => {
          const a = next(req);
          if (a.kind !== 'none' || req.query !== `${param}=${lang}`) return a;
          // no translation: the original page, as itself (200, no redirect)
          return translated.has(req.host + decodeUnreserved(req.path)) ? a : next({ ...req, query: undefined });
        },
      };
    },
  },
  {
    name: 'language-prefix-fallback',
    source: 'WPML with languages in directories (/de/page) and "Display as translated" for untranslated content (also Polylang with the language in the URL, Weglot subdirectories): /de/page answers 200 with the German translation where one exists and with the original page, as itself, where none does; the language switcher on every page links its /de/ name',
    make: (b) => {
      const lang = b.rng.pick(['de', 'fr', 'es', 'ja', 'pt-br']);
      const prefix = `/${lang}`;
      return {
        name: 'language-prefix-fallback',
        order: 58,
        setup: () => {
          for (const page of htmlPages(b)) {
            if (b.rng.chance(0.4)) {
              const tr = b.addDoc({
                id: `${lang}/:${page.id}`,
                host: page.host,
                path: prefix + page.path,
                title: `${page.title} [${lang}]`,
                text: `(${lang}) ${[...page.text.slice(0, 400)].reverse().join('')} ${lang}-${hash32(page.id).toString(36)}`,
                kind: 'page',
                links: [page.id],
              });
              page.links.push(tr.id);
            } else addHref(page, prefix + page.path);
          }
        },
        handle: (req, next) => {
          const a = next(req);
          const p = decodeUnreserved(req.path);
          if (a.kind !== 'none' || a.why !== 'not-found' || !p.startsWith(prefix + '/')) return a;
          // no translation: the original page, as itself (200, no redirect)
          const original = next({ ...req, path: req.path.slice(prefix.length) });
          return original.kind === 'document' ? original : a;
        },
      };
    },
  },
  {
    name: 'htm-twin',
    source: 'A legacy site migration that keeps the old .htm names of its .html pages (IIS/FrontPage era): Apache mod_rewrite "Backward Compatibility for file extension change" (RewriteRule "^(.*)\\.htm$" "$1.html" when the .html exists), both names answered 200',
    make: () => ({
      name: 'htm-twin',
      order: 56,
      handle: (req, next) => {
        const p = decodeUnreserved(req.path);
        if (p.endsWith('.htm')) {
          const a = next({ ...req, path: `${p}l` });
          if (a.kind === 'document') return a;
        }
        return next(req);
      },
      alias: (l) => {
        if (l.to.query !== undefined || !l.to.path.endsWith('.html')) return undefined;
        const u = new URL(l.url);
        u.pathname = u.pathname.slice(0, -1);
        return u.href;
      },
    }),
  },
  {
    name: 'case-insensitive-paths',
    source: 'Microsoft IIS on NTFS: URL paths map to case-insensitive file names, so /Docs/Page.HTML and /docs/page.html serve the same file (200, no redirect); the query is left as sent',
    group: 'case',
    make: (b) => {
      /** lower-case segment → its spelling in the documents' paths; null when two spellings exist. */
      let spelling: Map<string, string | null> | undefined;
      const table = (): Map<string, string | null> => {
        if (spelling !== undefined) return spelling;
        spelling = new Map();
        for (const d of b.docs.values()) {
          for (const seg of d.path.split('/')) {
            if (seg === '') continue;
            const k = seg.toLowerCase();
            const known = spelling.get(k);
            if (known === undefined) spelling.set(k, seg);
            else if (known !== null && known !== seg) spelling.set(k, null);
          }
        }
        return spelling;
      };
      return {
        name: 'case-insensitive-paths',
        order: 8,
        handle: (req, next) => {
          const p = decodeUnreserved(req.path);
          const t = table();
          const mapped = p
            .split('/')
            .map((seg) => (seg === '' ? seg : (t.get(seg.toLowerCase()) ?? seg)))
            .join('/');
          return next(mapped === req.path ? req : { ...req, path: mapped });
        },
        alias: (l) => {
          const u = new URL(l.url);
          const path = u.pathname;
          const letters: number[] = [];
          for (let i = 0; i < path.length; i++) {
            if (path[i] === '%') i += 2;
            else if (/[A-Za-z]/.test(path[i]!)) letters.push(i);
          }
          if (letters.length === 0) return undefined;
          const flip = new Set(l.rng.sample(letters, l.rng.int(1, Math.min(3, letters.length))));
          let out = '';
          for (let i = 0; i < path.length; i++) {
            const c = path[i]!;
            out += flip.has(i) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c;
          }
          u.pathname = out;
          return u.href;
        },
      };
    },
  },
  {
    name: 'case-sensitive-twins',
    source: 'Apache httpd on Linux (a case-sensitive file system, mod_speling off): /a/README.html and /a/readme.html are two files, two documents (RFC 3986 §6.2.2.1: only scheme and host are case-insensitive)',
    group: 'case',
    make: (b) => ({
      name: 'case-sensitive-twins',
      order: 57,
      setup: () => {
        const taken = new Set([...b.docs.values()].map((d) => d.host + d.path));
        const twinPath = (d: SimDoc): string | undefined => {
          const slash = d.path.lastIndexOf('/');
          const seg = d.path.slice(slash + 1);
          const dot = seg.lastIndexOf('.');
          const stem = dot <= 0 ? seg : seg.slice(0, dot);
          const ext = dot <= 0 ? '' : seg.slice(dot);
          const upper = stem.toUpperCase();
          const cap = stem.charAt(0).toUpperCase() + stem.slice(1);
          for (const s of b.rng.chance(0.5) ? [upper, cap] : [cap, upper]) {
            const p = d.path.slice(0, slash + 1) + s + ext;
            if (s !== stem && !taken.has(d.host + p)) return p;
          }
          return undefined;
        };
        const fit = [...b.docs.values()].filter((d) => d.host === b.host && d.kind === 'page' && d.query === undefined && twinPath(d) !== undefined);
        for (const page of b.rng.sample(fit, Math.min(fit.length, b.rng.int(2, 4)))) {
          const path = twinPath(page);
          if (path === undefined) continue;
          taken.add(page.host + path);
          const word = b.names.word();
          const twin = b.addDoc({
            id: `case:${page.id}`,
            host: page.host,
            path,
            title: `${path.slice(path.lastIndexOf('/') + 1)} (${word})`,
            text: `Notes kept beside ${page.path} under a name that differs only in case: release ${word}, a file of its own on this case-sensitive server.`,
            kind: 'page',
            links: [page.id],
          });
          page.links.push(twin.id);
        }
      },
    }),
  },
  {
    name: 'app-shell',
    source: 'Single-page app "index.html fallback": Netlify `/app/*  /app/index.html  200` rewrite (History pushState and single-page apps), nginx `try_files $uri /app/index.html`, Angular/React router deployment guides; every URL under the prefix answers 200 with the same shell',
    make: (b) => {
      const prefix = `/${b.names.word()}/`;
      const build = b.rng.hex(8);
      const shell = `<!doctype html><html><head><meta charset="utf-8"><title>App</title><script defer src="${prefix}static/js/main.${build}.js"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>\n`;
      return {
        name: 'app-shell',
        order: 40,
        setup: () => {
          const home = homeOf(b);
          const w = [b.names.word(), b.names.word(), b.names.word(), b.names.word()] as const;
          const routes = [prefix, `${prefix}${w[0]}`, `${prefix}${w[1]}/${w[2]}`, `${prefix}${w[0]}?${w[3]}=${b.rng.int(2, 9)}`];
          if (home !== undefined) for (const r of routes) addHref(home, r);
          for (const d of b.rng.sample(linkingPages(b), 2)) addHref(d, `${prefix}${w[1]}/${b.rng.int(100, 999)}`);
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const p = decodeUnreserved(req.path);
          if (!p.startsWith(prefix)) return next(req);
          return { kind: 'none', status: 200, why: 'shell', id: `shell:${req.host}${p}${req.query === undefined ? '' : `?${req.query}`}`, type: HTML, body: () => shell };
        },
      };
    },
  },
  {
    name: 'login-wall',
    source: 'Django `login_required` / LoginRequiredMixin: an anonymous request is answered 302 to settings.LOGIN_URL (default /accounts/login/) with ?next=<the path> (REDIRECT_FIELD_NAME "next"); the login view renders one form with a csrfmiddlewaretoken and the next value in a hidden field',
    make: (b) => {
      const prefix = `/${b.names.word()}/`;
      const login = b.rng.chance(0.5) ? '/accounts/login/' : `/${b.names.word()}/`;
      const tok = tokens('login');
      return {
        name: 'login-wall',
        order: 20,
        setup: () => {
          const pages = b.rng.sample(linkingPages(b), b.rng.int(2, 4));
          const w = [b.names.word(), b.names.word(), b.names.word()] as const;
          const walled = [`${prefix}`, `${prefix}${w[0]}/`, `${prefix}${w[1]}/${b.rng.int(1, 99)}/`, `${prefix}${w[0]}/?${w[2]}=${b.rng.int(1, 9)}`];
          pages.forEach((d, i) => {
            addHref(d, walled[i % walled.length]!);
            if (i === 0) addHref(d, walled[walled.length - 1]!);
          });
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const p = decodeUnreserved(req.path);
          if (p === login) {
            const nextValue = decodeURIComponent((/(?:^|&)next=([^&]*)/.exec(req.query ?? '')?.[1] ?? '').replace(/\+/g, ' '));
            return {
              kind: 'none',
              status: 200,
              why: 'login',
              id: `login:${req.host}${p}${req.query === undefined ? '' : `?${req.query}`}`,
              type: HTML,
              body: () => `<!doctype html><html><head><meta charset="utf-8"><title>Log in</title></head><body><h1>Log in</h1><form method="post" action="${esc(login)}"><input type="hidden" name="csrfmiddlewaretoken" value="${tok()}"><input type="text" name="username"><input type="password" name="password"><input type="hidden" name="next" value="${esc(nextValue)}"><button>Log in</button></form></body></html>\n`,
            };
          }
          if (!p.startsWith(prefix)) return next(req);
          return { kind: 'redirect', status: 302, location: `${b.origin(req.host)}${login}?next=${quoteKeepSlash(p + (req.query === undefined ? '' : `?${req.query}`))}` };
        },
      };
    },
  },
  {
    name: 'not-found-to-home',
    source: 'WordPress plugin "All 404 Redirect to Homepage" (and "404 to 301"): every URL WordPress would answer 404 is redirected (301) to the home page instead; Shopify and many CMS themes do the same with 302',
    group: 'not-found-page',
    make: (b) => ({
      name: 'not-found-to-home',
      order: 90,
      handle: (req, next) => {
        const a = next(req);
        if (a.kind !== 'none' || a.why !== 'not-found' || req.path === '/robots.txt') return a;
        return { kind: 'redirect', status: 301, location: `${b.origin(req.host)}/` };
      },
    }),
  },
  {
    name: 'soft-404-suggest',
    source: 'A CMS not-found template that searches for the words of the missing path (WordPress themes calling get_search_form() with the slug as query, the "Smart 404" plugin, Read the Docs\' "Maybe you meant" 404 page): status 200 (a soft 404 where the host hides the 404), the path echoed, and links to the pages whose names share words with it, or to recent pages',
    group: 'not-found-page',
    make: (b) => {
      let pool: SimDoc[] = [];
      const wordsOf = (path: string): string[] => path.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2 && w !== 'html' && w !== 'htm');
      return {
        name: 'soft-404-suggest',
        order: 90,
        setup: () => {
          pool = [...b.docs.values()].filter((d) => d.host === b.host && (d.kind === 'page' || d.kind === 'section')).sort((x, y) => (x.id < y.id ? -1 : 1));
        },
        handle: (req, next) => {
          const a = next(req);
          if (a.kind !== 'none' || a.why !== 'not-found' || req.host !== b.host) return a;
          const shown = decodeUnreserved(req.path) + (req.query === undefined ? '' : `?${req.query}`);
          const asked = new Set(wordsOf(shown));
          const scored = pool.map((d) => ({ d, n: wordsOf(d.path + ' ' + d.title).filter((w) => asked.has(w)).length })).filter((x) => x.n > 0);
          scored.sort((x, y) => y.n - x.n || (x.d.id < y.d.id ? -1 : 1));
          const found = scored.length > 0;
          const list = (found ? scored.map((x) => x.d) : pool).slice(0, 4);
          const items = list.map((d) => `<li><a href="${esc(b.urlOf(d).slice(b.origin(b.host).length))}">${esc(d.title)}</a></li>`).join('');
          return {
            kind: 'none',
            status: 200,
            why: 'soft-404',
            id: a.id,
            type: HTML,
            body: () => `<!doctype html><html><head><meta charset="utf-8"><title>Page not found</title></head><body><h1>Oops! That page can&rsquo;t be found.</h1><p>Nothing was found at ${esc(shown)}. ${found ? 'Maybe you meant one of these:' : 'Try one of the latest pages:'}</p><ul class="suggestions">${items}</ul></body></html>\n`,
          };
        },
      };
    },
  },
  {
    name: 'random-posts',
    source: 'WordPress sidebar widgets drawn per response ("Random Posts", a YARPP related-posts block with random order, a rotating excerpt or advert), on every page of the theme, the 404 template included',
    make: (b) => {
      let pool: SimDoc[] = [];
      let n = 0;
      return {
        name: 'random-posts',
        order: 85,
        setup: () => {
          pool = [...b.docs.values()].filter((d) => d.host === b.host && (d.kind === 'page' || d.kind === 'section'));
        },
        handle: (req, next) => {
          const a = next(req);
          if (pool.length === 0 || req.host !== b.host || a.kind === 'redirect' || (a.type !== undefined && !a.type.startsWith('text/html'))) return a;
          const block = (): string => {
            n++;
            const items: string[] = [];
            for (let i = 0; i < 3; i++) {
              const d = pool[hash32(`random-posts:${n}:${i}`) % pool.length]!;
              items.push(`<li><a href="${esc(b.urlOf(d).slice(b.origin(b.host).length))}">${esc(d.title)}</a></li>`);
            }
            const words = pool[hash32(`random-posts:${n}:text`) % pool.length]!.text.split(/\s+/);
            const at = hash32(`random-posts:${n}:at`) % Math.max(1, words.length - 12);
            // the block's links change with every response: the ground truth does not follow them (site.ts `hrefsOf`)
            return `<aside data-per-response><h2>Random posts</h2><ul>${items.join('')}</ul><p>${esc(words.slice(at, at + 12).join(' '))}</p></aside>`;
          };
          const body = a.body;
          return { ...a, body: () => insertBefore(body(), '</body>', block()) };
        },
      };
    },
  },
  {
    name: 'dead-links',
    source: 'A documentation tree\'s own broken links (pages renamed or removed, typos in hrefs, as linkchecker / W3C Link Checker report them); the server answers 404',
    make: (b) => ({
      name: 'dead-links',
      order: 100,
      setup: () => {
        const taken = new Set([...b.docs.values()].map((d) => d.host + d.path));
        const pages = linkingPages(b);
        for (const d of b.rng.sample(pages, Math.max(2, Math.round(pages.length / 4)))) {
          const n = b.rng.int(1, 2);
          for (let i = 0; i < n; i++) {
            let href: string | undefined;
            const to = d.links.length > 0 ? b.docs.get(b.rng.pick(d.links)) : undefined;
            if (b.rng.chance(0.5) && to !== undefined && to.host === d.host && to.query === undefined && !to.path.endsWith('/')) {
              // a typo: one letter of the target's file name dropped
              const slash = to.path.lastIndexOf('/');
              const seg = to.path.slice(slash + 1);
              const at = b.rng.int(0, Math.max(0, seg.length - 2));
              const typo = to.path.slice(0, slash + 1) + seg.slice(0, at) + seg.slice(at + 1);
              if (typo !== to.path && !taken.has(d.host + typo) && !typo.endsWith('/')) href = typo;
            }
            if (href === undefined) {
              // a page that was removed
              const ext = d.path.endsWith('/') || d.path.endsWith('.html') ? '.html' : '';
              href = `${d.section}${b.names.word()}${ext}`;
            }
            if (!taken.has(d.host + href)) addHref(d, href);
          }
        }
      },
    }),
  },
];
