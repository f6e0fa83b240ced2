/**
 * RFC 9309: the parser and matcher (the RFC's own examples and the edge cases of §2.2), the cache's
 * handling of each fetch outcome (§2.3.1), and robots.txt obeyed in a crawl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import { Fetcher } from '../../src/crawler/http/fetch.js';
import { normalizePattern, parseRobots, patternMatches, policyFor, RobotsCache, ROBOTS_MAX_BYTES } from '../../src/crawler/policy/robots.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

const RFC_EXAMPLE = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`;

describe('parsing and matching (RFC 9309 §2.2, §5)', () => {
  const file = parseRobots(RFC_EXAMPLE);
  const allowed = (token: string, path: string): boolean => policyFor(file, token).isAllowed(path);

  it('the RFC example, group by group', () => {
    expect(allowed('foobot', '/example/page.html')).toBe(true);
    expect(allowed('foobot', '/example/allowed.gif')).toBe(true);
    expect(allowed('foobot', '/other.html')).toBe(false);
    expect(allowed('barbot', '/example/page.html')).toBe(false);
    expect(allowed('bazbot', '/example/page.html')).toBe(false);
    expect(allowed('barbot', '/example/other.html')).toBe(true);
    expect(allowed('quxbot', '/example/')).toBe(true); // an empty group allows everything
    expect(allowed('otherbot', '/x.gif')).toBe(false);
    expect(allowed('otherbot', '/x.gif?a')).toBe(true); // $ anchors the end
    expect(allowed('otherbot', '/example/a')).toBe(false);
    expect(allowed('otherbot', '/publications/a')).toBe(true);
    expect(allowed('urldedup', '/example/')).toBe(false);
  });

  it('product tokens match case-insensitively, by their leading token', () => {
    const f = parseRobots('User-agent: URLdedup/1.0 (+https://x)\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n');
    expect(policyFor(f).isAllowed('/a')).toBe(false);
    expect(policyFor(f).isAllowed('/b')).toBe(true);
  });

  it('groups naming the same agent are combined; rules before any user-agent belong to no group', () => {
    const f = parseRobots('Disallow: /orphan\nuser-agent: urldedup\ndisallow: /a\n\nuser-agent: other\ndisallow: /b\n\nuser-agent: urldedup\ndisallow: /c\n');
    const p = policyFor(f);
    expect([p.isAllowed('/a'), p.isAllowed('/b'), p.isAllowed('/c'), p.isAllowed('/orphan')]).toEqual([false, true, false, true]);
  });

  it('the longest match wins, allow wins a tie (§2.2.2)', () => {
    const p = policyFor(parseRobots('user-agent: *\nallow: /example/page/\ndisallow: /example/page/disallowed.gif\nallow: /tie\ndisallow: /tie\ndisallow: /p\nallow: /p*\n'));
    expect(p.isAllowed('/example/page/')).toBe(true);
    expect(p.isAllowed('/example/page/disallowed.gif')).toBe(false);
    expect(p.isAllowed('/tie')).toBe(true);
    expect(p.isAllowed('/page')).toBe(true); // "/p*" is longer than "/p"
  });

  it('wildcards, end anchors and percent-encoding', () => {
    expect(patternMatches('/a*b', '/axxb/c')).toBe(true);
    expect(patternMatches('/a*b$', '/axxb/c')).toBe(false);
    expect(patternMatches('/a*b$', '/axxbyb')).toBe(true);
    expect(patternMatches('*.php', '/x/index.php?q')).toBe(true);
    expect(patternMatches('/*/*/x', '/a/b/x')).toBe(true);
    expect(patternMatches('/a**$', '/abc')).toBe(true);
    expect(patternMatches('/$', '/a')).toBe(false);
    expect(patternMatches('/$', '/')).toBe(true);
    expect(normalizePattern('/%7efoo/%2f/ä b')).toBe('/~foo/%2F/%C3%A4%20b');
    const p = policyFor(parseRobots('user-agent: *\ndisallow: /%7Euser/\ndisallow: /föö\n'));
    expect(p.isAllowed('/~user/x')).toBe(false);
    expect(p.isAllowed('/f%C3%B6%C3%B6/x')).toBe(false);
  });

  it('an empty disallow matches nothing; /robots.txt is always allowed; comments, CRLF and case of keys', () => {
    const p = policyFor(parseRobots('User-Agent: * # all\r\nDISALLOW:\r\nDisallow: /  # everything\r\n'));
    expect(p.isAllowed('/a')).toBe(false);
    expect(p.isAllowed('/robots.txt')).toBe(true);
    expect(policyFor(parseRobots('user-agent: *\ndisallow:\n')).isAllowed('/a')).toBe(true);
  });

  it('crawl-delay and sitemaps', () => {
    const f = parseRobots('user-agent: *\ncrawl-delay: 2.5\ndisallow: /x\nsitemap: https://a/sitemap.xml\n');
    expect(policyFor(f).crawlDelay).toBe(2.5);
    expect(f.sitemaps).toEqual(['https://a/sitemap.xml']);
  });

  it('no groups at all: everything allowed', () => {
    expect(policyFor(parseRobots('')).isAllowed('/a')).toBe(true);
    expect(policyFor(parseRobots('<html><body>not a robots file</body></html>')).isAllowed('/a')).toBe(true);
  });
});

describe('fetching robots.txt (§2.3.1)', () => {
  let server: TestServer;
  let fetcher: Fetcher;
  let statusOf: Record<string, number> = {};
  beforeAll(async () => {
    server = await httpServer((req, res) => {
      const host = String(req.headers.host);
      const [name] = host.split('.');
      const mode = statusOf[name!] ?? 200;
      if (req.url === '/robots.txt') {
        if (mode === 200) return res.writeHead(200, { 'content-type': 'text/plain' }).end('user-agent: *\ndisallow: /private/\ncrawl-delay: 1\n');
        if (mode === 301) return res.writeHead(301, { location: '/real-robots.txt' }).end();
        if (mode === 310) return res.writeHead(301, { location: '/robots.txt?again' }).end(); // redirects forever
        if (mode === 1) {
          // a body over 500 KiB: the first 500 KiB are parsed
          const filler = '# ' + 'x'.repeat(1000) + '\n';
          return res.writeHead(200).end('user-agent: *\ndisallow: /early\n' + filler.repeat(600) + 'disallow: /late\n');
        }
        return res.writeHead(mode).end();
      }
      if (req.url === '/robots.txt?again') return res.writeHead(301, { location: '/robots.txt?again2' }).end();
      if (req.url?.startsWith('/robots.txt?again')) return res.writeHead(301, { location: `/robots.txt?again${Math.random()}` }).end();
      if (req.url === '/real-robots.txt') return res.writeHead(200).end('user-agent: *\ndisallow: /moved-rules/\n');
      res.writeHead(404).end();
    });
    fetcher = new Fetcher({ guard: { resolver: async () => ['127.0.0.1'], allow: server.allow } });
  });
  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  const origin = (name: string): string => `http://${name}.test:${server.port}`;

  it('2xx is parsed; one fetch per origin however many ask at once', async () => {
    statusOf = { ok: 200 };
    const cache = new RobotsCache({ fetcher });
    const before = server.requests.length;
    const verdicts = await Promise.all([1, 2, 3, 4, 5].map((i) => cache.check(`${origin('ok')}/private/${i}`)));
    expect(verdicts.every((v) => !v.allowed)).toBe(true);
    expect((await cache.check(`${origin('ok')}/public`)).allowed).toBe(true);
    expect(server.requests.length - before).toBe(1);
    expect(verdicts[0]!.entry.policy.crawlDelay).toBe(1);
  });

  it('4xx allows everything; 5xx, 429 and no answer disallow everything until a retry', async () => {
    statusOf = { gone: 404, forbidden: 403, broken: 503, busy: 429 };
    const cache = new RobotsCache({ fetcher, unreachableRetryMs: 50 });
    expect((await cache.check(`${origin('gone')}/a`)).allowed).toBe(true);
    expect((await cache.check(`${origin('forbidden')}/a`)).allowed).toBe(true);
    const broken = await cache.check(`${origin('broken')}/a`);
    expect(broken.allowed).toBe(false);
    expect(broken.entry.state).toBe('unreachable');
    expect((await cache.check(`${origin('busy')}/a`)).entry.state).toBe('unreachable');
    await new Promise((r) => setTimeout(r, 60));
    statusOf.broken = 200;
    expect((await cache.check(`${origin('broken')}/a`)).allowed).toBe(true); // fetched again after the retry time
    const refused = await new RobotsCache({ fetcher: new Fetcher({ guard: { resolver: async () => ['127.0.0.1'] } }) }).check(`${origin('ok')}/a`);
    expect(refused.entry.state).toBe('unreachable');
    expect(refused.entry.error).toBe('ERR_BLOCKED_ADDRESS');
  });

  it('redirects are followed (up to 5); more is "unavailable" (allow all)', async () => {
    statusOf = { moved: 301, endless: 310 };
    const cache = new RobotsCache({ fetcher });
    expect((await cache.check(`${origin('moved')}/moved-rules/x`)).allowed).toBe(false);
    const endless = await cache.check(`${origin('endless')}/x`);
    expect(endless.entry.state).toBe('unavailable');
    expect(endless.allowed).toBe(true);
  });

  it(`parses the first ${ROBOTS_MAX_BYTES / 1024} KiB of a larger file`, async () => {
    statusOf = { huge: 1 };
    const cache = new RobotsCache({ fetcher });
    expect((await cache.check(`${origin('huge')}/early`)).allowed).toBe(false);
    expect((await cache.check(`${origin('huge')}/late`)).allowed).toBe(true);
  });
});

describe('robots.txt obeyed in a crawl', () => {
  it('disallowed pages get 0 requests; Crawl-delay spaces the requests', async () => {
    const starts: number[] = [];
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(200).end('User-agent: urldedup\nDisallow: /private/\nAllow: /private/ok.html\nCrawl-delay: 0.15\n');
      starts.push(Date.now());
      const links = ['/a.html', '/b.html', '/private/secret.html', '/private/ok.html', '/private/deeper/x.html'];
      res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">x</a>`).join('')));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/`], allow: server.allow, perHost: 2 });
      expect(server.requests.filter((r) => r.startsWith('/private/') && r !== '/private/ok.html')).toEqual([]);
      expect(server.requests.sort()).toEqual(['/', '/a.html', '/b.html', '/private/ok.html', '/robots.txt']);
      expect(report.errors['ERR_ROBOTS_DISALLOWED']).toBe(2);
      // The crawler spaces the starts of its requests; the server sees their arrivals, and one that
      // arrives late (a loaded machine) shortens the gap after it by as much as it lengthened the
      // one before. So: the span of the three gaps is at least three delays, less one arrival's
      // jitter, and no gap is anywhere near the few milliseconds two requests at once would take.
      expect(starts).toHaveLength(4);
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
      expect(starts[3]! - starts[0]!).toBeGreaterThanOrEqual(3 * 150 - 30);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(100);
    } finally {
      db.remove();
      await server.close();
    }
  });

  it('an unreachable robots.txt (5xx) leaves its host for a later run after a few attempts', async () => {
    const server = await httpServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/x">x</a>'));
    });
    const db = tempDir();
    try {
      const report = await runCrawl({ store: db.path, seeds: [`${server.origin}/`], allow: server.allow, robotsRetryMs: 40, robotsAttempts: 3 });
      expect(server.requests).toEqual(['/robots.txt', '/robots.txt', '/robots.txt']);
      expect(report.stoppedBecause).toBe('deferred');
      expect(report.deferred['robots-unreachable']).toBe(1);
      expect(report.store.urls.queued).toBe(1); // still queued: a later run tries again
    } finally {
      db.remove();
      await server.close();
    }
  });
});
