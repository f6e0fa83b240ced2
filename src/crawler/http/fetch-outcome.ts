/**
 * What a fetch's answer becomes (crawl.ts hands it over): a transient failure waits for a retry
 * (held-entries.ts) or is recorded failed for a later run; a redirect left to the frontier, a
 * loop and other failures are recorded with their code; a page's links are admitted before its
 * fetch is recorded (Promise 4: a kill between the two batches costs a re-fetch, never the
 * links), and pattern traps learn from its text. Every outcome is an event (crawl-events.ts) and,
 * where the caller reads pages, a page out.
 */
import type { Logger } from 'pino';
import type { FrontierEntry, SeenStore } from '../../store/index.js';
import type { CrawlEvents } from '../crawl-events.js';
import { hostOfUrl } from '../crawl-store.js';
import type { CrawlErrorCode } from '../errors.js';
import type { ExtractResult, LinkExtractor } from '../html/extract.js';
import type { FetchResult } from './fetch.js';
import type { HeldEntries } from '../held-entries.js';
import type { LinkIntake } from '../link-intake.js';
import { fetchRecordOf } from '../page-channel.js';
import { resolveContentLocation } from '../report/report.js';
import { transientCode } from './retry.js';
import { pageCanonical } from './link-header.js';
import type { CrawlScope } from '../policy/scope.js';
import type { PatternTraps } from '../policy/traps.js';

/** What the outcome reads and writes of the crawl. */
export interface OutcomeDeps {
  store(): SeenStore;
  scope(): CrawlScope;
  readonly events: CrawlEvents;
  readonly log: Logger;
  readonly held: HeldEntries;
  readonly intake: LinkIntake;
  readonly patterns: PatternTraps;
  /** Entries handed out but not fetched (stopped): given back at the end. */
  readonly unstarted: string[];
  /** The crawl takes no new work. */
  stopping(): boolean;
  /** The page out to `onPage` and the iterator. */
  emitPage(entry: FrontierEntry, res: FetchResult, x: ExtractResult | undefined, admitted: number, contentLocation?: string): Promise<void>;
}

export class FetchOutcome {
  constructor(private readonly d: OutcomeDeps) {}

  /** `url` is not fetched (scope, guard, robots.txt): recorded failed with `code`. */
  async refuse(url: string, code: CrawlErrorCode, message: string): Promise<void> {
    this.d.events.emit('refused', { url, host: hostOfUrl(url), code });
    await this.recordFailure(url, 0, code, message);
  }

  async recordFailure(url: string, status: number, code: CrawlErrorCode, message: string): Promise<void> {
    this.d.log.info({ url, status, code }, message);
    await this.d.store().recordFetch(url, { status, error: code });
  }

  async record(entry: FrontierEntry, res: FetchResult, extractor: LinkExtractor | undefined): Promise<void> {
    const d = this.d;
    const store = d.store();
    const { host } = entry;
    d.events.emit('transferred', { host, requests: res.requests, wireBytes: res.wireBytes, decodedBytes: res.decodedBytes });
    const final = res.finalUrl;
    const err = res.error;
    if (err?.code === 'ERR_ABORTED' && d.stopping()) return void d.unstarted.push(entry.url); // stays queued for a later run
    const transient = err?.code === 'ERR_ABORTED' ? undefined : transientCode(res.status, err?.code);
    if (transient !== undefined && d.held.retryLater(entry, res)) return;
    if (res.unfollowed !== undefined && err === undefined) {
      // a redirect recorded and left to the frontier (another origin, or a target already known)
      d.log.debug({ url: final, to: res.unfollowed.location, status: res.status }, 'redirect');
      return d.emitPage(entry, res, undefined, 0);
    }
    const hop = res.unfollowed;
    if (transient !== undefined) {
      // retries of this run used up: failed, and queued again by a run after the cool-down
      const url = hop?.url ?? final;
      d.events.emit('failed', { url, host: hostOfUrl(url), code: transient, status: res.status, pending: true });
      await this.recordFailure(url, res.status, transient, err?.message ?? `status ${res.status}`);
      return d.emitPage(entry, res, undefined, 0);
    }
    if (err !== undefined) {
      // the hop that stopped the chain was not offered to onRedirect
      if (hop !== undefined) d.events.emit('redirected', { from: hop.url, to: hop.location, status: hop.status });
      if (hop !== undefined && err.code === 'ERR_REDIRECT_LOOP') {
        // the loop is evidence like any redirect: the store records it as a loop
        d.events.emit('failed', { url: hop.url, host, code: err.code, pending: false });
        await store.recordRedirect(hop.url, hop.location, hop.status);
      } else {
        const url = hop?.url ?? final;
        d.events.emit('failed', { url, host: hostOfUrl(url), code: err.code, status: res.status, pending: false });
        await this.recordFailure(url, res.status, err.code, err.message);
      }
      return d.emitPage(entry, res, undefined, 0);
    }
    const x = extractor?.result();
    // a not-found probe's page is the host's answer to a made-up URL: no link of it is followed,
    // unless the host redirected the probe to a URL without its made-up name (a "404 to home
    // page" plugin): that page is recorded fetched, so its links are the crawl's, or they would
    // never be read
    // (a case probe's name, lower-cased by the host, is still its made-up name)
    const page = entry.check === 'probe' && final.toLowerCase().includes(madeUpName(entry.url).toLowerCase()) ? undefined : x;
    const contentLocation = resolveContentLocation(res.headers['content-location'], final);
    const canonical = pageCanonical(x?.canonical, res.headers['link'], final);
    const { status, contentHash } = res;
    d.events.emit('fetched', { url: final, host, status, retried: d.held.retried(entry.key), contentHash, canonical: page === undefined && x !== undefined ? undefined : canonical, contentLocation });
    let admitted = 0;
    if (page !== undefined) {
      const admittedUrls: string[] = [];
      const tally = await d.intake.admit(store, d.scope(), entry, final, page, admittedUrls);
      admitted = tally.admitted;
      d.events.emit('links', { host, tally });
      if (status >= 200 && status < 300) {
        for (const pattern of d.patterns.observe({ url: final, requested: entry.url, host, textHash: page.textHash, admitted: admittedUrls, words: page.words, links: page.links.map((l) => l.url) })) {
          d.events.emit('trap', { host, pattern });
          d.log.info({ host, pattern }, 'trap: a URL pattern without new content, refused from now on');
        }
      }
    }
    // Promise 4 (nothing admitted is lost): the page's links are admitted before its fetch is
    // recorded. These are two batches; a crash between them now leaves the page queued (fetched
    // again on resume, its links then found seen) instead of recorded as fetched with its links
    // never admitted, which no later run would repair.
    await store.recordFetch(final, fetchRecordOf(res, x, final, contentLocation, canonical));
    d.log.debug({ url: final, status, requests: res.requests }, 'fetched');
    return d.emitPage(entry, res, x, admitted, contentLocation);
  }
}

/** The last path segment of a probe's URL: the name it made up. */
function madeUpName(url: string): string {
  const path = url.replace(/[?#].*$/, '');
  return path.slice(path.lastIndexOf('/') + 1);
}
