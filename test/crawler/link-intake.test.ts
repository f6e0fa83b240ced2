/**
 * Link intake (src/crawler/link-intake.ts) on its own: a page's links through scope, traps, depth
 * and a real memory store's gate, each counted in exactly one bucket of the page's tally, the
 * figures the crawl's `links` event hands to the report.
 */
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/crawler/html/extract.js';
import { duplicateLinks, LinkIntake, type LinkTally } from '../../src/crawler/link-intake.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';
import { openMemoryStore } from '../../src/store/backends/memory-store.js';
import type { FrontierEntry } from '../../src/store/index.js';

const PAGE = 'http://a.example/docs/';
const entry: FrontierEntry = { url: PAGE, key: 'k', host: 'a.example', depth: 0, seq: 0 };

function total(t: LinkTally): number {
  const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);
  return t.admitted + t.forwarded + sum(t.refused) + sum(t.duplicates);
}

describe('link intake', () => {
  it('counts each link of a page in one bucket: admitted, refused by reason, known by rung', async () => {
    const store = await openMemoryStore({ learnRules: false });
    try {
      await store.admit(['http://a.example/docs/seen.html']);
      const html = `
        <a href="one.html">1</a> <a href="one.html">1 again</a>
        <a href="./seen.html">seen</a> <a href="http://A.EXAMPLE/docs/seen.html">seen, upper-case host</a>
        <a href="mailto:x@a.example">mail</a> <a href="http://other.example/">elsewhere</a>
        <a href="/cal/2024/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/x">deep</a>
        <a href="two.html?utm_source=x">2</a>`;
      const x = extractLinks(html, PAGE);
      const intake = new LinkIntake({ maxPathDepth: 12 }, 10);
      const admitted: string[] = [];
      const t = await intake.admit(store, new CrawlScope({ seeds: [PAGE] }), entry, PAGE, x, admitted);
      expect(t.admitted).toBe(2);
      expect(admitted.sort()).toEqual(['http://a.example/docs/one.html', 'http://a.example/docs/two.html?utm_source=x']);
      // one.html twice, seen.html under two spellings of one URL: repeats on the page; seen.html known
      expect(t.duplicates).toEqual({ 'same-page': 2, exact: 1 });
      expect(duplicateLinks(t)).toBe(3);
      expect(t.refused['other-scheme']).toBe(1);
      expect(t.refused['out-of-scope']).toBe(1);
      expect(t.refused['trap:path-depth']).toBe(1);
      expect(await store.canonical('http://a.example/cal/2024/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/01/x')).toMatchObject({ state: 'pruned' });
      // every reference found lands in exactly one bucket
      expect(total(t)).toBe(t.found);
      // beyond the depth limit: counted, none offered
      const deep = await new LinkIntake(undefined, 0).admit(store, new CrawlScope({ seeds: [PAGE] }), entry, PAGE, extractLinks('<a href="three.html">3</a>', PAGE));
      expect(deep).toMatchObject({ offered: 0, admitted: 0, refused: { depth: 1 } });
    } finally {
      await store.close();
    }
  });
});
