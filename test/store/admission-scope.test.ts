/**
 * The admission scope compiled (src/store/admission-scope.ts): one test for the store and the
 * crawler, and the crawl's scope as data the store reads.
 */
import { describe, expect, it } from 'vitest';
import { normalizeRecord } from '../../src/normalize/index.js';
import { comparableHost, pathShape, ScopeTest } from '../../src/store/admission-scope.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';

const admits = (t: ScopeTest, url: string, depth = 0): boolean => t.admits(normalizeRecord(url), depth);

describe('ScopeTest', () => {
  it('matches hosts with their subdomains, or with and without www., without case or a trailing dot', () => {
    const sub = new ScopeTest({ hosts: ['Example.com'] });
    expect(['example.com', 'EXAMPLE.COM.', 'docs.example.com', 'www.example.com', 'badexample.com', 'example.org'].map((h) => sub.hostIn(h))).toEqual([true, true, true, true, false, false]);
    const www = new ScopeTest({ hosts: ['www.example.com'], hostMatch: 'www' });
    expect(['example.com', 'www.example.com.', 'docs.example.com', 'www.docs.example.com'].map((h) => www.hostIn(h))).toEqual([true, true, false, false]);
    expect(new ScopeTest({}).hostIn('anything.example')).toBe(true);
    expect(comparableHost('A.B.')).toBe('a.b');
  });

  it('reads include, exclude, path limits, depth and scheme in that order; always overrides all but depth and scheme', () => {
    const t = new ScopeTest({ hosts: ['example.com'], include: [/\/docs\//g], exclude: [/draft/], maxPathDepth: 4, maxRepeats: 1, maxDepth: 2, always: ['http://example.com/draft/'] });
    expect(t.verdict('example.com', 'http://example.com/docs/a')).toBe('in');
    expect(t.verdict('example.com', 'http://example.com/blog/a')).toBe('not-included');
    expect(t.verdict('example.com', 'http://example.com/docs/draft')).toBe('excluded');
    expect(t.verdict('example.org', 'http://example.org/docs/a')).toBe('out-of-scope');
    // a global expression's lastIndex does not carry over from one test to the next
    expect([1, 2, 3].map(() => t.verdict('example.com', 'http://example.com/docs/a'))).toEqual(['in', 'in', 'in']);
    expect(admits(t, 'http://example.com/docs/a')).toBe(true);
    expect(admits(t, 'http://example.com/docs/a/b/c/d')).toBe(false);
    expect(admits(t, 'http://example.com/docs/x/x/')).toBe(false);
    expect(admits(t, 'HTTP://EXAMPLE.COM/draft/')).toBe(true);
    expect(admits(t, 'http://example.com/draft/', 3)).toBe(false);
    expect(admits(t, 'ftp://example.com/docs/a')).toBe(false);
  });

  it('reads path limits as the trap rules do', () => {
    expect(pathShape(['a', 'b', 'a', 'b', 'a', 'b', ''], 20, 2)).toBe('repeated-segments');
    expect(pathShape(['a', 'b', 'a', 'b', ''], 20, 2)).toBeUndefined();
    expect(pathShape(['a', 'b', 'c', ''], 3, 2)).toBeUndefined();
    expect(pathShape(['a', 'b', 'c', 'd'], 3, 2)).toBe('path-depth');
  });

  it('needs no record for a scope of schemes and depth alone', () => {
    expect(new ScopeTest({ maxDepth: 3 }).needsRecord).toBe(false);
    expect(new ScopeTest({ hosts: [] }).needsRecord).toBe(true);
  });

  it('refuses what is not a scope', () => {
    expect(() => new ScopeTest({ hostMatch: 'exact' as never })).toThrow(TypeError);
    expect(() => new ScopeTest({ maxPathDepth: 0 })).toThrow(TypeError);
    expect(() => new ScopeTest({ include: ['docs'] as never })).toThrow(TypeError);
    expect(() => new ScopeTest({ maxDepth: -1 })).toThrow(TypeError);
  });
});

describe('CrawlScope.admission', () => {
  it('hands the store the crawl scope as data, and the store admits what the crawl does', () => {
    const seeds = ['https://www.example.com/docs/', 'http://example.com/?ref=1'];
    const traps = { maxPathDepth: 5, maxRepeats: 2 };
    for (const mode of ['host', 'domain', 'any'] as const) {
      const scope = new CrawlScope({ mode, seeds, exclude: [/\?ref=/] });
      const data = scope.admission(seeds, traps, 4);
      expect(JSON.parse(JSON.stringify(data))).toMatchObject({ schemes: ['http', 'https'], always: seeds, maxPathDepth: 5, maxRepeats: 2, maxDepth: 4 });
      const store = new ScopeTest(data);
      for (const url of ['http://example.com/a', 'http://www.example.com/b', 'http://docs.example.com/c', 'http://example.org/', 'http://example.com/x?ref=2']) {
        const crawl = scope.check(url) === 'in';
        expect(admits(store, url), `${mode} ${url}`).toBe(crawl);
      }
      // a seed is admitted whatever exclude says
      expect(admits(store, 'http://example.com/?ref=1')).toBe(true);
    }
  });
});
