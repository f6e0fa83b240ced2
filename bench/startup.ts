// bench/startup: how long the CLI takes to start and answer, beside `node -e 0` (the floor), each
// command run N times in turn (default 20), medians and the difference to the floor printed.
//
//   npm run build && node dist/bench/startup.js [--runs N]
//
// Benchmarks print; they assert nothing.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] ?? 20) || 20;

const subjects: { name: string; argv: string[] }[] = [
  { name: 'node -e 0 (the floor)', argv: ['-e', '0'] },
  { name: 'urldedup --version', argv: [CLI, '--version'] },
  { name: 'urldedup key URL', argv: [CLI, 'key', 'http://Example.COM:80/a/../b'] },
  { name: 'urldedup key --format surt URL', argv: [CLI, 'key', '--format', 'surt', 'http://www.example.com/b?z=1&a=2'] },
  { name: 'urldedup stats --help', argv: [CLI, 'stats', '--help'] },
];

const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
for (let i = 0; i < runs; i++) {
  for (const s of subjects) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, s.argv, { stdio: ['ignore', 'ignore', 'ignore'] });
    if (r.status !== 0) throw new Error(`${s.name} exited ${r.status}`);
    times.get(s.name)!.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const floor = median(times.get(subjects[0]!.name)!);
process.stdout.write(`node ${process.version}, ${runs} runs each, in turn\n\n| command | median ms | over the floor, ms |\n|---|---:|---:|\n`);
for (const s of subjects) {
  const m = median(times.get(s.name)!);
  process.stdout.write(`| ${s.name} | ${m.toFixed(1)} | ${(m - floor).toFixed(1)} |\n`);
}
