/**
 * Redirect handling during a fetch: every hop is recorded in the store as evidence (RFC 3986
 * §6.2.4 learns from it), and the fetcher follows a hop at once only when the crawl would fetch
 * its target next anyway: the same origin (robots.txt and politeness are per origin), in scope,
 * no path trap, allowed by robots.txt, a queued URL no other task holds, and budget left.
 * Every other target is left to the frontier.
 */
import type { Logger } from 'pino';
import { UrlError } from '../normalize/index.js';
import type { SeenStore } from '../store/index.js';
import type { RedirectHop } from './fetch.js';
import type { CrawlEvents } from './crawl-events.js';
import type { Politeness } from './politeness.js';
import type { RobotsCache } from './robots.js';
import type { CrawlScope } from './scope.js';
import { pathTrap, type HostBudget, type TrapOptions } from './traps.js';
import { tryNodeUrl } from '../normalize/parse-count.js';

/** What the redirect gate reads and holds of the crawl: given once the store is open and the scope known. */
export interface RedirectContext {
  readonly store: SeenStore;
  readonly scope: CrawlScope;
  readonly robots: RobotsCache | undefined;
  readonly budget: HostBudget;
  readonly politeness: Politeness;
  /** Each hop is a `redirected` event. */
  readonly events: CrawlEvents;
  readonly log: Logger;
  readonly traps: TrapOptions | undefined;
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
  // another origin has its own robots.txt and politeness: the frontier brings the target there
  const to = tryNodeUrl(hop.location);
  if (to?.origin !== tryNodeUrl(hop.url)?.origin) return false;
  if (c.scope.checkParsed(to, hop.location) !== 'in' || pathTrap(to?.pathname ?? '/', c.traps) !== undefined) return false;
  if (c.robots !== undefined) {
    const e = c.robots.peek(to!.origin);
    if (e === undefined || !e.policy.isAllowed(to!.pathname + to!.search)) return false;
  }
  const k = await c.store.canonical(hop.location);
  if (k.state !== 'queued' || c.claimed.has(k.key)) return false;
  if (!c.budget.take(host)) return false;
  c.claimed.add(k.key);
  c.followed.add(k.key);
  followed.push(k.key);
  await c.politeness.pace(host, c.signal);
  return true;
}
