/**
 * The end of a run: the fetcher closed, what was handed out and not fetched given back to the
 * store (paused hosts' entries, entries taken after a stop), the report built from the store's
 * figures and rules, and the store closed when the crawl opened it.
 */
import type { FrontierEntry, RuleRecord, SeenStore } from '../store/index.js';
import type { CrawlEvents } from './crawl-events.js';
import type { CrawlRecord } from './report/crawl-observers.js';
import { seedStates } from './crawl-store.js';
import type { Fetcher } from './http/fetch.js';
import type { CrawlReport, StopReason } from './report/report.js';

/** Active rules the report lists, at most. */
const REPORT_RULES = 1000;

export interface FinishInput {
  readonly fetcher: Fetcher;
  /** Undefined when the store never opened. */
  readonly store: SeenStore | undefined;
  readonly ownsStore: boolean;
  readonly seeds: readonly string[];
  /** Paused hosts, each with the entries it holds. */
  readonly paused: readonly { readonly reason: string; readonly entries: readonly FrontierEntry[] }[];
  /** URLs handed out and never started. */
  readonly unstarted: readonly string[];
  /** Why the run stopped, when something stopped it; otherwise the cause is read from the run. */
  readonly stopReason: StopReason | undefined;
  readonly maxPagesReached: boolean;
  /** A failure already met: no report is built, the store is still closed. */
  readonly fatal: unknown;
  readonly events: CrawlEvents;
  readonly record: CrawlRecord;
}

/** Close the run: the report, or the failure that prevents one. */
export async function finishRun(x: FinishInput): Promise<{ report?: CrawlReport; reason: StopReason; error?: unknown }> {
  const held = x.paused.flatMap((p) => p.entries);
  const reason: StopReason = x.stopReason ?? (x.maxPagesReached ? 'max-pages' : held.length > 0 ? 'deferred' : 'done');
  for (const p of x.paused) x.events.emit('deferred', { reason: p.reason, urls: p.entries.length });
  let error = x.fatal;
  let report: CrawlReport | undefined;
  try {
    await x.fetcher.close().catch(() => undefined);
    if (x.store !== undefined) {
      const back = [...held.map((e) => e.url), ...x.unstarted];
      if (back.length > 0) await x.store.release(back).catch(() => undefined);
      if (error === undefined) {
        const stats = await x.store.stats();
        const rules: RuleRecord[] = [];
        for await (const r of x.store.rules()) {
          x.events.emit('rule', { rule: r });
          if (r.state === 'active' && rules.length < REPORT_RULES) rules.push(r);
        }
        x.events.emit('sample', { now: Date.now() });
        report = x.record.build(x.seeds, reason, stats, rules, await seedStates(x.store, x.seeds));
      }
      if (x.ownsStore) await x.store.close();
    }
  } catch (e) {
    error ??= e;
  }
  return { ...(report === undefined ? {} : { report }), reason, ...(error === undefined ? {} : { error }) };
}
