/**
 * Crawler-suite conformance: every case of the Safe Browsing, w3lib, Nutch/StormCrawler, Crawlee and
 * Internet Archive SURT suites, run through the closest profile (crawler-suites.ts). The pass counts
 * are asserted, and every failure must be listed with its reason in
 * crawler-suites-deviations.json: an unlisted failure fails, and so does a listed case that passes
 * or whose output changed, so the list stays true.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isUrlError } from '../../src/normalize/errors.js';
import { normalize } from '../../src/normalize/index.js';
import { caseKey, profiles, runAllSuites, type CaseResult } from './crawler-suites.js';

interface Deviation {
  readonly suite: string;
  readonly group: string;
  readonly input: string | null;
  readonly options?: Record<string, unknown>;
  readonly expected: string | number | null;
  readonly ours: string | number | null;
  readonly category: string;
  readonly reason: string;
}

const deviations: readonly Deviation[] = JSON.parse(
  readFileSync(new URL('./crawler-suites-deviations.json', import.meta.url), 'utf8'),
).deviations;

/** Passed / total for each suite and group. Change only with a reason (and the deviations file). */
const EXPECTED: Readonly<Record<string, readonly [passed: number, total: number]>> = {
  'safebrowsing / cases': [20, 33],
  'safebrowsing / go_impl_canonical_url': [33, 52],
  'safebrowsing / go_impl_parse_ip_address': [9, 11],
  'safebrowsing / go_impl_canonical_host': [9, 10],
  'safebrowsing / go_impl_canonical_path': [9, 10],
  'w3lib / cases': [50, 68],
  'nutch / nutch': [90, 116],
  'nutch / stormcrawler': [12, 25],
  'crawlee / cases': [19, 40],
  'surt / surt': [51, 52],
  'surt / GoogleURLCanonicalizer': [22, 37],
  'surt / IAURLCanonicalizer': [8, 9],
  'surt / DefaultIAURLCanonicalizer': [7, 9],
  'surt / handyurl_parse_geturl': [6, 15],
  'surt / helpers: GoogleURLCanonicalizer.attemptIPFormats': [7, 8],
  'surt / helpers: GoogleURLCanonicalizer.unescapeRepeatedly': [2, 8],
  'surt / helpers: IAURLCanonicalizer.alphaReorderQuery': [11, 13],
  'surt / helpers: IAURLCanonicalizer.massageHost': [3, 5],
  'surt / helpers: IAURLCanonicalizer.getDefaultPort': [3, 3],
  'surt / helpers: URLRegexTransformer.stripPathSessionID': [4, 4],
  'surt / helpers: URLRegexTransformer.stripQuerySessionID': [10, 16],
  'surt / helpers: URLRegexTransformer.hostToSURT': [18, 18],
};

const runs = runAllSuites();
const listed = new Map(deviations.map((d) => [caseKey(d), d]));

function skeleton(r: CaseResult): string {
  const { suite, group, input, options, expected, ours } = r;
  return JSON.stringify({ suite, group, input, ...(options ? { options } : {}), expected, ours, category: '?', reason: '?' });
}

describe('crawler suites through the closest profile', () => {
  it('the deviations file is well formed and lists each case once', () => {
    const keys = new Set<string>();
    for (const d of deviations) {
      expect(d.reason.length, caseKey(d)).toBeGreaterThan(20);
      expect(d.category, caseKey(d)).toMatch(/^[a-zA-Z0-9-]+$/);
      expect(keys.has(caseKey(d)), `listed twice: ${caseKey(d)}`).toBe(false);
      keys.add(caseKey(d));
    }
  });

  it('every group has an asserted count, and every profile is used', () => {
    expect(runs.map((g) => `${g.suite} / ${g.group}`).sort()).toEqual(Object.keys(EXPECTED).sort());
    const used = new Set(runs.map((g) => g.profile));
    for (const name of Object.keys(profiles)) expect(used.has(name), name).toBe(true);
  });

  it.each(runs.map((g) => [`${g.suite} / ${g.group}`, g] as const))('%s', (label, g) => {
    const unlisted: string[] = [];
    const stale: string[] = [];
    for (const r of g.results) {
      const d = listed.get(caseKey(r));
      if (r.pass) {
        if (d !== undefined) stale.push(`now passes, remove it: ${caseKey(r)}`);
      } else if (d === undefined) {
        unlisted.push(skeleton(r));
      } else if (d.ours !== r.ours || d.expected !== r.expected) {
        stale.push(`output changed: ${caseKey(r)}: listed ours ${JSON.stringify(d.ours)}, now ${JSON.stringify(r.ours)}`);
      }
    }
    expect(unlisted, `failures without a listed reason in crawler-suites-deviations.json:\n${unlisted.join(',\n')}`).toEqual([]);
    expect(stale, stale.join('\n')).toEqual([]);
    const passed = g.results.filter((r) => r.pass).length;
    expect([passed, g.results.length], label).toEqual(EXPECTED[label]);
  });

  it('every profile is idempotent on every suite input: normalize(normalize(x)) === normalize(x)', () => {
    const inputs = new Set<string>();
    for (const g of runs) for (const r of g.results) if (typeof r.input === 'string') inputs.add(r.input);
    let checked = 0;
    for (const p of Object.values(profiles)) {
      const o = { presets: p.presets, keepFragment: p.keepFragment ?? false, ...(p.level !== undefined ? { level: p.level } : {}) };
      for (const input of inputs) {
        let once: string;
        try {
          once = normalize(input, o);
        } catch (error) {
          if (isUrlError(error)) continue;
          throw error;
        }
        expect(normalize(once, o), `${p.name}: ${input}`).toBe(once);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('docs/presets.md shows the asserted count of every group', () => {
    const doc = readFileSync(new URL('../../docs/presets.md', import.meta.url), 'utf8').split('\n');
    for (const [label, [passed, total]] of Object.entries(EXPECTED)) {
      const row = doc.find((line) => line.startsWith(`| ${label} |`));
      expect(row, `no row for ${label} in docs/presets.md`).toBeDefined();
      expect(row, label).toContain(`| ${passed}/${total} |`);
    }
  });

  it('every listed deviation is a case of some suite', () => {
    const all = new Set(runs.flatMap((g) => g.results.map(caseKey)));
    for (const d of deviations) expect(all.has(caseKey(d)), `no such case: ${caseKey(d)}`).toBe(true);
  });
});

afterAll(() => {
  const rows = runs.map((g) => {
    const passed = g.results.filter((r) => r.pass).length;
    return { 'suite / group': `${g.suite} / ${g.group}`, profile: g.profile, passed, total: g.results.length };
  });
  const passed = rows.reduce((n, r) => n + r.passed, 0);
  const total = rows.reduce((n, r) => n + r.total, 0);
  console.log('Crawler-suite conformance (closest profile per suite):');
  console.table([...rows, { 'suite / group': 'all', profile: '', passed, total }]);
  const categories = new Map<string, number>();
  for (const g of runs) {
    for (const r of g.results) {
      if (r.pass) continue;
      const c = listed.get(caseKey(r))?.category ?? 'UNLISTED';
      categories.set(c, (categories.get(c) ?? 0) + 1);
    }
  }
  console.log('Deviations by category (cases):');
  console.table(Object.fromEntries([...categories].sort((a, b) => b[1] - a[1])));
});
