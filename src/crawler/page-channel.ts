/**
 * The crawl's pages as an async iterator, with backpressure: a consumer more than 64 pages behind
 * slows the crawl instead of filling memory. Pages fetched before an iterator is attached are not
 * kept.
 */
import type { FetchRecord, FrontierEntry } from '../store/index.js';
import type { CrawledPage } from './crawl-options.js';
import type { ExtractResult } from './html/extract.js';
import type { FetchResult } from './http/fetch.js';

/** Pages buffered before the producer waits for the consumer. */
const PAGES_AHEAD = 64;

export interface PageSource {
  /** The crawl has ended and no task is left. */
  ended(): boolean;
  /** Settles when the crawl's report is ready (or the crawl failed). */
  done(): Promise<unknown>;
  /** The consumer went away (`break` out of `for await`): the crawl stops. */
  stop(): void;
  readonly signal: AbortSignal;
}

export class PageChannel {
  /** An iterator is attached. */
  iterating = false;
  private readonly pages: CrawledPage[] = [];
  private pageWaiter: (() => void) | undefined;
  private spaceWaiter: (() => void) | undefined;

  constructor(private readonly source: PageSource) {}

  /** A task ended: a producer waiting for room may go on when there is room. */
  taskEnded(): void {
    if (this.spaceWaiter !== undefined && this.pages.length < PAGES_AHEAD) this.spaceWaiter();
  }

  /** Hand `page` to the iterator; resolves when there is room for the next one. */
  async push(page: CrawledPage): Promise<void> {
    if (!this.iterating) return;
    this.pages.push(page);
    this.pageWaiter?.();
    // backpressure: a slow consumer slows the crawl instead of filling memory
    while (this.iterating && this.pages.length >= PAGES_AHEAD && !this.source.signal.aborted) {
      await new Promise<void>((res) => (this.spaceWaiter = res));
      this.spaceWaiter = undefined;
    }
  }

  /** The crawl ended: wake a waiting consumer so it sees the end. */
  end(): void {
    this.pageWaiter?.();
  }

  iterator(): AsyncIterator<CrawledPage> {
    this.iterating = true;
    return {
      next: async (): Promise<IteratorResult<CrawledPage>> => {
        for (;;) {
          const page = this.pages.shift();
          if (page !== undefined) {
            this.spaceWaiter?.();
            return { value: page, done: false };
          }
          if (this.source.ended()) {
            await this.source.done().catch(() => undefined);
            if (this.pages.length === 0) return { value: undefined, done: true };
            continue;
          }
          await new Promise<void>((res) => (this.pageWaiter = res));
          this.pageWaiter = undefined;
        }
      },
      return: async (): Promise<IteratorResult<CrawledPage>> => {
        this.iterating = false;
        this.spaceWaiter?.();
        this.source.stop();
        return { value: undefined, done: true };
      },
    };
  }
}

/** The page given to `onPage` and the iterator: what was fetched for `entry`, and its links. */
export function crawledPage(entry: FrontierEntry, res: FetchResult, x: ExtractResult | undefined, admitted: number, contentLocation?: string): CrawledPage {
  return {
    url: entry.url,
    finalUrl: res.finalUrl,
    depth: entry.depth,
    status: res.status,
    ...(res.mediaType === undefined ? {} : { mediaType: res.mediaType }),
    ...(res.contentHash === undefined ? {} : { contentHash: res.contentHash }),
    hops: res.hops,
    links: x === undefined ? [] : x.links.map((l) => l.url),
    admitted,
    ...(x?.canonical === undefined ? {} : { canonical: x.canonical }),
    ...(contentLocation === undefined ? {} : { contentLocation }),
    ...(res.body === undefined ? {} : { body: res.body }),
    ...(res.error === undefined ? {} : { error: { code: res.error.code, message: res.error.message } }),
    requests: res.requests,
    elapsedMs: Math.round(res.elapsedMs),
  };
}

/**
 * What the store records of a page fetched at `final` (`recordFetch`): its status and hashes, and
 * the names the answer gave itself (`Content-Location`, `rel=canonical` in its head or its `Link`
 * header: link-header.ts `pageCanonical`), evidence for the learner checked like a redirect.
 */
export function fetchRecordOf(res: FetchResult, x: ExtractResult | undefined, final: string, contentLocation: string | undefined, canonical: string | undefined): FetchRecord {
  return {
    status: res.status,
    ...(res.contentHash === undefined ? {} : { contentHash: res.contentHash }),
    ...(x === undefined ? {} : { shapeHash: x.shapeHash, stableHash: x.stableHash, echoFreeHash: x.echoFreeHash, ...(x.wordSketch === '' ? {} : { wordSketch: x.wordSketch }), ...(x.mainHash === undefined ? {} : { mainHash: x.mainHash }), ...(x.titleHash === undefined ? {} : { titleHash: x.titleHash }) }),
    ...(contentLocation === undefined || contentLocation === final ? {} : { contentLocation }),
    ...(canonical === undefined || canonical === final ? {} : { canonical }),
  };
}
