// The command model shared by the store's differential property tests (model.test.ts: memory ≡
// LevelDB; redis-model.test.ts: memory ≡ Redis Cluster): random admits, fetches, redirects,
// frontier calls and give-backs over a few hosts and paths shaped to reach rules, aliases and loops.
import fc from 'fast-check';
import type { SeenStore } from '../../src/store/index.js';

const hosts = ['a.example', 'www.a.example', 'b.example'];
const paths = ['/', '/x', '/x/', '/y', '/d/', '/d/index.html', '/old/x', '/x.html', '/p1', '/p2', '/p3', '/p1/', '/p2/index.html', '/p1;jsessionid=1', '/p2;jsessionid=2', '/x;v=1'];
const queries = ['', '?sid=1', '?sid=2', '?utm_source=m', '?id=1', '?id=1&sid=3'];
const url = fc
  .record({ scheme: fc.constantFrom('http', 'https', 'HTTP'), host: fc.constantFrom(...hosts), path: fc.constantFrom(...paths), query: fc.constantFrom(...queries), frag: fc.constantFrom('', '#f') })
  .map((u) => `${u.scheme}://${u.host}${u.path}${u.query}${u.frag}`);

export type Command =
  | { op: 'admit'; urls: string[]; depth: number }
  | { op: 'fetch'; url: string; status: number; hash: string | undefined }
  | { op: 'redirect'; from: string; to: string; status: number }
  | { op: 'next'; limit: number; perHost: number; record: boolean }
  | { op: 'restore'; reason: string }
  | { op: 'canonical'; url: string };

/** A redirect the way a host with a rule answers: https, trailing slash, www, default document. */
const ruleShaped: fc.Arbitrary<Command> = fc
  .record({ kind: fc.constantFrom('https', 'slash', 'www', 'doc'), host: fc.constantFrom('a.example', 'b.example'), p: fc.constantFrom('/p1', '/p2', '/p3', '/q') })
  .map(({ kind, host, p }): Command => {
    const pair =
      kind === 'https' ? [`http://${host}${p}`, `https://${host}${p}`]
      : kind === 'slash' ? [`https://${host}${p}`, `https://${host}${p}/`]
      : kind === 'www' ? [`https://${host}${p}`, `https://www.${host}${p}`]
      : [`https://${host}${p}/index.html`, `https://${host}${p}/`];
    return { op: 'redirect', from: pair[0]!, to: pair[1]!, status: 301 };
  });

export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: ruleShaped },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('admit' as const), urls: fc.array(fc.oneof(url, fc.constant('http://exa mple/')), { minLength: 1, maxLength: 6 }), depth: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('fetch' as const), url, status: fc.constantFrom(200, 200, 404, 503, 0), hash: fc.option(fc.constantFrom('H1', 'H2'), { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('redirect' as const), from: url, to: url, status: fc.constantFrom(301, 308, 302) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('next' as const), limit: fc.integer({ min: 1, max: 4 }), perHost: fc.integer({ min: 1, max: 2 }), record: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restore' as const), reason: fc.constantFrom('tracking', 'preset:tracking', 'rule:a.example/https', 'rule:a.example/slash-add') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('canonical' as const), url }) },
);

/** Run one command; the answer, with nothing that depends on the clock. */
export async function run(store: SeenStore, c: Command): Promise<unknown> {
  const settle = async (p: Promise<unknown>): Promise<unknown> => p.then((v) => ({ ok: v }), (e: { code?: string; name?: string }) => ({ error: e.code ?? e.name }));
  switch (c.op) {
    case 'admit':
      return settle(store.admit(c.urls, { depth: c.depth }));
    case 'fetch':
      return settle(store.recordFetch(c.url, c.hash === undefined ? { status: c.status } : { status: c.status, contentHash: c.hash }));
    case 'redirect':
      return settle(store.recordRedirect(c.from, c.to, c.status));
    case 'next': {
      const entries = await store.next({ limit: c.limit, perHost: c.perHost });
      if (c.record) for (const e of entries) await store.recordFetch(e.url, { status: 200 });
      return entries;
    }
    case 'restore':
      return settle(store.restore(c.reason));
    case 'canonical':
      return settle(store.canonical(c.url));
  }
}

/** Every URL a command names. */
export function urlsOf(commands: readonly Command[]): string[] {
  const out = new Set<string>();
  for (const c of commands) {
    if (c.op === 'admit') for (const u of c.urls) out.add(u);
    else if (c.op === 'fetch' || c.op === 'canonical') out.add(c.url);
    else if (c.op === 'redirect') {
      out.add(c.from);
      out.add(c.to);
    }
  }
  return [...out];
}

export async function snapshot(store: SeenStore): Promise<unknown> {
  const rules = [];
  for await (const r of store.rules()) rules.push({ id: r.id, state: r.state, for: r.for, against: r.against });
  const aliases = [];
  for await (const a of store.aliases()) aliases.push(a);
  const urls = [];
  for await (const u of store.canonicalUrls()) urls.push(u);
  return { stats: await store.stats(), rules, aliases, urls };
}
