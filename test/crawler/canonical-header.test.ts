/**
 * A canonical URL named in the `Link` header (RFC 8288, RFC 6596 §3) is a page's `rel=canonical`
 * as much as one in its head: evidence the crawl counts and hands the store, for answers without
 * a head too (a PDF). Real crawl, real loopback server (src/crawler/http/link-header.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCrawl } from '../../src/crawler/crawl.js';
import type { CrawlReport } from '../../src/crawler/report/report.js';
import { openStore } from '../../src/store/index.js';
import { html, httpServer, tempDir, type TestServer } from './support.js';

let site: TestServer;
let report: CrawlReport;
let explained: { readonly state: string; readonly canonicalKey: string; readonly key: string }[];
const db = tempDir();
const NAMES = ['report', 'notes', 'guide', 'slides'];

beforeAll(async () => {
  site = await httpServer((req, res) => {
    const path = (req.url ?? '/').replace(/\?.*$/, '');
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/') {
      // each paper linked under its name and a capitalized one (a case-folding file system)
      const links = NAMES.flatMap((n) => [`/papers/${n}.pdf`, `/papers/${n.charAt(0).toUpperCase()}${n.slice(1)}.pdf`]);
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(html(links.map((l) => `<a href="${l}">${l}</a>`).join(' ')));
    }
    const m = /^\/papers\/([A-Za-z]+)\.pdf$/.exec(path);
    if (m === null || !NAMES.includes(m[1]!.toLowerCase())) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const name = m[1]!.toLowerCase();
    // a file served with Apache's `Header append Link "<…>; rel=\"canonical\""`: its lower-case name
    res.writeHead(200, { 'content-type': 'application/pdf', link: `</papers/${name}.pdf>; rel="canonical"` }).end(`%PDF-1.4\n% the paper ${name}, ${'x'.repeat(200)}\n%%EOF\n`);
  });
  report = await runCrawl({ store: db.path, seeds: [`${site.origin}/`], allow: site.allow, concurrency: 2, perHost: 2 });
  const store = await openStore(db.path, { readOnly: true });
  try {
    explained = await Promise.all(NAMES.map((n) => store.canonical(`${site.origin}/papers/${n.charAt(0).toUpperCase()}${n.slice(1)}.pdf`)));
  } finally {
    await store.close();
  }
}, 60_000);

afterAll(async () => {
  await site.close();
  db.remove();
});

describe('rel=canonical in the Link header', () => {
  it('is counted as the page\'s canonical URL, for an answer without a head', () => {
    const pdfs = site.requests.filter((t) => t.startsWith('/papers/'));
    expect(pdfs.length).toBeGreaterThan(0);
    expect(report.evidence.canonical).toBe(pdfs.length);
    // the capitalized names name another URL
    expect(report.evidence.canonicalElsewhere).toBe(pdfs.filter((t) => /\/[A-Z]/.test(t)).length);
  });

  it('no document is lost: every paper is fetched under its own name or known as its capitalized one', () => {
    for (const n of NAMES) expect(site.requests).toContain(`/papers/${n}.pdf`);
    for (const e of explained) expect(['fetched', 'seen', 'queued', 'pruned']).toContain(e.state);
  });
});
