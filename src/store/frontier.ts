/**
 * The frontier: a persistent FIFO queue per host, in discovery order.
 *
 * Layout. A batch that queues URLs of a host writes one *block* for that host:
 * `frontier/host SEP seq` → lines `depth SP key`, in the order the URLs were queued (at most
 * `BLOCK_LINES`; `seq` comes from the store-wide sequence, so a host's blocks sort in the order
 * they were written). The URL's `url` entry is the truth: a line is *live* while its URL is queued
 * at that block (`url.s = queued`, `url.h = host`, `url.n = seq`). Blocks are written once and
 * never edited; a block goes when no line of it is live. One block per host and batch, instead
 * of one entry per URL, halves the LevelDB writes of an admit.
 *
 * Leaving the queue is a change of the `url` entry (fetched, redirected, pruned, failed), made in
 * the same batch as the fetch it records. So a crash loses no URL and re-offers only those that
 * were handed out and not recorded (at most the crawler's concurrency); a URL recorded once is
 * never offered again.
 *
 * `next()` walks each host's blocks with an in-memory cursor, hands entries out round-robin over
 * hosts, checks each against its `url` entry, and marks it in flight (in memory only).
 */
import { decodeUrlEntry, frontierKey, parseFrontierKey, prefixRange, SEP } from './keys.js';
import type { Kv, KvOp } from './backends/kv.js';
import type { FrontierEntry, NextOptions } from './seen-store.js';
import { urlFromKey } from '../normalize/index.js';

/** Lines per block at most; a batch with more URLs of one host writes several blocks. */
export const BLOCK_LINES = 1024;

/** Discovery order of a line: its block's sequence number, then its place in the block. */
export function lineSeq(blockSeq: number, line: number): number {
  return blockSeq * BLOCK_LINES + line;
}

/** A key's line: `depth SP key`, or `depth SP rest` under a head line (the key is head + rest). */
export function blockLine(depth: number, key: string): string {
  return depth + ' ' + key;
}

/**
 * A head line, `@head`: the keys on the lines after it in the block (up to the next head line)
 * are `head` followed by what their line holds. A host's keys share their first characters
 * (reversed host, scheme, port: "org,example)https://"), so admit writes them once per block;
 * `@` alone goes back to whole keys. A depth never starts with "@", so the two kinds of line
 * cannot be confused, and a block with no head line (store layout 1) reads the same.
 */
export function headLine(head: string): string {
  return '@' + head;
}

/** A frontier block being written by a batch. */
export interface Block {
  readonly seq: number;
  readonly lines: string[];
  /** The head the block's next line is written under (`@head` lines). */
  head: string;
  /** Lines added by admit's `queueNew` (their frontier count is added at submit). */
  queued: number;
  /**
   * The `url` value of the entries `queueNew` queued at this block: every field of a new queued
   * entry (depth, time, block, host, source) is the batch's or the block's, so they share one string.
   */
  value: string | undefined;
  /** The depth, time and source `value` was made for. */
  valueOf: readonly [number, number, string | undefined] | undefined;
}

/** A check the learner asked for, queued in block `seq` of `host`: offered first once written. */
export interface UrgentLine {
  readonly key: string;
  readonly host: string;
  readonly seq: number;
  readonly depth: number;
}

/**
 * What one batch changes in the frontier: the blocks it writes (one open block per host, and the
 * full ones), the live-line counts of existing blocks, per-host queue deltas, the keys whose entry
 * leaves the queue, and the checks to offer first. The write batch (engine/batch.ts) holds one;
 * `Frontier.written` takes it once the batch is written.
 */
export class FrontierBatch {
  /** The open block per host. */
  private readonly open = new Map<string, Block>();
  private readonly full: (Block & { host: string })[] = [];
  /** Live-line counts of existing blocks after this batch (0: the block is deleted). */
  readonly blockLive = new Map<string, number>();
  /** Queued URLs per host, added (or taken, negative) by this batch. */
  readonly deltas = new Map<string, number>();
  /** Keys whose frontier entry ends (no longer in flight after the commit). */
  readonly landed: string[] = [];
  readonly urgent: UrgentLine[] = [];
  /** The next block's sequence number (the store-wide `seq` counter, on from where it was). */
  seq: number;

  constructor(seq: number) {
    this.seq = seq;
  }

  /** Count `delta` queued URLs on `host`. */
  adjust(host: string, delta: number): void {
    this.deltas.set(host, (this.deltas.get(host) ?? 0) + delta);
  }

  /** Offer `key`, queued in block `seq` of `host`, first once written. */
  urge(key: string, host: string, seq: number, depth: number): void {
    this.urgent.push({ key, host, seq, depth });
  }

  /** The hosts this batch writes blocks for. */
  get blockHosts(): Iterable<string> {
    return this.open.keys();
  }

  /** The sequence number of this batch's open block for `host`, if it has one. */
  openSeq(host: string): number | undefined {
    return this.open.get(host)?.seq;
  }

  /** Put `key` at `depth` into this batch's block for `host`; returns the block's sequence number. */
  place(host: string, depth: number, key: string): number {
    return this.blockFor(host, depth, '', key).seq;
  }

  /**
   * The block for `host` with room for one more line, with the key `head + rest` at `depth` in it:
   * a head line first when `head` is not the block's current head, then the line.
   */
  blockFor(host: string, depth: number, head: string, rest: string): Block {
    let b = this.open.get(host);
    if (b === undefined || b.lines.length >= BLOCK_LINES - 1) {
      if (b !== undefined) this.full.push({ host, ...b });
      b = { seq: this.seq++, lines: [], head: '', queued: 0, value: undefined, valueOf: undefined };
      this.open.set(host, b);
    }
    if (b.head !== head) {
      b.lines.push(headLine(head));
      b.head = head;
    }
    b.lines.push(blockLine(depth, rest));
    return b;
  }

  /** At submit: the blocks as `frontier` writes, and the lines queued into them counted per host. */
  seal(ops: KvOp[]): void {
    const write = (host: string, b: Block): void => {
      ops.push({ space: 'frontier', key: frontierKey(host, b.seq), value: b.lines.join('\n') });
      if (b.queued > 0) this.adjust(host, b.queued);
    };
    for (const b of this.full) write(b.host, b);
    for (const [host, b] of this.open) write(host, b);
  }
}

interface Line {
  readonly depth: number;
  readonly key: string;
}

function parseLine(text: string, head: string): Line {
  const sp = text.indexOf(' ');
  return { depth: Number(text.slice(0, sp)), key: head + text.slice(sp + 1) };
}

export function parseBlock(value: string): Line[] {
  if (value === '') return [];
  const out: Line[] = [];
  let head = '';
  for (const text of value.split('\n')) {
    if (text.charCodeAt(0) === 0x40 /* @ */) head = text.slice(1);
    else out.push(parseLine(text, head));
  }
  return out;
}

/** A block's lines as whole-key lines (no head lines): what two blocks are compared by. */
export function wholeLines(value: string): string {
  return parseBlock(value)
    .map((l) => blockLine(l.depth, l.key))
    .join('\n');
}

/**
 * A host's blocks read in one pass by `next()` (each is written once: see the layout above), and
 * the blocks read ahead that all hosts' cursors hold at most before they read one at a time.
 */
const READ_AHEAD = 8;
const HELD_AHEAD = 4096;
/** Entries held back for a rule being learned (`deferrable`), over all hosts; past it, none are held. */
const HELD_BACK = 65_536;

interface Cursor {
  /** The block being read, its lines, and the next line in it. */
  block: string | undefined;
  lines: readonly Line[];
  line: number;
  /** The last block read to its end ('' before the first). */
  after: string;
  /** Blocks after `block` read with it, [key, value], oldest first. */
  readonly ahead: [string, string][];
  /** A read found no block after `after`, and no batch has written one for the host since. */
  atEnd: boolean;
}

type UrlState = ReturnType<typeof decodeUrlEntry>;

interface Flying {
  readonly entry: FrontierEntry;
  readonly block: string;
  /** Its `url` entry as read when it was handed out, until a written batch changes it (`changed`). */
  state: UrlState | undefined;
}

export class Frontier {
  /**
   * Queued URLs per host, in flight included (mirrors the `frontier:<host>` counters); a host in
   * the ring whose count went to 0 stays here with 0 until the ring is compacted, so one map says
   * both (a set of the ring's hosts beside it cost a million entries more on a broad crawl).
   */
  private counts = new Map<string, number>();
  /** Hosts whose count is above 0. */
  private queuedHostCount = 0;
  private readonly flying = new Map<string, Flying>();
  private readonly flyingByHost = new Map<string, number>();
  /** Entries given back by `release`, and checks (`offerFirst`): offered first. */
  private readonly released = new Map<string, FrontierEntry[]>();
  /**
   * Entries `deferrable` held back, per host, in discovery order: offered once the cursor has
   * read the host's blocks to the end and none of its entries is in flight (their pages may link
   * more of the rest). Memory only: after a restart the cursor finds them queued where they were.
   */
  private readonly heldBack = new Map<string, FrontierEntry[][]>();
  private heldBackCount = 0;
  private readonly cursors = new Map<string, Cursor>();
  /** Blocks held in the cursors' `ahead` lists. */
  private heldAhead = 0;
  /** Live lines of the blocks read so far (a block's count is known from its first read on). */
  private readonly live = new Map<string, number>();
  /**
   * Hosts with entries, in the order they got their first one; `turn` walks it round-robin. A host
   * whose count went to 0 stays (the walk skips it) until the ring is compacted (`adjust`): taking
   * one out of the middle of an array is O(hosts), and a broad crawl drains hosts by the million.
   */
  private ring: string[] = [];
  /** Hosts in `ring` without entries, left for the compaction. */
  private gone = 0;
  private turn = 0;
  private total = 0;

  /**
   * Per-host deltas of the batches submitted and not yet written: with `counts`, a host's count as
   * the next batch builds on it (`queuedNext`; the `frontier:<host>` counter's next value).
   */
  private readonly pending = new Map<string, number>();

  /**
   * `deferrable`: 0 for a queued URL offered in discovery order, 1 for one offered after the rest
   * of its host's queue, 2 after those (a rule being learned would rewrite it:
   * learning/candidate-order.ts). Only the order changes.
   */
  constructor(
    private readonly kv: Kv,
    private readonly deferrable?: (key: string) => 0 | 1 | 2,
  ) {}

  /** `host`'s queued URLs as the next batch builds on it: written, and submitted since. */
  queuedNext(host: string): number {
    return (this.counts.get(host) ?? 0) + (this.pending.get(host) ?? 0);
  }

  /** A batch was submitted: its per-host deltas count for the next batch. */
  submitted(batch: FrontierBatch): void {
    for (const [host, delta] of batch.deltas) if (delta !== 0) this.addPending(host, delta);
  }

  /** A write failed: the batches submitted since the last written one are refused. */
  rollback(): void {
    this.pending.clear();
  }

  private addPending(host: string, delta: number): void {
    const n = (this.pending.get(host) ?? 0) + delta;
    if (n === 0) this.pending.delete(host);
    else this.pending.set(host, n);
  }

  /** Set at open from the counters (each count above 0): the map becomes the frontier's own. */
  load(counts: Map<string, number>): void {
    if (this.counts.size > 0) throw new Error('Frontier.load: a frontier is loaded once, when new');
    this.counts = counts;
    this.ring = [...counts.keys()];
    this.queuedHostCount = counts.size;
    for (const n of counts.values()) this.total += n;
  }

  /** Apply a committed change of one host's count of queued URLs. */
  adjust(host: string, delta: number): void {
    // undefined: not in the ring; 0: in the ring without entries
    const had = this.counts.get(host);
    const n = (had ?? 0) + delta;
    this.total += delta;
    if (n <= 0) {
      if (had !== undefined && had > 0) {
        this.counts.set(host, 0);
        this.queuedHostCount--;
        if (++this.gone > 1024 && this.gone * 2 > this.ring.length) this.compact();
      }
      this.heldAhead -= this.cursors.get(host)?.ahead.length ?? 0;
      this.cursors.delete(host);
      for (const tier of this.heldBack.get(host) ?? []) this.heldBackCount -= tier.length;
      this.heldBack.delete(host);
    } else {
      if (had === undefined) this.ring.push(host);
      else if (had === 0) this.gone--;
      if (had === undefined || had === 0) this.queuedHostCount++;
      this.counts.set(host, n);
    }
  }

  /** Drop the hosts without entries from the ring, keeping the walk's place (amortized O(1) a host). */
  private compact(): void {
    const kept: string[] = [];
    let turn = 0;
    for (let i = 0; i < this.ring.length; i++) {
      const h = this.ring[i]!;
      if (i === this.turn) turn = kept.length;
      if (this.counts.get(h)! > 0) kept.push(h);
      else this.counts.delete(h);
    }
    this.ring = kept;
    this.turn = turn;
    this.gone = 0;
  }

  /** Queued URLs of `host`, in flight included (0 when none). */
  queuedOn(host: string): number {
    return this.counts.get(host) ?? 0;
  }

  get size(): number {
    return this.total;
  }

  /**
   * Queued URLs per host (in flight included), as the `frontier:<host>` counters hold them once
   * written; a host with 0 has none (it is left for the ring's compaction).
   */
  get queuedCounts(): ReadonlyMap<string, number> {
    return this.counts;
  }

  /** The hosts with queued URLs (in flight included), unsorted. */
  *queuedHosts(): IterableIterator<string> {
    for (const [h, n] of this.counts) if (n > 0) yield h;
  }

  /** Hosts with queued URLs. */
  get hostCount(): number {
    return this.queuedHostCount;
  }

  get inFlight(): number {
    return this.flying.size;
  }

  hosts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [h, n] of [...this.counts].filter((e) => e[1] > 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) out[h] = n;
    return out;
  }

  isInFlight(key: string): boolean {
    return this.flying.has(key);
  }

  /**
   * The `url` entry of an in-flight key as `next()` read it, while no written batch has changed it
   * since (`written` calls `changed`): what the database holds, for a call that
   * runs with no write in flight.
   */
  stateOf(key: string): UrlState | undefined {
    return this.flying.get(key)?.state;
  }

  /** A written batch changed `key`'s `url` entry. */
  changed(key: string): void {
    const f = this.flying.get(key);
    if (f !== undefined) f.state = undefined;
  }

  /** Live lines of `block`, when it has been read. */
  liveOf(block: string): number | undefined {
    return this.live.get(block);
  }

  /** A committed change of a block's live count; 0 means the block was deleted. */
  setLive(block: string, n: number): void {
    if (n <= 0) this.live.delete(block);
    else this.live.set(block, n);
  }

  /** The entry for `key` is no longer in flight (it was recorded, or left the queue otherwise). */
  land(key: string): void {
    const f = this.flying.get(key);
    if (f === undefined) return;
    this.flying.delete(key);
    this.decFlying(f.entry.host);
  }

  /** Give an in-flight entry back: it is offered again, before the rest of its host's queue. */
  release(key: string): void {
    const f = this.flying.get(key);
    if (f === undefined) return;
    this.land(key);
    let list = this.released.get(f.entry.host);
    if (list === undefined) this.released.set(f.entry.host, (list = []));
    list.push(f.entry);
  }

  /**
   * A batch was written: the frontier follows its changed `url` entries (`urls`), per-host counts,
   * live lines, the keys that left the queue, and the checks it asked to offer first.
   */
  written(batch: FrontierBatch, urls: ReadonlyMap<string, { readonly k?: string } | null>): void {
    for (const k of urls.keys()) this.changed(k);
    for (const host of batch.blockHosts) {
      const c = this.cursors.get(host);
      if (c !== undefined) c.atEnd = false;
    }
    for (const [host, delta] of batch.deltas) {
      if (delta === 0) continue;
      this.addPending(host, -delta);
      this.adjust(host, delta);
    }
    for (const [block, n] of batch.blockLive) this.setLive(block, n);
    for (const k of batch.landed) this.land(k);
    for (const u of batch.urgent) {
      this.offerFirst({ url: urlFromKey(u.key), key: u.key, host: u.host, depth: u.depth, seq: u.seq * BLOCK_LINES, ...(urls.get(u.key)?.k === 'p' ? { check: 'probe' as const } : {}) });
    }
  }

  /** Offer a queued entry before the rest of its host's queue (a check the learner asked for). */
  offerFirst(e: FrontierEntry): void {
    let list = this.released.get(e.host);
    if (list === undefined) this.released.set(e.host, (list = []));
    list.push(e);
  }

  private decFlying(host: string): void {
    const n = (this.flyingByHost.get(host) ?? 0) - 1;
    if (n <= 0) this.flyingByHost.delete(host);
    else this.flyingByHost.set(host, n);
  }

  /**
   * Oldest entries not in flight, round-robin over hosts. Call with the store's queue held and no
   * write in flight. `drop` deletes blocks found without a live line.
   */
  async next(options: NextOptions, drop: (blocks: string[]) => Promise<void>): Promise<FrontierEntry[]> {
    const limit = options.limit ?? 1;
    const perHost = options.perHost ?? 1;
    if (!Number.isInteger(limit) || limit < 1 || (typeof perHost !== 'function' && (!Number.isInteger(perHost) || perHost < 1))) {
      throw new TypeError('next: limit and perHost must be integers >= 1 (or perHost a function of the host)');
    }
    const out: FrontierEntry[] = [];
    const dead: string[] = [];
    if (options.host !== undefined) {
      await this.take(options.host, limit, out, dead);
    } else {
      // one entry per host per turn, until `limit`, or every host is spent or at its `perHost`
      // (a function is asked once per host and call). Each call starts one host further than the
      // last: the hosts just served, whose new links came in with their pages, are met again
      // first, while their connections and the store's pages of them are warm. A walk that went
      // on where the last one ended took a host's next page a whole ring later: on 6,000 loopback
      // hosts, 1.9x the CPU per page and a new connection for each.
      const given = new Map<string, number>();
      const room = new Map<string, number>();
      let idle = 0;
      if (this.turn >= this.ring.length) this.turn = 0;
      let at = this.turn++;
      while (out.length < limit && this.ring.length > 0 && idle < this.ring.length) {
        if (at >= this.ring.length) at = 0;
        const host = this.ring[at++]!;
        if (!(this.counts.get(host)! > 0)) {
          idle++;
          continue;
        }
        let allowed = room.get(host);
        if (allowed === undefined) room.set(host, (allowed = typeof perHost === 'function' ? perHost(host) : perHost));
        const had = given.get(host) ?? 0;
        const before = out.length;
        if (had < allowed) await this.take(host, 1, out, dead);
        const got = out.length - before;
        if (got > 0) given.set(host, had + got);
        idle = got > 0 ? 0 : idle + 1;
      }
    }
    if (dead.length > 0) {
      await drop(dead);
      for (const b of dead) this.live.delete(b);
    }
    return out;
  }

  /** Up to `want` entries of `host` into `out`. */
  private async take(host: string, want: number, out: FrontierEntry[], dead: string[]): Promise<void> {
    const count = this.counts.get(host) ?? 0;
    if (count - (this.flyingByHost.get(host) ?? 0) <= 0) return;
    let taken = 0;
    const again = this.released.get(host);
    while (again !== undefined && again.length > 0 && taken < want) {
      const e = again.shift()!;
      if (!(await this.isLive(e.key, this.blockOf(e)))) continue;
      this.fly(e, this.blockOf(e), undefined);
      out.push(e);
      taken++;
    }
    let cursor = this.cursors.get(host);
    if (cursor === undefined) this.cursors.set(host, (cursor = { block: undefined, lines: [], line: 0, after: '', ahead: [], atEnd: false }));
    const range = prefixRange(host + SEP);
    while (taken < want) {
      let counted: (UrlState | undefined)[] | undefined;
      if (cursor.block === undefined) {
        if (cursor.ahead.length === 0) {
          // (at the end with entries held back: no read until a batch writes a block of the host)
          if (cursor.atEnd) break;
          const limit = this.heldAhead < HELD_AHEAD ? READ_AHEAD : 1;
          for await (const e of this.kv.entries('frontier', { gt: cursor.after === '' ? range.gte : cursor.after, lt: range.lt, limit })) cursor.ahead.push(e);
          if (cursor.ahead.length === 0) {
            cursor.atEnd = true;
            break;
          }
          this.heldAhead += cursor.ahead.length;
        }
        const [block, value] = cursor.ahead.shift()!;
        this.heldAhead--;
        cursor.block = block;
        cursor.lines = parseBlock(value);
        cursor.line = 0;
        if (!this.live.has(block)) {
          // first read of the block (or it went since it was read ahead): count its live lines,
          // drop it when there are none
          const seq = parseFrontierKey(block).seq;
          counted = await this.states(cursor.lines.map((l) => l.key));
          let n = 0;
          for (const st of counted) if (st !== undefined && st.s === 'queued' && st.n === seq && st.h === host) n++;
          if (n === 0) dead.push(block);
          else this.live.set(block, n);
        }
      }
      const block = cursor.block;
      const lines = cursor.lines;
      const blockSeq = parseFrontierKey(block).seq;
      // the next lines, checked against their url entries (just read when the block was counted:
      // no write runs during `next`)
      const end = Math.min(lines.length, cursor.line + Math.max(want - taken, 16));
      const slice = lines.slice(cursor.line, end);
      const states = counted !== undefined ? counted.slice(cursor.line, end) : await this.states(slice.map((l) => l.key));
      for (let i = 0; i < slice.length; i++) {
        const line = slice[i]!;
        cursor.line++;
        const s = states[i];
        if (s === undefined || s.s !== 'queued' || s.n !== blockSeq || s.h !== host || this.flying.has(line.key)) continue;
        const e: FrontierEntry = { url: urlFromKey(line.key), key: line.key, host, depth: line.depth, seq: lineSeq(blockSeq, cursor.line - 1), ...(s.k === 'p' ? { check: 'probe' as const } : {}) };
        const tier = s.k === undefined && this.deferrable !== undefined && this.heldBackCount < HELD_BACK ? this.deferrable(line.key) : 0;
        if (tier > 0) {
          let held = this.heldBack.get(host);
          if (held === undefined) this.heldBack.set(host, (held = [[], []]));
          held[tier - 1]!.push(e);
          this.heldBackCount++;
          continue;
        }
        this.fly(e, block, s);
        out.push(e);
        if (++taken >= want) break;
      }
      if (cursor.line >= lines.length) {
        cursor.after = block;
        cursor.block = undefined;
        cursor.lines = [];
        cursor.line = 0;
      }
    }
    // the cursor is at the end: the entries held back come next, once nothing of the host is in
    // flight (a page fetched may still link more of the rest)
    const held = this.heldBack.get(host);
    if (held === undefined || taken >= want || (this.flyingByHost.get(host) ?? 0) > 0) return;
    for (const tier of held) {
      while (tier.length > 0 && taken < want) {
        const e = tier.shift()!;
        this.heldBackCount--;
        if (!(await this.isLive(e.key, this.blockOf(e)))) continue;
        this.fly(e, this.blockOf(e), undefined);
        out.push(e);
        taken++;
      }
    }
    if (held[0]!.length === 0 && held[1]!.length === 0) this.heldBack.delete(host);
  }

  private blockOf(e: FrontierEntry): string {
    return frontierKey(e.host, Math.floor(e.seq / BLOCK_LINES));
  }

  private async isLive(key: string, block: string): Promise<boolean> {
    const [s] = await this.states([key]);
    const { host, seq } = parseFrontierKey(block);
    return s !== undefined && s.s === 'queued' && s.n === seq && s.h === host && !this.flying.has(key);
  }

  private async states(keys: readonly string[]): Promise<(UrlState | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await this.kv.getMany('url', keys);
    return values.map((v) => (v === undefined ? undefined : decodeUrlEntry(v)));
  }

  private fly(e: FrontierEntry, block: string, state: UrlState | undefined): void {
    this.flying.set(e.key, { entry: e, block, state });
    this.flyingByHost.set(e.host, (this.flyingByHost.get(e.host) ?? 0) + 1);
  }
}
