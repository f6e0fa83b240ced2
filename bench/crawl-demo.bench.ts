// bench/crawl-demo: the crawler end to end on the built-in demo site (loopback), per setting.
//
//   npx tsc -p tsconfig.build.json && node dist/bench/crawl-demo.bench.js [--rounds N] [--json]
//
// Each run crawls the whole demo site into a fresh LevelDB store in a temp folder and reads the
// report: pages fetched, HTTP requests (pages, redirects, robots.txt), distinct documents, requests
// per document, and pages per second (median over rounds). The demo site answers at once, so the
// figures measure the crawler itself: store writes, extraction, robots and politeness overhead.
// Benchmarks print; they assert nothing.

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrawl } from '../src/crawler/crawl.js';
import { startDemoSite } from '../src/cli/commands/demo-site.js';
import type { PresetName } from '../src/normalize/index.js';

interface Setting {
  readonly name: string;
  readonly concurrency: number;
  readonly perHost: number;
  readonly presets: readonly PresetName[];
}

const SETTINGS: readonly Setting[] = [
  { name: 'defaults (8 / 2 per host)', concurrency: 8, perHost: 2, presets: [] },
  { name: 'sequential (1 / 1)', concurrency: 1, perHost: 1, presets: [] },
  { name: 'wide (16 / 16)', concurrency: 16, perHost: 16, presets: [] },
  { name: 'defaults + tracking, session-ids', concurrency: 8, perHost: 2, presets: ['tracking', 'session-ids'] },
];

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(args[args.indexOf('--rounds') + 1]) || 5;
  const json = args.includes('--json');
  const site = await startDemoSite();
  const allow = [
    { address: '127.0.0.1', port: site.port },
    { address: '::1', port: site.port },
  ];
  const rows: Record<string, unknown>[] = [];
  try {
    for (const s of SETTINGS) {
      const rates: number[] = [];
      let last: Awaited<ReturnType<typeof runCrawl>> | undefined;
      for (let r = 0; r < rounds; r++) {
        const dir = mkdtempSync(join(tmpdir(), 'urldedup-bench-'));
        try {
          last = await runCrawl({ store: dir, seeds: [site.url], allow, concurrency: s.concurrency, perHost: s.perHost, presets: s.presets });
          rates.push(last.pagesPerSecond);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      rows.push({
        setting: s.name,
        pages: last!.pagesFetched,
        requests: last!.requests,
        redirects: last!.redirects,
        documents: last!.documents,
        requestsPerDocument: last!.requestsPerDocument,
        duplicatesAvoided: Object.values(last!.links.duplicates).reduce((a, b) => a + b, 0),
        pagesPerSecond: median(rates),
      });
    }
  } finally {
    await site.close();
  }
  if (json) {
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, rounds, rows }, null, 2) + '\n');
    return;
  }
  process.stdout.write(`demo site, ${site.documents.length} documents; node ${process.version}, ${cpus().length} CPUs, median of ${rounds} rounds\n\n`);
  process.stdout.write('| setting | pages | requests | redirects | documents | requests/doc | duplicates avoided | pages/s |\n|---|---:|---:|---:|---:|---:|---:|---:|\n');
  for (const r of rows) {
    process.stdout.write(`| ${r['setting']} | ${r['pages']} | ${r['requests']} | ${r['redirects']} | ${r['documents']} | ${r['requestsPerDocument']} | ${r['duplicatesAvoided']} | ${r['pagesPerSecond']} |\n`);
  }
}

await main();
