// The host-rule learner's decisions, on its own (src/store/engine/learner.ts): evidence in through a
// batch, rule changes out. A real memory Kv holds what earlier calls wrote; "commit" writes a batch's
// operations to it and hands its rules to the live-rule table, as the write queue does.
import { describe, expect, it } from 'vitest';
import { keyFromRecord, normalizeRecord } from '../../src/normalize/index.js';
import { Txn } from '../../src/store/engine/batch.js';
import { RuleLearner, type LearnedUrl, type RuleChanges } from '../../src/store/engine/learner.js';
import { LiveRules } from '../../src/store/engine/state.js';
import { counterNames, decodeJson, encodeUrlEntry } from '../../src/store/keys.js';
import { MemoryKv } from '../../src/store/memory-store.js';
import { defaultDocuments, ruleId, type RuleRecord, type RuleSpec } from '../../src/store/rules.js';

const url = (u: string): LearnedUrl => {
  const rec = normalizeRecord(u);
  return { rec, key: keyFromRecord(rec) };
};

class Harness {
  readonly kv = new MemoryKv();
  readonly rules = new LiveRules();
  readonly learner: RuleLearner;
  now = 1_000;

  constructor(ruleThreshold = 3, maxEvidencePerRule = 50) {
    this.learner = new RuleLearner({ kv: this.kv, rules: this.rules }, { ruleThreshold, maxEvidencePerRule, defaultDocuments });
  }

  private async commit(txn: Txn): Promise<void> {
    await this.kv.write(txn.ops);
    for (const r of txn.rules.values()) this.rules.remember(r);
  }

  /** One redirect, learned from and committed; returns the changes and the batch's counter deltas. */
  async redirect(from: string, to: string, status = 301, merge = true): Promise<{ changes: RuleChanges; txn: Txn }> {
    const txn = new Txn(0);
    const changes = await this.learner.fromRedirect(txn, url(from), url(to), status, merge, this.now++);
    await this.commit(txn);
    return { changes, txn };
  }

  /** One fetch answered by `u` itself; with a hash, `u` is also recorded fetched with that content. */
  async fetch(u: string, hash?: string, status = 200): Promise<{ changes: RuleChanges; txn: Txn }> {
    const txn = new Txn(0);
    const target = url(u);
    const changes = await this.learner.fromFetch(txn, target, hash, status, this.now++);
    await this.commit(txn);
    if (hash !== undefined) await this.kv.write([{ space: 'url', key: target.key, value: encodeUrlEntry({ s: 'fetched', d: 0, t: 0, st: status, c: hash }) }]);
    return { changes, txn };
  }

  async rule(host: string, spec: RuleSpec): Promise<RuleRecord | undefined> {
    const v = await this.kv.get('rule', ruleId(host, spec));
    return v === undefined ? undefined : decodeJson<RuleRecord>(v);
  }
}

const HTTPS: RuleSpec = { kind: 'https' };
const httpsId = ruleId('a.example', HTTPS);

describe('learning from redirects', () => {
  it('makes a candidate of an explained permanent redirect, and activates it at the threshold', async () => {
    const h = new Harness(3);
    const first = await h.redirect('http://a.example/1', 'https://a.example/1');
    expect(first.changes).toEqual({ activated: [], withdrawn: [], givesBack: [] });
    expect(first.txn.counters.get(counterNames.rules('candidate'))).toBe(1);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'candidate', for: 1, against: 0 });
    expect((await h.redirect('http://a.example/2', 'https://a.example/2')).changes.activated).toEqual([]);
    const third = await h.redirect('http://a.example/3', 'https://a.example/3');
    expect(third.changes).toEqual({ activated: [httpsId], withdrawn: [], givesBack: [] });
    expect(third.txn.counters.get(counterNames.rules('candidate'))).toBe(-1);
    expect(third.txn.counters.get(counterNames.rules('active'))).toBe(1);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'active', for: 3 });
    expect(h.rules.hasActive('a.example')).toBe(true);
    expect(h.rules.activeOf('a.example')?.map((r) => r.id)).toEqual([httpsId]);
  });

  it('counts one source URL once, however often it redirects', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    const again = await h.redirect('http://a.example/1', 'https://a.example/1');
    expect(again.changes.activated).toEqual([]);
    expect(again.txn.ops).toEqual([]);
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'candidate', for: 1 });
  });

  it('learns nothing from a redirect that does not merge (a 302 without temporaryRedirectsMerge)', async () => {
    const h = new Harness(1);
    const r = await h.redirect('http://a.example/1', 'https://a.example/1', 302, false);
    expect(r.changes).toEqual({ activated: [], withdrawn: [], givesBack: [] });
    expect(await h.rule('a.example', HTTPS)).toBeUndefined();
  });

  it('withdraws an active rule on a redirect the other way, and says its URLs come back', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/x/', 'http://a.example/x/y/'); // not explained: nothing
    await h.redirect('http://a.example/1', 'http://a.example/1/');
    await h.redirect('http://a.example/2', 'http://a.example/2/');
    const slashAdd = ruleId('a.example', { kind: 'slash-add' });
    expect(h.rules.get(slashAdd)?.state).toBe('active');
    const back = await h.redirect('http://a.example/3/', 'http://a.example/3');
    expect(back.changes.withdrawn).toContain(slashAdd);
    expect(back.changes.givesBack).toContain(slashAdd);
    expect(await h.rule('a.example', { kind: 'slash-add' })).toMatchObject({ state: 'withdrawn', against: 1, contradiction: { v: 'against', how: 'inverse-redirect' } });
    expect(h.rules.hasActive('a.example')).toBe(false);
    expect(h.rules.isWithdrawn(slashAdd)).toBe(true);
  });
});

describe('learning from fetches', () => {
  it('withdraws an active rule when the host serves a URL the rule maps elsewhere as itself', async () => {
    const h = new Harness(2);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    await h.redirect('http://a.example/2', 'https://a.example/2');
    const served = await h.fetch('http://a.example/3');
    expect(served.changes).toEqual({ activated: [], withdrawn: [httpsId], givesBack: [httpsId] });
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'withdrawn', contradiction: { how: 'fetch', v: 'against' } });
  });

  it('withdraws a candidate without giving anything back (it pruned nothing)', async () => {
    const h = new Harness(3);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    const served = await h.fetch('http://a.example/2');
    expect(served.changes).toEqual({ activated: [], withdrawn: [httpsId], givesBack: [] });
    expect(served.txn.counters.get(counterNames.rules('candidate'))).toBe(-1);
    expect(served.txn.counters.get(counterNames.rules('withdrawn'))).toBe(1);
  });

  it('keeps a withdrawn rule withdrawn: evidence for it is read against its stored record, not a new candidate', async () => {
    const h = new Harness(1);
    await h.redirect('http://a.example/1', 'https://a.example/1');
    await h.fetch('http://a.example/2');
    const later = await h.redirect('http://a.example/3', 'https://a.example/3');
    expect(later.changes).toEqual({ activated: [], withdrawn: [], givesBack: [] });
    expect(later.txn.counters.get(counterNames.rules('candidate'))).toBeUndefined();
    expect(await h.rule('a.example', HTTPS)).toMatchObject({ state: 'withdrawn', for: 2 });
  });

  it('makes no candidate from a contradiction alone', async () => {
    const h = new Harness(1);
    const r = await h.fetch('http://a.example/d/index.html', 'h1');
    // the directory was never fetched: no pair, and nothing against a rule that does not exist
    expect(r.changes).toEqual({ activated: [], withdrawn: [], givesBack: [] });
    expect([...r.txn.rules.keys()]).toEqual([]);
  });

  it('pairs a default document with its directory by content: equal is for, different is against', async () => {
    const h = new Harness(2);
    const doc = ruleId('a.example', { kind: 'default-document', name: 'index.html' });
    await h.fetch('http://a.example/d/', 'same-1');
    expect((await h.fetch('http://a.example/d/index.html', 'same-1')).txn.rules.get(doc)).toMatchObject({ state: 'candidate', for: 1 });
    await h.fetch('http://a.example/e/', 'same-2');
    const second = await h.fetch('http://a.example/e/index.html', 'same-2');
    expect(second.changes.activated).toEqual([doc]);
    const other = new Harness(2);
    await other.fetch('http://a.example/d/', 'dir');
    const differs = await other.fetch('http://a.example/d/index.html', 'page');
    expect(differs.changes).toEqual({ activated: [], withdrawn: [], givesBack: [] });
    expect(await other.rule('a.example', { kind: 'default-document', name: 'index.html' })).toBeUndefined();
  });

  it('pairs a query parameter with the URL without it, in either order of fetching', async () => {
    const h = new Harness(2);
    const sid = ruleId('a.example', { kind: 'query-parameter', name: 'sid' });
    await h.fetch('http://a.example/p?sid=1', 'p'); // the variant first: its hash waits as evidence
    const base = await h.fetch('http://a.example/p', 'p');
    expect(base.txn.rules.get(sid)).toMatchObject({ state: 'candidate', for: 1 });
    await h.fetch('http://a.example/q', 'q'); // the base first
    const variant = await h.fetch('http://a.example/q?sid=9', 'q');
    expect(variant.changes.activated).toEqual([sid]);
  });

  it('withdraws a query-parameter rule when two values of the parameter serve different content', async () => {
    const h = new Harness(2);
    const page = ruleId('a.example', { kind: 'query-parameter', name: 'page' });
    await h.fetch('http://a.example/list', 'one');
    await h.fetch('http://a.example/list?page=1', 'one');
    expect(h.rules.get(page)?.state).toBe('candidate');
    const r = await h.fetch('http://a.example/list?page=2', 'two');
    expect(r.changes.withdrawn).toEqual([page]);
    expect(await h.rule('a.example', { kind: 'query-parameter', name: 'page' })).toMatchObject({ state: 'withdrawn', contradiction: { how: 'content' } });
  });
});

describe('the live rules of a host', () => {
  it('include this batch’s changes before they are committed', async () => {
    const h = new Harness(3);
    const txn = new Txn(0);
    const changes = await h.learner.fromRedirect(txn, url('http://a.example/1'), url('https://a.example/1'), 301, true, 1);
    expect(changes.activated).toEqual([]);
    expect(h.rules.get(httpsId)).toBeUndefined(); // not committed
    expect(h.learner.liveRulesOf(txn, 'a.example').map((r) => r.id)).toEqual([httpsId]);
    expect(h.learner.liveRulesOf(new Txn(0), 'a.example')).toEqual([]);
  });
});
