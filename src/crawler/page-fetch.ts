/**
 * One frontier entry fetched: the request (redirect hops offered to follow-redirect.ts, an HTML
 * body streamed into the link extractor), then its answer handed to fetch-outcome.ts. A fleet
 * worker fetches only while it surely holds the host's lease (lease-watch.ts): a fetch its lease
 * ran out under is recorded by nobody here, and the host's next holder queues it again.
 */
import type { Logger } from 'pino';
import { isFleetMember, type FrontierEntry, type SeenStore } from '../store/index.js';
import type { CrawlEvents } from './crawl-events.js';
import { LinkExtractor, type ExtractOptions } from './extract.js';
import type { Fetcher, FetchResult, ResponseHead } from './fetch.js';
import type { FetchOutcome } from './fetch-outcome.js';
import { mayFollowRedirect, type RedirectContext } from './follow-redirect.js';
import { watchLease } from './lease-watch.js';
import { HTML_TYPES, SniffingSink } from './mime-sniff.js';

/** What a page fetch reads of its crawl. */
export interface PageFetchDeps {
  readonly store: () => SeenStore;
  readonly redirects: () => RedirectContext;
  readonly fetcher: Fetcher;
  readonly outcome: FetchOutcome;
  readonly events: CrawlEvents;
  readonly log: Logger;
  /** Keys a task holds: the redirect targets this fetch followed are released at its end. */
  readonly claimed: Set<string>;
  readonly signal: AbortSignal;
  readonly extract: Omit<ExtractOptions, 'charset'>;
  readonly keepBodies: boolean;
}

/** Fetch `entry` of `host` (`checked`: its URL as the gates parsed it) and record what it answered. */
export async function fetchPage(d: PageFetchDeps, entry: FrontierEntry, host: string, checked: URL): Promise<void> {
  const store = d.store();
  const fleet = isFleetMember(store) ? store : undefined;
  if (fleet !== undefined && !fleet.holds(host)) return void d.log.info({ host, url: entry.url }, 'lease lost: not fetched');
  const lease = fleet === undefined ? undefined : watchLease(fleet, host, d.signal);
  const followed: string[] = [];
  let extractor: LinkExtractor | undefined;
  const makeExtractor = (head: ResponseHead): LinkExtractor =>
    (extractor = new LinkExtractor(head.url, { ...d.extract, ...(head.charset === undefined ? {} : { charset: head.charset }) }));
  let res: FetchResult;
  try {
    res = await d.fetcher.fetch(entry.url, {
      checked,
      signal: lease?.signal ?? d.signal,
      ...(d.keepBodies ? { keepBody: true } : {}),
      onRedirect: (hop) => mayFollowRedirect(d.redirects(), hop, host, followed),
      onHead: (head) => {
        if (head.status < 200 || head.status >= 300 || !head.decodable) return undefined;
        if (head.mediaType === undefined) return new SniffingSink(() => makeExtractor(head));
        return HTML_TYPES.has(head.mediaType) ? makeExtractor(head) : undefined;
      },
    });
    // aborted because the lease lapsed: nothing is recorded (the host's next holder fetches it)
    if (lease?.lost === true) return void d.log.info({ host, url: entry.url }, 'lease lost: fetch aborted');
    await d.outcome.record(entry, res, extractor);
    d.events.emit('sample', { now: Date.now() });
  } finally {
    lease?.stop();
    for (const k of followed) d.claimed.delete(k);
  }
}
