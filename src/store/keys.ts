/**
 * The on-disk layout of a store: one LevelDB folder, one sublevel per concern (RFC 3986 §6.2.4,
 * protocol-based normalization, kept with its evidence). Every key and value is a UTF-8 string.
 * Sublevel keys are prefixed `!name!` by abstract-level; the layouts below are the keys inside.
 *
 * `SEP` (U+0000) separates the parts of a compound key. A urldedup key is printable ASCII and never
 * holds U+0000, so a compound key splits back unambiguously and a prefix ending in `SEP` selects
 * exactly one group (all frontier entries of a host, all URLs pruned by a rule, …).
 *
 * | sublevel   | key                                   | value                                             |
 * |------------|---------------------------------------|---------------------------------------------------|
 * | `meta`     | `format`                              | JSON `{ store, key }`: layout and key format versions |
 * |            | `identity`                            | JSON: the normalization options that shape keys   |
 * |            | `presets`                             | JSON: the presets the store was last opened with  |
 * |            | `salt`                                | 64 hex: the key of the userinfo password HMAC     |
 * |            | `created`, `synced`                   | ISO time; time of the last `sync: true` marker    |
 * |            | `front`, `front:NNNNNN`               | the Bloom fronts as of the last clean close: JSON header, base64 64 KiB chunks (front-snapshot.ts); deleted by an open for writing |
 * | `url`      | key                                   | `UrlEntry` in the compact text form below         |
 * | `alias`    | source key                            | JSON `AliasEntry` `{ to, st, t }`; `to` is never itself a source |
 * | `aliasrev` | target key SEP source key             | `''` (reverse index, for chain compression)       |
 * | `rule`     | rule id (`host/spec`)                 | JSON `RuleRecord`                                 |
 * | `evidence` | `r` SEP rule id SEP source key        | JSON `Observation` (one per distinct source URL)  |
 * |            | `t` SEP source key                    | JSON `TemporaryRedirect` (302/303/307 evidence)   |
 * |            | `l` SEP source key                    | JSON `LoopRecord` (a redirect that closes a cycle) |
 * |            | `h`, `q`, `w`, `x`, `n`, `u`, `k` …   | the learner's indexes (docs/store.md; learning/learner.ts) |
 * | `frontier` | host SEP seq (12 hex digits)          | a block: lines `depth SP key`, in queue order, and `@head` lines (frontier.ts) |
 * | `pruned`   | reason SEP key                        | target key (`reason` = `rule:<id>` or `preset:<name>`) |
 * | `counter`  | counter name                          | decimal integer                                   |
 */
import type { UrlErrorCode } from '../normalize/index.js';

/**
 * Bumped when a sublevel's layout or a value's shape changes incompatibly. 2: frontier blocks may
 * hold head lines (frontier.ts). A layout-1 store reads as layout 2 (its blocks have no head lines)
 * and is marked 2 when opened for writing, since an older build would misread a head line.
 */
export const STORE_FORMAT_VERSION = 2;
/** The older layouts this build reads (and upgrades in place, see STORE_FORMAT_VERSION). */
export const STORE_FORMATS_READ: readonly number[] = [1, 2];

export const SEP = '\u0000';
/** The first string after every string that starts with `prefix + SEP`. */
export const SEP_END = '\u0001';

export const SPACES = ['meta', 'url', 'alias', 'aliasrev', 'rule', 'evidence', 'frontier', 'pruned', 'counter'] as const;
export type Space = (typeof SPACES)[number];

/** The states a URL entry can be in. */
export type UrlState = 'queued' | 'fetched' | 'redirected' | 'pruned' | 'failed';
export const URL_STATES: readonly UrlState[] = ['queued', 'fetched', 'redirected', 'pruned', 'failed'];

/** The value of a `url` entry. Short field names: there is one per URL ever admitted. */
export interface UrlEntry {
  /** State. */
  s: UrlState;
  /** Link depth from a seed (0 for seeds). */
  d: number;
  /** First seen, ms since the epoch. */
  t: number;
  /** Frontier sequence number while queued. */
  n?: number;
  /** Frontier host while queued. */
  h?: string;
  /** Key of the page the URL was found on. */
  src?: string;
  /** HTTP status of the last fetch or redirect (0: no response). */
  st?: number;
  /** Redirected: the target's key. Pruned: the key it was pruned onto. */
  to?: string;
  /** Pruned: the reason (`rule:<id>` or `preset:<name>`). */
  by?: string;
  /** Content hash given with the last fetch. */
  c?: string;
  /** Shape hash given with the last fetch (`FetchRecord.shapeHash`). */
  x?: string;
  /** Word sketch given with the last fetch (`FetchRecord.wordSketch`). */
  m?: string;
  /** Stable-text hash given with the last fetch (`FetchRecord.stableHash`). */
  y?: string;
  /** Echo-free text hash given with the last fetch (`FetchRecord.echoFreeHash`). */
  w?: string;
  /** Main-content hash given with the last fetch (`FetchRecord.mainHash`). */
  b?: string;
  /** Last fetch, ms since the epoch. */
  ft?: number;
  /** Failed: the error code given with the fetch. */
  e?: string;
  /**
   * Queued as a check the learner asked for (learning/learner.ts): `p` a probe for the host's
   * not-found answer, `r` a fetched URL fetched again (is its content stable?), `v` a URL a rule
   * rewrote, fetched as itself to check the rule (`to`: the rewrite, `by`: the rule).
   */
  k?: 'p' | 'r' | 'v';
  /** Admitted with `{ deliver: true }` and not yet marked delivered (`markDelivered`). */
  u?: true;
  /**
   * Pruned: an image a rule's pruning recorded for a document fetched under another name
   * (give-back.ts `pruneImages`), which no link, seed or redirect has named yet. When the rule no
   * longer sends the document there, the entry is forgotten, not queued: nobody asked for the URL.
   * A link to it clears the mark (admit.ts), and from then on it comes back like any pruned URL.
   */
  i?: true;
  /**
   * Fetched: answered 2xx with the host's not-found page (a soft 404, learning/not-found.ts): no
   * document, though its status says one. Lookups and rules treat it as a failed fetch.
   */
  z?: true;
}

export interface AliasEntry {
  /** The canonical key (never itself an alias source: chains are kept compressed). */
  to: string;
  /** The status of the redirect that made the alias. */
  st: number;
  /** When, ms since the epoch. */
  t: number;
}

export interface TemporaryRedirect {
  to: string;
  st: number;
  /** Times seen. */
  n: number;
  t: number;
}

export interface LoopRecord {
  /** The redirect target that closed the cycle. */
  to: string;
  st: number;
  /** The cycle, starting at the source. */
  cycle: string[];
  t: number;
}

const STATE_COUNTERS: Readonly<Record<UrlState, string>> = {
  queued: 'state:queued',
  fetched: 'state:fetched',
  redirected: 'state:redirected',
  pruned: 'state:pruned',
  failed: 'state:failed',
};

// ---- url entries --------------------------------------------------------------------------
//
// One per URL ever admitted, so the value is kept short (a queued entry is about 25 bytes, where
// JSON takes about 80). Text form: the state's letter (q queued, f fetched, r redirected,
// p pruned, x failed), then space-separated fields, each a one-letter tag and its value:
//   d depth · t first seen (ms, base 36) · n frontier seq (base 36) · h frontier host ·
//   s source key · S status · T target key · B pruned-by reason · F last fetch (ms, base 36) ·
//   c content hash · x shape hash · m word sketch · y stable-text hash · w echo-free text hash ·
//   e error code · K check kind (p, r, v) · u undelivered (no value: admitted
//   with `deliver`, not yet marked delivered)
// Keys, hosts and reasons never hold a space; `c` and `e` come from the caller and are stored
// percent-encoded (encodeURIComponent).

const STATE_LETTER: Readonly<Record<UrlState, string>> = { queued: 'q', fetched: 'f', redirected: 'r', pruned: 'p', failed: 'x' };
const LETTER_STATE: Readonly<Record<string, UrlState>> = { q: 'queued', f: 'fetched', r: 'redirected', p: 'pruned', x: 'failed' };

export function encodeUrlEntry(e: UrlEntry): string {
  let out = STATE_LETTER[e.s] + ' d' + e.d + ' t' + e.t.toString(36);
  if (e.n !== undefined) out += ' n' + e.n.toString(36);
  if (e.h !== undefined) out += ' h' + e.h;
  if (e.src !== undefined) out += ' s' + e.src;
  if (e.st !== undefined) out += ' S' + e.st;
  if (e.to !== undefined) out += ' T' + e.to;
  if (e.by !== undefined) out += ' B' + e.by;
  if (e.ft !== undefined) out += ' F' + e.ft.toString(36);
  if (e.c !== undefined) out += ' c' + encodeURIComponent(e.c);
  if (e.x !== undefined) out += ' x' + encodeURIComponent(e.x);
  if (e.m !== undefined) out += ' m' + encodeURIComponent(e.m);
  if (e.y !== undefined) out += ' y' + encodeURIComponent(e.y);
  if (e.w !== undefined) out += ' w' + encodeURIComponent(e.w);
  if (e.b !== undefined) out += ' b' + encodeURIComponent(e.b);
  if (e.e !== undefined) out += ' e' + encodeURIComponent(e.e);
  if (e.k !== undefined) out += ' K' + e.k;
  if (e.u === true) out += ' u';
  if (e.z === true) out += ' z';
  if (e.i === true) out += ' i'; // last: `isUnlinkedImage` reads it off the end
  return out;
}

/** True when an encoded entry (or a cache summary, which is the whole value for a pruned one) is an unlinked image (`UrlEntry.i`). */
export function isUnlinkedImage(value: string): boolean {
  return value.charCodeAt(0) === 0x70 /* p */ && value.endsWith(' i');
}

export function decodeUrlEntry(text: string): UrlEntry {
  const parts = text.split(' ');
  const s = LETTER_STATE[parts[0]!];
  if (s === undefined) throw new TypeError(`not a url entry: ${JSON.stringify(text.slice(0, 40))}`);
  const e: UrlEntry = { s, d: 0, t: 0 };
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    const v = p.slice(1);
    switch (p.charCodeAt(0)) {
      case 0x64 /* d */: e.d = Number(v); break;
      case 0x74 /* t */: e.t = parseInt(v, 36); break;
      case 0x6e /* n */: e.n = parseInt(v, 36); break;
      case 0x68 /* h */: e.h = v; break;
      case 0x73 /* s */: e.src = v; break;
      case 0x53 /* S */: e.st = Number(v); break;
      case 0x54 /* T */: e.to = v; break;
      case 0x42 /* B */: e.by = v; break;
      case 0x46 /* F */: e.ft = parseInt(v, 36); break;
      case 0x63 /* c */: e.c = decodeURIComponent(v); break;
      case 0x78 /* x */: e.x = decodeURIComponent(v); break;
      case 0x6d /* m */: e.m = decodeURIComponent(v); break;
      case 0x79 /* y */: e.y = decodeURIComponent(v); break;
      case 0x77 /* w */: e.w = decodeURIComponent(v); break;
      case 0x62 /* b */: e.b = decodeURIComponent(v); break;
      case 0x65 /* e */: e.e = decodeURIComponent(v); break;
      case 0x4b /* K */: if (v === 'p' || v === 'r' || v === 'v') e.k = v; break;
      case 0x75 /* u */: e.u = true; break;
      case 0x69 /* i */: e.i = true; break;
      case 0x7a /* z */: e.z = true; break;
      default: break; // a field from a newer minor version
    }
  }
  return e;
}

export const counterNames = {
  /** Every key with a `url` entry: the seen set. Equals the sum of the state counters. */
  admitted: 'admitted',
  state: (s: UrlState): string => STATE_COUNTERS[s],
  aliases: 'aliases',
  loops: 'loops',
  temporary: 'temporary-redirects',
  pruned: (reason: string): string => `pruned:${reason}`,
  frontier: (host: string): string => `frontier:${host}`,
  rules: (state: string): string => `rules:${state}`,
  seq: 'seq',
} as const;

// ---- frontier -------------------------------------------------------------------------------

const SEQ_DIGITS = 12;

export function frontierKey(host: string, seq: number): string {
  return host + SEP + seq.toString(16).padStart(SEQ_DIGITS, '0');
}

export function parseFrontierKey(k: string): { host: string; seq: number } {
  const i = k.lastIndexOf(SEP);
  return { host: k.slice(0, i), seq: parseInt(k.slice(i + 1), 16) };
}

// ---- pruned, aliasrev, evidence -------------------------------------------------------------

export function prunedKey(reason: string, key: string): string {
  return reason + SEP + key;
}

export function splitPair(k: string): [string, string] {
  const i = k.indexOf(SEP);
  return [k.slice(0, i), k.slice(i + 1)];
}

export function aliasRevKey(target: string, source: string): string {
  return target + SEP + source;
}

export const evidenceKeys = {
  observation: (ruleId: string, source: string): string => 'r' + SEP + ruleId + SEP + source,
  observationPrefix: (ruleId: string): string => 'r' + SEP + ruleId + SEP,
  temporary: (source: string): string => 't' + SEP + source,
  loop: (source: string): string => 'l' + SEP + source,
  /** The title hash of a rule's image fetched as a document (learning/not-found.ts `originalsToCheck`). */
  imageTitle: (key: string): string => 'i' + SEP + key,
  /** A document fetched as itself, by host and content hash (the shell test); value `''`. */
  document: (host: string, hash: string, key: string): string => 'h' + SEP + host + SEP + hash + SEP + key,
  documentPrefix: (host: string, hash?: string): string => 'h' + SEP + host + SEP + (hash === undefined ? '' : hash + SEP),
  /**
   * A document fetched as itself, by host and the hash of its main content (the text outside
   * `aside` and `nav`, `UrlEntry.b`): pages whose bytes differ on every response (a block drawn per
   * response) are paired by it; value `''`.
   */
  mainDocument: (host: string, main: string, key: string): string => 'b' + SEP + host + SEP + main + SEP + key,
  mainDocumentPrefix: (host: string, main: string): string => 'b' + SEP + host + SEP + main + SEP,
  /** A document fetched as itself, by content hash alone, for mirror hosts (`learnMirrors`); value `''`. */
  body: (hash: string, key: string): string => 'c' + SEP + hash + SEP + key,
  bodyPrefix: (hash: string): string => 'c' + SEP + hash + SEP,
  /** A document fetched as itself, by host and path without segment parameters; value its hash. */
  pathDocument: (host: string, barePath: string, key: string): string => 'q' + SEP + host + SEP + barePath + SEP + key,
  pathDocumentPrefix: (host: string, barePath: string): string => 'q' + SEP + host + SEP + barePath + SEP,
  /** Every path's documents of one host. */
  pathDocumentHostPrefix: (host: string): string => 'q' + SEP + host + SEP,
  /** A URL a rule rewrote onto `target` (and pruned); value the reason, `rule:<id>`. */
  rewrite: (target: string, original: string): string => 'w' + SEP + target + SEP + original,
  rewritePrefix: (target: string): string => 'w' + SEP + target + SEP,
  /** A redirect target whose redirect supports a rule; value `''`. */
  redirectSupport: (target: string, ruleId: string): string => 'x' + SEP + target + SEP + ruleId,
  redirectSupportPrefix: (target: string): string => 'x' + SEP + target + SEP,
  /** A host's not-found answer in a directory (not-found.ts): JSON `{ st, c }`, `''` while its probe is queued. */
  notFound: (host: string, dir: string): string => 'n' + SEP + host + SEP + dir,
  notFoundPrefix: (host: string): string => 'n' + SEP + host + SEP,
  /**
   * A case probe's answer for a place (learning/case-probe.ts), by the key of the place's URL:
   * `folded`, `kept`, or `''` while the probe is queued.
   */
  caseProbe: (placeKey: string): string => 'f' + SEP + placeKey,
  /** Whether a directory's pages keep their content between fetches: `stable`, `unstable`, or `pending <key>`. */
  stability: (host: string, dir: string): string => 'u' + SEP + host + SEP + dir,
  /** Comparisons waiting for the second fetch of `key`: JSON `[{ id, variant, other }]`. */
  pendingRecheck: (key: string): string => 'k' + SEP + key,
  /**
   * A preset the host's own redirects contradict (it sends a URL to the form the preset removes):
   * off on that host in `dir` and below (preset-suspensions.ts). Value: JSON `{ from, to, st, t }`,
   * the redirect.
   */
  presetSuspended: (host: string, preset: string, dir: string): string => 's' + SEP + host + SEP + preset + SEP + dir,
  presetSuspendedPrefix: (): string => 's' + SEP,
  /**
   * A rewrite of `original` by a rule that answered no document (a contradiction, learner.ts):
   * JSON `{ st, c? }`, its status and hash, so that the original failing alike takes it back.
   */
  rewriteFailure: (original: string, ruleId: string): string => 'v' + SEP + original + SEP + ruleId,
  rewriteFailurePrefix: (original: string): string => 'v' + SEP + original + SEP,
  /**
   * An image check (`UrlEntry.k` `v`, give-back.ts `pruneImages`) of document `original` that
   * redirected, waiting for `target` to answer (learning/image-redirects.ts); value `original`.
   */
  imageTarget: (target: string, ruleId: string): string => 'g' + SEP + target + SEP + ruleId,
  imageTargetPrefix: (target: string): string => 'g' + SEP + target + SEP,
} as const;

/** The range of every key starting with `prefix` (which should end in `SEP`). */
export function prefixRange(prefix: string): { gte: string; lt: string } {
  return { gte: prefix, lt: prefix.slice(0, -1) + SEP_END };
}

/** The keys that start with `prefix`, whatever its last character (`prefixRange` wants a `SEP`). */
export function startsWithRange(prefix: string): { gte: string; lt: string } {
  return { gte: prefix, lt: prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1) };
}

// ---- reasons --------------------------------------------------------------------------------

/** Why `admit` did not admit a URL (or `new` when it did). */
export type AdmitReason =
  | 'new'
  | 'seen'
  | 'alias'
  | 'duplicate-in-batch'
  | 'out-of-scope'
  | 'forwarded'
  | `rule:${string}`
  | `preset:${string}`
  | `invalid:${UrlErrorCode}`;

export function encodeJson(value: unknown): string {
  return JSON.stringify(value);
}

export function decodeJson<T>(text: string): T {
  return JSON.parse(text) as T;
}
