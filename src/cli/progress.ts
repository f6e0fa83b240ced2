/**
 * What `urldedup crawl` shows while it runs.
 * - On a terminal: one live line, redrawn in place, that fits the terminal's width (the fields
 *   that do not fit are left out, least useful first), so a redraw never leaves a wrapped line.
 * - Elsewhere (nohup, systemd, CI): a log record every `--stats-interval` seconds, as Scrapy's
 *   LogStats and Crawlee's status messages do, in the log's own format.
 */
import type { CrawlProgress } from '../crawler/index.js';

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The figures of a progress report, with what follows from them (requests per document, ETA). */
export function progressFigures(p: CrawlProgress): Record<string, number | string> {
  const perDocument = p.documents > 0 ? Math.round((p.requests / p.documents) * 100) / 100 : undefined;
  // the queue as it stands, at the rate so far: it grows while pages are found, so it is a floor
  const eta = p.pagesPerSecond > 0 && p.queued > 0 ? duration(p.queued / p.pagesPerSecond) : undefined;
  return {
    pagesPerSecond: p.pagesPerSecond,
    fetched: p.pagesFetched,
    queued: p.queued,
    documents: p.documents,
    ...(perDocument === undefined ? {} : { requestsPerDocument: perDocument }),
    ...(eta === undefined ? {} : { eta }),
    inFlight: p.inFlight,
    duplicates: p.duplicatesAvoided,
    pruned: p.pruned,
    errors: p.errors,
    elapsed: duration(p.elapsedMs / 1000),
  };
}

/**
 * The live line, at most `columns - 1` characters (the last column left free: some terminals wrap
 * on it). Fields in order of use; those that do not fit are dropped from the end.
 */
export function progressLine(p: CrawlProgress, columns: number): string {
  const f = progressFigures(p);
  const fields = [
    `${p.pagesPerSecond} pages/s`,
    `${p.pagesFetched} fetched`,
    `${p.queued} queued`,
    `${p.documents} docs`,
    ...(f.requestsPerDocument === undefined ? [] : [`${f.requestsPerDocument} req/doc`]),
    ...(f.eta === undefined ? [] : [`ETA ≥${f.eta}`]),
    `${p.inFlight} in flight`,
    `${p.duplicatesAvoided} dup`,
    `${p.errors} err`,
  ];
  const width = Math.max(10, columns - 1);
  let line = '';
  for (const field of fields) {
    const next = line === '' ? field : `${line} · ${field}`;
    if (next.length > width) break;
    line = next;
  }
  return line === '' ? fields[0]!.slice(0, width) : line;
}
