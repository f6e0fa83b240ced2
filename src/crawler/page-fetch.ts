/**
 * One frontier entry fetched: the request (redirect hops offered to follow-redirect.ts, an HTML
 * body streamed into the link extractor), then its answer handed to fetch-outcome.ts. The fetch
 * runs under the store's hold on its host (`SeenStore.holdHost`): a fleet worker starts it only
 * while it holds the host's lease and aborts it when the lease lapses, and what it answered then
 * is recorded by nobody here (the host's next holder queues it again).
 */
import type { Logger } from 'pino';
import type { FrontierEntry, SeenStore } from '../store/index.js';
import type { CrawlEvents } from './crawl-events.js';
import { LinkExtractor, type ExtractOptions } from './html/extract.js';
import type { Fetcher, FetchResult, ResponseHead } from './http/fetch.js';
import type { FetchOutcome } from './http/fetch-outcome.js';
import { mayFollowRedirect, type RedirectContext } from './follow-redirect.js';
import { HTML_TYPES, SniffingSink } from './http/mime-sniff.js';

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
  const hold = d.store().holdHost(host, d.signal);
  if (hold === undefined) return void d.log.info({ host, url: entry.url }, 'lease lost: not fetched');
  const followed: string[] = [];
  let extractor: LinkExtractor | undefined;
  const makeExtractor = (head: ResponseHead): LinkExtractor =>
    (extractor = new LinkExtractor(head.url, { ...d.extract, ...(head.charset === undefined ? {} : { charset: head.charset }) }));
  let res: FetchResult;
  try {
    res = await d.fetcher.fetch(entry.url, {
      checked,
      signal: hold.signal,
      ...(d.keepBodies ? { keepBody: true } : {}),
      onRedirect: (hop) => mayFollowRedirect(d.redirects(), hop, host, followed),
      onHead: (head) => {
        if (head.status < 200 || head.status >= 300 || !head.decodable) return undefined;
        if (head.mediaType === undefined) return new SniffingSink(() => makeExtractor(head));
        return HTML_TYPES.has(head.mediaType) ? makeExtractor(head) : undefined;
      },
    });
    // aborted because the lease lapsed: nothing is recorded (the host's next holder fetches it)
    if (hold.lost) return void d.log.info({ host, url: entry.url }, 'lease lost: fetch aborted');
    await d.outcome.record(entry, res, extractor);
    d.events.emit('sample', { now: Date.now() });
  } finally {
    hold.stop();
    for (const k of followed) d.claimed.delete(k);
  }
}
