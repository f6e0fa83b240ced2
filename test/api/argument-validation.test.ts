/**
 * Misuse at the public entry points is a plain `TypeError` (no `code`) naming the function and the
 * argument, never an internal error from deeper down; a `URL` object is accepted wherever a URL
 * string is; an unknown option name is refused with the known ones listed; and a crawl reports the
 * seeds it cannot use instead of dropping them.
 */
import { describe, expect, it } from 'vitest';
import {
  crawl,
  fingerprint,
  formatReport,
  identify,
  key,
  normalize,
  openMemoryStore,
  openStore,
  resolve,
  runCrawl,
  UrlError,
  type CrawlOptions,
  type NormalizeOptions,
} from '../../src/index.js';
import { identifyInto, normalizeAndKey, UrlIdentity } from '../../src/subpath/key.js';
import { normalizeRecord } from '../../src/subpath/rfc3986.js';
import { parseWhatwg, resolveHtml } from '../../src/subpath/whatwg.js';
import { html, httpServer, loopbackAllow, tempDir } from '../crawler/support.js';

/** `fn()` throws a TypeError without a code whose message matches every pattern. */
function expectMisuse(fn: () => unknown, ...patterns: RegExp[]): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(TypeError);
  expect((thrown as { code?: unknown }).code).toBeUndefined();
  for (const p of patterns) expect((thrown as Error).message).toMatch(p);
}

/** The promise rejects with a TypeError without a code whose message matches every pattern. */
async function expectMisuseAsync(promise: Promise<unknown>, ...patterns: RegExp[]): Promise<void> {
  const thrown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(thrown).toBeInstanceOf(TypeError);
  expect((thrown as { code?: unknown }).code).toBeUndefined();
  for (const p of patterns) expect((thrown as Error).message).toMatch(p);
}

const BASE = 'http://a/b/c/d;p?q';

describe('URL arguments', () => {
  it('resolve: a missing or non-string ref or base is misuse naming the argument', () => {
    expectMisuse(() => resolve('g', undefined as unknown as string), /^resolve: base must be a URL string or a URL object, not undefined$/);
    expectMisuse(() => resolve(null as unknown as string, BASE), /^resolve: ref must be a URL string or a URL object, not null$/);
    expectMisuse(() => resolve(42 as unknown as string, BASE), /^resolve: ref /, /a number \(42\)/);
    expectMisuse(() => resolve('g', {} as unknown as string), /^resolve: base /, /an object \(Object\)/);
    expectMisuse(() => resolve('g', undefined as unknown as string, { mode: 'html' }), /^resolve: base /);
  });

  it('normalize, key, identify, fingerprint and the subpaths name themselves and the argument', () => {
    expectMisuse(() => normalize(undefined as unknown as string), /^normalize: url must be a URL string or a URL object, not undefined$/);
    expectMisuse(() => normalize(null as unknown as string, { level: 'syntax' }), /^normalize: url /);
    expectMisuse(() => key(123 as unknown as string), /^key: url .*a number \(123\)$/);
    expectMisuse(() => identify([] as unknown as string), /^identify: url .*an object \(Array\)$/);
    expectMisuse(() => fingerprint(undefined as unknown as string), /^fingerprint: key must be a string, not undefined$/);
    expectMisuse(() => fingerprint(new URL('http://a/') as unknown as string), /^fingerprint: key must be a string, not an object \(URL\)$/);
    expectMisuse(() => identifyInto(null as unknown as string, new UrlIdentity()), /^identifyInto: url /);
    expectMisuse(() => identifyInto('http://a/', {} as UrlIdentity), /^identifyInto: out must be a UrlIdentity/);
    expectMisuse(() => normalizeAndKey(undefined as unknown as string), /^normalizeAndKey: url /);
    expectMisuse(() => normalizeRecord(undefined as unknown as string), /^normalizeRecord: url /);
    expectMisuse(() => parseWhatwg(undefined as unknown as string), /^parseWhatwg: input /);
    expectMisuse(() => parseWhatwg('x', 5 as unknown as string), /^parseWhatwg: base /);
    expectMisuse(() => resolveHtml('x', undefined as unknown as string), /^resolveHtml: base /);
  });

  it('a URL object is taken as its href everywhere a URL string is', () => {
    const u = new URL('HTTP://Example.COM:80/a/./b/../c?q#f');
    expect(normalize(u)).toBe(normalize(u.href));
    expect(normalize(u, { level: 'syntax' })).toBe(normalize(u.href, { level: 'syntax' }));
    expect(key(u)).toBe(key(u.href));
    expect(identify(u).key).toBe(key(u.href));
    expect(identifyInto(u, new UrlIdentity()).key).toBe(key(u.href));
    expect(normalizeAndKey(u)).toEqual(normalizeAndKey(u.href));
    expect(normalizeRecord(u)).toEqual(normalizeRecord(u.href));
    expect(resolve('../x', new URL(BASE))).toBe(resolve('../x', BASE));
    expect(resolve(new URL('http://other/y'), new URL(BASE))).toBe('http://other/y');
    expect(resolve('../x', new URL(BASE), { mode: 'html' })).toBe(resolve('../x', BASE, { mode: 'html' }));
    expect(resolveHtml(new URL('http://a/x'), new URL(BASE))).toBe('http://a/x');
    expect(parseWhatwg('x', new URL(BASE)).path).toEqual(parseWhatwg('x', BASE).path);
  });

  it('bad input is still a coded UrlError, not a TypeError', () => {
    expect(() => resolve('g', 'no-scheme')).toThrow(UrlError);
    expect(() => normalize('http://exa mple.com/')).toThrow(UrlError);
  });
});

describe('unknown option names', () => {
  const known = /\(known: level, presets, keepFragment, strict, maxLength, maxSegments\)$/;

  it('normalize, key, identify name the unknown option and list the known ones', () => {
    const bad = { keepFragments: true } as unknown as NormalizeOptions;
    expectMisuse(() => normalize('http://a/', bad), /^normalize: unknown option "keepFragments" /, known);
    expectMisuse(() => key('http://a/', bad), /^key: unknown option "keepFragments" /, known);
    expectMisuse(() => identify('http://a/', bad), /^identify: unknown option "keepFragments" /, known);
    expectMisuse(() => identifyInto('http://a/', new UrlIdentity(), bad), /^identifyInto: unknown option /);
    expectMisuse(() => normalizeAndKey('http://a/', bad), /^normalizeAndKey: unknown option /);
    expectMisuse(() => normalize('http://a/', 'syntax' as unknown as NormalizeOptions), /^normalize: options must be an object, not a string \("syntax"\)$/);
    expectMisuse(() => key('http://a/', null as unknown as NormalizeOptions), /^key: options must be an object, not null$/);
    // the value checks keep naming the function called
    expectMisuse(() => key('http://a/', { level: 'bogus' as 'syntax' }), /^key: unknown level "bogus"$/);
  });

  it('resolve and parseWhatwg', () => {
    expectMisuse(() => resolve('g', BASE, { mdoe: 'html' } as never), /^resolve: unknown option "mdoe" \(known: mode, strict, maxLength\)$/);
    expectMisuse(() => parseWhatwg('x', BASE, { max: 1 } as never), /^parseWhatwg: unknown option "max" \(known: maxLength\)$/);
  });

  it('openStore and openMemoryStore reject unknown names, nested ones too, before touching a file', async () => {
    const db = tempDir('urldedup-api-');
    try {
      await expectMisuseAsync(openMemoryStore({ rulethreshold: 2 } as never), /^openMemoryStore: unknown option "rulethreshold" \(known: normalize, presets, ruleThreshold,/);
      await expectMisuseAsync(openMemoryStore({ normalize: { keepFragments: true } } as never), /^openMemoryStore: unknown option "keepFragments" in options\.normalize \(known: level, keepFragment, strict, maxLength, maxSegments\)$/);
      await expectMisuseAsync(openMemoryStore({ scope: { host: ['a'] } } as never), /^openMemoryStore: unknown option "host" in options\.scope \(known: schemes, hosts, hostMatch, include, exclude, maxPathDepth, maxRepeats, always, maxDepth, filter\)$/);
      await expectMisuseAsync(openMemoryStore({ normalize: { presets: ['www'] } } as never), /^openMemoryStore: give presets as the store's `presets` option/);
      await expectMisuseAsync(openStore(`${db.path}/s`, { levle: {} } as never), /^openStore: unknown option "levle" \(known: .*, level\)$/);
      await expectMisuseAsync(openStore(undefined as unknown as string), /^openStore: location must be a folder path or an open abstract-level database, not undefined$/);
      await expectMisuseAsync(openStore(new URL('file:///tmp/x') as unknown as string), /^openStore: location .*an object \(URL\)$/);
      // LevelDB tuning is the `level` option's, not checked here (classic-level takes more)
      const store = await openStore(`${db.path}/ok`, { level: { cacheSize: 1 << 20 }, ruleThreshold: 2 });
      await store.close();
      const { existsSync } = await import('node:fs');
      expect(existsSync(`${db.path}/s`)).toBe(false);
    } finally {
      db.remove();
    }
  });

  it('crawl and runCrawl reject unknown names (nested too) and a missing store at once', async () => {
    const store = await openMemoryStore();
    try {
      expectMisuse(() => crawl({ store, seeds: ['http://a/'], maxpages: 1 } as never), /^crawl: unknown option "maxpages" \(known: store, storeOptions, seeds, /);
      expectMisuse(() => crawl({ store, fetch: { timeoutMs: 1 } } as never), /^crawl: unknown option "timeoutMs" in options\.fetch \(known: userAgent, /);
      expectMisuse(() => crawl({ store, traps: { maxDepth: 1 } } as never), /^crawl: unknown option "maxDepth" in options\.traps \(known: maxRepeats, maxPathDepth, maxPagesPerHost, patternMinFetches, patternMinNewRatio, patternEmptyRun\)$/);
      expectMisuse(() => crawl({ store, extract: { charset: 'utf-8' } } as never), /^crawl: unknown option "charset" in options\.extract /);
      expectMisuse(() => crawl({ store: 'db', storeOptions: { presets: [] } } as never), /^crawl: unknown option "presets" in options\.storeOptions /);
      expectMisuse(() => crawl(undefined as unknown as CrawlOptions), /^crawl: options must be an object, not undefined$/);
      expectMisuse(() => crawl({ seeds: ['http://a/'] } as unknown as CrawlOptions), /^crawl: options\.store must be a store .* not undefined$/);
      expectMisuse(() => crawl({ store, seeds: 'http://a/' } as unknown as CrawlOptions), /^crawl: options\.seeds must be an array .* not a string/);
      expectMisuse(() => crawl({ store, seeds: ['http://a/', null] } as unknown as CrawlOptions), /^crawl: options\.seeds\[1\] must be a URL string or a URL object, not null$/);
      await expectMisuseAsync(runCrawl({ store, sedes: [] } as never), /^runCrawl: unknown option "sedes" /);
    } finally {
      await store.close();
    }
  });
});

describe('crawl seeds', () => {
  it('invalid seeds are reported with their codes (report and text), the valid ones crawled; URL objects are seeds', async () => {
    const site = await httpServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<p>hello</p>'));
    });
    const db = tempDir('urldedup-api-');
    try {
      const report = await runCrawl({
        store: db.path,
        seeds: [new URL(`${site.origin}/`), 'http://exa mple.com/', 'not a url', 'ftp://example.com/file'],
        allow: loopbackAllow(site.port),
      });
      expect(report.pagesFetched).toBe(1);
      expect(report.invalidSeeds).toEqual([
        { seed: 'http://exa mple.com/', code: 'ERR_INVALID_HOST' },
        { seed: 'not a url', code: 'ERR_RELATIVE_URL' },
        { seed: 'ftp://example.com/file', code: 'ERR_UNSUPPORTED_SCHEME' },
      ]);
      const text = formatReport(report);
      expect(text).toContain('invalid seed         ERR_INVALID_HOST "http://exa mple.com/"');
      expect(text).toContain('invalid seed         ERR_RELATIVE_URL "not a url"');
      expect(text).toContain('invalid seed         ERR_UNSUPPORTED_SCHEME "ftp://example.com/file"');
      expect(report.seeds[0]).toBe(`${site.origin}/`);
    } finally {
      db.remove();
      await site.close();
    }
  });

  it('a seed list with no valid seed is a clear error (the first code, every seed in the message)', async () => {
    const store = await openMemoryStore();
    try {
      const error = await runCrawl({ store, seeds: ['http://exa mple.com/', 'ftp://example.com/'] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UrlError);
      expect((error as UrlError).code).toBe('ERR_INVALID_HOST');
      expect((error as UrlError).message).toMatch(/no valid seed; all 2 seeds are invalid: ERR_INVALID_HOST "http:\/\/exa mple\.com\/", ERR_UNSUPPORTED_SCHEME "ftp:\/\/example\.com\/"/);
    } finally {
      await store.close();
    }
  });
});
