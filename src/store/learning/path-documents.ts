/**
 * The documents fetched under each bare path of a host (the learner's `q` evidence entries:
 * keys.ts `pathDocument`), where content-pairs.ts looks for parameter pairs on every fetch.
 *
 * A host's entries are read once, in one pass, and then followed by the written batches (the
 * rule book's `wrote` calls `written`), so a fetch does not open a database iterator to learn
 * that its path has no other document, which is nearly always the answer. A host with more than
 * `HOST_ENTRIES` entries is not kept (each fetch reads its own path, as before), nor is a read
 * that a write to the host's entries overtook; the hosts read last are kept, up to `ALL_ENTRIES`
 * entries in all.
 */
import { evidenceKeys, prefixRange, SEP, startsWithRange } from '../keys.js';
import type { Kv, KvOp } from '../backends/kv.js';
import { foldCase, stemOf } from './path-variants.js';
import { bareParameterPath } from './parameter-difference.js';
import { recordOfKey } from '../engine/url-state.js';

/** Entries of one host kept at most. */
const HOST_ENTRIES = 20_000;
/** Entries of all hosts kept at most. */
const ALL_ENTRIES = 200_000;

const PREFIX = evidenceKeys.pathDocumentPrefix('', '').slice(0, -2 * SEP.length);

/**
 * Insert `w` into the sorted list `list` (no duplicates). Keys are ASCII (key-format.md), where
 * `<` is the database's order.
 */
function insertSorted(list: string[], w: string): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const m = list[mid]!;
    if (m === w) return;
    if (m < w) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, w);
}

/** One host's entries: bare path → document keys in database order. */
type HostDocuments = Map<string, string[]>;

/** One host's paths by folded stem (path-variants.ts): the names that may be variants of each other. */
type HostStems = Map<string, Set<string>>;

function stemKey(path: string): string {
  return foldCase(stemOf(path));
}

function addStem(stems: HostStems, path: string): void {
  const k = stemKey(path);
  let set = stems.get(k);
  if (set === undefined) stems.set(k, (set = new Set()));
  set.add(path);
}

export class PathDocuments {
  private readonly hosts = new Map<string, HostDocuments>();
  private readonly stems = new Map<string, HostStems>();
  private readonly sizes = new Map<string, number>();
  /** Hosts found with more than `HOST_ENTRIES` entries. */
  private readonly large = new Set<string>();
  private total = 0;
  /** Written batches that changed an entry, per host. */
  private readonly writes = new Map<string, number>();

  /** `keep`: false reads each path's entries on every call (for a learner without the engine's state). */
  constructor(
    private readonly kv: Pick<Kv, 'entries'>,
    private readonly keep = true,
  ) {}

  /** The operations of a written batch. */
  written(ops: readonly KvOp[]): void {
    for (const op of ops) {
      if (op.space !== 'evidence' || !op.key.startsWith(PREFIX)) continue;
      const hostEnd = op.key.indexOf(SEP, PREFIX.length);
      const keyStart = op.key.lastIndexOf(SEP) + 1;
      if (hostEnd < 0 || keyStart <= hostEnd + 1) continue;
      const host = op.key.slice(PREFIX.length, hostEnd);
      this.writes.set(host, (this.writes.get(host) ?? 0) + 1);
      const docs = this.hosts.get(host);
      if (docs === undefined) continue;
      const path = op.key.slice(hostEnd + 1, keyStart - 1);
      const w = op.key.slice(keyStart);
      let list = docs.get(path);
      const before = list?.length ?? 0;
      if (op.value !== undefined) {
        if (list === undefined) {
          docs.set(path, (list = []));
          addStem(this.stems.get(host)!, path);
        }
        insertSorted(list, w);
      } else if (list !== undefined) {
        const i = list.indexOf(w);
        if (i >= 0) list.splice(i, 1);
        if (list.length === 0) {
          docs.delete(path);
          this.stems.get(host)!.get(stemKey(path))?.delete(path);
        }
      }
      const grown = (list?.length ?? 0) - before;
      this.sizes.set(host, this.sizes.get(host)! + grown);
      this.total += grown;
      if (this.sizes.get(host)! > HOST_ENTRIES) {
        this.drop(host);
        this.large.add(host);
      }
    }
    while (this.total > ALL_ENTRIES && this.hosts.size > 0) this.drop(this.hosts.keys().next().value!);
  }

  clear(): void {
    this.hosts.clear();
    this.stems.clear();
    this.sizes.clear();
    this.large.clear();
    this.total = 0;
    for (const host of this.writes.keys()) this.writes.set(host, this.writes.get(host)! + 1);
  }

  /**
   * Documents of `host` under the paths `want` accepts whose `image` (a key, or undefined) is a
   * document of the host too, as `[key, image]`, at most `limit`: from the kept table only (a host
   * too large to keep gives none).
   */
  async pairs(host: string, want: (barePath: string) => boolean, image: (key: string) => string | undefined, limit: number): Promise<[string, string][]> {
    const docs = this.hosts.get(host) ?? (!this.keep || this.large.has(host) ? undefined : await this.load(host));
    const out: [string, string][] = [];
    if (docs === undefined) return out;
    for (const [path, keys] of docs) {
      if (!want(path)) continue;
      for (const key of keys) {
        const to = image(key);
        if (to === undefined || to === key || !(docs.get(bareParameterPath(recordOfKey(to).path)) ?? []).includes(to)) continue;
        out.push([key, to]);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  /**
   * The first `limit` document keys under `barePath` of `host`, in database order: what an
   * iterator over `pathDocumentPrefix(host, barePath)` would read.
   */
  async documents(host: string, barePath: string, limit: number): Promise<readonly string[]> {
    const docs = this.hosts.get(host) ?? (!this.keep || this.large.has(host) ? undefined : await this.load(host));
    if (docs !== undefined) return (docs.get(barePath) ?? []).slice(0, limit);
    const out: string[] = [];
    for await (const [k] of this.kv.entries('evidence', { ...prefixRange(evidenceKeys.pathDocumentPrefix(host, barePath)), limit })) {
      out.push(k.slice(k.lastIndexOf(SEP) + 1));
    }
    return out;
  }

  /**
   * Documents under other paths of `host` that may be variants of `barePath` (path-variants.ts):
   * the same stem in any case, or, on a host too large to keep, the same stem as written. At most
   * `limit` of them, as `[path, key]`.
   */
  async variants(host: string, barePath: string, limit: number): Promise<[string, string][]> {
    const docs = this.hosts.get(host) ?? (!this.keep || this.large.has(host) ? undefined : await this.load(host));
    const out: [string, string][] = [];
    if (docs !== undefined) {
      // the names that differ only in case first: the case rule's pairs are never sampled away
      const folded = foldCase(barePath);
      const paths = [...(this.stems.get(host)?.get(stemKey(barePath)) ?? [])].sort((a, b) => Number(foldCase(b) === folded) - Number(foldCase(a) === folded));
      for (const path of paths) {
        if (path === barePath) continue;
        for (const w of docs.get(path) ?? []) {
          out.push([path, w]);
          if (out.length >= limit) return out;
        }
      }
      return out;
    }
    const stem = stemOf(barePath);
    const prefix = evidenceKeys.pathDocumentPrefix(host, stem).slice(0, -SEP.length);
    for await (const [k] of this.kv.entries('evidence', { ...startsWithRange(prefix), limit: limit * 4 })) {
      const keyStart = k.lastIndexOf(SEP) + 1;
      const path = k.slice(prefix.length - stem.length, keyStart - 1);
      if (path === barePath || stemOf(path) !== stem) continue;
      out.push([path, k.slice(keyStart)]);
      if (out.length >= limit) break;
    }
    return out;
  }

  private drop(host: string): void {
    this.stems.delete(host);
    if (!this.hosts.delete(host)) return;
    this.total -= this.sizes.get(host) ?? 0;
    this.sizes.delete(host);
  }

  /** Read all of `host`'s entries; undefined when there are too many or a write overtook the read. */
  private async load(host: string): Promise<HostDocuments | undefined> {
    const writes = this.writes.get(host) ?? 0;
    const prefix = evidenceKeys.pathDocumentPrefix(host, '').slice(0, -SEP.length);
    const docs: HostDocuments = new Map();
    let n = 0;
    for await (const [k] of this.kv.entries('evidence', { ...prefixRange(prefix), limit: HOST_ENTRIES + 1 })) {
      if (++n > HOST_ENTRIES) {
        this.large.add(host);
        return undefined;
      }
      const keyStart = k.lastIndexOf(SEP) + 1;
      const path = k.slice(prefix.length, keyStart - 1);
      let list = docs.get(path);
      if (list === undefined) docs.set(path, (list = []));
      list.push(k.slice(keyStart));
    }
    if ((this.writes.get(host) ?? 0) !== writes) return undefined;
    this.hosts.set(host, docs);
    const stems: HostStems = new Map();
    for (const path of docs.keys()) addStem(stems, path);
    this.stems.set(host, stems);
    this.sizes.set(host, n);
    this.total += n;
    while (this.total > ALL_ENTRIES && this.hosts.size > 1) this.drop(this.hosts.keys().next().value!);
    return docs;
  }
}
