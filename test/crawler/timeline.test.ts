/**
 * The timeline recorder stays bounded on a crawl of any length and keeps what the report draws:
 * the first and the latest sample, evenly spread points, capped rule events and hosts.
 */
import { describe, expect, it } from 'vitest';
import { TimelineRecorder } from '../../src/crawler/report/timeline.js';
import type { RuleRecord } from '../../src/store/index.js';

const START = 1_700_000_000_000;

describe('samples', () => {
  it('keep at most maxPoints, the first and the latest, in time order, over a million pages', () => {
    const t = new TimelineRecorder({ start: START, maxPoints: 500 });
    for (let i = 1; i <= 1_000_000; i++) t.sample(START + i * 7, { requests: i * 2, documents: i, fetched: i, duplicates: 3 * i });
    const { points } = t.toJSON();
    expect(points.length).toBeLessThanOrEqual(500);
    expect(points.length).toBeGreaterThan(200);
    expect(points[0]).toEqual({ t: 7, requests: 2, documents: 1, fetched: 1, duplicates: 3 });
    expect(points[points.length - 1]).toEqual({ t: 7_000_000, requests: 2_000_000, documents: 1_000_000, fetched: 1_000_000, duplicates: 3_000_000 });
    for (let i = 1; i < points.length; i++) expect(points[i]!.t).toBeGreaterThan(points[i - 1]!.t);
    // evenly spread: no gap between kept points more than 4 times the mean gap
    const gaps = points.slice(1).map((p, i) => p.t - points[i]!.t);
    const mean = 7_000_000 / points.length;
    expect(Math.max(...gaps.slice(0, -1))).toBeLessThan(4 * mean);
  });

  it('are kept by page count as well as by time', () => {
    const t = new TimelineRecorder({ start: START, minIntervalMs: 1_000_000, everyPages: 5 });
    for (let i = 1; i <= 20; i++) t.sample(START + i, { requests: i, documents: i, fetched: i, duplicates: 0 });
    expect(t.toJSON().points.map((p) => p.fetched)).toEqual([1, 6, 11, 16, 20]);
  });

  it('rejects a recorder that cannot hold a series', () => {
    expect(() => new TimelineRecorder({ maxPoints: 1 })).toThrow(TypeError);
  });
});

describe('rule events', () => {
  it('are capped, with evidence lines capped and clipped, and sorted by time', () => {
    const t = new TimelineRecorder({ start: START, maxRuleEvents: 3, maxEvidence: 2, maxTextLength: 20 });
    t.ruleEvent(START + 30, { id: 'a/https', change: 'withdrawn', evidence: ['x'.repeat(50), 'y', 'z'] });
    t.ruleEvent(START + 10, { id: 'a/slash-add', scope: '/docs/', change: 'narrowed', evidence: [] });
    t.ruleEvent(START + 20, { id: 'a/www-remove', change: 'activated', evidence: ['3 for'] });
    t.ruleEvent(START + 40, { id: 'a/dropped', change: 'activated', evidence: [] });
    const j = t.toJSON();
    expect(j.rules.map((e) => [e.t, e.id, e.change])).toEqual([
      [10, 'a/slash-add', 'narrowed'],
      [20, 'a/www-remove', 'activated'],
      [30, 'a/https', 'withdrawn'],
    ]);
    expect(j.rules[0]!.scope).toBe('/docs/');
    expect(j.rules[2]!.evidence).toEqual([`${'x'.repeat(19)}…`, 'y', '… and 1 more']);
    expect(j.rulesDropped).toBe(1);
  });

  it('come from a stored rule record: activation and withdrawal in this run, with the contradiction', () => {
    const t = new TimelineRecorder({ start: START });
    const withdrawn: RuleRecord = {
      id: 'demo.localhost/slash-remove',
      host: 'demo.localhost',
      spec: 'slash-remove',
      state: 'withdrawn',
      for: 3,
      against: 1,
      created: START + 1,
      activated: START + 100,
      withdrawn: START + 900,
      contradiction: { v: 'against', how: 'redirect', source: 'http://demo.localhost/a/', to: 'http://demo.localhost/b', status: 301, t: START + 900 },
    };
    const before: RuleRecord = { id: 'old.example/https', host: 'old.example', spec: 'https', state: 'active', for: 5, against: 0, created: START - 10, activated: START - 5 };
    t.ruleRecord(withdrawn);
    t.ruleRecord(before);
    const { rules } = t.toJSON();
    expect(rules).toEqual([
      { t: 100, id: 'demo.localhost/slash-remove', change: 'activated', evidence: ['3 observations for, from distinct URLs; none against'] },
      {
        t: 900,
        id: 'demo.localhost/slash-remove',
        change: 'withdrawn',
        evidence: ['contradicted by redirect 301 http://demo.localhost/a/ → http://demo.localhost/b', '3 for, 1 against'],
      },
    ]);
  });
});

describe('hosts', () => {
  it('have a row each up to maxHosts, the rest added up in other, most requests first', () => {
    const t = new TimelineRecorder({ start: START, maxHosts: 2 });
    t.host('a.example', { requests: 1, documents: 1 });
    t.host('b.example', { requests: 5, duplicates: 2 });
    t.host('c.example', { requests: 3, errors: 1 });
    t.host('d.example', { requests: 4, documents: 2 });
    t.host('c.example', { requests: 1 });
    t.host('a.example', { requests: 1 });
    const j = t.toJSON();
    expect(j.hosts).toEqual([
      { host: 'b.example', requests: 5, documents: 0, duplicates: 2, errors: 0 },
      { host: 'a.example', requests: 2, documents: 1, duplicates: 0, errors: 0 },
    ]);
    expect(j.other).toEqual({ hosts: 2, requests: 8, documents: 2, duplicates: 0, errors: 1 });
  });

  it('leave out other when every host has a row', () => {
    const t = new TimelineRecorder({ start: START });
    t.host('a.example', { requests: 1 });
    expect(t.toJSON().other).toBeUndefined();
    expect(JSON.parse(JSON.stringify(t))).toEqual(t.toJSON());
  });
});
