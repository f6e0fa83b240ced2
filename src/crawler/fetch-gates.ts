/**
 * The checks before a frontier entry is fetched, as an ordered list of small gates: scope, the
 * host's page budget, the network guard, robots.txt, the crawl's page cap. Each returns a verdict;
 * the crawl loop applies the first that is not `go` in one place (crawl.ts `processClaimed`):
 *
 * - `refuse`: not fetched, recorded as failed with a crawl error code (a later run does not retry it);
 * - `pause`: the host waits (held-entries.ts), its entries queued for later in this run or the next;
 * - `later`: the crawl is stopping or its page cap is reached: the entry stays queued in the store.
 *
 * Order matters: the cheap checks on the URL first, then robots.txt (a request to the origin),
 * and last the page cap, which takes a page of the host's budget only for an entry that passed.
 */
import { UrlError } from '../normalize/index.js';
import type { FrontierEntry } from '../store/index.js';
import type { CrawlErrorCode } from './errors.js';
import type { NetworkGuard } from './guard.js';
import type { Politeness } from './politeness.js';
import type { RobotsCache } from './robots.js';
import type { CrawlScope } from './scope.js';
import type { HostBudget } from './traps.js';

export type GateVerdict =
  | { readonly kind: 'go' }
  | { readonly kind: 'refuse'; readonly code: CrawlErrorCode; readonly message: string }
  | { readonly kind: 'pause'; readonly reason: string; readonly retryAt?: number | undefined }
  | { readonly kind: 'later' };

/** One entry on its way through the gates; `checked` is the guard's URL, which the fetch uses. */
export interface GateContext {
  readonly entry: FrontierEntry;
  /** The entry's URL parsed once (undefined when Node's parser refuses it: the guard says why). */
  readonly parsed: URL | undefined;
  /** Fetched again after a transient failure: the page cap and the host budget counted it already. */
  readonly retry: boolean;
  checked?: URL;
}

export type Gate = (c: GateContext) => GateVerdict | Promise<GateVerdict>;

/** What the gates read of the crawl. */
export interface GateDeps {
  scope(): CrawlScope;
  readonly seedForms: ReadonlySet<string>;
  readonly budget: HostBudget;
  readonly guard: Pick<NetworkGuard, 'checkUrl' | 'checkParsed'>;
  readonly robots: RobotsCache | undefined;
  readonly politeness: Politeness;
  /** Fetches of an unreachable robots.txt before its host's entries wait for the next run. */
  readonly robotsAttempts: number;
  /** The crawl takes no new work; `aborted`: and in-flight work stops. */
  stopping(): boolean;
  aborted(): boolean;
  /** Pages started in this run, against `maxPages`. */
  readonly pages: { started: number; readonly max: number };
}

const GO: GateVerdict = { kind: 'go' };
const LATER: GateVerdict = { kind: 'later' };

/** The gates, in order. */
export function fetchGates(d: GateDeps): Gate[] {
  const scope: Gate = (c) => {
    const url = c.entry.url;
    const verdict = d.scope().checkParsed(c.parsed, url);
    return verdict === 'in' || d.seedForms.has(url) ? GO : { kind: 'refuse', code: 'ERR_OUT_OF_SCOPE', message: `not fetched: ${verdict}` };
  };
  const hostBudget: Gate = (c) => (d.budget.spent(c.entry.host) ? { kind: 'pause', reason: 'trap:host-budget' } : GO);
  const guard: Gate = (c) => {
    try {
      c.checked = c.parsed === undefined ? d.guard.checkUrl(c.entry.url) : d.guard.checkParsed(c.parsed, c.entry.url);
      return GO;
    } catch (error) {
      if (!(error instanceof UrlError)) throw error;
      return { kind: 'refuse', code: error.code, message: error.message };
    }
  };
  const robots: Gate = async (c) => {
    if (d.robots === undefined) return GO;
    const u = c.checked!;
    const r = await d.robots.entry(u.origin, c.entry.host);
    if (d.stopping() && d.aborted()) return LATER;
    d.politeness.setCrawlDelay(c.entry.host, r.policy.crawlDelay);
    if (r.state === 'unreachable' && (r.error === 'ERR_BLOCKED_ADDRESS' || r.error === 'ERR_DNS')) {
      // the page would fail the same way: no point waiting for a retry
      return { kind: 'refuse', code: r.error, message: `robots.txt of ${u.origin} could not be fetched` };
    }
    if (r.state === 'unreachable') return { kind: 'pause', reason: 'robots-unreachable', retryAt: r.failures < d.robotsAttempts ? r.expires : undefined };
    return r.policy.isAllowed(u.pathname + u.search) ? GO : { kind: 'refuse', code: 'ERR_ROBOTS_DISALLOWED', message: 'robots.txt disallows it' };
  };
  const pageCap: Gate = (c) => {
    if (d.stopping() || (!c.retry && d.pages.started >= d.pages.max)) return LATER;
    if (c.retry) return GO;
    if (!d.budget.take(c.entry.host)) return { kind: 'pause', reason: 'trap:host-budget' };
    d.pages.started++;
    return GO;
  };
  return [scope, hostBudget, guard, robots, pageCap];
}

/** The first verdict that is not `go`, or `go` when every gate passes. */
export async function passGates(gates: readonly Gate[], c: GateContext): Promise<GateVerdict> {
  for (const gate of gates) {
    const v = await gate(c);
    if (v.kind !== 'go') return v;
  }
  return GO;
}
