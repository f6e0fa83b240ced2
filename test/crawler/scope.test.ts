/** Crawl scope: host (with or without www.), domain, any; include and exclude. */
import { describe, expect, it } from 'vitest';
import { CrawlScope } from '../../src/crawler/policy/scope.js';

describe('CrawlScope', () => {
  it('host: the seeds\' host names, www. or not, any scheme and port', () => {
    const s = new CrawlScope({ seeds: ['http://example.com/start'] });
    for (const u of ['https://example.com/', 'http://www.example.com:8080/x', 'http://EXAMPLE.com./a']) expect(s.check(u), u).toBe('in');
    for (const u of ['http://docs.example.com/', 'http://example.org/', 'http://notexample.com/']) expect(s.check(u), u).toBe('out-of-scope');
    expect(new CrawlScope({ seeds: ['http://www.example.com/'] }).check('http://example.com/')).toBe('in');
  });

  it('domain: and every name under it', () => {
    const s = new CrawlScope({ mode: 'domain', seeds: ['https://www.example.com/'] });
    expect(s.check('http://docs.example.com/')).toBe('in');
    expect(s.check('http://a.b.example.com/')).toBe('in');
    expect(s.check('http://example.com.evil.net/')).toBe('out-of-scope');
  });

  it('any: every host; other schemes never', () => {
    const s = new CrawlScope({ mode: 'any', seeds: [] });
    expect(s.check('http://anything.test/')).toBe('in');
    expect(s.check('ftp://anything.test/')).toBe('other-scheme');
    expect(s.check('mailto:a@b')).toBe('other-scheme');
  });

  it('include and exclude (global regexes too)', () => {
    const s = new CrawlScope({ seeds: ['http://a.test/'], include: [/\/docs\//g], exclude: [/\.pdf$/] });
    expect(s.check('http://a.test/docs/x.html')).toBe('in');
    expect(s.check('http://a.test/docs/y.html')).toBe('in');
    expect(s.check('http://a.test/blog/')).toBe('not-included');
    expect(s.check('http://a.test/docs/x.pdf')).toBe('excluded');
  });

  it('rejects an unknown mode', () => {
    expect(() => new CrawlScope({ mode: 'planet' as never, seeds: [] })).toThrow(TypeError);
  });
});
