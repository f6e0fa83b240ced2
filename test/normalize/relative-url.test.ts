// parseRelativeUrl (whatwg/relative-url.ts) is the basic URL parser for the links most pages hold:
// wherever it answers, its record is the full parser's, on generated references, on the
// web-platform-tests cases and on every link of postgresql-doc-15 when it is installed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTGRES_TREE, REQUIRE_ALL } from '../support/requirements.js';
import { mulberry32 } from '../../sites/mulberry32.js';
import { basicUrlParse } from '../../src/normalize/whatwg/basic-url-parser.js';
import { parseRelativeUrl } from '../../src/normalize/whatwg/relative-url.js';
import type { WhatwgUrl } from '../../src/normalize/whatwg/url-record.js';

const BASES = [
  'http://example.com',
  'http://example.com/',
  'http://example.com/a/b/c.html?x=1#top',
  'https://user:pw@Example.COM:8443/dir/sub/',
  'http://127.0.0.1:8080/a;p/%2e/b?q',
  'https://example.com/a//b',
  'ftp://example.com/a/b',
  'file:///C:/a/b',
  'mailto:someone@example.com',
  'foo://host/a/b',
].map((b) => basicUrlParse(b, null));

/** Both parsers on one input: equal records where the fast one answers; returns whether it did. */
function check(input: string, base: WhatwgUrl): boolean {
  const fast = parseRelativeUrl(input, base);
  if (fast === undefined) return false;
  expect(fast, `${JSON.stringify(input)} against ${JSON.stringify(base)}`).toEqual(basicUrlParse(input, base));
  return true;
}

describe('parseRelativeUrl', () => {
  it('gives the full parser’s record on generated references', () => {
    const rand = mulberry32(3986);
    const pieces = ['a', 'b.html', '.', '..', '%2e', '%2E', '.%2e', '%2e.', '%2e%2E', '/', '/', '//', '?', '#', ':', '@', '=', '&', ';', '%', '%41', '~', "'", ' ', '\\', '\t', 'é', '[', '|', '{', '^', '`', '"', '<', 'x:y'];
    let taken = 0;
    let total = 0;
    for (let i = 0; i < 30_000; i++) {
      let input = '';
      const length = 1 + Math.floor(rand() * 7);
      for (let j = 0; j < length; j++) input += pieces[Math.floor(rand() * pieces.length)];
      for (const base of BASES) {
        total++;
        if (check(input, base)) taken++;
      }
    }
    // the generator is built to hit both sides
    expect(taken).toBeGreaterThan(total / 20);
    expect(taken).toBeLessThan(total);
  });

  it('agrees on the web-platform-tests cases with a base', () => {
    const cases = JSON.parse(readFileSync(new URL('../fixtures/conformance/wpt-urltestdata.json', import.meta.url), 'utf8')) as unknown[];
    let taken = 0;
    for (const c of cases) {
      if (typeof c !== 'object' || c === null || !('base' in c) || typeof c.base !== 'string' || !('input' in c) || typeof c.input !== 'string') continue;
      let base: WhatwgUrl;
      try {
        base = basicUrlParse(c.base, null);
      } catch {
        continue;
      }
      if (check(c.input, base)) taken++;
    }
    expect(taken).toBeGreaterThan(20);
  });

  const docs = '/usr/share/doc/postgresql-doc-15/html';
  // (without the tree: skipped, saying why; under URLDEDUP_REQUIRE_ALL or CI, run, and it fails)
  it.skipIf(!existsSync(docs) && !REQUIRE_ALL)(`agrees on every link of postgresql-doc-15${existsSync(docs) ? '' : ` (skipped: ${POSTGRES_TREE.missing})`}`, () => {
    let taken = 0;
    let links = 0;
    for (const name of readdirSync(docs).filter((f) => f.endsWith('.html'))) {
      const base = basicUrlParse(`http://docs.localhost:8080/docs/15/${name}`, null);
      const html = readFileSync(join(docs, name), 'latin1');
      for (const m of html.matchAll(/\bhref="([^"]*)"/g)) {
        links++;
        if (check(m[1]!, base)) taken++;
      }
    }
    // nearly every link of a documentation tree is a plain relative reference
    expect(taken).toBeGreaterThan(links * 0.8);
  });
});
