/**
 * Queries: the canonical key of URLs (what admit would decide, without changing anything), the
 * counters, and iterators over the stored URLs, aliases and rules.
 */
import { defaultLimits, fingerprintWords, normalizeAndKey, parseUri, urlFromKey, UrlError, type UriRecord, type UrlErrorCode } from '../../normalize/index.js';
import { counterNames, decodeJson, decodeUrlEntry, URL_STATES, type AliasEntry, type Space, type UrlState } from '../keys.js';
import { isDocumentStatus, type RuleRecord } from '../rules.js';
import type { AliasRecord, CanonicalFailure, CanonicalResult, CanonicalUrlRecord, StatsOptions, StoreStats } from '../seen-store.js';
import { identity, isUrlError, transform } from './canonicalize.js';
import type { EngineParts } from './parts.js';
import { answeredNoDocument, entrySummary, lookupEntry, recordOfKey } from './url-state.js';
import { redirectLeavesRewrite } from '../learning/failure-agreement.js';

const NEED: unique symbol = Symbol('need');
/** Pruned records a lookup follows from its target, at most (each a claim in force; a cycle stops there). */
const PRUNED_HOPS = 4;
/** One URL of `canonicalMany`: its identity key, the key after presets and rules, and its normal form when it is the input. */
interface Lookup {
  readonly i: number;
  readonly k0: string;
  readonly tKey: string;
  readonly tVia: string | undefined;
  readonly normal: string | undefined;
  /** The keys a chain passed through before `tKey` (the presets' output, a rule's), when it took more than one step. */
  readonly steps?: readonly string[];
}

/** `transform`, with the keys of a chain's intermediate steps when there are any. */
function lookupOf(s: Pick<EngineParts, 'o' | 'rules'>, i: number, rec: UriRecord, k0: string, normal: string | undefined): Lookup {
  const steps: string[] = [];
  const t = transform(s, rec, k0, undefined, steps);
  return steps.length > 0 && t.via !== undefined ? { i, k0, tKey: t.key, tVia: t.via, normal, steps } : { i, k0, tKey: t.key, tVia: t.via, normal };
}
/** A read for `canonicalMany`: the value, `undefined` when absent, or `NEED` (asked for, read next round). */
type Look = (space: 'url' | 'alias', key: string) => string | undefined | typeof NEED;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

  /** `canonicalMany` for one URL; a URL the store cannot key throws the ladder's `UrlError`. */
export async function canonical(s: EngineParts, url: string): Promise<CanonicalResult> {
  const r = (await canonicalMany(s, [url]))[0]!;
  if ('ok' in r) {
    identity(s, url); // throws the error itself, with its detail
    throw new UrlError(r.code, r.input);
  }
  return r;
}

export async function canonicalMany(s: EngineParts, urls: readonly string[]): Promise<(CanonicalResult | CanonicalFailure)[]> {
  if (!Array.isArray(urls)) throw new TypeError('canonicalMany: urls must be an array of strings');
  const out = new Array<CanonicalResult | CanonicalFailure>(urls.length);
  let pending: Lookup[] = [];
  const fast = s.normalizeOptions === undefined;
  const maxLength = defaultLimits.maxLength;
  const noPresets = s.o.presets.length === 0;
  for (let i = 0; i < urls.length; i++) {
    const url = urls[i]!;
    if (fast && typeof url === 'string' && url.length <= maxLength && url.indexOf('@') === -1) {
      // no userinfo, so no password to redact: normalize's own normal form and key (its single
      // pass for http(s)); no record unless a preset or an active rule of its host needs one
      let nk: { readonly normal: string; readonly key: string };
      try {
        nk = normalizeAndKey(url);
      } catch (e) {
        if (!isUrlError(e)) throw e;
        out[i] = { ok: false, code: e.code as UrlErrorCode, input: url };
        continue;
      }
      const normal = nk.normal;
      if (noPresets && !s.rules.anyActive) {
        pending.push({ i, k0: nk.key, tKey: nk.key, tVia: undefined, normal });
        continue;
      }
      pending.push(lookupOf(s, i, parseUri(normal), nk.key, normal));
      continue;
    }
    try {
      if (typeof url !== 'string') throw new UrlError('ERR_INVALID_URL', String(url), { detail: 'not a string' });
      const id = identity(s, url);
      pending.push(lookupOf(s, i, id.rec, id.key, undefined));
    } catch (e) {
      if (!isUrlError(e)) throw e;
      out[i] = { ok: false, code: e.code as UrlErrorCode, input: url };
    }
  }
  // Resolve every URL against what is known; what is missing is read for all of them at once.
  // The Bloom fronts answer "absent" for sure (they hold every key submitted) and the cache
  // answers for keys it holds (their entries as written); only the rest is read. Usually one
  // read or none; aliases and pruned entries that point at a key not read yet take one more
  // round (at most two).
  const known = new Map<string, string | undefined>();
  let wanted = new Map<string, readonly [Space, string]>();
  let lastKey: string | undefined;
  let w1 = 0;
  let w2 = 0;
  const look: Look = (space, key) => {
    if (space === 'alias' && s.seen.aliasFront.knownEmpty) return undefined;
    if (key !== lastKey) {
      [w1, w2] = fingerprintWords(key);
      lastKey = key;
    }
    if (space === 'url') {
      if (!s.seen.front.hasWords(w1, w2)) return undefined;
      const cached = s.seen.cache.get(key, w1);
      if (cached !== undefined) return cached;
    } else if (!s.seen.aliasFront.hasWords(w1, w2)) return undefined;
    const mk = (space === 'url' ? 'u' : 'a') + key;
    if (known.has(mk)) return known.get(mk);
    wanted.set(mk, [space, key]);
    return NEED;
  };
  while (pending.length > 0) {
    const again: Lookup[] = [];
    for (const p of pending) {
      const r = resolveCanonical(p, look, s.o.defaultDocuments);
      if (r === NEED) again.push(p);
      else out[p.i] = r;
    }
    if (wanted.size > 0) {
      const asked = [...wanted];
      wanted = new Map();
      const keys = asked.map(([, sk]) => sk);
      const gen = s.seen.urlWrites;
      const values = s.kv.getAcross !== undefined ? await s.kv.getAcross(keys) : await getAcrossFallback(s, keys);
      const fill = gen === s.seen.urlWrites; // no write overtook the read: its entries may be cached
      for (let j = 0; j < asked.length; j++) {
        const v = values[j];
        known.set(asked[j]![0], v);
        const [space, key] = asked[j]![1];
        if (fill && v !== undefined && space === 'url') s.seen.cache.set(key, fingerprintWords(key)[0], entrySummary(v));
      }
    } else if (again.length > 0) {
      throw new Error('canonicalMany: no progress'); // cannot happen: NEED always asks for a key
    }
    pending = again;
  }
  return out;
}

async function getAcrossFallback(s: Pick<EngineParts, 'kv'>, keys: readonly (readonly [Space, string])[]): Promise<(string | undefined)[]> {
  const out = new Array<string | undefined>(keys.length);
  const bySpace = new Map<Space, number[]>();
  keys.forEach(([space], j) => {
    let list = bySpace.get(space);
    if (list === undefined) bySpace.set(space, (list = []));
    list.push(j);
  });
  await Promise.all(
    [...bySpace].map(async ([space, idx]) => {
      const values = await s.kv.getMany(space, idx.map((j) => keys[j]![1]));
      idx.forEach((j, m) => (out[j] = values[m]));
    }),
  );
  return out;
}

/** `canonical` on values read so far; `NEED` when a key still has to be read (`look` asked for it). */
function resolveCanonical(p: Lookup, look: Look, documents: readonly string[]): CanonicalResult | typeof NEED {
  const k0 = p.k0;
  // ask for everything the usual path may need at once: the URL's own entry, its transform's alias and entry
  const ownV = look('url', k0);
  const aliasV = look('alias', p.tKey);
  const tV = p.tKey === k0 ? ownV : look('url', p.tKey);
  if (ownV === NEED || aliasV === NEED || tV === NEED) return NEED;
  const own = ownV === undefined ? undefined : lookupEntry(ownV);
  const alias = aliasV === undefined ? undefined : decodeJson<AliasEntry>(aliasV);
  const aliased = alias !== undefined && alias.to !== k0 ? alias.to : undefined;
  let key: string;
  let via: string | undefined;
  // a pruned entry names where it was sent, recorded under the first step's reason: where the
  // rules of now send it elsewhere (a later step of the chain was withdrawn) and the recorded
  // target answered no document, the rules of now answer
  // (or the rules of now send it to a document the host answered: a later step of the chain
  // learned since where it holds, and the recorded target is the older guess)
  let stored = own?.s === 'pruned' ? own.to : undefined;
  if (stored !== undefined && stored !== k0 && stored !== p.tKey && stored !== aliased) {
    const v = look('url', stored);
    if (v === NEED) return NEED;
    if (v !== undefined && answeredNoDocument(lookupEntry(v))) stored = undefined;
    else if (p.tKey !== k0) {
      const now = look('url', aliased ?? p.tKey);
      if (now === NEED) return NEED;
      const e = now === undefined ? undefined : lookupEntry(now);
      if (e?.s === 'fetched' && e.st !== undefined && isDocumentStatus(e.st)) stored = undefined;
    }
  }
  // a chain of rules stops at a URL on its way that the host answered with a document: a rule
  // holds where its evidence lies, and that URL is evidence of its own (`/a/x.html` sent by a
  // prefix rule to `/x.html`, a page, and by a suffix rule on to `/x`, which it never answered)
  // (or one it redirected as an alias, `/a` → 302 → `/a;jsessionid=…`: the host named the
  // document there, and the chain's end past it is a guess; a redirect elsewhere failed the rewrite)
  let stop: string | undefined;
  let stopLeft = false;
  const steps = p.steps ?? [];
  for (let i = 0; i < steps.length; i++) {
    const k = steps[i]!;
    const v = look('url', k);
    if (v === NEED) return NEED;
    if (v === undefined) continue;
    const e = lookupEntry(v);
    if (e.s === 'fetched' && e.st !== undefined && isDocumentStatus(e.st)) {
      stop = k;
      break;
    }
    if (e.s !== 'redirected') continue;
    const av = look('alias', k);
    if (av === NEED) return NEED;
    const to = av === undefined ? undefined : decodeJson<AliasEntry>(av).to;
    if (to === undefined || to === k0) continue;
    stop = to;
    // (a rule's rewrite: every step when the chain starts with a rule, else those past the presets' output)
    stopLeft = (i > 0 || p.tVia?.startsWith('rule:') === true) && redirectLeavesRewrite(recordOfKey(k), recordOfKey(to), documents);
    break;
  }
  if (stopLeft) {
    stop = undefined;
    stored = undefined;
  }
  // and it stops there whatever target a pruned entry recorded, unless that target is a
  // document too: the record is the chain of its day, and a document on the way is evidence now
  if (stop !== undefined && stored !== undefined && stored !== stop) {
    const v = look('url', stored);
    if (v === NEED) return NEED;
    const e = v === undefined ? undefined : lookupEntry(v);
    if (e?.s !== 'fetched' || e.st === undefined || !isDocumentStatus(e.st)) stored = undefined;
  }
  if (stored !== undefined) {
    key = stored;
    via = own?.by;
  } else if (stop !== undefined) {
    key = stop;
    via = p.tVia;
  } else if (stopLeft || (alias !== undefined && alias.to === k0)) {
    // the transforms and the alias cancel out (canonicalize.ts): the URL is its own canonical form
    key = k0;
    via = undefined;
  } else {
    key = p.tKey;
    via = p.tVia;
    if (aliased !== undefined && p.tVia?.startsWith('rule:') === true && redirectLeavesRewrite(recordOfKey(p.tKey), recordOfKey(aliased), documents)) {
      // the rules' rewrite redirected elsewhere: it names no document of this URL's (admit.ts)
      key = k0;
      via = undefined;
    } else if (aliased !== undefined) {
      key = aliased;
      via ??= 'alias';
    }
  }
  let target = own;
  if (key !== k0) {
    const v = look('url', key);
    if (v === NEED) return NEED;
    target = v === undefined ? undefined : lookupEntry(v);
  }
  // a pruned target names where its own record goes: followed, a few hops at most (a mirror's
  // name recorded onto `/x`, `/x` onto `/x.html`, an image recorded onto the page `/X`)
  for (let hop = 0; hop < PRUNED_HOPS && target?.s === 'pruned' && target.to !== undefined && target.to !== k0 && target.to !== key; hop++) {
    via ??= target.by;
    key = target.to;
    const v = look('url', key);
    if (v === NEED) return NEED;
    target = v === undefined ? undefined : lookupEntry(v);
  }
  // a URL the host answered as itself is not sent by a rule to a URL it never answered: the rule
  // holds where its evidence lies, and this URL is evidence of its own (a leaf page beside the
  // directories a slash rule was learned from)
  // (or answered with a redirect, a session form say), nor to one that answered no document
  const answered = own?.s === 'fetched' || own?.s === 'redirected';
  const targetDocument = target?.s === 'fetched' && target.st !== undefined && isDocumentStatus(target.st);
  if (answered && key !== k0 && via?.startsWith('rule:') === true && !targetDocument) {
    key = k0;
    via = undefined;
    target = own;
  }
  const state = own !== undefined ? own.s : target !== undefined ? 'seen' : 'unknown';
  // an input in normal form is the URL of its own key
  const out: CanonicalResult = { key: k0, canonicalKey: key, canonicalUrl: key === k0 && p.normal !== undefined ? p.normal : urlFromKey(key), state };
  return key !== k0 && via !== undefined ? { ...out, via } : out;
}

export function stats(s: Pick<EngineParts, 'counters' | 'frontier' | 'seen'>, options: StatsOptions): StoreStats {
  return statsOf(
    s.counters.asWritten,
    { size: s.frontier.size, inFlight: s.frontier.inFlight, hostCount: s.frontier.hostCount, hosts: options.hosts === false ? {} : s.frontier.hosts() },
    { source: s.seen.source, keys: s.seen.front.count, aliasKeys: s.seen.aliasFront.count, bytes: s.seen.front.byteLength + s.seen.aliasFront.byteLength },
  );
}

/** Stats from written counters, with the frontier and fronts given (a fleet sums its partitions'). */
export function statsOf(counters: ReadonlyMap<string, number>, frontier: StoreStats['frontier'], front: StoreStats['front']): StoreStats {
  const c = (name: string): number => counters.get(name) ?? 0;
  const pruned: Record<string, number> = {};
  const prefix = counterNames.pruned('');
  // the pruned counters alone are sorted: the per-host frontier counters are as many as the hosts
  const prunedCounters: [string, number][] = [];
  for (const [name, n] of counters) if (n !== 0 && name.startsWith(prefix)) prunedCounters.push([name, n]);
  for (const [name, n] of prunedCounters.sort((a, b) => compare(a[0], b[0]))) pruned[name.slice(prefix.length)] = n;
  const states = Object.fromEntries(URL_STATES.map((s) => [s, c(counterNames.state(s))])) as Record<UrlState, number>;
  return {
    urls: { admitted: c(counterNames.admitted), ...states },
    aliases: c(counterNames.aliases),
    loops: c(counterNames.loops),
    temporaryRedirects: c(counterNames.temporary),
    rules: { candidate: c(counterNames.rules('candidate')), active: c(counterNames.rules('active')), withdrawn: c(counterNames.rules('withdrawn')) },
    pruned,
    frontier,
    front,
  };
}

export async function* canonicalUrls(s: Pick<EngineParts, 'kv'>): AsyncIterable<CanonicalUrlRecord> {
  for await (const [key, value] of s.kv.entries('url')) {
    const e = decodeUrlEntry(value);
    if (e.s !== 'queued' && e.s !== 'fetched' && e.s !== 'failed') continue;
    const out: { -readonly [K in keyof CanonicalUrlRecord]: CanonicalUrlRecord[K] } = { key, url: urlFromKey(key), state: e.s, depth: e.d };
    if (e.st !== undefined) out.status = e.st;
    if (e.e !== undefined) out.error = e.e;
    yield out;
  }
}

export async function* aliases(s: Pick<EngineParts, 'kv'>): AsyncIterable<AliasRecord> {
  for await (const [from, value] of s.kv.entries('alias')) {
    const a = decodeJson<AliasEntry>(value);
    yield { from, to: a.to, fromUrl: urlFromKey(from), toUrl: urlFromKey(a.to), status: a.st };
  }
}

export async function* rules(s: Pick<EngineParts, 'kv'>): AsyncIterable<RuleRecord> {
  for await (const [, value] of s.kv.entries('rule')) yield decodeJson<RuleRecord>(value);
}

/** The depth `url`'s own entry was queued at; `undefined` when it has none. */
export async function depthOf(s: Pick<EngineParts, 'kv' | 'normalizeOptions' | 'salt'>, url: string): Promise<number | undefined> {
  const v = await s.kv.get('url', identity(s, url).key);
  return v === undefined ? undefined : decodeUrlEntry(v).d;
}
