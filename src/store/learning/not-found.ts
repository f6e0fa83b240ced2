/**
 * Not-found signatures (Bar-Yossef, Broder, Kumar, Tomkins, "Sic transit gloria telae: towards an
 * understanding of the web's decay", WWW 2004): many servers answer a URL that does not exist with
 * one page, often with status 200 (a soft 404). Such a page is no document: two URLs that both
 * got it are not shown equal, and a rewrite that gets it failed. A host's signature is learned by
 * fetching a URL that cannot exist, at its root and in each directory where evidence for a
 * parameter rule lies (once each) (servers often answer differently under an application's prefix, and
 * unknown ids are where soft 404s are), at most `PROBES_PER_HOST` per host, through the
 * crawler's own fetch path, so robots.txt and politeness apply.
 */
import { createHash } from 'node:crypto';
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { decodeJson, encodeJson, encodeUrlEntry, evidenceKeys, prefixRange, SEP, startsWithRange, type UrlEntry } from '../keys.js';
import { readRange, type Kv, type KvOp } from '../backends/kv.js';
import { bareDirOf, bareParameterPath } from './parameter-difference.js';
import { hostOf, isDocumentStatus, type RuleRecord } from '../rules.js';
import { dirOf } from './rule-scope.js';
import { getEvidence, getUrl, putEvidence, type Txn } from '../engine/batch.js';
import { recordOfKey } from '../engine/url-state.js';
import type { CheckRequest, LearnedUrl } from './contract.js';

/** Directories probed per host at most (the root included). */
const PROBES_PER_HOST = 5;

interface Signature {
  readonly st: number;
  readonly c?: string;
  /** The page's shape (`FetchRecord.shapeHash`): the same page when it echoes the request. */
  readonly x?: string;
  /**
   * The shape's version (`SHAPE_VERSION`); another (absent: 1), a shape read by an earlier
   * page-shape.ts, probed again when asked.
   */
  readonly v?: number;
  /** The page's title hash (`FetchRecord.titleHash`), where it had a title. */
  readonly t?: string;
}

/** An image title (`evidenceKeys.imageTitle`) found to be a not-found page's starts with this. */
export const TITLED = '!';

/** A probe's name: no server has it. */
export const PROBE_SEGMENT = 'urldedup-not-found-';

/**
 * A probe of `rec`'s host at `prefix` (a directory and the start of a made-up name), its name
 * ending in a hash of `seed`: no server has it, and it is the same for one seed in every store
 * (reproducible runs). Query and fragment dropped.
 */
export function probeCheck(rec: UriRecord, prefix: string, seed: string): CheckRequest {
  const name = createHash('sha256').update(seed).digest('hex').slice(0, 16);
  const probe: UriRecord = { ...rec, path: prefix + name, query: undefined, fragment: undefined };
  return { kind: 'probe', key: keyFromRecord(probe), rec: probe };
}

/** Hosts whose not-found entries are kept at most (the oldest read is let go first). */
const CACHED_HOSTS = 4096;

/** A host's first not-found entries (`PROBES_PER_HOST` at most, in key order): [key, value]. */
type HostEntries = readonly (readonly [string, string])[];

/**
 * Each host's not-found entries as last read, so that a fetch does not open a database iterator
 * to learn that its host has none or the same few: kept until a written batch changes one of
 * the host's entries (the rule book's `wrote` calls `written`), never filled by a read that
 * such a write overtook.
 */
export class NotFoundCache {
  private readonly hosts = new Map<string, HostEntries>();
  /** Written batches that changed a not-found entry. */
  private writes = 0;

  /** The operations of a written batch. */
  written(ops: readonly KvOp[]): void {
    for (const op of ops) {
      if (op.space !== 'evidence' || !op.key.startsWith(NOT_FOUND_KEY)) continue;
      this.hosts.delete(op.key.slice(NOT_FOUND_KEY.length, op.key.indexOf(SEP, NOT_FOUND_KEY.length)));
      this.writes++;
    }
  }

  clear(): void {
    this.hosts.clear();
    this.writes++;
  }

  async read(host: string, load: () => Promise<HostEntries>): Promise<HostEntries> {
    const known = this.hosts.get(host);
    if (known !== undefined) return known;
    const writes = this.writes;
    const entries = await load();
    if (writes !== this.writes) return entries;
    if (this.hosts.size >= CACHED_HOSTS) this.hosts.delete(this.hosts.keys().next().value!);
    this.hosts.set(host, entries);
    return entries;
  }
}

const NOT_FOUND_KEY = evidenceKeys.notFoundPrefix('').slice(0, -SEP.length);

/**
 * How page-shape.ts reads a shape: 2, the echo in any case; 3, no echo inside a minted token; 4,
 * a path's segments (a query's values) only where the whole is not printed. A shape of another
 * version may differ from one read now for the same page.
 */
const SHAPE_VERSION = 4;

/** A 2xx signature with a shape read by an earlier version of page-shape.ts. */
function staleShape(sig: Signature): boolean {
  return sig.x !== undefined && sig.v !== SHAPE_VERSION && isDocumentStatus(sig.st);
}

export class NotFoundSignatures {
  constructor(
    private readonly kv: Pick<Kv, 'get' | 'entries' | 'range'>,
    private readonly cache?: NotFoundCache,
  ) {}

  /** `host`'s first not-found entries in the database. */
  private entriesOf(host: string): Promise<HostEntries> {
    const load = (): Promise<HostEntries> => readRange(this.kv, 'evidence', { ...prefixRange(evidenceKeys.notFoundPrefix(host)), limit: PROBES_PER_HOST });
    return this.cache === undefined ? load() : this.cache.read(host, load);
  }

  /**
   * Ask once for a probe in `dir` of `u`'s host (at most `PROBES_PER_HOST` per host). A directory
   * is its path without segment parameters (`/(S(id))/a/` is `/a/`): the probe goes where `u`
   * lies, session segment and all, so the server answers it as it answers `u`, and its signature
   * holds for the directory under any session (a session id is no directory: each would spend a
   * probe and hold for its own URLs alone).
   */
  async ask(txn: Txn, u: LearnedUrl, dir: string, checks: CheckRequest[]): Promise<void> {
    const host = hostOf(u.rec);
    const place = bareParameterPath(dir);
    const k = evidenceKeys.notFound(host, place);
    const had = await getEvidence(this.kv, txn, k);
    // a signature whose shape an earlier version read (case kept) is probed again under another
    // name, and kept until that probe answers
    const stale = had !== undefined && had !== '' && staleShape(decodeJson<Signature>(had));
    if (had !== undefined && !stale) return;
    if (!stale) {
      if ((await this.entriesOf(host)).length >= PROBES_PER_HOST) return;
      putEvidence(txn, k, '');
    }
    checks.push(probeCheck(u.rec, dir + PROBE_SEGMENT, `${host}\u0000${place}${stale ? `\u0000${SHAPE_VERSION}` : ''}`));
  }

  /** A probe's answer. Returns the soft-404 signature it found (a 2xx body), if any. */
  async record(txn: Txn, u: LearnedUrl, status: number, hash: string | undefined, shape?: string, title?: string): Promise<{ dir: string; hash: string; shape?: string; title?: string } | undefined> {
    const dir = bareDirOf(u.rec.path);
    const sig: Signature = { st: status, ...(hash === undefined ? {} : { c: hash }), ...(shape === undefined ? {} : { x: shape, v: SHAPE_VERSION }), ...(title === undefined ? {} : { t: title }) };
    putEvidence(txn, evidenceKeys.notFound(hostOf(u.rec), dir), encodeJson(sig));
    return isDocumentStatus(status) && hash !== undefined ? { dir, hash, ...(shape === undefined ? {} : { shape }), ...(title === undefined ? {} : { title }) } : undefined;
  }

  /** True when a 2xx entry is the host's not-found page where `key` lies: marked so, or its body matches. */
  async answered(txn: Txn, host: string, key: string, e: UrlEntry): Promise<boolean> {
    return e.z === true || (e.c !== undefined && (await this.matches(txn, host, recordOfKey(key).path, e.c, e.x)));
  }

  /** Write `key`'s fetched entry as a soft 404 (`UrlEntry.z`), in the batch that learned it. */
  async mark(txn: Txn, key: string): Promise<void> {
    const e = await getUrl(this.kv, txn, key);
    if (e?.s !== 'fetched' || e.z === true) return;
    const marked: UrlEntry = { ...e, z: true };
    txn.urls.set(key, marked);
    txn.put('url', key, encodeUrlEntry(marked));
  }

  /**
   * The originals to fetch, as checks, of a document `u` that rules' rewrites answered (`rewrites`,
   * the rewrite index of `u`: [key, reason]) under the title of the not-found page of a directory
   * that holds it. A not-found page that varies with the path by more than an echo (one that
   * suggests the pages sharing words with the path, "did you mean") has another shape for every
   * path and passes for a document, so a rewrite that landed on one would never be seen to fail;
   * its title stays. The title is no verdict (a site may title every page alike): the original,
   * fetched as itself, is compared with `u` as any rule's sample is. The title is kept
   * (`evidenceKeys.imageTitle`) for a probe that answers later (`titledBefore`).
   */
  async originalsToCheck(txn: Txn, u: LearnedUrl, title: string | undefined, rewrites: readonly (readonly [string, string])[]): Promise<CheckRequest[]> {
    if (title === undefined) return [];
    if ((await this.signaturesOver(hostOf(u.rec), u.rec.path)).some((sig) => sig.t === title)) {
      // kept for a rewrite made later: its URL is queued as a check (admit.ts `checkOfTitledImage`)
      putEvidence(txn, evidenceKeys.imageTitle(u.key), TITLED + title);
      return this.originals(txn, rewrites);
    }
    // a rule's image: its title waits for a probe that answers later (kept for these alone, not
    // for every page of a host whose probe is out)
    if (rewrites.some(([, reason]) => reason.startsWith('rule:'))) putEvidence(txn, evidenceKeys.imageTitle(u.key), title);
    return [];
  }

  /**
   * A probe in `dirKey` (a URL key up to its directory) answered a page titled `title`: the pages
   * under it kept with that title (`originalsToCheck`, fetched before the probe answered) are
   * marked so, and the originals rules rewrote onto them are checked.
   */
  async titledBefore(txn: Txn, dirKey: string, title: string | undefined, limit: number): Promise<CheckRequest[]> {
    if (title === undefined) return [];
    const out: CheckRequest[] = [];
    const prefix = evidenceKeys.imageTitle(dirKey);
    for (const [k, v] of await readRange(this.kv, 'evidence', { ...startsWithRange(prefix), limit })) {
      if (v !== title) continue;
      const target = k.slice(prefix.length - dirKey.length);
      putEvidence(txn, k, TITLED + title);
      out.push(...(await this.originals(txn, await readRange(this.kv, 'evidence', { ...prefixRange(evidenceKeys.rewritePrefix(target)), limit: 256 }))));
    }
    return out;
  }

  /** Checks of the originals still pruned among `rewrites` ([rewrite-index key, reason]). */
  private async originals(txn: Txn, rewrites: readonly (readonly [string, string])[]): Promise<CheckRequest[]> {
    const out: CheckRequest[] = [];
    for (const [k, reason] of rewrites) {
      if (!reason.startsWith('rule:')) continue;
      const original = k.slice(k.lastIndexOf(SEP) + 1);
      if ((await getUrl(this.kv, txn, original))?.s === 'pruned') out.push({ kind: 'original', key: original, rec: recordOfKey(original) });
    }
    return out;
  }

  /**
   * True when a body (its hash, and its shape where the crawler gave one) is the page a probe got
   * in a directory that holds `path`: the same bytes, or the same page but for what echoes the
   * request (page-shape.ts in the crawler).
   */
  async matches(_txn: Txn, host: string, path: string, hash: string, shape?: string): Promise<boolean> {
    return (await this.signaturesOver(host, path)).some((sig) => sig.c === hash || (shape !== undefined && sig.x === shape && isDocumentStatus(sig.st)));
  }

  /** The answered signatures of `host` whose directory holds `path` (without segment parameters). */
  private async signaturesOver(host: string, path: string): Promise<Signature[]> {
    const prefix = evidenceKeys.notFoundPrefix(host);
    const bare = bareParameterPath(path);
    const out: Signature[] = [];
    for (const [k, v] of await this.entriesOf(host)) if (v !== '' && bare.startsWith(k.slice(prefix.length))) out.push(decodeJson<Signature>(v));
    return out;
  }
}

/**
 * True when a rule rewrote some URL onto a page (`rewrites`, its rewrite index: [key, reason])
 * from a directory where none of its support lies: the rule acted beyond the places its evidence
 * showed, and that directory's not-found page is asked for (a soft 404 there would pass for a
 * document).
 */
export async function rewrittenBeyondEvidence(ruleOf: (id: string) => Promise<RuleRecord | undefined>, rewrites: readonly (readonly [string, string])[]): Promise<boolean> {
  for (const [k, reason] of rewrites) {
    const rule = reason.startsWith('rule:') ? await ruleOf(reason.slice(5)) : undefined;
    if (rule === undefined) continue;
    const dir = bareDirOf(recordOfKey(k.slice(k.lastIndexOf(SEP) + 1)).path);
    if (!(rule.support ?? []).some((s) => dirOf(s.p) === dir)) return true;
  }
  return false;
}
