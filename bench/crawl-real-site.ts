// bench/crawl-real-site: urldedup and `wget --recursive` on a real documentation tree
// (postgresql-doc-15, about 1,200 pages) served on loopback with aliases injected into its links
// (sites/alias-site.ts), side by side: requests sent, documents reached, requests per
// document, documents fetched more than once, robots.txt obeyed.
//
//   apt-get install -y postgresql-doc-15      # the tree, in /usr/share/doc/postgresql-doc-15/html
//   npx tsc -p tsconfig.build.json && node dist/bench/crawl-real-site.js [--no-wget] [--json]
//
// wget reaches the *.localhost names through the server itself, used as its HTTP proxy. Each run
// starts from http://docs.localhost:PORT/docs/15/ with robots.txt obeyed. Benchmarks print; they
// assert nothing.
//
// urldedup crawls in a child process (the server stays in this one), so the child's
// process.cpuUsage() over the crawl is the crawler's own CPU: user + sys, divided by the links
// found, is the "µs per link" column. `--runs N` repeats each urldedup run N times (medians and
// spread printed); `--cpu-prof DIR` writes a V8 CPU profile of each crawl child into DIR. On Linux
// the CPU is also split between the main thread (JavaScript, what a CPU profile shows) and the
// process's other threads (V8's optimizing compiler and GC helpers, libuv's pool: LevelDB, zlib),
// from /proc. `--warm` crawls once into a scratch store in the same child before the measured
// crawl: the crawl's cost without V8's warm-up, for comparison (the figure of record is cold).
// `--node-arg FLAG` (repeatable) starts the crawl child with a Node or V8 flag:
// `--node-arg --no-concurrent-recompilation` moves V8's optimizing compiler onto the main
// thread, so the other threads' share that was compiling shows.
// After each crawl, bench/crawl-floor.ts sends the same requests and tokenizes and resolves every
// link and does nothing else, in a cold child process: the last table is CPU per page of the
// whole crawl process against that floor's whole process.

import { cpus } from 'node:os';
import type { PresetName } from '../src/normalize/index.js';
import { startAliasSite } from '../sites/alias-site.js';
import { crawlWithUrldedup, crawlWithWget, type ClientRun, type CrawlCpu } from '../sites/real-site-runs.js';
import { floorInChild, type FloorResult } from './crawl-floor.js';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function argValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Math.max(1, Number(argValue(args, '--runs') ?? 1));
  const profileDir = argValue(args, '--cpu-prof');
  const nodeArgs = args.flatMap((a, i) => (args[i - 1] === '--node-arg' ? [a] : []));
  const measure = { child: true, nodeArgs, ...(profileDir === undefined ? {} : { profileDir }), ...(args.includes('--warm') ? { warm: true } : {}) };
  const site = await startAliasSite();
  const runs: ClientRun[] = [];
  const cpu: Record<string, CrawlCpu[]> = {};
  const floors: Record<string, { crawl: number; floor: FloorResult; pages: number }[]> = {};
  try {
    for (let i = 0; i < rounds; i++) {
      for (const presets of [[], ['session-ids', 'tracking']] as PresetName[][]) {
        const from = site.requests.length;
        const run = await crawlWithUrldedup(site, presets, 8, measure);
        (cpu[run.client] ??= []).push(run.cpu!);
        if (i === 0) runs.push(run);
        // the floor: the same requests, in order, at the same concurrency, nothing else done
        const floor = await floorInChild(site.port, site.requests.slice(from).map((r) => ({ host: r.host, target: r.target })), 8);
        site.requests.splice(from + run.requests); // (the floor's requests are not the crawl's)
        (floors[run.client] ??= []).push({ crawl: run.cpu!.processSeconds!, floor, pages: run.report!.pagesFetched });
      }
    }
    if (!args.includes('--no-wget')) runs.push(await crawlWithWget(site));
  } finally {
    await site.close();
  }
  const cpuRows = Object.entries(cpu).map(([client, xs]) => {
    const us = xs.map((x) => x.microsPerLink);
    const main = xs.flatMap((x) => (x.mainThreadSeconds === undefined ? [] : [x.mainThreadSeconds]));
    return {
      client: args.includes('--warm') ? `${client} (warm process)` : client,
      runs: xs.length,
      linksFound: xs[0]!.linksFound,
      cpuSeconds: median(xs.map((x) => x.cpuSeconds)),
      microsPerLink: median(us),
      microsPerLinkMin: Math.min(...us),
      microsPerLinkMax: Math.max(...us),
      ...(main.length === xs.length ? { mainThreadSeconds: median(main), otherThreadsSeconds: median(xs.map((x, i) => x.cpuSeconds - main[i]!)) } : {}),
    };
  });
  if (args.includes('--json')) {
    const out = runs.map(({ report, ...r }) => ({ ...r, rules: report?.rules, duplicates: report?.links.duplicates }));
    process.stdout.write(JSON.stringify({ node: process.version, cpus: cpus().length, documents: site.documents.length, aliasLinks: site.aliasLinks, runs: out, cpu: cpuRows, floors }, null, 2) + '\n');
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
  process.stdout.write('\n| crawler (CPU of the crawl process) | runs | links found | CPU s (median) | main thread / other threads s (medians) | µs per link (median) | µs per link (min–max) |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|\n');
  for (const c of cpuRows) {
    const split = c.mainThreadSeconds === undefined ? '—' : `${c.mainThreadSeconds.toFixed(2)} / ${c.otherThreadsSeconds!.toFixed(2)}`;
    process.stdout.write(
      `| ${c.client} | ${c.runs} | ${c.linksFound} | ${c.cpuSeconds.toFixed(2)} | ${split} | ${c.microsPerLink.toFixed(2)} | ${c.microsPerLinkMin.toFixed(2)}–${c.microsPerLinkMax.toFixed(2)} |\n`,
    );
  }
  process.stdout.write('\n| crawler | pages fetched | CPU ms per page: crawl process | floor process | crawl ÷ floor (median, min–max) |\n');
  process.stdout.write('|---|---:|---:|---:|---:|\n');
  for (const [client, xs] of Object.entries(floors)) {
    const ratios = xs.map((x) => x.crawl / x.floor.cpuSeconds);
    const pages = xs[0]!.pages;
    process.stdout.write(
      `| ${client} | ${pages} | ${((median(xs.map((x) => x.crawl)) * 1000) / pages).toFixed(2)} | ${((median(xs.map((x) => x.floor.cpuSeconds)) * 1000) / pages).toFixed(2)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |\n`,
    );
  }
  for (const r of runs) {
    if (r.documentsMissed.length > 0) process.stdout.write(`\n${r.client} missed: ${r.documentsMissed.slice(0, 20).join(' ')}${r.documentsMissed.length > 20 ? ' …' : ''}\n`);
    if (r.report !== undefined) process.stdout.write(`\n${r.client}: rules ${r.report.rules.map((x) => x.id).join(', ')}; duplicates avoided ${JSON.stringify(r.report.links.duplicates)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) await main();
