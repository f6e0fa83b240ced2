/**
 * Crash of a crawl (docs/reliability.md `crash/kill-during-crawl`, promise 4): the built CLI
 * (`test/fixtures/crawl-cli.mjs`, which runs `urldedup crawl` from dist/) crawls a generated
 * loopback site of 2,000 pages served by this process, and is killed with SIGKILL after a seeded
 * 0.2–2 s, again and again, then restarted until it finishes.
 *
 * Oracles, outside the killed process:
 * - O2: the server's log. Every page reachable from the seed is served at least once, nothing
 *   unreachable is, and pages served twice ≤ kills × concurrency (only fetches in flight at a kill
 *   may be repeated);
 * - O3: `verify()` finds nothing after every kill, and at the end;
 * - O4: conservation (admitted = queued + fetched + redirected + pruned + failed) after every kill.
 *
 * 3 kills on 2,000 pages in `npm test`; 30 kills on 10,000 pages under `URLDEDUP_LONG=1`. Schedules in
 * test/regressions/kill-schedules.json are replayed on every run; a failing random schedule is
 * printed as the entry to add.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateSite, siteHandler } from '../support/generated-site.js';
import { freshSeed, LONG, printRegression, regressions, type KillScheduleEntry } from '../support/regressions.js';
import { seededRandom } from '../../sites/seeded-random.js';
import { auditStore, describeAudit } from '../support/store-audit.js';
import { tempDir } from '../crawler/support.js';

const RUNNER = fileURLToPath(new URL('../fixtures/crawl-cli.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/src/cli/commands/crawl.js', import.meta.url));
const PAGES = LONG ? 10_000 : 2000;
const CONCURRENCY = 8;
const KILLS = LONG ? 30 : 3;
/** The last run, uninterrupted, must finish within this (a hang guard). */
const FINISH_MS = 120_000;

interface Outcome {
  /** Kills that landed while the crawler was running (not after it had finished). */
  readonly kills: number;
  readonly runs: number;
  readonly served: number;
  readonly distinct: number;
  readonly duplicates: number;
  readonly missing: readonly number[];
  readonly unreachableServed: readonly string[];
  readonly auditProblems: readonly string[];
  readonly ms: number;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Crawl the site of `schedule`, killing the crawler after each delay in turn, then to the end. */
async function crawlWithKills(schedule: KillScheduleEntry): Promise<Outcome> {
  const started = performance.now();
  const graph = generateSite(schedule.siteSeed, schedule.pages);
  const served: string[] = [];
  let origin = '';
  const sockets = new Set<Socket>();
  const server: Server = createServer(siteHandler(graph, served, () => origin));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = tempDir('urldedup-kill-crawl-');
  const auditProblems: string[] = [];
  let kills = 0;
  let runs = 0;
  const args = [`${origin}/p0`, '--db', db.path, '--allow-private', '--concurrency', String(schedule.concurrency), '--per-host', String(schedule.concurrency), '--log-level', 'silent', '--report', 'json'];
  try {
    const check = async (when: string): Promise<void> => {
      const audit = await auditStore(db.path);
      for (const p of audit.problems) auditProblems.push(`${when}: verify: ${p}`);
      if (audit.conservationGap !== 0) auditProblems.push(`${when}: conservation: ${describeAudit(audit)}`);
    };
    let finished = false;
    for (const delay of schedule.kills) {
      runs++;
      const child = fork(RUNNER, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const end = exited(child);
      const outcome = await Promise.race([end, new Promise<'kill'>((r) => setTimeout(() => r('kill'), delay))]);
      if (outcome === 'kill') {
        child.kill('SIGKILL');
        await end;
        kills++;
      } else {
        if (outcome.code !== 0) throw new Error(`crawler exited ${outcome.code ?? outcome.signal}: ${stderr}`);
        finished = true;
      }
      await check(`after run ${runs}${outcome === 'kill' ? ` (killed at ${delay} ms)` : ''}`);
      if (finished) break;
    }
    if (!finished) {
      runs++;
      const child = fork(RUNNER, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        exited(child),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`the last run did not finish within ${FINISH_MS} ms`));
          }, FINISH_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (r.code !== 0) throw new Error(`crawler exited ${r.code ?? r.signal}: ${stderr}`);
      await check(`after the last run`);
    }
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
    db.remove();
  }
  const servedSet = new Set(served);
  const missing = [...graph.reachable].filter((p) => !servedSet.has(`/p${p}`)).sort((a, b) => a - b);
  const unreachableServed = [...servedSet].filter((t) => {
    const i = Number(/^\/p(\d+)$/.exec(t)?.[1] ?? -1);
    return !graph.reachable.has(i);
  });
  return { kills, runs, served: served.length, distinct: servedSet.size, duplicates: served.length - servedSet.size, missing, unreachableServed, auditProblems, ms: performance.now() - started };
}

function verdict(schedule: KillScheduleEntry, o: Outcome): string[] {
  const problems = [...o.auditProblems];
  if (o.missing.length > 0) problems.push(`${o.missing.length} reachable pages never served: ${o.missing.slice(0, 20).map((p) => `/p${p}`).join(' ')}`);
  if (o.unreachableServed.length > 0) problems.push(`unreachable pages served: ${o.unreachableServed.slice(0, 20).join(' ')}`);
  if (o.duplicates > o.kills * schedule.concurrency) problems.push(`${o.duplicates} duplicate serves > kills ${o.kills} × concurrency ${schedule.concurrency}`);
  return problems;
}

function report(label: string, schedule: KillScheduleEntry, o: Outcome): void {
  console.log(
    `${label}: site seed ${schedule.siteSeed} (${schedule.pages} pages), kills at ${JSON.stringify(schedule.kills)} ms; ${o.kills} kills survived, ${o.runs} runs, ${o.distinct} pages served (${o.duplicates} twice, bound ${o.kills * schedule.concurrency}), ${o.missing.length} missing, verify clean after each: ${o.auditProblems.length === 0}; ${(o.ms / 1000).toFixed(1)} s`,
  );
}

describe('SIGKILL during a crawl, restarted until done', () => {
  if (!existsSync(BUILT)) {
    it('needs the build (npm test runs it; or npx tsc -p tsconfig.build.json)', () => {
      throw new Error(`${BUILT} is missing: build first`);
    });
    return;
  }

  const kept = regressions<KillScheduleEntry>('kill-schedules', 'kill-during-crawl');
  it.each(kept.map((e) => [e.siteSeed, e] as const))('replays kill-schedules.json entry site seed %s', async (_s, entry) => {
    const o = await crawlWithKills(entry);
    report('kill-during-crawl replay', entry, o);
    expect(verdict(entry, o)).toEqual([]);
  }, 300_000);

  it(`a random schedule of ${KILLS} kills: every reachable page served, re-fetches ≤ kills × concurrency, verify clean after each kill`, async () => {
    const seed = freshSeed();
    const rnd = seededRandom(seed);
    const schedule: KillScheduleEntry = {
      test: 'kill-during-crawl',
      siteSeed: seed,
      pages: PAGES,
      concurrency: CONCURRENCY,
      kills: Array.from({ length: KILLS }, () => rnd.int(200, 2000)),
    };
    console.log(`kill-during-crawl seed=${seed} (rerun: URLDEDUP_SEED=${seed})`);
    const o = await crawlWithKills(schedule);
    report('kill-during-crawl', schedule, o);
    const problems = verdict(schedule, o);
    if (problems.length > 0) printRegression('kill-schedules', { ...schedule, note: problems[0]!.slice(0, 200) } as KillScheduleEntry);
    expect(problems).toEqual([]);
    expect(o.kills).toBeGreaterThan(0);
  }, LONG ? 900_000 : 300_000);
});
