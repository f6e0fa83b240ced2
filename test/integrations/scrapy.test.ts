// The Scrapy integration (integrations/scrapy/): Debian's Scrapy crawls the built-in demo site (on
// loopback, through the site itself as its HTTP proxy: Scrapy does not resolve *.localhost) once
// with its own RFPDupeFilter and once with urldedup's dupefilter and evidence middleware asking a
// real query service. urldedup's run reaches every document Scrapy's reaches, with fewer requests
// per document when it trusts the rules it learned (and about as many without); and the
// dupefilter's memory stays flat where RFPDupeFilter's grows with the URLs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../src/cli/commands/demo-site.js';
import { startService, type Service } from '../../src/service/server.js';
import { openStore, type SeenStore } from '../../src/store/index.js';
import { describeWith, SCRAPY, SCRAPY_PYTHON } from '../support/requirements.js';

const HERE = fileURLToPath(new URL('../../integrations/scrapy/', import.meta.url));

interface Run {
  readonly requests: number;
  readonly documents: ReadonlySet<string>;
  readonly perDocument: number;
  readonly code: number | null;
  readonly log: string;
}

function scrapy(site: DemoSite, settings: Record<string, string>): Promise<Run> {
  const from = site.requests.length;
  const args = ['-m', 'scrapy', 'runspider', join(HERE, 'tests/follow_spider.py'), '-a', `start=${site.url}`];
  for (const [k, v] of Object.entries(settings)) args.push('-s', `${k}=${v}`);
  const proc = spawn(SCRAPY_PYTHON, args, {
    cwd: HERE,
    env: { ...process.env, PYTHONPATH: HERE, http_proxy: `http://127.0.0.1:${site.port}`, no_proxy: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (log += d.toString()));
  return new Promise((resolve) => {
    proc.on('exit', (code) => {
      const mine = site.requests.slice(from).filter((r) => r.target !== '/robots.txt');
      const documents = new Set(mine.filter((r) => r.status === 200 && r.document !== undefined).map((r) => r.document!));
      resolve({ requests: mine.length, documents, perDocument: mine.length / Math.max(1, documents.size), code, log });
    });
  });
}

/** A crawl with urldedup's dupefilter trusting learned rules, on a store and service of its own. */
async function scrapyOnFreshStore(site: DemoSite, dir: string): Promise<Run> {
  const store = await openStore(join(dir, 'trusted'));
  const service = await startService(store, { port: 0 });
  try {
    return await scrapy(site, {
      DUPEFILTER_CLASS: 'urldedup_scrapy.UrldedupDupeFilter',
      DOWNLOADER_MIDDLEWARES: JSON.stringify({ 'urldedup_scrapy.UrldedupEvidenceMiddleware': 650 }),
      URLDEDUP_URL: service.url,
      URLDEDUP_TRUST_RULES: 'True',
    });
  } finally {
    await service.close();
    await store.close();
  }
}

describeWith([SCRAPY], 'Scrapy with urldedup', () => {
  let site: DemoSite;
  let store: SeenStore;
  let service: Service;
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-scrapy-'));
  beforeAll(async () => {
    site = await startDemoSite();
    store = await openStore(join(dir, 'db'));
    service = await startService(store, { port: 0 });
  }, 30_000);
  afterAll(async () => {
    await service?.close();
    await store?.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches every document Scrapy reaches alone, with fewer requests per document', async () => {
    const plain = await scrapy(site, {});
    expect(plain.code, plain.log.slice(-2000)).toBe(0);
    const ours = await scrapy(site, {
      DUPEFILTER_CLASS: 'urldedup_scrapy.UrldedupDupeFilter',
      DOWNLOADER_MIDDLEWARES: JSON.stringify({ 'urldedup_scrapy.UrldedupEvidenceMiddleware': 650 }),
      URLDEDUP_URL: service.url,
    });
    expect(ours.code, ours.log.slice(-2000)).toBe(0);
    console.log(
      `Scrapy on the demo site: RFPDupeFilter ${plain.requests} requests, ${plain.documents.size} documents, ${plain.perDocument.toFixed(3)} per document; ` +
        `urldedup ${ours.requests} requests, ${ours.documents.size} documents, ${ours.perDocument.toFixed(3)} per document`,
    );
    expect([...plain.documents].filter((d) => !ours.documents.has(d))).toEqual([]);
    expect(ours.documents.size).toBeGreaterThan(30);
    // safe by default (each URL a learned rule maps is let through once): about Scrapy's figure,
    // which loses a document to its query sorting; when a run is slow, a rule is learned later
    expect(ours.perDocument).toBeLessThanOrEqual(plain.perDocument * 1.1);
    // the store learned from the evidence the middleware sent
    expect((await store.stats()).rules.active).toBeGreaterThan(0);
    // trusting the rules it learned (a second store, the same site): fewer requests per document
    const trusted = await scrapyOnFreshStore(site, dir);
    console.log(`urldedup, URLDEDUP_TRUST_RULES: ${trusted.requests} requests, ${trusted.documents.size} documents, ${trusted.perDocument.toFixed(3)} per document`);
    expect([...plain.documents].filter((d) => !trusted.documents.has(d))).toEqual([]);
    expect(trusted.perDocument).toBeLessThan(plain.perDocument);
  }, 120_000);

  it("keeps the dupefilter's memory flat where RFPDupeFilter's grows with the URLs", async () => {
    const script = `
import sys, tracemalloc
from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.test import get_crawler
from urldedup_scrapy import UrldedupDupeFilter
n = int(sys.argv[1])
def grow(f):
    for i in range(200):
        f.request_seen(Request(f"http://m.example/warm/{i}"))
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for i in range(n):
        f.request_seen(Request(f"http://m.example/p/{i}?q={i * 7}"))
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return grown
rfp = RFPDupeFilter.from_crawler(get_crawler())
ours = UrldedupDupeFilter("${service.url}")
print(grow(rfp), grow(ours))
`;
    // (not spawnSync: the service answering the filter runs in this process's event loop)
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(SCRAPY_PYTHON, ['-c', script, '5000'], { cwd: HERE, env: { ...process.env, PYTHONPATH: HERE }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('exit', (status) => resolve({ status, stdout, stderr }));
    });
    expect(r.status, r.stderr).toBe(0);
    const [rfp, ours] = r.stdout.trim().split(/\s+/).map(Number) as [number, number];
    console.log(`5,000 new URLs: RFPDupeFilter grew ${rfp} bytes, UrldedupDupeFilter ${ours} bytes`);
    expect(rfp).toBeGreaterThan(200_000);
    // (what it holds is the HTTP client and the interpreter's caches, not the URLs)
    expect(ours).toBeLessThan(rfp / 10);
  }, 120_000);
});
