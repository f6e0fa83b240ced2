/**
 * Redirect handling during a fetch: every hop is recorded in the store as evidence (RFC 3986
 * §6.2.4 learns from it), and the fetcher follows a hop at once only when the crawl would fetch
 * its target next anyway: the target passes the gates a frontier entry passes (fetch-gates.ts
 * `redirectGates`: the same origin, scope, no path trap, the host's budget, the network guard,
 * robots.txt, a queued URL no other task holds). Every other target is left to the frontier.
 */
import type { Logger } from 'pino';
import { UrlError } from '../normalize/index.js';
import type { SeenStore } from '../store/index.js';
import type { RedirectHop } from './http/fetch.js';
import type { CrawlEvents } from './crawl-events.js';
import { passGates, type Gate, type GateContext } from './policy/fetch-gates.js';
import type { Politeness } from './policy/politeness.js';
import { tryNodeUrl } from '../normalize/parse-count.js';

/** What the redirect gate reads and holds of the crawl: given once the store is open and the scope known. */
export interface RedirectContext {
  readonly store: SeenStore;
  /** The gates of a target (fetch-gates.ts `redirectGates`). */
  readonly gates: readonly Gate[];
  readonly politeness: Politeness;
  /** Each hop is a `redirected` event. */
  readonly events: CrawlEvents;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** The crawl takes no new work. */
  stopping(): boolean;
  /** Keys a task is fetching (its frontier entry, or a redirect target it follows). */
  readonly claimed: Set<string>;
  /** Keys fetched as the target of a followed redirect in this run. */
  readonly followed: Set<string>;
}

/**
 * May the fetch follow `hop` at once? Records it first (evidence), whatever the answer. A target
 * followed is claimed and pushed on `followed` (the caller releases it when the fetch ends).
 */
export async function mayFollowRedirect(c: RedirectContext, hop: RedirectHop, host: string, followed: string[]): Promise<boolean> {
  c.events.emit('redirected', { from: hop.url, to: hop.location, status: hop.status });
  try {
    await c.store.recordRedirect(hop.url, hop.location, hop.status);
  } catch (error) {
    if (error instanceof UrlError) {
      c.log.warn({ from: hop.url, to: hop.location, code: error.code }, 'redirect target refused by the store');
      return false;
    }
    throw error;
  }
  if (c.stopping()) return false;
  const g: GateContext = { entry: { url: hop.location, host }, parsed: tryNodeUrl(hop.location), from: tryNodeUrl(hop.url), retry: false };
  if ((await passGates(c.gates, g)).kind !== 'go') return false;
  const key = g.entry.key!;
  c.claimed.add(key);
  c.followed.add(key);
  followed.push(key);
  await c.politeness.pace(host, c.signal);
  return true;
}
