/**
 * A link is parsed once (extract.ts keeps its WHATWG URL record): scope, traps and the report's
 * duplicate label read that record, or a base parsed once per page, and must answer exactly as
 * the string paths they replace (a second `new URL`, `resolve(…, { mode: 'rfc3986' })` per link).
 * Oracle: those string paths, over the WPT URL test data (test/fixtures/conformance).
 */
import { describe, expect, it } from 'vitest';
import { RungLabeler, rungOf } from '../../src/crawler/report/duplicate-rung.js';
import { extractLinks } from '../../src/crawler/html/extract.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';
import { pathTrap, segmentsTrap } from '../../src/crawler/policy/traps.js';
import { normalize, parseWhatwg, resolve, serializeWhatwg, type WhatwgUrl } from '../../src/normalize/index.js';
import { readTestdata } from '../support/testdata.js';

interface WptCase {
  readonly input: string;
  readonly base: string | null;
  readonly failure?: boolean;
}

const cases = readTestdata<(WptCase | string)[]>('wpt-urltestdata.json').filter(
  (c): c is WptCase & { base: string } => typeof c === 'object' && c.base !== null && c.failure !== true,
);

/** Each case resolved as extract.ts resolves a link: its record and its href. */
const links: { input: string; base: string; record: WhatwgUrl; url: string }[] = [];
for (const c of cases) {
  try {
    const record = parseWhatwg(c.input, c.base);
    links.push({ input: c.input, base: c.base, record, url: serializeWhatwg(record) });
  } catch {
    // our parser refuses it: extract counts it invalid, and nothing downstream sees it
  }
}

/** The duplicate label as it was computed for every link: a string base parsed per call. */
function oracleRung(raw: string, resolved: string, base: string, stored: string): string {
  let written: string;
  const trimmed = raw.trim();
  try {
    written = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(trimmed) ? trimmed : resolve(trimmed, base, { mode: 'rfc3986' });
  } catch {
    written = resolved;
  }
  if (written === stored) return 'exact';
  const i = written.indexOf('#');
  const bare = i === -1 ? written : written.slice(0, i);
  if (bare === stored) return 'fragment';
  try {
    if (normalize(bare, { level: 'syntax' }) === stored) return 'syntax';
    if (normalize(bare, { level: 'scheme' }) === stored) return 'scheme';
  } catch {
    // not an RFC 3986 URI as written
  }
  return 'resolution';
}

describe('one parse per link: the record answers as the string did (WPT urltestdata)', () => {
  it('scope: checkRecord(record, href) equals check(href) in every mode', () => {
    const http = links.filter((l) => l.record.scheme === 'http' || l.record.scheme === 'https');
    const seeds = [...new Set(http.map((l) => l.url))].slice(0, 40);
    let compared = 0;
    for (const mode of ['host', 'domain', 'any'] as const) {
      const scope = new CrawlScope({ mode, seeds, exclude: [/#/] });
      for (const l of links) {
        expect(scope.checkRecord(l.record, l.url), `${mode} ${l.url}`).toBe(scope.check(l.url));
        compared++;
      }
    }
    console.log(`scope: ${compared} verdicts compared (${links.length} links, ${http.length} http(s), 3 modes)`);
    expect(http.length).toBeGreaterThan(100);
  });

  it('traps: segmentsTrap(record.path) equals pathTrap(new URL(href).pathname)', () => {
    let compared = 0;
    for (const l of links) {
      if (typeof l.record.path === 'string') continue; // an opaque path is never an http(s) link
      let pathname: string;
      try {
        pathname = new URL(l.url).pathname;
      } catch {
        continue;
      }
      for (const options of [{}, { maxRepeats: 0 }, { maxPathDepth: 1 }]) {
        expect(segmentsTrap(l.record.path, options), `${l.url} ${JSON.stringify(options)}`).toBe(pathTrap(pathname, options));
        compared++;
      }
    }
    console.log(`traps: ${compared} verdicts compared`);
    expect(compared).toBeGreaterThan(600);
  });

  it('labels: a labeler per base (base parsed once) equals the per-link string resolution', () => {
    const byBase = new Map<string, RungLabeler>();
    const counts: Record<string, number> = {};
    let compared = 0;
    for (const l of links) {
      const labeler = byBase.get(l.base) ?? new RungLabeler(l.base);
      byBase.set(l.base, labeler);
      const stored = new Set<string>([l.url, l.url.split('#')[0]!]);
      for (const level of ['syntax', 'scheme'] as const) {
        try {
          stored.add(normalize(l.url, { level }));
        } catch {
          // no normal form: the store would refuse it
        }
      }
      for (const s of stored) {
        const want = oracleRung(l.input, l.url, l.base, s);
        expect(labeler.label(l.input, l.url, s), `${l.input} against ${l.base}, stored ${s}`).toBe(want);
        expect(rungOf(l.input, l.url, l.base, s)).toBe(want);
        counts[want] = (counts[want] ?? 0) + 1;
        compared++;
      }
    }
    console.log(`labels: ${compared} compared over ${byBase.size} bases: ${JSON.stringify(counts)}`);
    for (const bucket of ['exact', 'fragment', 'syntax', 'scheme', 'resolution']) expect(counts[bucket], bucket).toBeGreaterThan(0);
  });

  it('extract: each link carries the record its href serializes, equal to resolve(…, { mode: "html" })', () => {
    const base = 'http://example.com/a/b.html';
    const refs = ['c.html', '../d/./e?x=1#f', 'HTTP://Example.COM:80/g', '//other.example/h', 'i%7ej', '\\\\k'];
    const page = refs.map((r) => `<a href="${r}">x</a>`).join('');
    const x = extractLinks(page, base);
    expect(x.links.length).toBe(refs.length);
    for (const link of x.links) {
      expect(serializeWhatwg(link.record)).toBe(link.url);
      expect(link.url).toBe(resolve(link.raw, base, { mode: 'html' }));
    }
  });
});
