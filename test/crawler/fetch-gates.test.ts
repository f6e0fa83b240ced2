/**
 * The checks before a fetch (src/crawler/policy/fetch-gates.ts), on their own: the first verdict that is
 * not `go` wins, in the order scope, host budget, guard, robots.txt, page cap; the page cap takes
 * a page of the host's budget only for an entry every other gate passed, and never for a retry.
 * (robots.txt over real HTTP is test/crawler/robots.test.ts's; here there is none.)
 */
import { describe, expect, it } from 'vitest';
import { fetchGates, passGates, type GateContext } from '../../src/crawler/policy/fetch-gates.js';
import { CrawlScope } from '../../src/crawler/policy/scope.js';
import { gateDeps as deps } from './support.js';


function ctx(url: string, retry = false): GateContext {
  const u = new URL(url);
  return { entry: { url, key: url, host: u.host }, parsed: u, retry };
}

describe('fetch gates', () => {
  it('passes an entry in scope, hands the fetch the guard\'s URL, and counts the page', async () => {
    const d = deps();
    const c = ctx('http://a.example/x');
    expect(await passGates(fetchGates(d), c)).toEqual({ kind: 'go' });
    expect(c.checked?.href).toBe('http://a.example/x');
    expect(d.pages.started).toBe(1);
  });

  it('refuses out of scope before anything else, unless the entry is a seed', async () => {
    const d = deps();
    expect(await passGates(fetchGates(d), ctx('http://b.example/x'))).toMatchObject({ kind: 'refuse', code: 'ERR_OUT_OF_SCOPE' });
    expect(await passGates(fetchGates(d), ctx('http://seed.example/'))).toEqual({ kind: 'go' });
    expect(d.pages.started).toBe(1);
  });

  it('refuses what the network guard refuses (a loopback literal), with its code', async () => {
    const d = deps({ scope: () => new CrawlScope({ seeds: ['http://127.0.0.1/'] }) });
    const v = await passGates(fetchGates(d), ctx('http://127.0.0.1/x'));
    expect(v).toMatchObject({ kind: 'refuse', code: expect.stringMatching(/^ERR_/) });
    expect(d.pages.started).toBe(0);
  });

  it('pauses a host whose budget is spent, and leaves entries for later past the page cap or when stopping', async () => {
    const d = deps({ pages: { started: 0, max: 3 } });
    const gates = fetchGates(d);
    expect((await passGates(gates, ctx('http://a.example/1'))).kind).toBe('go');
    expect((await passGates(gates, ctx('http://a.example/2'))).kind).toBe('go');
    // two pages per host: the third waits (trap:host-budget), and no page of the cap is used
    expect(await passGates(gates, ctx('http://a.example/3'))).toEqual({ kind: 'pause', reason: 'trap:host-budget' });
    expect(d.pages.started).toBe(2);
    expect((await passGates(gates, ctx('http://www.a.example/1'))).kind).toBe('go');
    expect(await passGates(gates, ctx('http://www.a.example/2'))).toEqual({ kind: 'later' });
    // a retry was counted when first started: past the cap it still goes
    expect((await passGates(gates, ctx('http://www.a.example/1', true))).kind).toBe('go');
    let stopping = false;
    const d2 = deps({ stopping: () => stopping });
    stopping = true;
    expect(await passGates(fetchGates(d2), ctx('http://a.example/1'))).toEqual({ kind: 'later' });
  });
});
