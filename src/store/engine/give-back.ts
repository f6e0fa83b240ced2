/**
 * Pruning and giving back. A URL mapped elsewhere by a preset or rule is recorded `pruned` with
 * its reason, so that a reason no longer in force gives its URLs back (docs/design.md: a withdrawn rule
 * gives its URLs back; a lost document is the worst bug). The crawler's own refusals (`trap:*`)
 * are pruned the same way and come back with `restore`.
 */
import { isPresetName, type PresetName, type UriRecord } from '../../normalize/index.js';
import { evidenceKeys, parseFrontierKey, prefixRange, SEP, type UrlEntry } from '../keys.js';
import { parseBlock } from '../frontier.js';
import { applies, hostOf, parseRuleId, rewrites } from '../rules.js';
import { dirOf, learnedOnContent, type Support } from '../learning/rule-scope.js';
import { hostTag } from '../host-tag.js';
import type { FrontierEntry, PruneEntry } from '../seen-store.js';
import { admitOne, rewriteAnsweredNoDocument } from './admit.js';
import { checksRewrite, countChecked, sampledRule } from './rewrite-checks.js';
import { checkOfTitledImage } from './titled-images.js';
import { getAlias, getUrl, prefetchUrls, type Txn } from './batch.js';
import { canonicalize, identity, isUrlError, leavesRewrite, presetOff, transform, type Identity, type Transformed } from './canonicalize.js';
import type { RuleChanges } from '../learning/contract.js';
import type { EngineParts } from './parts.js';
import { answeredDocument, carried, forgetUnlinkedImage, recordOfKey, setUrl } from './url-state.js';
import type { WriteQueue } from './write-queue.js';
import type { SampledRule } from '../learning/rewrite-samples.js';

/**
 * True while what pruned a URL still holds: its preset is on (on `host`: for the URL `rec`, or
 * without one, somewhere on the host), its rule active, or it is a trap.
 */
export function inForce(s: Pick<EngineParts, 'o' | 'rules'>, reason: string, host?: string, rec?: UriRecord): boolean {
  if (reason.startsWith('preset:')) {
    const name = reason.slice(7) as PresetName;
    if (!s.o.presets.includes(name) || host === undefined) return s.o.presets.includes(name);
    return rec === undefined ? !s.rules.suspendedPresets.isOff(host, name) : !presetOff(s, rec, name);
  }
  if (reason.startsWith('rule:')) return s.rules.get(reason.slice(5))?.state === 'active';
  // the crawler's refusals: in force until given back with `restore`
  if (reason.startsWith('trap:')) return true;
  return false;
}

/**
 * After a commit that changed rules' scopes: a rule that lost scopes gives back what it pruned
 * (each URL evaluated again under the rules as they are now: one still in a scope of the rule
 * stays pruned), and one that gained scopes prunes the frontier of its host.
 */
export async function afterRuleChanges(s: EngineParts, q: WriteQueue, changes: RuleChanges): Promise<void> {
  for (const id of changes.givesBack) {
    // what the rule's images were read for no longer holds (they come back below): when it gains
    // scope again, every document is read again, those fetched while it held less among them
    s.rules.imageScans.delete(id);
    await restoreReason(s, q, `rule:${id}`, s.rules.get(id)?.state === 'active' ? undefined : `rule:${id}`);
    await restoreChained(s, q, id);
  }
  await reconsider(s, q, changes.reconsider);
  for (const id of changes.activated) if (s.rules.get(id)?.state === 'active') await pruneFrontier(s, q, id);
}

/**
 * A rule's pruning of its host's frontier: blocks read per pass, and candidates (queued URLs the
 * rule applies to) per batch, which bounds a batch (a Redis partition writes it in one script).
 */
const PRUNE_BLOCKS = 32;
const PRUNE_LINES = 1024;

interface PruneCandidate {
  readonly key: string;
  readonly depth: number;
  readonly seq: number;
  readonly rec: UriRecord;
}

/**
 * A rule became active: queued URLs of its host that it maps elsewhere are pruned. The host's
 * blocks are read `PRUNE_BLOCKS` at a time, and their candidates' entries read `PRUNE_LINES` at a
 * time, one batch each. A block is written once (frontier.ts); a line whose entry is no longer
 * queued in that block is skipped.
 */
export async function pruneFrontier(s: EngineParts, q: WriteQueue, id: string): Promise<void> {
  const parsed = parseRuleId(id);
  if (parsed === undefined) return;
  const host = parsed.host;
  let sampled = 0;
  // the URLs it rewrites, first or after another rule of a chain (`/A/index.Html` reaches
  // `default-document` through the case rule: read by the rule alone, it was never a candidate,
  // never sampled, and was pruned at hand-out onto the directory, a stale index lost: simulator
  // seed 91097)
  // (the rules do not change while these are pruned: the one transform that picks a candidate
  // also gives where it is sent, and whether this rule sends it there)
  const reason = `rule:${id}`;
  let sent = new Map<string, { t: Transformed; byRule: boolean }>();
  const chained = (rec: UriRecord, key: string): boolean => {
    const chain: string[] = [];
    const t = transform(s, rec, key, undefined, undefined, chain);
    const byRule = chain.includes(reason);
    if (!byRule && !applies(parsed.spec, rec)) return false;
    sent.set(key, { t, byRule });
    return true;
  };
  for await (const byHost of queuedByHost(s, prefixRange(host + SEP), chained)) {
    const candidates = byHost.get(host) ?? [];
    // the first few, and as many more as a paced rule's evidence wants checked before it prunes
    // the rest of these (rewrite-samples.ts: the checks keep pace with the rewrites)
    const rule = sampledRule(s, reason);
    // the candidates the rule rewrites now (in its domain and in a scope of it), first or after
    // another rule of a chain
    const targets: Transformed[] = candidates.map((c) => sent.get(c.key)!.t);
    const rewritten = candidates.filter((c) => sent.get(c.key)!.byRule);
    sent = new Map();
    const want = Math.max(s.rules.samples.checksDue(reason, rewritten.length, rule), ACTIVATION_SAMPLE - sampled, rule.everyPlace?.() === true ? unsupportedPlaces(s, id, rewritten) : 0);
    const marked = want > 0 ? await sampleCandidates(s, q, host, id, rule, rewritten, want) : 0;
    sampled += marked;
    s.rules.samples.uncheckedRewrites(reason, rewritten.length - marked, rule);
    for (let i = 0; i < candidates.length; i += PRUNE_LINES) await pruneCandidates(s, q, host, candidates.slice(i, i + PRUNE_LINES), targets.slice(i, i + PRUNE_LINES));
  }
  // a mirror's images are its host's own URLs, the names it sends the mirror to: those are
  // fetched as themselves, never pruned onto a page the mirror answered (a copy's edited page)
  if (parsed.spec.kind !== 'mirror') await pruneImages(s, q, id, host);
}

/**
 * The directories among `rewritten` where rule `id` has no support: a rule checked in every new
 * directory (rule-scope.ts `checksEveryPlace`) checks one URL in each as it prunes there.
 */
function unsupportedPlaces(s: Pick<EngineParts, 'rules'>, id: string, rewritten: readonly PruneCandidate[]): number {
  const supported = supportDirs(s.rules.get(id)?.support ?? []);
  const dirs = new Set<string>();
  for (const c of rewritten) {
    const d = dirOf(c.rec.path || '/');
    if (!supported.has(d)) dirs.add(d);
  }
  return dirs.size;
}

/** The directories a rule's support lies in. */
function supportDirs(support: readonly Support[]): Set<string> {
  return new Set(support.map((x) => dirOf(x.p === '' ? '/' : x.p)));
}

/** Documents read, at most, for images each time a rule gains scope (past it, images are fetched). */
const IMAGE_SCAN = 50_000;

/**
 * A rule became active, or wider: a document the host answered before, under a name the rule
 * sends elsewhere (`/a?sid=1`, fetched first because the first link to it carried a session id),
 * already answered for the name it is sent to (`/a`). That image, queued or not yet seen, is
 * recorded pruned onto the document under the rule's reason, so that a link to it, or to any
 * other name the rule sends there, is a duplicate, not a second fetch of the document. It is the
 * rule's own claim read the other way, checked the same way: images are counted with the rule's
 * rewrites (rewrite-checks.ts `checksRewrite`), and one the learner checks is queued (or stays queued) as
 * a check, its fetch compared with the document (content-pairs.ts). When the rule no longer sends
 * the document there, an image comes back (`restoreReason`) if a link named it, and is forgotten
 * if none did (`UrlEntry.i`).
 */
async function pruneImages(s: Pick<EngineParts, 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, q: WriteQueue, id: string, host: string): Promise<void> {
  // the documents under each scope not read for this rule yet (a directory's, or an exact path's):
  // a scope that covers more than when it was read (a flat directory grown to its subdirectories,
  // a query or a value gained) is read again, since its new images lie among the documents read
  let scanned = s.rules.imageScans.get(id);
  if (scanned === undefined) s.rules.imageScans.set(id, (scanned = new Set()));
  let read = 0;
  for (const scope of s.rules.get(id)?.scopes ?? []) {
    const reach = `${scope.at}${scope.flat === true ? '*' : ''}${scope.query ? '?' : ''}${scope.values === undefined ? '' : `=${scope.values.join('|')}`}`;
    if (scanned.has(reach) || read >= IMAGE_SCAN) continue;
    scanned.add(reach);
    const exact = scope.at.charCodeAt(0) === 0x3d;
    // an exact path's entries end in SEP; a directory's are every bare path that starts with it
    const dir = evidenceKeys.pathDocumentHostPrefix(host) + scope.at;
    const range = exact ? prefixRange(evidenceKeys.pathDocumentPrefix(host, scope.at.slice(1))) : { gte: dir, lt: dir.slice(0, -1) + String.fromCharCode(dir.charCodeAt(dir.length - 1) + 1) };
    read += await pruneImagesIn(s, q, id, range, IMAGE_SCAN - read);
  }
}

/** `pruneImages` over the documents of one key range, `limit` at most; returns how many it read. */
async function pruneImagesIn(s: Pick<EngineParts, 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, q: WriteQueue, id: string, range: { gte: string; lt: string }, limit: number): Promise<number> {
  const reason = `rule:${id}`;
  let after: string | undefined;
  let read = 0;
  while (read < limit) {
    const docs: string[] = [];
    const from = after === undefined ? { gte: range.gte } : { gt: after };
    for await (const [k] of s.kv.entries('evidence', { ...from, lt: range.lt, limit: PRUNE_LINES })) {
      after = k;
      docs.push(k.slice(k.lastIndexOf(SEP) + 1));
    }
    if (docs.length === 0) return read;
    read += docs.length;
    if (s.rules.get(id)?.state !== 'active') return read;
    const txn = q.newTxn();
    const now = Date.now();
    const images: { doc: string; rec: UriRecord }[] = [];
    for (const doc of docs) {
      const rec = recordOfKey(doc);
      const t = transform(s, rec, doc);
      if (t.via === undefined || t.key === doc) continue;
      // the rule acts on the document's name, first or further down a chain of rules
      // (`/a;jsessionid=1?ref=x` sent by a session rule and a tracking rule to `/a`): the image is
      // where the whole chain sends it, whichever rule of the chain came last
      if (t.via === reason || (t.via.startsWith('rule:') && transform(s, rec, doc, reason).key !== t.key)) images.push({ doc, rec });
    }
    if (images.length > 0) {
      await prefetchUrls(s.kv, txn, images.map((x) => x.doc));
      for (const { doc, rec } of images) await pruneImage(s, txn, doc, rec, now);
    }
    if (txn.ops.length > 0) await q.commit(txn);
  }
  return read;
}

/**
 * The image of document `doc` (a URL that answered a document) under the rules in force, when a
 * rule sends `doc` elsewhere: recorded pruned onto `doc` if nobody linked it yet, pruned if it
 * waits in the frontier; one the learner checks is queued as a check instead.
 */
async function pruneImage(s: Pick<EngineParts, 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, txn: Txn, doc: string, rec: UriRecord, now: number, queuedToo = true): Promise<void> {
  const de = await getUrl(s.kv, txn, doc);
  if (de === undefined || !answeredDocument(de) || de.c === undefined) return;
  const { key, via } = await canonicalize(s, txn, rec, doc);
  // recorded under the chain's first rule, as a URL the chain prunes is (admit.ts): its
  // give-back reaches the image, and a later rule's reaches it through `restoreChained`
  if (via === undefined || !via.startsWith('rule:') || key === doc) return;
  const prev = await getUrl(s.kv, txn, key);
  if (prev === undefined) {
    // one the learner checks is queued as a check: fetched, it answers the document (support)
    // or not (a contradiction where the document lies), as a rewrite checked at admit does
    if (!checksRewrite(s, via, doc)) setUrl(s, txn, key, undefined, { s: 'pruned', d: de.d, t: now, by: via, to: doc, i: true });
    else setUrl(s, txn, key, undefined, { s: 'queued', d: de.d, t: now, k: 'v', by: via, to: doc }, recordOfKey(key));
  } else if (queuedToo && prev.s === 'queued' && prev.k === undefined && !s.frontier.isInFlight(key)) {
    if (!checksRewrite(s, via, doc)) setUrl(s, txn, key, prev, { ...carried(prev, prev.d, now), s: 'pruned', by: via, to: doc });
  }
}

/**
 * A URL an active rule sends elsewhere was fetched as itself (not as a check) and answered a
 * document: one kept queued because the name it would be sent to was not known
 * (`pruneCandidates`), or handed out before the rule reached it. An image nobody linked yet is
 * recorded as `pruneImages` records those of the documents fetched before the rule gained scope,
 * so that a later link to it is a duplicate, not a second fetch of the document. An image already
 * queued is left to be fetched: a check queued meanwhile may be waiting to compare with it.
 */
export async function pruneImageAfterFetch(s: EngineParts, q: WriteQueue, u: Identity): Promise<void> {
  if (!s.rules.anyLive) return;
  const t = transform(s, u.rec, u.key);
  // only a rule learned from content leaves a URL queued as itself (`pruneCandidates`); a rule
  // with redirects among its evidence rewrites every one, and sends a name fetched as itself (a
  // seed) nowhere new: its rewrite stays unknown until a link names it (admit.ts `stopChains`)
  if (t.via === undefined || !t.via.startsWith('rule:') || t.key === u.key || !contentOnly(s, t.via)) return;
  const txn = q.newTxn();
  await pruneImage(s, txn, u.key, u.rec, Date.now(), false);
  if (txn.ops.length > 0) await q.commit(txn);
}

/**
 * True when `key`, pruned onto `to` by `reason`, is the image of that document under the rules
 * in force now (`pruneImages`): the rule still sends the document there.
 */
function stillImage(s: Pick<EngineParts, 'o' | 'rules'>, key: string, to: string, reason: string): boolean {
  const t = transform(s, recordOfKey(to), to);
  return t.via === reason && t.key === key;
}

/**
 * The queued URLs of the frontier blocks in `range` (all hosts when absent) that `keep` accepts,
 * by host, `PRUNE_BLOCKS` blocks at a time; URLs in flight are left out.
 */
async function* queuedByHost(s: Pick<EngineParts, 'frontier' | 'kv'>, range: { gte: string; lt: string } | undefined, keep: (rec: UriRecord, key: string) => boolean): AsyncIterable<Map<string, PruneCandidate[]>> {
  let after: string | undefined;
  for (;;) {
    const blocks: [string, string][] = [];
    const from = after === undefined ? (range === undefined ? {} : { gte: range.gte }) : { gt: after };
    for await (const e of s.kv.entries('frontier', { ...from, ...(range === undefined ? {} : { lt: range.lt }), limit: PRUNE_BLOCKS })) blocks.push(e);
    if (blocks.length === 0) return;
    after = blocks[blocks.length - 1]![0];
    const byHost = new Map<string, PruneCandidate[]>();
    for (const [block, value] of blocks) {
      const { host, seq } = parseFrontierKey(block);
      for (const { key, depth } of parseBlock(value)) {
        if (s.frontier.isInFlight(key)) continue;
        const rec = recordOfKey(key);
        if (!keep(rec, key)) continue;
        let list = byHost.get(host);
        if (list === undefined) byHost.set(host, (list = []));
        list.push({ key, depth, seq, rec });
      }
    }
    yield byHost;
  }
}

/**
 * Every queued URL that what maps it now sends elsewhere by a reason `wanted` accepts (presets
 * made the store's own by a `changePresets` open) is pruned under that reason: the frontier
 * read `PRUNE_BLOCKS` blocks at a time over all hosts, as `pruneFrontier` reads one host's.
 */
export async function pruneQueued(s: EngineParts, q: WriteQueue, wanted: (via: string) => boolean): Promise<void> {
  const keep = (rec: UriRecord, key: string): boolean => {
    const via = transform(s, rec, key).via;
    return via !== undefined && wanted(via);
  };
  for await (const byHost of queuedByHost(s, undefined, keep)) {
    for (const [host, candidates] of byHost) {
      for (let i = 0; i < candidates.length; i += PRUNE_LINES) {
        const batch = candidates.slice(i, i + PRUNE_LINES);
        await pruneCandidates(s, q, host, batch, batch.map((c) => transform(s, c.rec, c.key)));
      }
    }
  }
}

/** FNV-1a of `s` (32 bits): a draw that is the same for one key in every run. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Queued URLs a rule would prune that are fetched as themselves first, when it gains scope. */
const ACTIVATION_SAMPLE = 2;

/**
 * A rule checked before it prunes what was already queued (DUSTBuster's validation, Bar-Yossef et
 * al., WWW 2007, done online): of the queued URLs it now maps elsewhere, a few are kept queued as
 * themselves, marked as checks (`k: 'v'`, with their rewrite), so that the learner compares both
 * once fetched. The ones least like the rule's evidence come first: a URL in a directory where no
 * supporting observation lies, then one with a query where the evidence had none (a paced rule's,
 * drawn at random: below). They count
 * as the rule's first checked rewrites (admit.ts samples on from there). Returns how many it
 * marked.
 */
async function sampleCandidates(s: EngineParts, q: WriteQueue, host: string, id: string, rule: SampledRule, rewritten: readonly PruneCandidate[], n: number): Promise<number> {
  const support = s.rules.get(id)?.support ?? [];
  const dirs = supportDirs(support);
  const withQuery = support.some((x) => x.q === true);
  const unlike = (c: PruneCandidate): number => (dirs.has(dirOf(c.rec.path || '/')) ? 0 : 2) + (c.rec.query !== undefined && !withQuery ? 1 : 0);
  const picked: PruneCandidate[] = [];
  if (rule.paced?.() !== undefined) {
    // a paced rule may be wrong page by page where no place tells (a choice some pages honour, a
    // mirror's edited pages): its checks are a sample of the pages, drawn by a hash of their
    // keys, not the first of each directory (its index page, first found, which is never edited)
    const drawn = rewritten.map((c) => ({ c, h: fnv1a(c.key) })).sort((a, b) => a.h - b.h);
    for (const { c } of drawn.slice(0, n)) picked.push(c);
  } else {
    const order = rewritten.map((c, i) => ({ c, i, u: unlike(c) })).sort((a, b) => b.u - a.u || a.i - b.i);
    // one per directory first, then the next ones in that order
    const pickedDirs = new Set<string>();
    for (const { c } of order) {
      const d = dirOf(c.rec.path || '/');
      if (picked.length < n && !pickedDirs.has(d)) {
        pickedDirs.add(d);
        picked.push(c);
      }
    }
    for (const { c } of order) if (picked.length < n && !picked.includes(c)) picked.push(c);
  }
  if (picked.length === 0) return 0;
  const txn = q.newTxn();
  const now = Date.now();
  let marked = 0;
  for (const c of picked) {
    const prev = await getUrl(s.kv, txn, c.key);
    if (prev?.s !== 'queued' || prev.n !== c.seq || prev.h !== host || prev.k !== undefined) continue;
    const t = transform(s, c.rec, c.key);
    if (t.via === undefined || t.key === c.key || !t.via.startsWith('rule:')) continue;
    // the rewrite is queued too (when new), and the original stays queued as itself, a check
    const r = await admitOne(s, txn, t.rec, t.key, c.depth, prev.src, now);
    // the check needs both names fetched: the rewrite, queued here, is offered first too
    const queued = r.admitted ? txn.urls.get(r.key) : undefined;
    if (queued?.h !== undefined && queued.n !== undefined) txn.queue.urge(r.key, queued.h, queued.n, queued.d);
    setUrl(s, txn, c.key, prev, { ...prev, k: 'v', by: t.via, to: t.key });
    // they are the rule's first checked rewrites: admit's sampling goes on from there
    countChecked(s, `rule:${id}`, c.key);
    marked++;
  }
  await q.commit(txn);
  return marked;
}

/**
 * One batch of `pruneFrontier`: each candidate still queued where it was read, pruned when the
 * rules move it. A rule learned from content alone (its originals answer as themselves) rewrites
 * onto a name the store has not seen only where that saves a fetch, for two or more queued URLs
 * of the batch: one URL sent to a name nobody linked is fetched as itself, since the name may not
 * exist (a rule widened past its evidence: every `/a.html` sent to a `/a` that is a 404) and then
 * costs two requests where one would do. A rule with redirects among its evidence always rewrites:
 * its originals redirect, and the rewrite saves the hop.
 */
async function pruneCandidates(s: EngineParts, q: WriteQueue, host: string, candidates: readonly PruneCandidate[], targets: readonly Transformed[]): Promise<void> {
  const txn = q.newTxn();
  const now = Date.now();
  // `targets`: where the rules send each candidate (an alias may send it further: read then)
  await prefetchUrls(s.kv, txn, candidates.flatMap((c, i) => [c.key, targets[i]!.key]));
  const sharing = new Map<string, number>();
  for (const t of targets) if (t.via?.startsWith('rule:') === true && contentOnly(s, t.via)) sharing.set(t.key, (sharing.get(t.key) ?? 0) + 1);
  for (let i = 0; i < candidates.length; i++) {
    const { key, depth, seq, rec } = candidates[i]!;
    const prev = await getUrl(s.kv, txn, key);
    // a check the learner asked for is fetched as itself, whatever the rules say
    if (prev?.s !== 'queued' || prev.n !== seq || prev.h !== host || prev.k !== undefined) continue;
    const t = targets[i]!;
    if (t.key !== key && sharing.get(t.key) === 1 && (await getUrl(s.kv, txn, t.key)) === undefined && (await getAlias(s, txn, t.key)) === undefined) continue;
    await pruneOnto(s, txn, key, rec, depth, prev.src, now);
  }
  await q.commit(txn);
}

/**
 * The queued URL `key` recorded pruned onto where the presets and rules send it (that URL
 * admitted first when new). False, and it stays queued, when they send it nowhere or through an
 * alias only, or onto a rule's rewrite that answered no document.
 */
async function pruneOnto(s: EngineParts, txn: Txn, key: string, rec: UriRecord, depth: number, src: string | undefined, now: number): Promise<boolean> {
  const r = await admitOne(s, txn, rec, key, depth, src, now);
  if (r.onto === key || r.via === undefined || r.via === 'alias') return false;
  if (r.via.startsWith('rule:') && (r.left === true || (await rewriteAnsweredNoDocument(s, txn, r.key)))) return false;
  const still = await getUrl(s.kv, txn, key);
  if (still?.s !== 'queued') return false;
  // a page under the not-found title: fetched as itself, a check, and compared with it
  const check = still.k === undefined ? await checkOfTitledImage(s, txn, r.onto, r.via, carried(still, depth, now)) : undefined;
  if (check !== undefined) {
    setUrl(s, txn, key, still, check);
    return false;
  }
  // (onto the presets' output where the rules move that further: a URL of its own, admit.ts)
  setUrl(s, txn, key, still, { ...carried(still, depth, now), s: 'pruned', by: r.via, to: r.onto });
  return true;
}

/**
 * Entries the frontier just handed out, less those a rule now sends to a name the store knows: a
 * URL `pruneCandidates` kept queued as itself because the name it would be sent to was unknown
 * (it may not exist), whose name has since been linked or fetched. It is pruned onto that name as
 * `pruneCandidates` would have pruned it, now that the name is known, and is not fetched. Checks
 * and probes are handed out as they are; so is a URL whose rewrite answered no document.
 */
export async function pruneHandedOut(s: EngineParts, q: WriteQueue, entries: FrontierEntry[]): Promise<FrontierEntry[]> {
  if (!s.o.learnRules || !s.rules.anyLive) return entries;
  let txn: Txn | undefined;
  const now = Date.now();
  const kept: FrontierEntry[] = [];
  for (const e of entries) {
    if (e.check !== undefined || !s.rules.hasActive(e.host) || !(await prunedAtHandOut(s, (txn ??= q.newTxn()), e, now))) kept.push(e);
  }
  if (txn !== undefined && txn.ops.length > 0) await q.commit(txn);
  return kept;
}

/** True when the handed-out `e` was pruned onto a known name (`pruneHandedOut`). */
async function prunedAtHandOut(s: EngineParts, txn: Txn, e: FrontierEntry, now: number): Promise<boolean> {
  const rec = recordOfKey(e.key);
  const t = transform(s, rec, e.key);
  // (a rule first: no preset moved it, so what `pruneOnto` prunes it by is that rule)
  if (t.via === undefined || !t.via.startsWith('rule:') || t.key === e.key) return false;
  const prev = await getUrl(s.kv, txn, e.key);
  if (prev?.s !== 'queued' || prev.k !== undefined) return false;
  if ((await getUrl(s.kv, txn, t.key)) === undefined && (await getAlias(s, txn, t.key)) === undefined) return false;
  if (!(await pruneOnto(s, txn, e.key, rec, prev.d, prev.src, now))) return false;
  txn.queue.landed.push(e.key);
  return true;
}

/** True when rule `via` (`rule:<id>`) holds on content evidence alone: no redirect supports it. */
function contentOnly(s: Pick<EngineParts, 'rules'>, via: string): boolean {
  return learnedOnContent(s.rules.get(via.slice(5))?.support ?? []);
}

/**
 * Give back the URLs pruned by `reason`: each is evaluated again without `exclude`; one still
 * mapped elsewhere by a preset or rule is pruned under that one (under `reason` itself when a
 * narrowed rule still holds where it lies), the others are queued. Returns the URLs given back.
 */
export async function restoreReason(s: EngineParts, q: WriteQueue, reason: string, exclude: string | undefined): Promise<number> {
  let total = 0;
  for await (const keys of prunedUnder(s, reason)) {
    const txn = q.newTxn();
    const now = Date.now();
    await prefetchUrls(s.kv, txn, keys);
    for (const key of keys) {
      const prev = await getUrl(s.kv, txn, key);
      if (prev?.s !== 'pruned' || prev.by !== reason) {
        txn.del('pruned', `${reason}${SEP}${key}`); // stale index entry
        continue;
      }
      if (await restoreEntry(s, txn, key, prev, reason, exclude, now)) total++;
    }
    await q.commit(txn);
  }
  return total;
}

/**
 * The keys the `pruned` index has under `reason`, `restoreBatchSize` at a time in key order. The
 * caller commits what it changes before asking for the next batch: each read starts after the
 * last key read, so an entry rewritten under another reason is not met again.
 */
async function* prunedUnder(s: Pick<EngineParts, 'kv' | 'o'>, reason: string, keyPrefix = ''): AsyncIterable<string[]> {
  const prefix = reason + SEP + keyPrefix;
  // every key that starts with `prefix` (prefixRange's end is for a prefix ending in SEP)
  const range = { gte: prefix, lt: prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1) };
  let after: string | undefined;
  for (;;) {
    const chunk: string[] = [];
    const from = after === undefined ? { gte: range.gte } : { gt: after };
    for await (const [pk] of s.kv.entries('pruned', { ...from, lt: range.lt, limit: s.o.restoreBatchSize })) chunk.push(pk);
    if (chunk.length === 0) return;
    after = chunk[chunk.length - 1]!;
    yield chunk.map((pk) => pk.slice(reason.length + 1));
  }
}

/**
 * Rule `id` gave back: URLs pruned under another rule or a preset of its host, through a chain in
 * which `id` came later (`/a;jsessionid=1?ref=x`, recorded under the session rule, sent to `/a` by
 * the tracking rule after it; `/a?utm_source=x`, recorded under the tracking preset, sent to `/a/`
 * by a slash rule after it; an image made by such a chain), are out of reach of `id`'s own
 * give-back. Each is evaluated again where the rules of now no longer send it where it was sent;
 * the others stay pruned. Read only under the reasons in force on the host (another active rule, a
 * preset not suspended there, the host's keys only), as their pruned entries are all that may hold
 * such a chain.
 */
async function restoreChained(s: EngineParts, q: WriteQueue, id: string): Promise<void> {
  const host = parseRuleId(id)?.host;
  if (host === undefined) return;
  const reasons: { reason: string; keyPrefix: string }[] = [];
  for (const o of s.rules.idsOf(host)) if (o !== id && s.rules.get(o)?.state === 'active') reasons.push({ reason: `rule:${o}`, keyPrefix: '' });
  // a preset's pruned entries are of every host: those of the rule's host name (any port) are read
  const hostKeys = hostTag(host).slice(1) + ')';
  for (const name of s.o.presets) if (inForce(s, `preset:${name}`, host)) reasons.push({ reason: `preset:${name}`, keyPrefix: hostKeys });
  for (const { reason, keyPrefix } of reasons) {
    for await (const keys of prunedUnder(s, reason, keyPrefix)) {
      const txn = q.newTxn();
      const now = Date.now();
      await prefetchUrls(s.kv, txn, keys);
      for (const key of keys) {
        const prev = await getUrl(s.kv, txn, key);
        if (prev?.s !== 'pruned' || prev.by !== reason || prev.to === undefined || prev.to === key) continue;
        if (stillImage(s, key, prev.to, reason)) continue;
        const mapped = await canonicalize(s, txn, recordOfKey(key), key);
        // (a URL the presets send to a URL of its own, which the rules move further, is pruned onto that URL)
        if (mapped.via === reason && (mapped.key === prev.to || mapped.t.preset?.key === prev.to)) continue;
        // mapped nowhere while the rule it was pruned under is active: the rules of now make a
        // cycle of it (`/a.htm` → `/a.html` → `/a` → `/a.en.html` → `/a.html`), which applies none
        // (rules.ts `applyRules`); its own rule still sends it where it was sent. Not where the
        // rules moved it and an alias brought it back (the server redirected their output to it,
        // its own form, `/a?lang=de` → 302 → `/a;jsessionid=1?lang=de`): that alias cancels them
        if (mapped.via === undefined && mapped.key === key && mapped.t.key === key && stillRewrites(s, reason, key)) continue;
        await restoreEntry(s, txn, key, prev, reason, undefined, now);
      }
      if (txn.ops.length > 0) await q.commit(txn);
    }
  }
}

/** True when the active rule of `reason` rewrites `key` (a URL it pruned; not an image, which it rewrites the other way). */
function stillRewrites(s: Pick<EngineParts, 'rules'>, reason: string, key: string): boolean {
  const rec = recordOfKey(key);
  const id = reason.slice(5);
  const rule = s.rules.activeOf(hostOf(rec))?.find((r) => r.id === id);
  return rule !== undefined && rewrites(rule, rec);
}

/**
 * Pruned URLs whose recorded target a later step of their chain sent nowhere (the learner's
 * `reconsider`): they were pruned under their chain's first rule, which still holds, so no
 * give-back of that rule reaches them; each is evaluated again under the rules of now.
 */
async function reconsider(s: EngineParts, q: WriteQueue, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const txn = q.newTxn();
  const now = Date.now();
  await prefetchUrls(s.kv, txn, keys);
  for (const key of keys) {
    const prev = await getUrl(s.kv, txn, key);
    if (prev?.s !== 'pruned' || prev.by === undefined) continue;
    await restoreEntry(s, txn, key, prev, prev.by, undefined, now);
  }
  await q.commit(txn);
}

/**
 * One pruned URL evaluated again: pruned anew where what maps it now sends it to a URL that may
 * answer (its rewrite admitted), queued as itself otherwise. True when it no longer stays pruned
 * by `reason` onto a URL that `reason` maps it to.
 */
async function restoreEntry(s: EngineParts, txn: Txn, key: string, prev: UrlEntry, reason: string, exclude: string | undefined, now: number): Promise<boolean> {
  const rec = recordOfKey(key);
  const t = transform(s, rec, key, exclude);
  // an image (pruneImages) the rule, narrowed, still sends its document to stays pruned
  if (t.via === undefined && exclude === undefined && prev.to !== undefined && prev.to !== key && stillImage(s, key, prev.to, reason)) return false;
  if (prev.s === 'pruned' && prev.i === true) return restoreImage(s, txn, key, prev, t, reason, exclude, now);
  let onto: string | undefined;
  if (t.via !== undefined && t.key !== key && t.preset !== undefined) {
    // the presets' output, which the rules move further, is a URL of its own (admit.ts): pruned
    // onto it, admitted as a link would be unless it has an entry, whose state then speaks for it
    const p = t.preset;
    if ((await getUrl(s.kv, txn, p.key)) === undefined) await admitOne(s, txn, p.rec, p.key, prev.d, prev.src, now, exclude);
    onto = p.key;
  } else if (t.via !== undefined && t.key !== key) {
    const r = await admitOne(s, txn, t.rec, t.key, prev.d, prev.src, now, exclude);
    const alias = r.key === t.key ? undefined : await getAlias(s, txn, t.key);
    const left = alias !== undefined && leavesRewrite(s, t, alias.to);
    if (r.key !== key && !left && !(t.via.startsWith('rule:') && (await rewriteAnsweredNoDocument(s, txn, r.key)))) onto = r.key;
  }
  const cur = (await getUrl(s.kv, txn, key)) ?? prev;
  // (a page under the not-found title: queued as a check, compared with it)
  const check = onto !== undefined && t.via !== undefined ? await checkOfTitledImage(s, txn, onto, t.via, carried(cur, cur.d, now)) : undefined;
  if (check !== undefined) setUrl(s, txn, key, cur, check, rec);
  else if (onto !== undefined && t.via !== undefined) setUrl(s, txn, key, cur, { ...carried(cur, cur.d, now), s: 'pruned', by: t.via, to: onto });
  else setUrl(s, txn, key, cur, { ...carried(cur, cur.d, now), s: 'queued' }, rec);
  return check !== undefined || !(onto !== undefined && t.via === reason);
}

/**
 * `restoreEntry` for an image no link named (`UrlEntry.i`): pruned anew onto a document the rules
 * of now send it to, forgotten otherwise (and not counted as given back). Nothing is queued for
 * it: nobody asked for the URL, and a rewrite of a name nobody linked checks nothing.
 */
async function restoreImage(s: Pick<EngineParts, 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, txn: Txn, key: string, prev: UrlEntry, t: { key: string; via: string | undefined }, reason: string, exclude: string | undefined, now: number): Promise<boolean> {
  if (t.via !== undefined && t.key !== key) {
    const { key: onto, via } = await canonicalize(s, txn, recordOfKey(key), key, exclude);
    const e = onto === key ? undefined : await getUrl(s.kv, txn, onto);
    if (via !== undefined && answeredDocument(e)) {
      setUrl(s, txn, key, prev, { ...carried(prev, prev.d, now), s: 'pruned', by: via, to: onto, i: true });
      return via !== reason;
    }
  }
  forgetUnlinkedImage(txn, key, prev);
  return false; // not given back: nobody asked for it
}

/** `restore(reason)`'s reason in full: a bare preset name or rule id gets its prefix. */
export function reasonOf(reason: string): string {
  if (reason.startsWith('rule:') || reason.startsWith('preset:') || reason.startsWith('trap:')) return reason;
  return isPresetName(reason) ? `preset:${reason}` : `rule:${reason}`;
}

/** One URL the crawler refuses, keyed (before the queue runs). */
export interface PruneRequest {
  readonly id: Identity;
  readonly reason: string;
  readonly depth: number | undefined;
}

/**
 * Check `prune`'s entries and key them; a URL the store cannot key is skipped. Throws a
 * `TypeError` for misuse.
 */
export function pruneRequests(s: Pick<EngineParts, 'normalizeOptions' | 'salt'>, entries: readonly PruneEntry[]): PruneRequest[] {
  if (!Array.isArray(entries)) throw new TypeError('prune: entries must be an array');
  const out: PruneRequest[] = [];
  for (const e of entries) {
    if (typeof e?.url !== 'string') throw new TypeError('prune: url must be a string');
    if (typeof e.reason !== 'string' || !/^trap:[^\s\x00-\x1f]+$/.test(e.reason)) {
      throw new TypeError(`prune: reason must be trap:<name>, not ${JSON.stringify(e.reason)}`);
    }
    if (e.depth !== undefined && !(Number.isInteger(e.depth) && e.depth >= 0)) throw new TypeError('prune: depth must be an integer >= 0');
    try {
      out.push({ id: identity(s, e.url), reason: e.reason, depth: e.depth });
    } catch (error) {
      if (!isUrlError(error)) throw error;
    }
  }
  return out;
}

/**
 * The crawler's refusals: each URL's canonical key (as admit would find it) is recorded pruned by
 * its reason, when it is new, or queued and not in flight (and not queued shallower than asked).
 */
export async function prune(s: Pick<EngineParts, 'frontier' | 'kv' | 'o' | 'rules' | 'seen'>, q: WriteQueue, requests: readonly PruneRequest[]): Promise<void> {
  const txn = q.newTxn();
  const now = Date.now();
  for (const { id, reason, depth } of requests) {
    const { key } = await canonicalize(s, txn, id.rec, id.key);
    const prev = await getUrl(s.kv, txn, key);
    if (prev === undefined) {
      setUrl(s, txn, key, undefined, { s: 'pruned', d: depth ?? 0, t: now, by: reason, to: key });
    } else if (prev.s === 'queued' && !s.frontier.isInFlight(key) && !(depth !== undefined && prev.d < depth)) {
      setUrl(s, txn, key, prev, { ...carried(prev, prev.d, now), s: 'pruned', by: reason, to: key });
    }
  }
  if (txn.ops.length > 0) await q.commit(txn);
}
