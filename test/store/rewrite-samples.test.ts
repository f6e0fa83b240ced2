import { describe, expect, it } from 'vitest';
import { entryDir, RewriteSamples } from '../../src/store/learning/rewrite-samples.js';
import { foldCase } from '../../src/store/learning/path-variants.js';

/** Takes rewrites of rule `r` at `paths`, in order, after `warm` rewrites at the evidence's own place. */
function checks(paths: readonly string[], evidence: readonly string[], warm = 2): boolean[] {
  const s = new RewriteSamples();
  for (let i = 0; i < warm; i++) s.take('rule:r', () => evidence[0]!, { evidence: () => evidence });
  return paths.map((p) => s.take('rule:r', () => p, { evidence: () => evidence }));
}

describe('entryDir', () => {
  it('puts a page and a directory entry in the directory that holds them', () => {
    expect(entryDir('/a/b.html')).toBe('/a/');
    expect(entryDir('/a/b/')).toBe('/a/');
    expect(entryDir('/b')).toBe('/');
    expect(entryDir('/')).toBe('/');
    expect(entryDir('')).toBe('/');
  });
});

describe('RewriteSamples', () => {
  it('checks the first two rewrites of each rule wherever they lie', () => {
    const s = new RewriteSamples();
    const ev = () => ['/docs/a.html'];
    expect([1, 2, 3].map(() => s.take('rule:a', () => '/docs/x.html', { evidence: ev }))).toEqual([true, true, false]);
    expect(s.take('rule:b', () => '/docs/x.html', { evidence: ev })).toBe(true);
    expect(s.size).toBe(2);
  });

  it('checks by count at powers of two from 8 and at every 128th', () => {
    const s = new RewriteSamples();
    const hits: number[] = [];
    for (let n = 0; n < 300; n++) if (s.take('rule:a', () => '/docs/x.html', { evidence: () => ['/docs/a.html'] })) hits.push(n);
    expect(hits).toEqual([0, 1, 8, 16, 32, 64, 128, 256]);
  });

  it('checks every new directory of a rule that asks for it, once each', () => {
    const s = new RewriteSamples();
    const rule = { evidence: () => ['/docs/a/index.html'], everyPlace: () => true };
    for (let i = 0; i < 2; i++) s.take('rule:d', () => '/docs/a/index.html', rule);
    // every further subdirectory of /docs/ is checked too (a sample checks the first two), and
    // a directory checked once is not checked again
    const paths = ['/docs/b/index.html', '/docs/c/index.html', '/docs/d/index.html', '/docs/e/index.html', '/docs/e/index.html'];
    expect(paths.map((p) => s.take('rule:d', () => p, rule))).toEqual([true, true, true, true, false]);
    const sampled = new RewriteSamples();
    const plain = { evidence: () => ['/docs/a/index.html'] };
    for (let i = 0; i < 2; i++) sampled.take('rule:d', () => '/docs/a/index.html', plain);
    expect(paths.map((p) => sampled.take('rule:d', () => p, plain))).toEqual([true, false, false, false, false]);
  });

  it('does not check where the evidence lies, but checks the first directory of another section', () => {
    expect(checks(['/docs/b.html', '/docs/c/', '/api/x.html', '/api/y.html'], ['/docs/a.html'])).toEqual([false, false, true, false]);
  });

  it('reads the place of a rewrite without its segment parameters', () => {
    // an ASP.NET cookieless id is a segment of its own, a servlet's on a directory segment: with
    // them the place would be a new top-level section on every link, each one checked
    const ev = ['/docs/a.html', '/b.html'];
    expect(checks(['/(S(lit3py55t21z5v55vlm25s55))/docs/x.html', '/(S(q0c4xy2vbt1m5dzkq0fjwn3u))/y.html', '/docs;jsessionid=0A1B/z.html'], ev)).toEqual([false, false, false]);
    expect(checks(['/(S(lit3py55t21z5v55vlm25s55))/api/x.html'], ev)).toEqual([true]);
  });

  it('checks the first two subdirectories a rule reaches under a parent, then counts only', () => {
    const got = checks(['/docs/one/a.html', '/docs/two/a.html', '/docs/three/a.html', '/docs/two/b.html', '/docs/one/deep/a.html'], ['/docs/a.html']);
    // one and two are new siblings under /docs/; three is the third; deep is the first under one
    expect(got).toEqual([true, true, false, false, true]);
  });

  it('counts a check made elsewhere toward the first ones', () => {
    const s = new RewriteSamples();
    s.counted('rule:a', '/docs/z.html', { evidence: () => ['/docs/a.html'] });
    expect(s.take('rule:a', () => '/docs/x.html', { evidence: () => ['/docs/a.html'] })).toBe(true);
    expect(s.take('rule:a', () => '/docs/y.html', { evidence: () => ['/docs/a.html'] })).toBe(false);
  });

  it('takes the place of a check made elsewhere as checked', () => {
    const s = new RewriteSamples();
    const ev = () => ['/docs/a.html'];
    s.counted('rule:a', '/api/x.html', { evidence: ev });
    s.counted('rule:a', '/docs/b.html', { evidence: ev });
    // /api/ had its check when the rule gained scope; /guide/ had none
    expect(s.take('rule:a', () => '/api/y.html', { evidence: ev })).toBe(false);
    expect(s.take('rule:a', () => '/guide/y.html', { evidence: ev })).toBe(true);
  });

  it('takes the place of a check by count as checked', () => {
    const s = new RewriteSamples();
    const ev = () => ['/docs/a.html'];
    const at = (n: number): string => (n === 8 ? '/api/x.html' : '/docs/b.html');
    const hits: string[] = [];
    for (let n = 0; n < 12; n++) if (s.take('rule:a', () => at(n), { evidence: ev })) hits.push(`${n}`);
    // the 8th rewrite, in /api/, is checked by count; the next one there is not a new place
    expect(s.take('rule:a', () => '/api/y.html', { evidence: ev })).toBe(false);
    expect(hits).toEqual(['0', '1', '8']);
  });

  it('reads the evidence again once the rule is written: a directory with new support is not new', () => {
    const s = new RewriteSamples();
    let ev = ['/docs/a.html'];
    for (let i = 0; i < 2; i++) s.take('rule:a', () => '/docs/b.html', { evidence: (): readonly string[] => ev });
    ev = [...ev, '/api/a.html'];
    // without word of the write, the evidence is as first read: /api/ is new
    const stale = new RewriteSamples();
    for (let i = 0; i < 2; i++) stale.take('rule:a', () => '/docs/b.html', { evidence: () => ['/docs/a.html'] });
    stale.take('rule:a', () => '/docs/c.html', { evidence: (): readonly string[] => ev });
    expect(stale.take('rule:a', () => '/api/b.html', { evidence: (): readonly string[] => ev })).toBe(true);
    s.evidenceChanged('rule:a');
    expect(s.take('rule:a', () => '/api/b.html', { evidence: (): readonly string[] => ev })).toBe(false);
    expect(s.take('rule:a', () => '/guide/b.html', { evidence: (): readonly string[] => ev })).toBe(true);
  });

  it('spells a place the way the rule does: a case variant of the evidence is not new', () => {
    const s = new RewriteSamples();
    const ev = () => ['/Library/a.html'];
    for (let i = 0; i < 2; i++) s.take('rule:c', () => '/library/a.html', { evidence: ev, place: foldCase });
    expect(s.take('rule:c', () => '/LIBRARY/b.html', { evidence: ev, place: foldCase })).toBe(false);
    expect(s.take('rule:c', () => '/Other/b.html', { evidence: ev, place: foldCase })).toBe(true);
  });

  it('stops remembering places past its cap and samples by count only', () => {
    const s = new RewriteSamples();
    let checked = 0;
    for (let i = 0; i < 2000; i++) if (s.take('rule:a', () => `/s${i}/x.html`, { evidence: () => [] })) checked++;
    // 256 new sections checked, then the count's samples only (powers of two and every 128th)
    expect(checked).toBeGreaterThanOrEqual(256);
    expect(checked).toBeLessThan(256 + 30);
  });
});

describe('RewriteSamples, a rule whose values recur (paced)', () => {
  const paced = (docs: () => number) => ({ evidence: () => ['/a.html', '/b.html', '/c.html'], paced: docs });

  it('keeps its checks in pace with its rewrites: about √(8u) checks for u made unchecked', () => {
    for (const total of [15, 200, 1000]) {
      const s = new RewriteSamples();
      let checked = 0;
      for (let i = 0; i < total; i++) if (s.take('rule:p', () => `/p${i}.html`, paced(() => 3))) checked++;
      const unchecked = total - checked;
      // e² / 8 ≥ u, e = 3 + checks: never more unchecked than the evidence allows
      expect(unchecked).toBeLessThanOrEqual(((3 + checked) * (3 + checked)) / 8);
      // and a share that falls as the rule grows
      expect(checked).toBeLessThan(total / 2);
    }
    const few = new RewriteSamples();
    expect(Array.from({ length: 15 }, (_, i) => few.take('rule:p', () => `/p${i}.html`, paced(() => 3))).filter(Boolean).length).toBe(6);
  });

  it('checks no more than a rule not paced where its evidence is wide', () => {
    const s = new RewriteSamples();
    let checked = 0;
    // 40 documents of support: 200 rewrites unchecked are within 40² / 8
    for (let i = 0; i < 200; i++) if (s.take('rule:w', () => `/p${i}.html`, paced(() => 40))) checked++;
    const plain = new RewriteSamples();
    let plainChecked = 0;
    for (let i = 0; i < 200; i++) if (plain.take('rule:w', () => `/p${i}.html`, { evidence: () => ['/a.html'] })) plainChecked++;
    expect(checked).toBe(plainChecked);
  });

  it('counts support that arrives between rewrites as evidence', () => {
    const s = new RewriteSamples();
    let docs = 3;
    const rule = paced(() => docs);
    const first = Array.from({ length: 20 }, (_, i) => s.take('rule:g', () => `/p${i}.html`, rule)).filter(Boolean).length;
    docs = 30;
    s.evidenceChanged('rule:g');
    const after = Array.from({ length: 20 }, (_, i) => s.take('rule:g', () => `/q${i}.html`, rule)).filter(Boolean).length;
    expect(first).toBeGreaterThan(3);
    expect(after).toBeLessThanOrEqual(1);
  });

  it('asks for the checks a batch of queued URLs needs before the rest is pruned', () => {
    const s = new RewriteSamples();
    const rule = paced(() => 3);
    expect(s.checksDue('rule:b', 15, rule)).toBe(6);
    expect(s.checksDue('rule:b', 1, rule)).toBe(0);
    expect(s.checksDue('rule:n', 15, { evidence: () => ['/a.html'] })).toBe(0);
    // after the batch (6 checked, 9 pruned unchecked), the next rewrites are within pace
    for (let i = 0; i < 6; i++) s.counted('rule:b', `/c${i}.html`, rule);
    s.uncheckedRewrites('rule:b', 9, rule);
    expect(s.checksDue('rule:b', 1, rule)).toBe(0);
    expect(s.checksDue('rule:b', 30, rule)).toBeGreaterThan(0);
  });

  it('checks all of a rule\'s first rewrites when it asks for more than two (a mirror\'s)', () => {
    const s = new RewriteSamples();
    const rule = { ...paced(() => 3), first: 24 };
    // a batch at activation: the first 24 at least, whatever the pace says
    expect(s.checksDue('rule:m', 10, rule)).toBe(10);
    expect(s.checksDue('rule:m', 100, rule)).toBeGreaterThanOrEqual(24);
    for (let i = 0; i < 20; i++) s.counted('rule:m', `/d/p${i}.html`, rule);
    // four more of the first, then admits follow the pace
    expect([0, 1, 2, 3].map((i) => s.take('rule:m', () => `/d/q${i}.html`, rule))).toEqual([true, true, true, true]);
    const later = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => s.take('rule:m', () => `/d/r${i}.html`, rule));
    expect(later.filter(Boolean).length).toBeLessThan(10);
  });
});
