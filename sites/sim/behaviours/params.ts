/**
 * Behaviours of parameters: session ids in the path (parameters and segments) and the query, tracking tags, query strings
 * a server ignores. Each is written from the server's own documentation, cited on its `source`.
 */
import type { BehaviourKind } from '../model.js';
import { hash32, Rng } from '../random.js';
import { fields, joinFields } from '../site.js';

/** Remove the fields `drop` names from a query. */
function without(query: string | undefined, drop: (name: string) => boolean): string | undefined {
  return joinFields(fields(query).filter(([k]) => !drop(k)));
}

function addQuery(url: string, field: string): string {
  return url.includes('?') ? `${url}&${field}` : `${url}?${field}`;
}

export const paramBehaviours: BehaviourKind[] = [
  {
    name: 'session-path-parameter',
    source: 'Apache Tomcat URL rewriting: HttpServletResponse.encodeURL appends ";jsessionid=ID" (the name is SessionCookieConfig / sessionCookiePathParameterName); the container strips it before routing',
    make: (b) => {
      const name = b.rng.chance(0.5) ? 'jsessionid' : b.names.word();
      return {
        name: 'session-path-parameter',
        order: 30,
        handle: (req, next) => next({ ...req, path: req.path.replace(new RegExp(`;${name}=[^/;?]*`, 'gi'), '') }),
        alias: (l) => {
          const u = new URL(l.url);
          u.pathname += `;${name}=${l.rng.hex(32).toUpperCase()}`;
          return u.href;
        },
      };
    },
  },
  {
    name: 'session-query',
    source: 'PHP session.use_trans_sid: "PHP will add the session id to relative URLs" as ?PHPSESSID=… (session.name sets the name); the page is the same with or without it',
    make: (b) => {
      const name = b.rng.chance(0.4) ? 'PHPSESSID' : b.names.word();
      return {
        name: 'session-query',
        order: 31,
        handle: (req, next) => next({ ...req, query: without(req.query, (k) => k === name) }),
        alias: (l) => addQuery(l.url, `${name}=${l.rng.hex(26)}`),
      };
    },
  },
  {
    name: 'session-redirect',
    group: 'cookieless-session',
    source: 'Java servlet containers with cookies disabled (Tomcat <Context cookies="false">): a request without a session is answered 302 to the same URL with ";jsessionid=ID" (encodeRedirectURL)',
    make: (b) => {
      let section = '/';
      return {
        name: 'session-redirect',
        order: 29,
        setup: () => {
          const sections = b.sections().filter((s) => s !== '/');
          section = sections.length > 0 ? b.rng.pick(sections) : '/';
        },
        handle: (req, next) => {
          if (req.host !== b.host || !req.path.startsWith(section) || req.path === '/robots.txt') return next(req);
          if (/;jsessionid=[^/;?]+/i.test(req.path)) return next({ ...req, path: req.path.replace(/;jsessionid=[^/;?]*/gi, '') });
          const probe = next(req);
          if (probe.kind !== 'document') return probe;
          const id = ((req.path.length * 7919 + 104729) >>> 0).toString(16).toUpperCase().padStart(8, '0');
          return { kind: 'redirect', status: 302, location: `${b.origin(req.host)}${req.path};jsessionid=${id}A1B2C3D4${req.query === undefined ? '' : `?${req.query}`}` };
        },
      };
    },
  },
  {
    name: 'session-segment',
    source: 'ASP.NET cookieless session state (<sessionState cookieless="UseUri">, "Cookieless SessionIDs" in Microsoft Learn\'s ASP.NET Session State Overview): the id is a path segment, /(S(lit3py55t21z5v55vlm25s55))/orderform.aspx; the runtime strips it before routing and, once a session is required, redirects (302) a request without one to the same URL under a new id',
    group: 'cookieless-session',
    make: (b) => {
      // the id: 24 characters of a-z and 0-5, as the runtime mints them
      const mint = (rng: Rng): string => {
        let id = '';
        for (let i = 0; i < 24; i++) id += 'abcdefghijklmnopqrstuvwxyz012345'[rng.int(0, 31)];
        return id;
      };
      const redirects = b.rng.chance(0.5);
      let section = '/';
      return {
        name: 'session-segment',
        order: 29,
        setup: () => {
          if (!redirects) return;
          const sections = b.sections().filter((s) => s !== '/');
          section = sections.length > 0 && b.rng.chance(0.5) ? b.rng.pick(sections) : '/';
        },
        handle: (req, next) => {
          if (req.host !== b.host) return next(req);
          const m = /^\/\(S\([a-z0-5]{24}\)\)(\/.*)$/.exec(req.path);
          if (m !== null) return next({ ...req, path: m[1]! });
          if (!redirects || !req.path.startsWith(section) || req.path === '/robots.txt') return next(req);
          const probe = next(req);
          if (probe.kind !== 'document') return probe;
          // a new id for each request without one; the same for one path here, so that a seed's
          // crawl is the same in every run
          const id = mint(new Rng(hash32(`${b.host} ${req.path}`)));
          return { kind: 'redirect', status: 302, location: `${b.origin(req.host)}/(S(${id}))${req.path}${req.query === undefined ? '' : `?${req.query}`}` };
        },
        alias: (l) => {
          const u = new URL(l.url);
          if (u.hostname !== b.host) return undefined;
          u.pathname = `/(S(${mint(l.rng)}))${u.pathname}`;
          return u.href;
        },
      };
    },
  },
  {
    name: 'tracking-group',
    source: 'Google Analytics campaign URLs: utm_source, utm_medium and utm_campaign together (Campaign URL Builder); the server ignores them',
    make: () => ({
      name: 'tracking-group',
      order: 32,
      handle: (req, next) => next({ ...req, query: without(req.query, (k) => k.startsWith('utm_')) }),
      alias: (l) => addQuery(l.url, `utm_source=${l.rng.pick(['newsletter', 'feed', 'partner'])}&utm_medium=${l.rng.pick(['email', 'social'])}&utm_campaign=${l.rng.hex(6)}`),
    }),
  },
  {
    name: 'tracking-single',
    source: 'Click ids added by platforms (fbclid, gclid, a referral tag of the site own, ?ref=…); the server ignores them',
    make: (b) => {
      const name = b.rng.pick(['fbclid', 'gclid', b.names.word()]);
      return {
        name: 'tracking-single',
        order: 33,
        handle: (req, next) => next({ ...req, query: without(req.query, (k) => k === name) }),
        alias: (l) => addQuery(l.url, `${name}=${l.rng.hex(20)}`),
      };
    },
  },
  {
    name: 'query-ignored',
    source: 'A CDN that caches on the path alone (CloudFront "Query string forwarding: none"): any query on a static page serves the page',
    make: () => ({
      name: 'query-ignored',
      order: 95,
      handle: (req, next) => {
        const a = next(req);
        if (a.kind !== 'none' || req.query === undefined) return a;
        const plain = next({ ...req, query: undefined });
        return plain.kind === 'document' ? plain : a;
      },
      alias: (l) => (l.to.query === undefined ? addQuery(l.url, `${l.rng.pick(["v", "ver", "cb"])}=${l.rng.int(1, 999)}`) : undefined),
    }),
  },
];
