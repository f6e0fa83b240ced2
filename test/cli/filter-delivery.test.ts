// docs/reliability.md output/filter-head and output/filter-kill: `urldedup filter` delivers at least once.
// The built CLI (dist/) runs as a real child process on a real LevelDB store in a temp folder; its
// output is cut by a real `head` in a real shell pipe, or the process gets a real SIGKILL, SIGTERM
// or SIGINT at a seeded random point mid-stream. Then a re-run over the same input: every new URL
// of a clean run is printed by one of the runs, and no store entry is marked delivered whose line
// was not written.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync, writeFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../sites/mulberry32.js';
import { key } from '../../src/normalize/index.js';
import { decodeUrlEntry } from '../../src/store/keys.js';
import { unseal } from '../../src/store/backends/leveldb/record-checksum.js';

const MAIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** The input: URLs on 40 hosts, the last quarter repeating earlier ones in other spellings. */
function inputLines(n: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const j = i < (n * 3) / 4 ? i : (i * 7) % Math.floor((n * 3) / 4);
    const u = `http://h${j % 40}.example/p/${j}?q=${j * 13}`;
    lines.push(i === j ? u : u.replace('http://h', 'HTTP://H').replace('.example/', '.EXAMPLE:80/'));
  }
  return lines;
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

/** `filter` to the end, stdout collected. */
function filterRun(db: string, input: string, extra: string[] = []): { code: number | null; out: string[] } {
  const r = spawnSync(process.execPath, [MAIN, 'filter', '--db', db, ...extra], { input: readFileSync(input), maxBuffer: 1 << 30 });
  return { code: r.status, out: lines(r.stdout.toString()) };
}

/** Every queued `url` entry of a closed store: its key and whether it still carries the undelivered mark. */
async function entries(db: string): Promise<Map<string, boolean>> {
  const level = new Level<string, string>(db);
  await level.open();
  const out = new Map<string, boolean>();
  try {
    const url = level.sublevel<string, string>('url', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    for await (const [k, stored] of url.iterator()) {
      // (each value carries the store's checksum: src/store/backends/leveldb/record-checksum.ts)
      const e = decodeUrlEntry(unseal(url.prefixKey(k, 'utf8'), stored)!);
      if (e.s === 'queued') out.set(k, e.u === true);
    }
  } finally {
    await level.close();
  }
  return out;
}

describe('filter delivers at least once', () => {
  let dir: string;
  let input: string;
  let clean: Set<string>;

  beforeAll(async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    dir = await mkdtemp(join(tmpdir(), 'urldedup-delivery-'));
    input = join(dir, 'in.txt');
    writeFileSync(input, inputLines(120_000).join('\n') + '\n');
    const r = filterRun(join(dir, 'clean'), input);
    expect(r.code).toBe(0);
    clean = new Set(r.out);
    expect(clean.size).toBe(90_000);
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([10, 70_000])('output/filter-head: `| head -n %i` exits non-zero, and a re-run prints what head did not', async (n) => {
    const db = join(dir, `head-${n}`);
    const out1 = join(dir, `head-${n}.out`);
    const sh = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${MAIN}" filter --db "${db}" < "${input}" | head -n ${n} > "${out1}"; echo "\${PIPESTATUS[0]} $?"`]);
    const [filterStatus, pipeStatus] = sh.stdout.toString().trim().split(' ').map(Number);
    expect(filterStatus).toBe(141); // the reader went away: EPIPE
    expect(pipeStatus).not.toBe(0);
    const first = lines(readFileSync(out1, 'utf8'));
    expect(first).toHaveLength(n);
    const second = filterRun(db, input);
    expect(second.code).toBe(0);
    const printed = new Set([...first, ...second.out]);
    const missing = [...clean].filter((u) => !printed.has(u));
    expect(missing).toEqual([]);
    // before this fix: a re-run printed nothing for the URLs of the batches admitted but not written
    expect(filterRun(db, input).out).toEqual([]); // and after a complete run, nothing is offered again
  }, 180_000);

  it('output/filter-kill: SIGKILL, SIGTERM and SIGINT mid-stream, then a re-run', async () => {
    const seed = Number(process.env.URLDEDUP_SEED ?? Date.now() % 1_000_000);
    const rand = mulberry32(seed); // the kill schedule from a printed seed
    const db = join(dir, 'kill');
    const printed = new Set<string>();
    const schedule: string[] = [];
    for (const signal of ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGKILL', 'SIGTERM', 'SIGINT'] as const) {
      // lines read before the signal: within what this run has to write (the URLs not yet marked
      // delivered, each written again or for the first time), so that it is cut mid-stream
      const delivered = [...(await entries(db)).values()].filter((marked) => !marked).length;
      const after = 1 + Math.floor(rand() * Math.min(40_000, (clean.size - delivered) / 2));
      schedule.push(`${signal}@${after}`);
      const fd = openSync(input, 'r');
      // a small window, so that marks are written mid-stream and the second oracle has teeth
      const child = spawn(process.execPath, [MAIN, 'filter', '--db', db, '--delivery-window', '16384'], { stdio: [fd, 'pipe', 'pipe'] });
      closeSync(fd);
      let text = '';
      let count = 0;
      let sent = false;
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        text += chunk;
        count += chunk.split('\n').length - 1;
        if (!sent && count >= after) {
          sent = true;
          child.kill(signal);
        }
      });
      const [code, sig] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
      const context = `seed ${seed}, schedule ${schedule.join(' ')}`;
      expect(sent, context).toBe(true);
      if (signal === 'SIGKILL') expect(sig, context).toBe('SIGKILL');
      else expect(code, context).toBe(signal === 'SIGINT' ? 130 : 143);
      for (const l of lines(text)) printed.add(l);
      // nothing recorded as delivered that was not written
      const printedKeys = new Set([...printed].map((u) => key(u)));
      const deliveredNotWritten = [...(await entries(db))].filter(([k, marked]) => !marked && !printedKeys.has(k)).map(([k]) => k);
      expect(deliveredNotWritten, context).toEqual([]);
    }
    const last = filterRun(db, input);
    expect(last.code).toBe(0);
    for (const l of last.out) printed.add(l);
    const missing = [...clean].filter((u) => !printed.has(u));
    expect(missing, `seed ${seed}, schedule ${schedule.join(' ')}`).toEqual([]);
    expect([...(await entries(db)).values()].filter((marked) => marked)).toEqual([]);
  }, 300_000);
});
