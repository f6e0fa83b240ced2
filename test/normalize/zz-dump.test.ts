import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { runAllSuites } from './crawler-suites.js';
it('dump', () => {
  const runs = runAllSuites();
  const lines: string[] = [];
  for (const g of runs) {
    const pass = g.results.filter((r) => r.pass).length;
    lines.push(`## ${g.suite} / ${g.group} [${g.profile}] ${pass}/${g.results.length}`);
    for (const r of g.results) if (!r.pass) lines.push(JSON.stringify({ i: r.input, o: r.options, e: r.expected, ours: r.ours }));
  }
  writeFileSync('/tmp/dump.txt', lines.join('\n'));
});
