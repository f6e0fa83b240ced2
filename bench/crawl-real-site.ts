// bench/crawl-real-site: urldedup and `wget --recursive` on a real documentation tree
// (postgresql-doc-15, about 1,200 pages) served on loopback with aliases injected into its links
// (bench/crawl-site-server.ts), side by side: requests sent, documents reached, requests per
// document, documents fetched more than once, robots.txt obeyed.
//
//   apt-get install -y postgresql-doc-15      # the tree, in /usr/share/doc/postgresql-doc-15/html
//   npx tsc -p tsconfig.build.json && node dist/bench/crawl-real-site.js [--no-wget] [--json]
//
// wget reaches the *.localhost names through the server itself, used as its HTTP proxy. Each run
// starts from http://docs.localhost:PORT/docs/15/ with robots.txt obeyed. Benchmarks print; they
// assert nothing.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrawl } from '../src/crawler/crawl.js';
import type { CrawlReport } from '../src/crawler/report.js';
import type { PresetName } from '../src/normalize/index.js';
import { startAliasSite, type SiteRequest } from './crawl-site-server.js';

/** What the crawl runs below need of a site: its seeds, its port, its request log and its truth. */
export interface CrawlSite {
  readonly port: number;
  readonly url: string;
  /** Seeds (default: `url` alone). */
  readonly seeds?: readonly string[];
  /** Domains wget may span to (--span-hosts --domains); none: wget stays on the seed's host. */
  readonly domains?: readonly string[];
  readonly documents: readonly string[];
  readonly disallowed: readonly string[];
  readonly requests: SiteRequest[];
}

export interface ClientRun {
  readonly client: string;
  readonly requests: number;
  readonly documentsReached: number;
  readonly documentsMissed: readonly string[];
  readonly requestsPerDocument: number;
  /** Documents answered more than once (each extra answer counted). */
  readonly extraFetches: number;
  readonly disallowedFetched: number;
  readonly seconds: number;
  readonly report?: CrawlReport;
}

/** Summarize the requests of one client run against the site's documents. */
export function summarize(site: Pick<CrawlSite, 'documents' | 'disallowed'>, client: string, requests: readonly SiteRequest[], seconds: number, report?: CrawlReport): ClientRun {
  const served = new Map<string, number>();
  for (const r of requests) if (r.document !== undefined && r.status === 200) served.set(r.document, (served.get(r.document) ?? 0) + 1);
  const reached = site.documents.filter((d) => served.has(d));
  let extra = 0;
  for (const [d, n] of served) if (d !== '/robots.txt') extra += n - 1;
  return {
    client,
    requests: requests.length,
    documentsReached: reached.length,
    documentsMissed: site.documents.filter((d) => !served.has(d)),
    requestsPerDocument: Math.round((requests.length / Math.max(1, reached.length)) * 1000) / 1000,
    extraFetches: extra,
    disallowedFetched: requests.filter((r) => site.disallowed.includes(r.target)).length,
    seconds: Math.round(seconds * 100) / 100,
    ...(report === undefined ? {} : { report }),
  };
}

/**
 * Crawl the site with urldedup into a fresh LevelDB store; `inspect` is given the store's folder
 * after the crawl, before it is removed.
 */
export async function crawlWithUrldedup(site: CrawlSite, presets: readonly PresetName[] = [], concurrency = 8, inspect?: (store: string) => Promise<void>): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-real-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const report = await runCrawl({
      store: dir,
      seeds: site.seeds ?? [site.url],
      allow: [
        { address: '127.0.0.1', port: site.port },
        { address: '::1', port: site.port },
      ],
      presets,
      concurrency,
      perHost: concurrency,
    });
    const name = presets.length === 0 ? 'urldedup' : `urldedup --preset ${presets.join(',')}`;
    if (inspect !== undefined) await inspect(dir);
    return summarize(site, name, site.requests.slice(from), (performance.now() - t) / 1000, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Crawl the site with `wget --recursive`, through the server as its proxy. */
export async function crawlWithWget(site: CrawlSite): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-wget-'));
  const from = site.requests.length;
  const t = performance.now();
  try {
    const span = site.domains === undefined ? [] : ['--span-hosts', `--domains=${site.domains.join(',')}`];
    const args = ['--recursive', '--level=inf', '--no-parent', '--no-verbose', '--tries=1', '--timeout=10', ...span, '-e', 'robots=on', '-e', 'use_proxy=on', '-e', `http_proxy=http://127.0.0.1:${site.port}/`, '--directory-prefix', dir, ...(site.seeds ?? [site.url])];
    await new Promise<void>((resolve, reject) => {
      const p = spawn('wget', args, { stdio: ['ignore', 'ignore', 'ignore'] });
      p.on('error', reject);
      p.on('close', () => resolve()); // wget exits 8 when some link answered 404: the log is what counts
    });
    return summarize(site, 'wget --recursive', site.requests.slice(from), (performance.now() - t) / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const site = await startAliasSite();
  const runs: ClientRun[] = [];
  try {
    runs.push(await crawlWithUrldedup(site));
    runs.push(await crawlWithUrldedup(site, ['session-ids', 'tracking']));
    if (!args.includes('--no-wget')) runs.push(await crawlWithWget(site));
  } finally {
    await site.close();
  }
  if (args.includes('--json')) {
    const out = runs.map(({ report, ...r }) => ({ ...r, rules: report?.rules, duplicates: report?.links.duplicates }));
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, documents: site.documents.length, aliasLinks: site.aliasLinks, runs: out }, null, 2) + '\n');
    return;
  }
  process.stdout.write(
    `postgresql-doc-15 on loopback: ${site.documents.length} documents reachable (${site.traps.length} traps), aliases injected into links: ${JSON.stringify(site.aliasLinks)}\nnode ${process.version}, ${cpus().length} CPUs\n\n`,
  );
  process.stdout.write('| crawler | requests | documents reached | requests per document | extra fetches of a document | robots.txt-disallowed fetched | seconds |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|\n');
  for (const r of runs) {
    process.stdout.write(
      `| ${r.client} | ${r.requests} | ${r.documentsReached} / ${site.documents.length} | ${r.requestsPerDocument} | ${r.extraFetches} | ${r.disallowedFetched} | ${r.seconds} |\n`,
    );
  }
  for (const r of runs) {
    if (r.documentsMissed.length > 0) process.stdout.write(`\n${r.client} missed: ${r.documentsMissed.slice(0, 20).join(' ')}${r.documentsMissed.length > 20 ? ' …' : ''}\n`);
    if (r.report !== undefined) process.stdout.write(`\n${r.client}: rules ${r.report.rules.map((x) => x.id).join(', ')}; duplicates avoided ${JSON.stringify(r.report.links.duplicates)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
