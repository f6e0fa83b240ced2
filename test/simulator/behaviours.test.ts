/**
 * Behaviours of the simulator's library whose ground truth is not plain routing: Apache
 * mod_speling's corrections (`spelling-redirect`), links written relative to the page
 * (`relative-links`), a staging copy answering its edits under every name, and robots.txt read on
 * a document's own name (sites/sim/behaviours/, docs/simulator.md).
 */
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startSimSite } from '../../sites/sim/site.js';
import { availableTrees } from '../../sites/sim/tree.js';

/** GET `url` on loopback with its host name in the Host header (`*.localhost` need not resolve here). */
function get(url: string): Promise<{ status: number; location: string | undefined; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: u.port, path: u.pathname + u.search, headers: { host: u.host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `url` with the first letter of its last segment's name in the other case. */
function otherCase(url: string): string {
  const at = url.lastIndexOf('/') + 1;
  const c = url.charAt(at);
  return url.slice(0, at) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + url.slice(at + 1);
}

describe.skipIf(availableTrees().length === 0)('simulator behaviours', () => {
  it('spelling-redirect: a name the server lacks, near one it holds, redirects; near two, answers 300', async () => {
    const site = await startSimSite({ seed: 71, behaviours: ['spelling-redirect', 'case-sensitive-twins'], pages: 30 });
    try {
      const pages = [...site.links.entries()].filter(([u, t]) => t.kind === 'document' && t.hops === 0 && /\/[a-z][a-z0-9-]+\.html$/.test(u));
      const twinIds = new Set(site.documents.filter((d) => d.startsWith('case:')));
      expect(twinIds.size).toBeGreaterThan(0);
      const [twinUrl, twin] = [...site.links.entries()].find(([, t]) => t.kind === 'document' && twinIds.has(t.id))!;
      // the twin is a document of its own, answered as itself
      expect(twin).toMatchObject({ kind: 'document', hops: 0 });
      const namesake = pages.find(([, t]) => t.kind === 'document' && twin.kind === 'document' && twin.id === `case:${t.id}`);
      expect(namesake).toBeDefined();
      // a single page's other spelling: one redirect to the page
      const single = pages.find(([u, t]) => t.kind === 'document' && !twinIds.has(`case:${t.id}`) && site.truth(otherCase(u)).kind === 'document');
      expect(single).toBeDefined();
      const [singleUrl, singleTruth] = single!;
      expect(site.truth(otherCase(singleUrl))).toMatchObject({ kind: 'document', id: singleTruth.kind === 'document' ? singleTruth.id : '', hops: 1 });
      const live = await get(otherCase(singleUrl));
      expect(live.status).toBe(301);
      expect(live.location).toBe(singleUrl);
      // one letter dropped from a page's name: the same redirect (mod_speling's one misspelling)
      const dropped = singleUrl.replace(/([a-z])([a-z0-9-]*\.html)$/, '$2');
      if (site.truth(dropped).kind === 'document') expect(site.truth(dropped)).toMatchObject({ kind: 'document', hops: 1 });
      // a spelling near both twins (all lower-case but the last letter of the stem) is ambiguous
      const ambiguous = twinUrl.replace(/([^/]*)\.html$/, (_, stem: string) => `${stem.toLowerCase().slice(0, -1)}${stem.slice(-1).toUpperCase()}.html`);
      if (ambiguous !== twinUrl && ambiguous !== namesake![0]) {
        expect(site.truth(ambiguous)).toMatchObject({ kind: 'none', why: 'not-found' });
        const answer = await get(ambiguous);
        expect(answer.status).toBe(300);
        expect(answer.body).toContain('Multiple Choices');
      }
    } finally {
      await site.close();
    }
  });

  it('relative-links: pages link relative to their directory and every document stays reachable', async () => {
    const plain = await startSimSite({ seed: 12, behaviours: [], pages: 30 });
    const documents = plain.documents;
    await plain.close();
    const site = await startSimSite({ seed: 12, behaviours: ['relative-links'], pages: 30 });
    try {
      expect(site.documents).toEqual(documents);
      const deep = [...site.links.entries()].find(([u, t]) => t.kind === 'document' && new URL(u).pathname.split('/').length >= 3);
      expect(deep).toBeDefined();
      const page = await get(deep![0]);
      const hrefs = [...page.body.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]!);
      expect(hrefs.length).toBeGreaterThan(0);
      expect(hrefs.filter((h) => h.startsWith('/'))).toEqual([]);
      expect(hrefs.some((h) => h.startsWith('../'))).toBe(true);
    } finally {
      await site.close();
    }
  });

  it('a staging copy answers its edited page under a session segment too', async () => {
    const site = await startSimSite({ seed: 175, behaviours: ['staging-host', 'session-segment'], pages: 16 });
    try {
      const edited = [...site.links.entries()].find(([, t]) => t.kind === 'document' && t.id.startsWith('staging:') && t.hops === 0);
      expect(edited).toBeDefined();
      const [url, t] = edited!;
      const u = new URL(url);
      const segment = `${u.origin}/(S(${'abcdefghijklmnopqrstuvwx'}))${u.pathname}${u.search}`;
      expect(site.truth(segment)).toMatchObject({ kind: 'document', id: t.kind === 'document' ? t.id : '' });
    } finally {
      await site.close();
    }
  });

  const flask = '/usr/share/doc/python-flask-doc/html';
  it.skipIf(!existsSync(flask))('a page whose own name robots.txt closes is none to reach, whatever name led to it', async () => {
    const behaviours = ['moved-prefix', 'www-redirect', 'slash-remove-redirect', 'mirror-host', 'temporary-redirect', 'session-redirect', 'session-path-parameter', 'robots-wildcards', 'merge-slashes', 'tracking-group', 'calendar-trap', 'relative-links'];
    const site = await startSimSite({ seed: 198, behaviours, pages: 39, tree: flask });
    try {
      // relative links on a page served as `//a.html` lead into `//private/`, which robots.txt's
      // `Disallow: /private/` does not match, and the server merges the slashes
      // (the private directory's own page is reached: the slash policy names it `/private`,
      // which the rule does not match)
      const open = [...site.links.entries()].filter(([u, t]) => new URL(u).pathname.startsWith('//') && t.kind === 'document' && /^private:\d/.test(t.id));
      expect(open.length).toBeGreaterThan(0);
      expect(site.documents.filter((d) => /^private:\d/.test(d))).toEqual([]);
      expect(site.documents).toContain('public:page');
    } finally {
      await site.close();
    }
  });

  it('relative-location: a redirect names its target relative to the request, and the truth resolves it so', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const site = await startSimSite({ seed, behaviours: ['relative-location', 'moved-prefix'], pages: 30 });
      try {
        const moved = [...site.links.entries()].find(([u, t]) => t.kind === 'document' && t.hops === 1 && new URL(u).pathname.split('/').length >= 3);
        if (moved === undefined) continue;
        const [url, t] = moved;
        const live = await get(url);
        expect(live.status).toBe(301);
        // never absolute: the path alone (nginx), or relative to the request's directory (a script)
        expect(live.location).toBeDefined();
        expect(live.location!).not.toMatch(/^[a-z]+:/i);
        const target = new URL(live.location!, url).href;
        expect(site.truth(target)).toMatchObject({ kind: 'document', id: t.kind === 'document' ? t.id : '', hops: 0 });
        return;
      } finally {
        await site.close();
      }
    }
    throw new Error('no seed of 1-20 draws a moved page two segments deep');
  });

  it('meta-refresh-moved: an old URL answers 200 with a page that names the new one, and names no document of its own', async () => {
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 30 && kinds.size < 2; seed++) {
      const site = await startSimSite({ seed, behaviours: ['meta-refresh-moved'], pages: 40 });
      try {
        const old = [...site.links.entries()].find(([, t]) => t.kind === 'document' && t.hops === 1);
        if (old === undefined) continue;
        const [url, t] = old;
        const live = await get(url);
        expect(live.status).toBe(200);
        const refresh = /http-equiv="refresh" content="0; url=([^"]+)"/.exec(live.body);
        expect(refresh).not.toBeNull();
        const target = new URL(refresh![1]!.replace(/&amp;/g, '&'), url).href;
        expect(site.truth(target)).toMatchObject({ kind: 'document', id: t.kind === 'document' ? t.id : '', hops: 0 });
        // the stub is no document: it is one fetch on the way to one, as a redirect is
        expect(site.documents.some((d) => d === t.id)).toBe(true);
        kinds.add(live.body.includes('<noscript>') ? 'sphinx' : 'jekyll');
      } finally {
        await site.close();
      }
    }
    expect([...kinds].sort()).toEqual(['jekyll', 'sphinx']);
  });
});

