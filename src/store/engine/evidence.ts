/**
 * Evidence in (docs/design.md, `recordRedirect`, `recordFetch`): what a fetch found is recorded on the URL
 * entries, redirects become aliases (chains compressed, loops recorded instead of cycles), and the
 * learner (learner.ts) turns the evidence into host rules. One batch per call.
 */
import { counterNames, decodeJson, encodeJson, evidenceKeys, aliasRevKey, prefixRange, SEP, type AliasEntry, type LoopRecord, type TemporaryRedirect, type UrlEntry } from '../keys.js';
import type { FetchRecord } from '../seen-store.js';
import { outsidePartition } from '../host-tag.js';
import { applyPolicy, keyFromRecord } from '../../normalize/index.js';
import { hostOf } from '../rules.js';
import { admitOne } from './admit.js';
import { getAlias, getEvidence, getUrl, putEvidence, type Txn } from './batch.js';
import { inScope, transform, type Identity } from './canonicalize.js';
import { afterRuleChanges, pruneImageAfterFetch, restoreReason } from './give-back.js';
import type { RepresentationClaim } from '../learning/content-pairs.js';
import { parameterDifference } from '../learning/parameter-difference.js';
import { isCaseProbe } from '../learning/path-variants.js';
import { dirOf } from '../learning/rule-scope.js';
import { imageCheckOf } from '../learning/image-redirects.js';
import { noRuleChanges, type CheckRequest, type RuleChanges } from '../learning/contract.js';
import type { RuleLearner } from '../learning/learner.js';
import type { EngineParts } from './parts.js';
import { carried, recordOfKey, setUrl } from './url-state.js';
import type { WriteQueue } from './write-queue.js';

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Count one more temporary redirect (or followed redirect, status 0) from `from`. */
async function noteTemporary(s: Pick<EngineParts, 'kv'>, txn: Txn, from: string, to: string, status: number, now: number): Promise<void> {
  const k = evidenceKeys.temporary(from);
  const old = await getEvidence(s.kv, txn, k);
  const prevT = old === undefined ? undefined : decodeJson<TemporaryRedirect>(old);
  if (prevT === undefined) txn.count(counterNames.temporary, 1);
  putEvidence(txn, k, encodeJson({ to, st: status, n: (prevT?.n ?? 0) + 1, t: now } satisfies TemporaryRedirect));
}

/**
 * `from` redirected to `to` with `status` (RFC 9110 §15.4). A permanent redirect (301, 308), any
 * with `temporaryRedirectsMerge`, and any to `from` with parameters added make `from` an alias of
 * `to`; the target is admitted when in scope.
 */
export async function recordRedirect(s: EngineParts, q: WriteQueue, learner: RuleLearner, f: Identity, t: Identity, status: number): Promise<void> {
  const now = Date.now();
  const txn = q.newTxn();
  const permanent = status === 301 || status === 308;
  const merge = permanent || s.o.temporaryRedirectsMerge;
  // a redirect to the URL itself with parameters added (`/a` → 302 → `/a;jsessionid=…`, a cookie
  // check's `?cookie=1`): the document at its end is the source's own, so the source is an alias
  // of it whatever the status, and a URL a rule sends onto the source is that document's too
  const ownForm = !merge && t.key !== f.key && parameterDifference(t.rec, f.rec) !== undefined;
  const before = await getUrl(s.kv, txn, f.key);
  const depth = before?.d ?? 0;
  if (before?.k === 'p') {
    // a probe for the not-found answer that redirects: that is the answer (a host that redirects
    // every unknown path); its target is no page to crawl and no evidence about rules
    setUrl(s, txn, f.key, before, { ...carried(before, depth, now), s: 'redirected', st: status, to: t.key, ft: now });
    txn.queue.landed.push(f.key);
    // (a case probe's redirect, learning/case-probe.ts, is the case rule's evidence where it folds)
    let probed: RuleChanges | undefined;
    if (s.o.learnRules && isCaseProbe(f.rec.path)) probed = await learner.fromCaseProbe(txn, f, t, status, merge, now);
    else if (s.o.learnRules) await learner.notFound.record(txn, f, status, undefined);
    if (probed !== undefined) await queueChecks(s, txn, probed.checks, depth, now);
    await q.commit(txn);
    if (probed !== undefined) await afterRuleChanges(s, q, probed);
    return;
  }
  const suspended = s.o.presets.length > 0 && t.key !== f.key ? suspendContradictedPresets(s, txn, f, t, status, now) : [];
  // a learned rule the redirect refuses: it maps the target back onto its source. Not the URL's
  // own form: that the server names the document there agrees with a rule that drops the
  // parameters (the alias below sends the source on to the target, and cancels the rule for it)
  const back = s.o.learnRules && t.key !== f.key && !ownForm ? transform(s, t.rec, t.key) : undefined;
  const refused = back?.via?.startsWith('rule:') === true && back.key === f.key ? await learner.rewriteRefused(txn, back.via.slice(5), f, t, status, now) : undefined;
  // a fleet partition queues only its own host's URLs: the fleet hands the target to its host
  const here = !outsidePartition(s.o.partition, hostOf(t.rec));
  // an own form redirected on to another form the rules send to the same start (`/a` → 302 →
  // `/a;jsessionid=S` → 301 → `/a;jsessionid=s`, an "enforce lowercase" rewrite folding the id):
  // the chain's document is at the target, which the rules send onto the start, an alias of the
  // source. It is an own form of the chain too
  const chained = !ownForm && t.key !== f.key && back?.key !== f.key && (await getAlias(s, txn, transform(s, t.rec, t.key).key))?.to === f.key;
  // the alias first: a rule or preset that maps the own form back onto the source is cancelled
  // by it, so the target is admitted as itself (else it would be seen as its source, a loop)
  let loop = ownForm || chained ? await addAlias(s, txn, f.key, t.key, status, now) : false;
  if (t.key !== f.key && s.o.enqueueRedirectTargets && here && inScope(s, t.rec, depth)) {
    await admitOne(s, txn, t.rec, t.key, depth, before?.src, now);
    if (ownForm && before?.k === 'v') await carryCheck(s, txn, t, before, now);
  }
  // read again: the target's canonical key may be the source's own (a preset or rule maps it back)
  const prev = await getUrl(s.kv, txn, f.key);
  const entry: UrlEntry = { ...carried(prev, depth, now), s: 'redirected', st: status, to: t.key, ft: now };
  setUrl(s, txn, f.key, prev, entry, f.rec);
  txn.queue.landed.push(f.key);
  if (t.key === f.key) loop = await recordLoop(s, txn, f.key, t.key, status, [f.key], now);
  else if (merge && !chained) loop = await addAlias(s, txn, f.key, t.key, status, now);
  if (!permanent) await noteTemporary(s, txn, f.key, t.key, status, now);
  // both hops of a loop are evidence (`/x` → `/x/` → `/x`): the return hop contradicts what the
  // first supported, and neither target is a document
  // an image check (give-back.ts `pruneImages`) that redirected: its document is compared with the redirect's end
  const image = ownForm ? undefined : imageCheckOf(f.key, before, (doc) => transform(s, recordOfKey(doc), doc));
  const changes = s.o.learnRules ? await learner.fromRedirect(txn, f, t, status, merge && !loop, now, loop, image) : noRuleChanges();
  if ((ownForm || chained) && !loop) {
    // the own form pruned before (a rule sent it onto its source, not yet known to redirect there):
    // evaluated again, now that the alias cancels the rule for it, it is queued as itself
    const te = await getUrl(s.kv, txn, t.key);
    if (te?.s === 'pruned' && te.by !== undefined) changes.reconsider.push(t.key);
  }
  await queueChecks(s, txn, changes.checks, depth, now);
  await q.commit(txn);
  // what the suspended presets pruned where they are now off comes back (elsewhere it stays pruned)
  for (const name of suspended) await restoreReason(s, q, `preset:${name}`, undefined);
  if (refused !== undefined) await afterRuleChanges(s, q, refused);
  await afterRuleChanges(s, q, changes);
}

/**
 * A rule's check that redirected to its own form (`/a?lang=de` → 302 → `/a;jsessionid=…?lang=de`,
 * a servlet container without cookies): the document it answers is at the target, so the target
 * is the check now, fetched as itself and compared with the check's rewrite. Left to the rules,
 * the target would be pruned as the check was not (the rule under check, with the session rule,
 * sends it onto the rewrite), and the check would end at a redirect, having compared nothing.
 */
async function carryCheck(s: Pick<EngineParts, 'frontier' | 'kv'>, txn: Txn, t: Identity, check: UrlEntry, now: number): Promise<void> {
  if (check.by?.startsWith('rule:') !== true || check.to === undefined || check.to === t.key) return;
  const te = await getUrl(s.kv, txn, t.key);
  const carriedCheck = { k: 'v' as const, by: check.by, to: check.to };
  if (te?.s === 'pruned' && te.i !== true) setUrl(s, txn, t.key, te, { ...carried(te, te.d, now), s: 'queued', ...carriedCheck }, t.rec);
  else if (te?.s === 'queued' && te.k === undefined) setUrl(s, txn, t.key, te, { ...te, ...carriedCheck }, t.rec);
}

/**
 * A preset checked like a rule: a host that redirects a URL to the very form a preset removes
 * (`/a` → 302 → `/a;jsessionid=…`: a servlet container without cookies, an ASP.NET cookieless
 * session) contradicts the preset there. Applied anyway, the preset would map the target back
 * onto its source, a redirect loop in the crawler's eyes, and the document behind it would never
 * be fetched. The presets that map the target back are suspended from now on in the directory
 * that holds both source and target, on that host (preset-suspensions.ts; kept in the store, so
 * every later open knows it); what they pruned there is given back.
 */
function suspendContradictedPresets(s: Pick<EngineParts, 'o' | 'rules'>, txn: Txn, f: Identity, t: Identity, status: number, now: number): string[] {
  const host = hostOf(t.rec);
  if (hostOf(f.rec) !== host) return [];
  const tt = transform(s, t.rec, t.key);
  if (tt.via?.startsWith('preset:') !== true || tt.key !== transform(s, f.rec, f.key).key) return [];
  // the source's directory, as the preset writes it (the segment a preset removes may lead the
  // target's path: `/a/b` → 302 → `/(S(id))/a/b`, whose directory in common with `/a/b` is `/`)
  const dir = dirOf(applyPolicy(f.rec, s.o.presets).record.path || '/');
  const names = s.o.presets.filter((p) => keyFromRecord(applyPolicy(t.rec, [p]).record) !== t.key && s.rules.suspendedPresets.add(host, p, dir));
  for (const name of names) {
    putEvidence(txn, evidenceKeys.presetSuspended(host, name, dir), encodeJson({ from: f.key, to: t.key, st: status, t: now }));
  }
  return names;
}

async function recordLoop(s: Pick<EngineParts, 'kv'>, txn: Txn, from: string, to: string, status: number, cycle: string[], now: number): Promise<true> {
  const k = evidenceKeys.loop(from);
  if ((await getEvidence(s.kv, txn, k)) === undefined) txn.count(counterNames.loops, 1);
  putEvidence(txn, k, encodeJson({ to, st: status, cycle, t: now } satisfies LoopRecord));
  return true;
}

/**
 * `from` becomes an alias of `to`'s canonical key. Chains stay compressed (every alias points at
 * a key that is not itself an alias source), so an alias that would point back at `from` closes a
 * cycle: it is recorded as a loop and not added. Returns true for a loop.
 */
async function addAlias(s: Pick<EngineParts, 'kv' | 'seen'>, txn: Txn, from: string, to: string, status: number, now: number): Promise<boolean> {
  const next = await getAlias(s, txn, to);
  const target = next?.to ?? to;
  if (target === from) return recordLoop(s, txn, from, to, status, target === to ? [from, to] : [from, to, target], now);
  const prev = await getAlias(s, txn, from);
  if (prev !== undefined) {
    if (prev.to !== target) txn.del('aliasrev', aliasRevKey(prev.to, from));
  } else {
    txn.count(counterNames.aliases, 1);
    txn.newAliasSources.push(from);
  }
  const entry: AliasEntry = { to: target, st: status, t: now };
  txn.aliases.set(from, entry);
  txn.put('alias', from, encodeJson(entry));
  txn.put('aliasrev', aliasRevKey(target, from), '');
  // whatever pointed at `from` now points at `target`
  for await (const rk of s.kv.keys('aliasrev', prefixRange(from + SEP))) {
    const source = rk.slice(from.length + 1);
    const old = await getAlias(s, txn, source);
    if (old === undefined || old.to !== from) continue;
    const moved: AliasEntry = { ...old, to: target };
    txn.aliases.set(source, moved);
    txn.put('alias', source, encodeJson(moved));
    txn.del('aliasrev', rk);
    txn.put('aliasrev', aliasRevKey(target, source), '');
  }
  return false;
}

/**
 * Queue the URLs the learner asked to fetch: a probe (new, marked `p`), or a fetched URL fetched
 * again (`r`, keeping its content hash to compare). The crawler fetches them as any other.
 */
async function queueChecks(s: Pick<EngineParts, 'frontier' | 'kv'>, txn: Txn, checks: readonly CheckRequest[], depth: number, now: number): Promise<void> {
  for (const c of checks) {
    const prev = await getUrl(s.kv, txn, c.key);
    if (c.kind === 'probe') {
      if (prev === undefined) setUrl(s, txn, c.key, undefined, { s: 'queued', d: depth, t: now, k: 'p' }, c.rec);
    } else if (c.kind === 'original') {
      // queued as itself, a check (offered first), its rewrite kept beside it
      if (prev?.s === 'pruned' && prev.to !== undefined && prev.by?.startsWith('rule:') === true && prev.i !== true) setUrl(s, txn, c.key, prev, { ...carried(prev, prev.d, now), s: 'queued', k: 'v', by: prev.by, to: prev.to }, c.rec);
    } else if (prev?.s === 'fetched') {
      const again: UrlEntry = { ...carried(prev, prev.d, now), s: 'queued', k: 'r' };
      if (prev.c !== undefined) again.c = prev.c;
      if (prev.y !== undefined) again.y = prev.y;
      if (prev.w !== undefined) again.w = prev.w;
      if (prev.b !== undefined) again.b = prev.b;
      if (prev.st !== undefined) again.st = prev.st;
      setUrl(s, txn, c.key, prev, again, c.rec);
    }
  }
}

/**
 * A fetch of `u`: fetched, or failed (no answer, 5xx, or an error). A `finalUrl` elsewhere means
 * the fetcher followed redirects: `u` is recorded redirected (hops unknown) and the answer is the
 * final URL's.
 */
export async function recordFetch(s: EngineParts, q: WriteQueue, learner: RuleLearner, u: Identity, fin: Identity | undefined, response: FetchRecord, claims: readonly RepresentationClaim[] = []): Promise<void> {
  const now = Date.now();
  const txn = q.newTxn();
  // a fetch records the entry the frontier handed out: its state as read then, unless changed since
  const prev = s.frontier.stateOf(u.key) ?? (await getUrl(s.kv, txn, u.key));
  let target = u;
  let prevTarget = prev;
  if (fin !== undefined && fin.key !== u.key) {
    const entry: UrlEntry = { ...carried(prev, 0, now), s: 'redirected', to: fin.key, ft: now };
    setUrl(s, txn, u.key, prev, entry, u.rec);
    txn.queue.landed.push(u.key);
    await noteTemporary(s, txn, u.key, fin.key, 0, now);
    target = fin;
    prevTarget = await getUrl(s.kv, txn, fin.key);
  }
  const failed = response.status === 0 || response.status >= 500 || response.error !== undefined;
  const entry: UrlEntry = { ...carried(prevTarget, prev?.d ?? 0, now), s: failed ? 'failed' : 'fetched', st: response.status, ft: now };
  if (response.contentHash !== undefined) entry.c = response.contentHash;
  if (response.shapeHash !== undefined) entry.x = response.shapeHash;
  if (response.wordSketch !== undefined) entry.m = response.wordSketch;
  if (response.stableHash !== undefined) entry.y = response.stableHash;
  if (response.echoFreeHash !== undefined) entry.w = response.echoFreeHash;
  if (response.mainHash !== undefined) entry.b = response.mainHash;
  if (response.error !== undefined) entry.e = response.error;
  setUrl(s, txn, target.key, prevTarget, entry, target.rec);
  txn.queue.landed.push(target.key);
  // every answer is evidence for the learner: a document, or a failed rewrite
  const status = failed && response.status < 500 ? 0 : response.status;
  const changes = s.o.learnRules ? await learner.fromFetch(txn, target, response.contentHash, status, prevTarget, now, response.shapeHash, response.stableHash, claims, response.echoFreeHash, response.mainHash, response.titleHash) : noRuleChanges();
  await queueChecks(s, txn, changes.checks, entry.d, now);
  await q.commit(txn);
  await afterRuleChanges(s, q, changes);
  // a check's fetch is compared by the learner; its image stays as it is
  if (!failed && s.o.learnRules && prevTarget?.k === undefined) await pruneImageAfterFetch(s, q, target);
}
