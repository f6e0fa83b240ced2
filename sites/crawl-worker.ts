/**
 * `urldedup crawl` as a process of its own (the built CLI), for the fleet's kill test and bench:
 * its stderr (pino JSON lines) is read as it comes, so the parent can count the pages it fetched
 * (`--log-level debug` logs each one as `fetched`) and kill it mid-crawl; its stdout is the report.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CrawlWorker {
  readonly child: ChildProcess;
  readonly label: string;
  /** Pages this worker logged as fetched so far (needs `--log-level debug`). */
  fetched(): number;
  /** Resolves once `fetched()` reaches `n` (or the worker exits: then with false). */
  whenFetched(n: number): Promise<boolean>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  /** The non-debug lines of stderr (warnings, errors), for failure messages. */
  stderrTail(): string;
  /** How many stderr lines contained `text`, one of the texts given to watch (debug lines too). */
  logged(text: string): number;
}

/** Start `node CLI crawl ARGS…`. */
export function startCrawlWorker(cli: string, label: string, args: readonly string[], watch: readonly string[] = []): CrawlWorker {
  const child = spawn(process.execPath, [cli, 'crawl', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let fetched = 0;
  let out = '';
  let partial = '';
  const other: string[] = [];
  const seen = new Map<string, number>();
  const waiters: { n: number; resolve: (ok: boolean) => void }[] = [];
  const wake = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (fetched >= waiters[i]!.n) waiters.splice(i, 1)[0]!.resolve(true);
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      for (const w of watch) if (line.includes(w)) seen.set(w, (seen.get(w) ?? 0) + 1);
      if (line.includes('"msg":"fetched"')) fetched++;
      else if (line.trim() !== '' && !line.includes('"level":20')) other.push(line);
    }
    if (other.length > 50) other.splice(0, other.length - 50);
    wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.resolve(fetched >= w.n);
      resolve({ code, signal });
    });
  });
  return {
    child,
    label,
    fetched: () => fetched,
    whenFetched: (n) => (fetched >= n ? Promise.resolve(true) : new Promise((resolve) => waiters.push({ n, resolve }))),
    exited,
    stdout: () => out,
    stderrTail: () => other.slice(-10).join('\n'),
    logged: (text) => seen.get(text) ?? 0,
  };
}

/** Wait for `w` to exit within `ms`; past it, SIGKILL it and reject (a hang guard). */
export async function finishWithin(w: CrawlWorker, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      w.exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          w.child.kill('SIGKILL');
          reject(new Error(`${w.label} did not finish within ${ms} ms (fetched ${w.fetched()}); stderr:\n${w.stderrTail()}`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
