/**
 * The frontier gate (docs/design.md, `admit`): normalize → presets and active rules → aliases → seen check
 * → enqueue, one atomic batch per call. A batch goes through four phases:
 *   1. `identifyInputs` (synchronous): identity key, scope, in-batch duplicates, presets and rules;
 *   2. `followAliases`: one read of the alias table for every input the alias front may know;
 *   3. `checkSeen`: the Bloom front, the cache and the batches in flight, then one read for the rest;
 *   4. `decide`: queued, seen, or the reason it was mapped, in input order, into one batch.
 * The inputs that go on are kept in columns (`Items`), not one object each: the hot path allocates
 * little per URL.
 */
import { defaultLimits, fingerprintInto, fingerprintWords, recompose, UrlError, type UriRecord, type UrlErrorCode } from '../../normalize/index.js';
import { identifyInto, UrlIdentity } from '../../normalize/identify.js';
import { decodeJson, decodeUrlEntry, encodeUrlEntry, evidenceKeys, isUnlinkedImage, type AdmitReason, type AliasEntry, type UrlEntry } from '../keys.js';
import { outsidePartition } from '../host-tag.js';
import { hostOf } from '../rules.js';
import type { AdmitResult } from '../seen-store.js';
import { getEvidence, getUrl, type Txn } from './batch.js';
import { canonicalize, identity, inScope, isUrlError, transform, type Identity, type Transformed } from './canonicalize.js';
import type { EngineParts } from './parts.js';
import { answeredDocument, answeredNoDocument, entrySummary, lookupEntry, recordOfKey, setUrl } from './url-state.js';
import type { WriteQueue } from './write-queue.js';
import { checkOfTitledImage, titledImages } from './titled-images.js';
import { rewritten } from './rewrite-checks.js';
import { redirectLeavesRewrite } from '../learning/failure-agreement.js';

/** Presence of a key in the seen set: absent for sure, present, or asked of the database. */
const ABSENT = 0;
const PRESENT = 1;
const ASKED = 2;
type Presence = typeof ABSENT | typeof PRESENT | typeof ASKED;

/** An item that presets, rules or an alias map elsewhere. */
interface Mapping {
  /** The key after presets and rules. */
  readonly transformedKey: string;
  /** Its record, when presets or rules changed it. */
  readonly transformedRecord: UriRecord | undefined;
  /** The first step that changed the key (`alias` for the alias table), or none when they cancel out. */
  via: string | undefined;
  /** The keys a chain of rules passed through before `transformedKey`, when it took more than one step. */
  readonly chain?: readonly string[];
}

/**
 * The inputs of one batch that go on past phase 1 ("items"), as columns indexed by item. An
 * identity key is `keyHead + keyRest`: the single pass's two parts, or '' and the key.
 */
class Items {
  count = 0;
  readonly inputIndex: Int32Array;
  readonly identityKey: string[];
  /** host[:port] of the URL (the frontier's host). */
  readonly hostPort: string[];
  readonly keyHead: string[];
  readonly keyRest: string[];
  /** The key after presets, rules and aliases. */
  readonly canonicalKey: string[];
  /** Fingerprint words of `canonicalKey` and of `identityKey`. */
  readonly canonicalW1: Int32Array;
  readonly canonicalW2: Int32Array;
  readonly identityW1: Int32Array;
  readonly identityW2: Int32Array;
  readonly canonicalPresence: Uint8Array;
  readonly identityPresence: Uint8Array;
  mapped: Map<number, Mapping> | undefined;
  /** Items the alias front may know (their canonical key so far may be an alias source). */
  aliasWanted: number[] | undefined;
  /** Present keys whose entry is an unlinked image (`UrlEntry.i`), with the entry as written: a link names them now. */
  images: Map<string, string> | undefined;
  /** Rules' rewrites that answered a page under the title of the not-found page (`titledImages`). */
  titled: Set<string> | undefined;
  /** Items whose rules' rewrite redirected elsewhere (`redirectLeavesRewrite`): queued as themselves. */
  left: Set<number> | undefined;
  /** Some mapping went through a chain of rules (`stopChains` reads its steps). */
  chains = false;
  /** Pairs: input index of an in-batch duplicate, input index of its first occurrence. */
  readonly duplicates: number[] = [];
  /**
   * The presets' outputs the rules move further, as items of their own (`addPresetOutput`): their
   * URLs (input index `urls.length + n`), and for each input sent through one, the input index
   * whose result is that output's.
   */
  extraUrls: string[] | undefined;
  expanded: Map<number, { readonly o: number; readonly owner: boolean }> | undefined;

  /** `n` items at most (the inputs, and with presets and active rules as many presets' outputs). */
  constructor(n: number) {
    this.inputIndex = new Int32Array(n);
    this.identityKey = new Array<string>(n);
    this.hostPort = new Array<string>(n);
    this.keyHead = new Array<string>(n);
    this.keyRest = new Array<string>(n);
    this.canonicalKey = new Array<string>(n);
    this.canonicalW1 = new Int32Array(n);
    this.canonicalW2 = new Int32Array(n);
    this.identityW1 = new Int32Array(n);
    this.identityW2 = new Int32Array(n);
    this.canonicalPresence = new Uint8Array(n);
    this.identityPresence = new Uint8Array(n);
  }

  map(j: number, m: Mapping): void {
    (this.mapped ??= new Map()).set(j, m);
  }
}

/** A refused input's result. */
function outOfScope(url: string, key: string): AdmitResult {
  return { url, key, identityKey: key, admitted: false, reason: 'out-of-scope' };
}

/** Phase 1 (synchronous): identity, scope, in-batch duplicates, presets and rules. */
function identifyInputs(s: Pick<EngineParts, 'normalizeOptions' | 'o' | 'rules' | 'salt' | 'seen'>, urls: readonly string[], depth: number, results: (AdmitResult | undefined)[]): Items {
  const n = urls.length;
  // with presets and active rules, room for a presets' output per input (`addPresetOutput`)
  const expand = s.o.presets.length > 0 && s.rules.anyActive;
  const items = new Items(expand ? 2 * n : n);
  const { inputIndex, identityKey } = items;
  // in-batch duplicates (same identity key): open addressing over the fingerprint the Bloom
  // front needs anyway, each hit confirmed by comparing the keys (no Map hashing of each key)
  let slots = 1024;
  while (slots < 2 * items.inputIndex.length) slots *= 2;
  const firstOf = new Int32Array(slots); // item + 1, 0: empty
  const slotMask = slots - 1;
  const fast = s.normalizeOptions === undefined;
  const maxLength = defaultLimits.maxLength;
  const scope = s.o.scope;
  const inDepth = depth <= scope.maxDepth;
  const httpIn = inDepth && scope.schemes.has('http');
  const httpsIn = inDepth && scope.schemes.has('https');
  const needsRecord = s.o.presets.length > 0 || scope.needsRecord;
  const aliasFront = s.seen.aliasFront.knownEmpty ? undefined : s.seen.aliasFront;
  const fw = new Int32Array(2); // fingerprint words of the key at hand
  const chain: string[] = []; // the keys a chain of rules passes through (reused)
  const idr = new UrlIdentity(); // the URL at hand, identified (reused)
  for (let i = 0; i < n; i++) {
    const url = urls[i]!;
    let k0: string;
    let host: string;
    let rec: UriRecord | undefined;
    let head = '';
    let rest: string;
    // default options: normalize's identify gives key, host[:port] and the key's fingerprint from
    // the single pass for http(s) (it declines userinfo, so there is no password to redact), and
    // the ladder's record otherwise
    let identified = false;
    if (fast && typeof url === 'string' && url.length <= maxLength) {
      try {
        identifyInto(url, idr);
        identified = true;
      } catch (e) {
        if (!isUrlError(e)) throw e;
        results[i] = { url, key: undefined, identityKey: undefined, admitted: false, reason: `invalid:${e.code as UrlErrorCode}` };
        continue;
      }
    }
    if (identified && idr.record === undefined) {
      head = idr.keyHead;
      rest = idr.keyRest;
      k0 = idr.key;
      host = idr.hostPort;
      if (!(idr.scheme === 'https' ? httpsIn : httpIn)) {
        results[i] = outOfScope(url, k0);
        continue;
      }
      // a record only when a preset, a rule of its host or the scope needs one
      if (needsRecord || s.rules.hasActive(host)) {
        rec = idr.normalRecord();
        if (!inScope(s, rec, depth)) {
          results[i] = outOfScope(url, k0);
          continue;
        }
      }
      fw[0] = idr.fingerprintHigh; // the key's words, without reading its head again
      fw[1] = idr.fingerprintLow;
    } else {
      let id: Identity;
      try {
        if (typeof url !== 'string') throw new UrlError('ERR_INVALID_URL', String(url), { detail: 'not a string' });
        // the ladder's record identify made, unless a password needs redacting (identity's steps)
        const r = identified ? idr.record : undefined;
        id = r !== undefined && r.userinfo === undefined ? { rec: r, key: idr.key } : identity(s, url);
      } catch (e) {
        if (!isUrlError(e)) throw e;
        results[i] = { url, key: undefined, identityKey: undefined, admitted: false, reason: `invalid:${e.code as UrlErrorCode}` };
        continue;
      }
      k0 = id.key;
      rest = k0;
      rec = id.rec;
      host = hostOf(rec);
      if (!inScope(s, rec, depth)) {
        results[i] = outOfScope(url, k0);
        continue;
      }
      fingerprintInto(k0, fw);
    }
    const g1 = fw[0]!;
    const g2 = fw[1]!;
    let slot = (g1 ^ (g1 >>> 16)) & slotMask;
    let first = -1;
    for (let f = firstOf[slot]!; f !== 0; f = firstOf[slot]!) {
      if (identityKey[f - 1] === k0) {
        first = inputIndex[f - 1]!;
        break;
      }
      slot = (slot + 1) & slotMask;
    }
    if (first !== -1) {
      items.duplicates.push(i, first);
      continue;
    }
    chain.length = 0;
    let t = rec === undefined ? undefined : transform(s, rec, k0, undefined, chain);
    if (expand && t?.preset !== undefined && inScope(s, t.preset.rec, depth) && !outsidePartition(s.o.partition, hostOf(t.preset.rec))) {
      // the presets' output, which the rules move further, goes first as an item of its own: the
      // URL is recorded onto it, and it onto the rules' end (decide), where the rules' checks and
      // give-backs reach it as they reach a link named so
      const p = t.preset;
      const extras = items.extraUrls?.length ?? 0;
      const o = addPresetOutput(s, items, urls.length, p.key, p.rec, firstOf, slotMask, chain, aliasFront);
      // the input that made the output an item is the one its queuing counts for
      (items.expanded ??= new Map()).set(i, { o, owner: (items.extraUrls?.length ?? 0) > extras });
      t = { rec: p.rec, key: p.key, via: t.via };
      chain.length = 0;
      // the output took a slot: the URL's own is the first free one on its probe again
      slot = (g1 ^ (g1 >>> 16)) & slotMask;
      while (firstOf[slot] !== 0) slot = (slot + 1) & slotMask;
    }
    const j = items.count++;
    firstOf[slot] = j + 1;
    inputIndex[j] = i;
    identityKey[j] = k0;
    items.hostPort[j] = host;
    items.keyHead[j] = head;
    items.keyRest[j] = rest;
    items.identityW1[j] = g1;
    items.identityW2[j] = g2;
    mapItem(items, j, k0, g1, g2, t, chain, fw, aliasFront);
  }
  return items;
}

/** Item `j`'s canonical key so far: `t`, the URL's presets and rules (none when it has no record). */
function mapItem(items: Items, j: number, k0: string, g1: number, g2: number, t: Transformed | undefined, chain: readonly string[], fw: Int32Array, aliasFront: { hasWords(h1: number, h2: number): boolean } | undefined): void {
  let key = k0;
  let h1 = g1;
  let h2 = g2;
  if (t !== undefined && (t.key !== k0 || t.via !== undefined)) {
    const m: Mapping = { transformedKey: t.key, transformedRecord: t.via === undefined ? undefined : t.rec, via: t.via };
    items.map(j, chain.length > 0 && t.via !== undefined ? { ...m, chain: [...chain] } : m);
    if (chain.length > 0) items.chains = true;
    if (t.key !== k0) {
      key = t.key;
      fingerprintInto(key, fw);
      h1 = fw[0]!;
      h2 = fw[1]!;
    }
  }
  items.canonicalKey[j] = key;
  items.canonicalW1[j] = h1;
  items.canonicalW2[j] = h2;
  if (aliasFront?.hasWords(h1, h2) === true) (items.aliasWanted ??= []).push(j);
}

/**
 * The presets' output `key` of an input, as an item of its own (unless the batch has it already,
 * linked or the output of another input): its own rules apply to it as to a link. Returns the
 * input index whose result is the output's.
 */
function addPresetOutput(s: Pick<EngineParts, 'o' | 'rules'>, items: Items, inputs: number, key: string, rec: UriRecord, firstOf: Int32Array, slotMask: number, chain: string[], aliasFront: { hasWords(h1: number, h2: number): boolean } | undefined): number {
  const fw = fingerprintWords(key);
  const g1 = fw[0] | 0;
  const g2 = fw[1] | 0;
  let slot = (g1 ^ (g1 >>> 16)) & slotMask;
  for (let f = firstOf[slot]!; f !== 0; f = firstOf[slot]!) {
    if (items.identityKey[f - 1] === key) return items.inputIndex[f - 1]!;
    slot = (slot + 1) & slotMask;
  }
  const extra = (items.extraUrls ??= []);
  const i = inputs + extra.length;
  extra.push(recompose(rec));
  const j = items.count++;
  firstOf[slot] = j + 1;
  items.inputIndex[j] = i;
  items.identityKey[j] = key;
  items.hostPort[j] = hostOf(rec);
  items.keyHead[j] = '';
  items.keyRest[j] = key;
  items.identityW1[j] = g1;
  items.identityW2[j] = g2;
  chain.length = 0;
  const t = transform(s, rec, key, undefined, chain);
  mapItem(items, j, key, g1, g2, t, chain, new Int32Array(2), aliasFront);
  return i;
}

/**
 * Phase 2a: a chain of rules stops at a URL on its way that the host answered with a document (or
 * redirected as an alias, which names its document), as lookups stop (lookup.ts): a rule holds
 * where its evidence lies, and that URL is evidence of its
 * own. Without the stop, a link whose first rule leads to a page (`/a.html;jsessionid=1` →
 * `/a.html`) is sent on by a second rule to a name nobody linked (`/a`, `/a/`), which is queued,
 * answers a 404, and costs the page a second fetch when it is given back.
 */
async function stopChains(s: Pick<EngineParts, 'kv' | 'seen'>, items: Items): Promise<void> {
  if (!items.chains) return;
  const wanted = new Set<string>();
  for (const m of items.mapped!.values()) for (const k of m.chain ?? []) wanted.add(k);
  const keys = [...wanted];
  const values = await s.kv.getMany('url', keys);
  const documents = new Set<string>();
  const redirected: string[] = [];
  for (let q = 0; q < keys.length; q++) {
    const v = values[q];
    if (v === undefined) continue;
    const e = lookupEntry(entrySummary(v));
    if (answeredDocument(e)) documents.add(keys[q]!);
    else if (e.s === 'redirected') redirected.push(keys[q]!);
  }
  // a step redirected as an alias: the host named the document there (followed in phase 2)
  if (redirected.length > 0) {
    const aliases = await s.kv.getMany('alias', redirected);
    aliases.forEach((a, q) => a !== undefined && documents.add(redirected[q]!));
  }
  if (documents.size === 0) return;
  for (const [j, m] of items.mapped!) {
    const stop = m.chain?.find((k) => documents.has(k));
    if (stop === undefined) continue;
    items.map(j, { transformedKey: stop, transformedRecord: recordOfKey(stop), via: m.via });
    items.canonicalKey[j] = stop;
    const w = fingerprintWords(stop);
    items.canonicalW1[j] = w[0] | 0;
    items.canonicalW2[j] = w[1] | 0;
    if (!s.seen.aliasFront.knownEmpty && s.seen.aliasFront.hasWords(items.canonicalW1[j]!, items.canonicalW2[j]!)) (items.aliasWanted ??= []).push(j);
  }
}

/** Phase 2: aliases (one read for all, only where the alias front says maybe). */
async function followAliases(s: Pick<EngineParts, 'kv' | 'o'>, items: Items): Promise<void> {
  const wanted = items.aliasWanted;
  if (wanted === undefined) return;
  const keys = items.canonicalKey;
  const unique = [...new Set(wanted.map((j) => keys[j]!))];
  const values = await s.kv.getMany('alias', unique);
  const aliases = new Map<string, string>();
  for (let q = 0; q < unique.length; q++) {
    const v = values[q];
    if (v !== undefined) aliases.set(unique[q]!, decodeJson<AliasEntry>(v).to);
  }
  for (const j of wanted) {
    const to = aliases.get(keys[j]!);
    if (to === undefined) continue;
    const mj = items.mapped?.get(j);
    if (mj?.via?.startsWith('rule:') === true && to !== items.identityKey[j] && redirectLeavesRewrite(mj.transformedRecord ?? recordOfKey(keys[j]!), recordOfKey(to), s.o.defaultDocuments)) {
      (items.left ??= new Set()).add(j);
      continue;
    }
    keys[j] = to;
    if (to === items.identityKey[j]) {
      // the transforms and the alias cancel out
      if (mj !== undefined) mj.via = undefined;
      items.canonicalW1[j] = items.identityW1[j]!;
      items.canonicalW2[j] = items.identityW2[j]!;
    } else {
      if (mj === undefined) items.map(j, { transformedKey: items.identityKey[j]!, transformedRecord: undefined, via: 'alias' });
      else mj.via ??= 'alias';
      const w = fingerprintWords(to);
      items.canonicalW1[j] = w[0] | 0;
      items.canonicalW2[j] = w[1] | 0;
    }
  }
}

/**
 * Phase 3: the seen set. The Bloom front first: a "no" is certain and needs nothing more; a
 * "maybe" is settled by the cache, the batches still being written, or one database read.
 * Returns the keys the read found (`ASKED` presences are settled against it).
 */
async function checkSeen(s: Pick<EngineParts, 'kv' | 'seen'>, items: Items): Promise<Set<string> | undefined> {
  let queried: Map<string, number> | undefined; // key → its first fingerprint word
  const presence = (k: string, h1: number, h2: number, head = '', rest = k): Presence => {
    if (!s.seen.front.hasWords(h1, h2)) return ABSENT;
    const cached = head === '' ? s.seen.cache.get(k, h1) : s.seen.cache.getSplit(head, rest, h1);
    if (cached !== undefined) {
      if (cached.charCodeAt(0) === 0x70 /* p */ && isUnlinkedImage(cached)) (items.images ??= new Map()).set(k, cached);
      return PRESENT;
    }
    if (s.seen.pendingKeys.has(k, h1)) {
      for (const t of s.seen.inflight) {
        const e = t.urls.get(k);
        if (e?.i === true) (items.images ??= new Map()).set(k, encodeUrlEntry(e));
      }
      return PRESENT;
    }
    (queried ??= new Map()).set(k, h1);
    return ASKED;
  };
  const { canonicalKey: keys, identityKey: k0s } = items;
  for (let j = 0; j < items.count; j++) {
    if (keys[j] === k0s[j]) {
      items.canonicalPresence[j] = presence(keys[j]!, items.canonicalW1[j]!, items.canonicalW2[j]!, items.keyHead[j], items.keyRest[j]);
    } else {
      items.canonicalPresence[j] = presence(keys[j]!, items.canonicalW1[j]!, items.canonicalW2[j]!);
      if (items.mapped?.get(j)?.via !== 'alias') items.identityPresence[j] = presence(k0s[j]!, items.identityW1[j]!, items.identityW2[j]!);
    }
  }
  if (queried === undefined) return undefined;
  let found: Set<string> | undefined;
  const query = [...queried.keys()];
  const values = await s.kv.getMany('url', query);
  for (let q = 0; q < query.length; q++) {
    const v = values[q];
    if (v === undefined) continue;
    const k = query[q]!;
    (found ??= new Set()).add(k);
    if (isUnlinkedImage(v)) (items.images ??= new Map()).set(k, v);
    // the read is current: only batches of this queue are being written, and they create
    // keys they found absent, never one that is present
    s.seen.cache.set(k, queried.get(k)!, entrySummary(v));
  }
  return found;
}

/** Phase 4: decisions, in input order, into one batch. */
function decide(s: Pick<EngineParts, 'frontier' | 'o' | 'rules' | 'seen'>, txn: Txn, urls: readonly string[], items: Items, found: Set<string> | undefined, depth: number, now: number, src: string | undefined, results: (AdmitResult | undefined)[], deliver: boolean): void {
  const isPresent = (k: string, p: number): boolean => (p === ASKED ? found?.has(k) === true : p === PRESENT);
  // once a transform maps an input onto another key, inputs may collide with keys this batch created
  let transformed = false;
  const inputs = urls.length;
  for (let j = 0; j < items.count; j++) {
    const i = items.inputIndex[j]!;
    const url = i < inputs ? urls[i]! : items.extraUrls![i - inputs]!;
    const k0 = items.identityKey[j]!;
    const key = items.canonicalKey[j]!;
    const image = items.images?.get(k0);
    if (image !== undefined) {
      // a link names an image the rule's pruning recorded: from now on it comes back like any
      // pruned URL when the rule no longer sends it there
      items.images!.delete(k0);
      linkImage(s, txn, k0, decodeUrlEntry(image));
    }
    if (key === k0) {
      if (transformed && txn.creates(k0)) results[i] = { url, key, identityKey: k0, admitted: false, reason: 'duplicate-in-batch' };
      else if (isPresent(k0, items.canonicalPresence[j]!)) results[i] = { url, key, identityKey: k0, admitted: false, reason: 'seen' };
      else {
        queueNew(txn, k0, items.hostPort[j]!, depth, now, src, items.canonicalW1[j]!, items.canonicalW2[j]!, items.keyHead[j]!, items.keyRest[j]!, deliver);
        results[i] = { url, key, identityKey: k0, admitted: true, reason: 'new' };
      }
      continue;
    }
    transformed = true;
    const mj = items.mapped!.get(j)!;
    const via = mj.via!;
    let admitted = false;
    if (via.startsWith('rule:') && !isPresent(k0, items.identityPresence[j]!) && !txn.creates(k0) && (items.left?.has(j) === true || cachedNoDocument(s, key, items.canonicalW1[j]!))) {
      // the rule's rewrite already answered no document (a 404, an error, a loop, a redirect
      // elsewhere): the URL is queued as itself, and its fetch, a document beside a failed
      // image, contradicts the rule there
      queueNew(txn, k0, items.hostPort[j]!, depth, now, src, items.identityW1[j]!, items.identityW2[j]!, items.keyHead[j]!, items.keyRest[j]!, deliver);
      results[i] = { url, key: k0, identityKey: k0, admitted: true, reason: 'new' };
      continue;
    }
    if (!isPresent(key, items.canonicalPresence[j]!) && !txn.creates(key)) {
      // a URL known as itself (fetched or queued before the rule) is seen: its rewrite is not
      // queued (a path fetched as a file is not sent to its directory form)
      if (via !== 'alias' && isPresent(k0, items.identityPresence[j]!)) {
        results[i] = { url, key, identityKey: k0, admitted: false, reason: 'seen' };
        continue;
      }
      const rec = key === mj.transformedKey && mj.transformedRecord !== undefined ? mj.transformedRecord : recordOfKey(key);
      const host = hostOf(rec);
      if (outsidePartition(s.o.partition, host)) {
        // a fleet partition queues only its host's URLs: the fleet sends this one to its host
        results[i] = { url, key, identityKey: k0, admitted: false, reason: 'forwarded', via };
        continue;
      }
      queueNew(txn, key, host, depth, now, src, items.canonicalW1[j]!, items.canonicalW2[j]!, undefined, undefined, deliver);
      admitted = true;
    }
    if (via !== 'alias' && !isPresent(k0, items.identityPresence[j]!) && !txn.creates(k0)) {
      const entry = rewritten(s, k0, key, via, depth, now, src, items.titled?.has(key) === true);
      setUrl(s, txn, k0, undefined, entry);
      // a check needs both names fetched: a rewrite queued here is offered first too
      if (entry.k === 'v' && admitted) {
        const host = hostOf(key === mj.transformedKey && mj.transformedRecord !== undefined ? mj.transformedRecord : recordOfKey(key));
        const seq = txn.queue.openSeq(host);
        if (seq !== undefined) txn.queue.urge(key, host, seq, depth);
      }
    }
    results[i] = admitted ? { url, key, identityKey: k0, admitted: true, reason: 'new', via } : { url, key, identityKey: k0, admitted: false, reason: via as AdmitReason };
  }
  // an input sent through a presets' output: queued when the output or the rules' end was, and
  // named by where it leads (its own entry names the output, which names the end)
  if (items.expanded !== undefined) {
    for (const [i, { o, owner }] of items.expanded) {
      const r = results[i];
      const ro = results[o];
      if (r === undefined || ro === undefined || ro.key === undefined) continue;
      const via = r.via ?? (r.reason.startsWith('preset:') ? r.reason : undefined);
      // (an output the batch links, or another input's, is that input's entry)
      results[i] = ro.admitted && owner && r.reason !== 'seen' ? { url: r.url, key: ro.key, identityKey: r.identityKey, admitted: true, reason: 'new', ...(via === undefined ? {} : { via }) } : { ...r, key: ro.key };
    }
  }
  const dup = items.duplicates;
  for (let q = 0; q < dup.length; q += 2) {
    const i = dup[q]!;
    const r = results[dup[q + 1]!]!;
    results[i] = { url: urls[i]!, key: r.key, identityKey: r.identityKey, admitted: false, reason: 'duplicate-in-batch' };
  }
  // the presets' outputs' own results were for the lines above
  if (items.extraUrls !== undefined) results.length = inputs;
}

/**
 * True when the cache knows `key` fetched with no document (summary `F`), failed, or redirected
 * though no alias leads on from it (the canonical key is never an alias source): a temporary
 * redirect or a loop, no document of its own.
 */
function cachedNoDocument(s: Pick<EngineParts, 'seen'>, key: string, h1: number): boolean {
  const v = s.seen.cache.get(key, h1);
  if (v === undefined) return false;
  const e = lookupEntry(v);
  return e.s === 'redirected' || answeredNoDocument(e);
}

/** One `admit` call, built into a batch and submitted (the queue's `admitQueued` runs it). */
export async function admitBatch(s: EngineParts, q: WriteQueue, urls: readonly string[], depth: number, source: string | undefined, deliver = false): Promise<{ value: AdmitResult[]; written: Promise<void> }> {
  const epoch = q.epoch;
  const now = Date.now();
  let src: string | undefined;
  if (source !== undefined) {
    try {
      src = identity(s, source).key;
    } catch (e) {
      if (!isUrlError(e)) throw e;
    }
  }
  const results: (AdmitResult | undefined)[] = new Array(urls.length);
  const items = identifyInputs(s, urls, depth, results);
  await stopChains(s, items);
  await followAliases(s, items);
  const found = await checkSeen(s, items);
  await titledImages(s, items, (j) => {
    const p = items.canonicalPresence[j]!;
    return p === PRESENT || (p === ASKED && found?.has(items.canonicalKey[j]!) === true);
  });
  const txn = q.newTxn();
  decide(s, txn, urls, items, found, depth, now, src, results, deliver);
  return { value: results as AdmitResult[], written: q.submit(txn, epoch) };
}

/** The hot path of `setUrl`: a key never seen, queued (`mark`: undelivered, delivery.ts; one value per call). */
export function queueNew(txn: Txn, key: string, h: string, depth: number, now: number, src: string | undefined, h1: number, h2: number, head = '', rest = key, mark = false): void {
  const b = txn.queue.blockFor(h, depth, head, rest);
  const of = b.valueOf;
  if (b.value === undefined || of === undefined || of[0] !== depth || of[1] !== now || of[2] !== src) {
    const e: UrlEntry = src === undefined ? { s: 'queued', d: depth, t: now, h, n: b.seq } : { s: 'queued', d: depth, t: now, h, n: b.seq, src };
    if (mark) e.u = true;
    b.value = encodeUrlEntry(e);
    b.valueOf = [depth, now, src];
  }
  b.queued++;
  txn.queuedNew++;
  txn.addNew(key, h1, h2, head, rest);
  txn.put('url', key, b.value);
}

/**
 * The pipeline for one URL inside a batch (redirect targets, give-backs, frontier pruning):
 * queue the canonical key when new, and record the URL as pruned when a preset or rule mapped it.
 */
export async function admitOne(s: EngineParts, txn: Txn, rec: UriRecord, k0: string, depth: number, src: string | undefined, now: number, exclude?: string): Promise<{ key: string; admitted: boolean; via: string | undefined; onto: string; left?: true }> {
  const { key, via, t, left } = await canonicalize(s, txn, rec, k0, exclude);
  if (key !== k0 && via !== undefined && via !== 'alias' && t.preset !== undefined && key !== t.preset.key) {
    // the presets' output, which the rules move further, is a URL of its own (as in `decide`):
    // admitted first unless it has an entry, and this URL recorded onto it
    const p = t.preset;
    const pOwn = await getUrl(s.kv, txn, p.key);
    const r = pOwn === undefined ? await admitOne(s, txn, p.rec, p.key, depth, src, now, exclude) : undefined;
    if (pOwn !== undefined) linkImage(s, txn, p.key, pOwn);
    const own = await getUrl(s.kv, txn, k0);
    if (own === undefined) setUrl(s, txn, k0, undefined, rewritten(s, k0, p.key, via, depth, now, src), rec);
    else linkImage(s, txn, k0, own);
    return { key: r?.key ?? p.key, admitted: r?.admitted ?? false, via, onto: p.key, ...(left === true ? { left } : {}) };
  }
  // a new URL a rule rewrites onto a failed image is queued as itself (as in `decide`); onto a
  // page under the not-found title, as a check
  const fresh = key !== k0 && via?.startsWith('rule:') === true && (await getUrl(s.kv, txn, k0)) === undefined;
  const titled = fresh ? await checkOfTitledImage(s, txn, key, via!, { d: depth, t: now }) : undefined;
  if (titled !== undefined || (fresh && (left === true || (await rewriteAnsweredNoDocument(s, txn, key))))) {
    const entry: UrlEntry = titled ?? { s: 'queued', d: depth, t: now };
    if (src !== undefined) entry.src = src;
    setUrl(s, txn, k0, undefined, entry, rec);
    return { key: k0, admitted: true, via: undefined, onto: k0 };
  }
  let admitted = false;
  const target = await getUrl(s.kv, txn, key);
  if (target === undefined) {
    const krec = key === k0 ? rec : key === t.key ? t.rec : recordOfKey(key);
    if (outsidePartition(s.o.partition, hostOf(krec))) {
      // a fleet partition queues only its host's URLs: the fleet hands this one to its host
      s.outbox.push({ url: recompose(krec), depth, ...(src === undefined ? {} : { src }) });
    } else {
      const entry: UrlEntry = { s: 'queued', d: depth, t: now };
      if (src !== undefined) entry.src = src;
      setUrl(s, txn, key, undefined, entry, krec);
      admitted = true;
    }
  }
  if (key !== k0 && via !== undefined && via !== 'alias') {
    const own = await getUrl(s.kv, txn, k0);
    if (own === undefined) setUrl(s, txn, k0, undefined, rewritten(s, k0, key, via, depth, now, src), rec);
    else linkImage(s, txn, k0, own);
  } else if (target !== undefined && key === k0) linkImage(s, txn, k0, target);
  return { key, admitted, via, onto: key, ...(left === true ? { left } : {}) };
}

/**
 * True when `key`, a rule's rewrite, already answered no document (a 404, an error, a redirect
 * loop): the rewrite failed before it was made, so the URL stays queued as itself (its fetch, a
 * document beside a failed image, contradicts the rule there).
 */
export async function rewriteAnsweredNoDocument(s: Pick<EngineParts, 'kv'>, txn: Txn, key: string): Promise<boolean> {
  const e = await getUrl(s.kv, txn, key);
  if (e === undefined) return false;
  if (e.s === 'redirected') return (await getEvidence(s.kv, txn, evidenceKeys.loop(key))) !== undefined;
  return answeredNoDocument(e);
}

/** A URL named now (a redirect's target, a URL given back): an unlinked image it was is linked (`UrlEntry.i`). */
function linkImage(s: Pick<EngineParts, 'frontier'>, txn: Txn, key: string, e: UrlEntry): void {
  if (e.s !== 'pruned' || e.i !== true) return;
  const { i: _unlinked, ...linked } = e;
  setUrl(s, txn, key, e, linked);
}
