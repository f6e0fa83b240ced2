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
 *
 * A redirect target met during a fetch passes the same gates before the fetch follows it at once
 * (`redirectGates`), with three of its own: the same origin as the hop (robots.txt and politeness
 * are per origin), no path trap (a frontier entry met that limit at admission), and a URL the
 * store holds queued that no other task has claimed. Any verdict but `go` leaves the target to the
 * frontier, where it passes the gates again as an entry.
 */
import { UrlError } from '../../normalize/index.js';
import type { FrontierEntry } from '../../store/index.js';
import { FetchError, type CrawlErrorCode } from '../errors.js';
import type { NetworkGuard } from '../http/guard.js';
import type { Politeness } from './politeness.js';
import type { RobotsCache } from './robots.js';
import type { CrawlScope } from './scope.js';
import { pathTrap, type HostBudget, type TrapOptions } from './traps.js';

export type GateVerdict =
  | { readonly kind: 'go' }
  | { readonly kind: 'refuse'; readonly code: CrawlErrorCode; readonly message: string }
  | { readonly kind: 'pause'; readonly reason: string; readonly retryAt?: number | undefined }
  | { readonly kind: 'later' };

/** One URL on its way through the gates; `checked` is the guard's URL, which the fetch uses. */
export interface GateContext {
  /** A frontier entry, or a redirect target (its `url` the hop's location, `key` unknown until the claim gate). */
  readonly entry: Pick<FrontierEntry, 'url' | 'host'> & { key?: string };
  /** The URL parsed once (undefined when Node's parser refuses it: the guard says why). */
  readonly parsed: URL | undefined;
  /** Fetched again after a transient failure: the page cap and the host budget counted it already. */
  readonly retry: boolean;
  /** A redirect target's hop URL, parsed: the target must share its origin (`redirectGates`). */
  readonly from?: URL | undefined;
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

/** What the redirect gates read besides `GateDeps`. */
export interface RedirectGateDeps {
  readonly traps: TrapOptions | undefined;
  /** The target's state and key in the store. */
  canonical(url: string): Promise<{ readonly state: string; readonly key: string }>;
  /** Keys a task is fetching: a target one holds is not claimed twice. */
  readonly claimed: ReadonlySet<string>;
}

const GO: GateVerdict = { kind: 'go' };
const LATER: GateVerdict = { kind: 'later' };

/** The gates every URL passes, in order, but for the last: the page cap (entries) or the host budget (redirect targets). */
function commonGates(d: GateDeps, robotsCached: boolean): Gate[] {
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
      if (!(error instanceof UrlError) && !(error instanceof FetchError)) throw error;
      return { kind: 'refuse', code: error.code, message: error.message };
    }
  };
  const robots: Gate = async (c) => {
    if (d.robots === undefined) return GO;
    const u = c.checked!;
    // a redirect target is followed only where robots.txt is known already: no request waits on it
    const cached = robotsCached ? d.robots.peek(u.origin) : undefined;
    if (robotsCached && cached === undefined) return LATER;
    const r = cached ?? (await d.robots.entry(u.origin, c.entry.host));
    if (d.stopping() && d.aborted()) return LATER;
    d.politeness.setCrawlDelay(c.entry.host, r.policy.crawlDelay);
    if (r.state === 'unreachable' && (r.error === 'ERR_BLOCKED_ADDRESS' || r.error === 'ERR_DNS')) {
      // the page would fail the same way: no point waiting for a retry
      return { kind: 'refuse', code: r.error, message: `robots.txt of ${u.origin} could not be fetched` };
    }
    if (r.state === 'unreachable') return { kind: 'pause', reason: 'robots-unreachable', retryAt: r.failures < d.robotsAttempts ? r.expires : undefined };
    return r.policy.isAllowed(u.pathname + u.search) ? GO : { kind: 'refuse', code: 'ERR_ROBOTS_DISALLOWED', message: 'robots.txt disallows it' };
  };
  return [scope, hostBudget, guard, robots];
}

/** The gates of a frontier entry, in order. */
export function fetchGates(d: GateDeps): Gate[] {
  const pageCap: Gate = (c) => {
    if (d.stopping() || (!c.retry && d.pages.started >= d.pages.max)) return LATER;
    if (c.retry) return GO;
    if (!d.budget.take(c.entry.host)) return { kind: 'pause', reason: 'trap:host-budget' };
    d.pages.started++;
    return GO;
  };
  return [...commonGates(d, false), pageCap];
}

/**
 * The gates of a redirect target the fetch would follow at once, in order. The claim gate sets
 * `entry.key`; the last takes a page of the host's budget (a followed target is no frontier entry,
 * so `maxPages` does not count it).
 */
export function redirectGates(d: GateDeps, r: RedirectGateDeps): Gate[] {
  const sameOrigin: Gate = (c) => (c.parsed !== undefined && c.parsed.origin === c.from?.origin ? GO : LATER);
  const noTrap: Gate = (c) => (pathTrap(c.parsed?.pathname ?? '/', r.traps) === undefined ? GO : LATER);
  const claim: Gate = async (c) => {
    const k = await r.canonical(c.entry.url);
    if (k.state !== 'queued' || r.claimed.has(k.key)) return LATER;
    c.entry.key = k.key;
    return GO;
  };
  const hostBudget: Gate = (c) => (!d.stopping() && d.budget.take(c.entry.host) ? GO : LATER);
  const [scope, ...rest] = commonGates(d, true);
  return [sameOrigin, scope!, noTrap, ...rest, claim, hostBudget];
}

/** The first verdict that is not `go`, or `go` when every gate passes. */
export async function passGates(gates: readonly Gate[], c: GateContext): Promise<GateVerdict> {
  for (const gate of gates) {
    const v = await gate(c);
    if (v.kind !== 'go') return v;
  }
  return GO;
}
