/**
 * The crawl-side oracles of docs/reliability.md, read from a closed store folder:
 *
 * - O3 `verify()` (the store's own fsck) with no problems;
 * - O4 conservation: admitted = queued + fetched + redirected + pruned + failed (`stats()`);
 * - "every URL ends in a terminal state with a code": each `url` entry read raw from LevelDB is
 *   `fetched` with an HTTP status, `failed` with an error code (or the 5xx status it failed
 *   with), `redirected` with a 3xx status and a target, or `pruned` with a reason; `queued` is
 *   listed too, for the caller to judge (a host deferred for a later run).
 *
 * The raw read goes through the `level` package on the folder (the store is closed first), so the
 * audit sees exactly what a restart would see. It reads; it never writes.
 */
import { Level } from 'level';
import { unseal } from '../../src/store/backends/leveldb/record-checksum.js';
import { decodeUrlEntry, type UrlEntry } from '../../src/store/keys.js';
import type { PresetName } from '../../src/normalize/index.js';
import { openStore, type StoreStats } from '../../src/store/index.js';

/** One `url` entry as stored. */
export interface StoredUrl {
  readonly key: string;
  readonly entry: UrlEntry;
}

/** Every `url` entry of the store folder `dir` (which must not be open elsewhere). */
export async function readUrlEntries(dir: string): Promise<StoredUrl[]> {
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    const url = db.sublevel<string, string>('url', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    const out: StoredUrl[] = [];
    const prefix = url.prefixKey('', 'utf8');
    for await (const [key, stored] of url.iterator()) {
      // (each value carries the store's checksum: src/store/backends/leveldb/record-checksum.ts)
      const value = unseal(prefix + key, stored);
      if (value === undefined) throw new Error(`url ${key}: the record fails its checksum`);
      out.push({ key, entry: decodeUrlEntry(value) });
    }
    return out;
  } finally {
    await db.close();
  }
}

/** Why an entry is not in a terminal state with a code, or undefined when it is. */
export function notTerminal(e: UrlEntry): string | undefined {
  switch (e.s) {
    case 'fetched':
      return e.st !== undefined && e.st > 0 ? undefined : 'fetched without an HTTP status';
    case 'failed':
      // an error code, or the HTTP status of a 5xx answer (the store keeps 5xx as failed)
      return (e.e !== undefined && e.e !== '') || (e.st !== undefined && e.st >= 500) ? undefined : 'failed without an error code or a 5xx status';
    case 'redirected':
      return e.st !== undefined && e.st >= 300 && e.st < 400 && e.to !== undefined ? undefined : 'redirected without a 3xx status and a target';
    case 'pruned':
      return e.by !== undefined ? undefined : 'pruned without a reason';
    case 'queued':
      return 'queued';
  }
}

export interface AuditOptions {
  /** The presets the store was crawled with (opening without them would restore their URLs). */
  readonly presets?: readonly PresetName[];
}

export interface Audit {
  readonly stats: StoreStats;
  readonly problems: readonly string[];
  readonly entries: readonly StoredUrl[];
  /** Entries not in a terminal state with a code (queued ones included), as `key: why`. */
  readonly open: readonly string[];
  /** Counts by state and by failure code (`HTTP <status>` for a 5xx without one). */
  readonly byState: Readonly<Record<string, number>>;
  readonly byError: Readonly<Record<string, number>>;
  /** admitted − (queued + fetched + redirected + pruned + failed): 0 when conservation holds. */
  readonly conservationGap: number;
}

/** O3, O4 and the terminal-state check on a closed store folder. */
export async function auditStore(dir: string, options: AuditOptions = {}): Promise<Audit> {
  const store = await openStore(dir, { presets: [...(options.presets ?? [])] });
  let stats: StoreStats;
  let problems: readonly string[];
  try {
    problems = (await store.verify()).problems;
    stats = await store.stats();
  } finally {
    await store.close();
  }
  const entries = await readUrlEntries(dir);
  const open: string[] = [];
  const byState: Record<string, number> = {};
  const byError: Record<string, number> = {};
  for (const { key, entry } of entries) {
    byState[entry.s] = (byState[entry.s] ?? 0) + 1;
    if (entry.s === 'failed') {
      const code = entry.e ?? `HTTP ${entry.st ?? '?'}`;
      byError[code] = (byError[code] ?? 0) + 1;
    }
    const why = notTerminal(entry);
    if (why !== undefined) open.push(`${key}: ${why}`);
  }
  const u = stats.urls;
  const conservationGap = u.admitted - (u.queued + u.fetched + u.redirected + u.pruned + u.failed);
  return { stats, problems, entries, open, byState, byError, conservationGap };
}

/** A one-line summary for test logs. */
export function describeAudit(a: Audit): string {
  const u = a.stats.urls;
  return `admitted ${u.admitted} = queued ${u.queued} + fetched ${u.fetched} + redirected ${u.redirected} + pruned ${u.pruned} + failed ${u.failed}; errors ${JSON.stringify(a.byError)}`;
}
