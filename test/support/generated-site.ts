/**
 * A generated loopback site for crash tests (docs/reliability.md oracle O2): `pages` pages `/p<i>`
 * whose links come from a seeded PRNG, so the parent process and any number of killed and
 * restarted crawlers agree on the graph. Page 0 is the seed.
 *
 * - Every page i > 0 except the unreachable tail has one parent link from a page < i (a spanning
 *   tree, most pages linked once: a lost page's links stay lost, nothing masks it), plus a few
 *   random extra links;
 * - links are written in alias forms now and then (`./p7`, `/x/../p7`, `/p7#top`, the origin in
 *   capitals), which the ladder folds onto `/p7`;
 * - the last `unreachable` pages are linked from nowhere: fetching one is a bug.
 *
 * The server logs every request target it answers (robots.txt apart).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { seededRandom } from '../../sites/seeded-random.js';

export interface SiteGraph {
  readonly pages: number;
  /** Targets (page numbers) of each page's links, in document order. */
  readonly links: readonly (readonly number[])[];
  /** Pages reachable from page 0. */
  readonly reachable: ReadonlySet<number>;
}

export function generateSite(seed: number, pages: number, unreachable = Math.max(1, Math.floor(pages / 100))): SiteGraph {
  const rnd = seededRandom(seed);
  const links: number[][] = Array.from({ length: pages }, () => []);
  const linked = pages - unreachable;
  for (let i = 1; i < linked; i++) links[rnd.int(Math.max(0, i - 50), i - 1)]!.push(i);
  for (let i = 0; i < linked; i++) {
    const extra = rnd.int(0, 3);
    for (let k = 0; k < extra; k++) {
      // extra links mostly point back (already known): they exercise deduplication, not reach
      links[i]!.push(rnd.next() < 0.8 ? rnd.int(0, i) : rnd.int(0, linked - 1));
    }
  }
  const reachable = new Set<number>([0]);
  const queue = [0];
  while (queue.length > 0) {
    const p = queue.shift()!;
    for (const q of links[p]!) {
      if (!reachable.has(q)) {
        reachable.add(q);
        queue.push(q);
      }
    }
  }
  return { pages, links, reachable };
}

/** The href of a link to page `to`, now and then in an alias form. */
function href(to: number, origin: string, n: number): string {
  switch (n % 11) {
    case 3:
      return `./p${to}`;
    case 5:
      return `/x/../p${to}`;
    case 7:
      return `/p${to}#top`;
    case 9:
      return `${origin.toUpperCase()}/p${to}`;
    default:
      return `/p${to}`;
  }
}

/** A request handler for `graph`, logging each page target into `served`. */
export function siteHandler(graph: SiteGraph, served: string[], origin: () => string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = req.url ?? '/';
    if (target === '/robots.txt') return void res.writeHead(404).end();
    served.push(target);
    const i = Number(/^\/p(\d+)$/.exec(target)?.[1] ?? -1);
    const out = graph.links[i];
    if (out === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><p>no such page');
    const body = out.map((to, n) => `<li><a href="${href(to, origin(), i + n)}">page ${to}</a>`).join('\n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>p${i}</title></head><body><h1>page ${i}</h1><ul>\n${body}\n</ul></body></html>\n`);
  };
}
