/**
 * ASP.NET cookieless session state (`/(S(id))/page`, sites/sim/behaviours/params.ts
 * `session-segment`), a server of each of its two kinds: one that serves the segment where a link
 * carries it, and one that redirects every URL without it to a new one. No learned rule names such
 * a segment (docs/rules.md); the `session-ids` preset removes it, and must give way where the
 * server redirects to the very form it removes, or every document behind the redirect is lost.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { crawlSimWithUrldedup } from '../../sites/sim/crawl.js';
import { failuresOf, runCase } from '../../sites/sim/shrink.js';
import { startSimSite } from '../../sites/sim/site.js';
import { availableTrees } from '../../sites/sim/tree.js';

const BEHAVIOURS = ['session-segment'];
const PAGES = 30;

/** The first seed from 1 whose site redirects to the segment (`redirects`) or does not. */
async function seedOfKind(redirects: boolean): Promise<{ seed: number; tree: string }> {
  for (let seed = 1; seed <= 40; seed++) {
    const site = await startSimSite({ seed, behaviours: BEHAVIOURS, pages: PAGES });
    try {
      const redirected = [...site.links.values()].some((t) => t.kind === 'document' && t.hops > 0);
      if (redirected === redirects) return { seed, tree: site.tree };
    } finally {
      await site.close();
    }
  }
  throw new Error(`no seed of 1-40 draws a session-segment server that ${redirects ? 'redirects' : 'does not redirect'}`);
}

describe.skipIf(availableTrees().length === 0)('ASP.NET cookieless session segments', () => {
  it('the simulator: a segment names the page without it, and a redirecting server adds one', async () => {
    const { seed } = await seedOfKind(true);
    const site = await startSimSite({ seed, behaviours: BEHAVIOURS, pages: PAGES });
    try {
      const aliased = [...site.links.entries()].filter(([u]) => /\/\(S\([a-z0-5]{24}\)\)\//.test(u));
      expect(aliased.length).toBeGreaterThan(0);
      for (const [u, t] of aliased.slice(0, 20)) {
        const plain = u.replace(/\/\(S\([a-z0-5]{24}\)\)\//, '/');
        expect(t.kind).toBe('document');
        expect(site.truth(plain)).toMatchObject({ kind: 'document', id: t.kind === 'document' ? t.id : '' });
      }
      const [redirected] = [...site.links.entries()].find(([u, t]) => t.kind === 'document' && t.hops > 0 && !u.includes('(S(')) ?? [];
      expect(redirected).toBeDefined();
      // on loopback, the site's host name in the Host header (`*.localhost` need not resolve here)
      const u = new URL(redirected!);
      const answer = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: u.port, path: u.pathname + u.search, headers: { host: u.host } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(302);
      expect(answer.location).toMatch(/\/\(S\([a-z0-5]{24}\)\)\//);
    } finally {
      await site.close();
    }
  });

  for (const redirects of [false, true]) {
    it(`a server that ${redirects ? 'redirects to the segment' : 'serves it where a link carries it'}: every document, no merge, with and without the preset`, { timeout: 60_000 }, async () => {
      const { seed, tree } = await seedOfKind(redirects);
      const bare = await runCase({ seed, behaviours: BEHAVIOURS, pages: PAGES, tree, presets: [] });
      const preset = await runCase({ seed, behaviours: BEHAVIOURS, pages: PAGES, tree, presets: ['session-ids'] });
      for (const r of [bare, preset]) {
        expect(failuresOf(r.run)).toEqual([]);
        expect(r.run.reached).toBe(r.documents);
        expect(r.run.falseMerges).toBe(0);
      }
      // where the server serves the segment, the preset takes every id's page to one URL, and
      // without it the learned rule (`path-parameter:(S)`) takes most of them (1.86 × the floor
      // before it existed, 1.57 with it); where the server redirects to one, the preset is
      // suspended and the redirect followed, and both crawls learn the same rule
      if (!redirects) {
        expect(preset.run.requests).toBeLessThanOrEqual(Math.ceil(preset.floor * 1.05));
        expect(bare.run.requests).toBeLessThanOrEqual(Math.ceil(bare.floor * 1.7));
      } else expect(preset.run.requests).toBeLessThanOrEqual(Math.ceil(bare.run.requests * 1.1));
    });
  }

  it('a server that redirects to the segment in one section: the preset gives way there, and stays on beside it', { timeout: 60_000 }, async () => {
    // the segment leads the path (`/a/b` → 302 → `/(S(id))/a/b`), so the source and the target
    // have `/` alone in common: judged there, one section's redirects took the preset off the
    // whole host, and every page fetched under every id elsewhere (seed 65103: 151 × the floor)
    const SEGMENT = /^\/\(S\([a-z0-5]{24}\)\)(\/.*)$/;
    for (let seed = 1; seed <= 40; seed++) {
      const site = await startSimSite({ seed, behaviours: BEHAVIOURS, pages: 40 });
      try {
        const redirected = [...site.links.entries()].filter(([u, t]) => t.kind === 'document' && t.hops > 0 && !SEGMENT.test(new URL(u).pathname)).map(([u]) => new URL(u).pathname);
        const first = redirected[0]?.split('/')[1];
        if (first === undefined || redirected.some((p) => p.split('/')[1] !== first || p === `/${first}`)) continue;
        const section = `/${first}/`;
        const run = await crawlSimWithUrldedup(site, ['session-ids']);
        expect(failuresOf(run)).toEqual([]);
        expect(run.reached).toBe(site.documents.length);
        const fetched = site.requests.filter((r) => r.client === 'urldedup').map((r) => SEGMENT.exec(r.target.split('?')[0]!)?.[1]).filter((p) => p !== undefined);
        // under the section, the redirects' targets; beside it, nothing: the preset prunes every id
        expect(fetched.some((p) => p.startsWith(section))).toBe(true);
        expect(fetched.filter((p) => !p.startsWith(section))).toEqual([]);
        return;
      } finally {
        await site.close();
      }
    }
    throw new Error('no seed of 1-40 draws a session-segment server that redirects in one section only');
  });
});
