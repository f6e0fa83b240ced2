/**
 * The seen-store: the crawler's frontier gate and the keeper of RFC 3986 §6.2.4 evidence
 * (protocol-based normalization). One interface, two backends: LevelDB (`openStore`) and memory
 * (`openMemoryStore`), both run by the same engine and checked by the same conformance suite.
 */
import type { NormalizeOptions, PresetName, UriRecord, UrlErrorCode } from '../normalize/index.js';
import type { AdmitReason, UrlState } from './keys.js';
import type { Observation, RuleRecord, RuleState } from './rules.js';
import type { StoreError } from './errors.js';

export type { AdmitReason, UrlState } from './keys.js';
export type { RuleRecord, RuleState, RuleSpec, Observation } from './rules.js';

/** What a backend guarantees (in the manner of abstract-level's `db.supports`). */
export interface StoreSupports {
  /** Acknowledged writes survive the process (a crash, `kill -9`). */
  readonly durable: boolean;
  /** Every multi-key change is applied all or nothing. */
  readonly atomicBatch: boolean;
}

/** When batches are written with `sync: true` (fsync): LevelDB's hybrid scheme by default. */
export type SyncPolicy = 'always' | 'never' | { readonly everyBatches: number; readonly everyMs: number };

/**
 * What the store admits (`StoreOptions.scope`), as data (admission-scope.ts): the depth, the
 * scheme, then `always`, then hosts, patterns and path limits. A crawl hands its own scope to the
 * store in this form (its seeds as `always`, its path-trap limits), so the redirect targets the
 * store queues by itself pass the same tests as the links the crawler offers.
 */
export interface AdmissionScope {
  /** Schemes admitted; others are `out-of-scope`. @default ['http', 'https'] */
  readonly schemes?: readonly string[];
  /** When set, only these hosts (and, by `hostMatch`, the names under them) are admitted. @example ['example.com'] */
  readonly hosts?: readonly string[];
  /**
   * How a host matches `hosts`: `subdomains`, the host or any name under it (`docs.example.com`
   * for `example.com`); `www`, the host with or without a leading `www.` (a crawl's `host` scope).
   * Host names are compared without case and without a trailing dot. @default 'subdomains'
   */
  readonly hostMatch?: 'subdomains' | 'www';
  /** Regular expressions on the normal form: when given, one of them must match. @example [/\/docs\//] */
  readonly include?: readonly RegExp[];
  /** Regular expressions on the normal form: none of them may match. @example [/\?replytocom=/] */
  readonly exclude?: readonly RegExp[];
  /** Path segments allowed (`/a/b/` has 2). @default Infinity */
  readonly maxPathDepth?: number;
  /** Back-to-back repeats of a segment or run of segments allowed (`/a/b/a/b/a/b/` repeats `a/b/` twice). @default Infinity */
  readonly maxRepeats?: number;
  /** URLs admitted whatever `hosts`, the patterns and the path limits say (a crawl's seeds), compared by normal form. */
  readonly always?: readonly string[];
  /** Deepest link depth admitted. @default Infinity */
  readonly maxDepth?: number;
  /** A last say on each URL (normal form, password redacted); `false` makes it `out-of-scope`. */
  readonly filter?: (record: UriRecord) => boolean;
}

export interface StoreOptions {
  /**
   * Normalization up to the identity key (the RFC rungs). Recorded in `meta`; reopening with
   * options that change keys (`level`, `keepFragment`) is refused. `presets` here is rejected:
   * use the store's `presets`, which are reversible.
   * @default { level: 'scheme' }
   */
  readonly normalize?: Omit<NormalizeOptions, 'presets'>;
  /**
   * Opt-in policy presets, applied after the identity key, each named and reversible: URLs they
   * prune are kept in `pruned`. They are the store's own: recorded when it is made, and used by
   * every open that names none. Naming others is `ERR_STORE_INCOMPATIBLE` unless `changePresets`.
   * @default the store's own ([] for a new store)
   * @example ['tracking']
   */
  readonly presets?: readonly PresetName[];
  /**
   * Open with `presets` other than the store's own, and make them its own: what a preset no longer
   * named pruned comes back to the frontier, and queued URLs a new preset maps elsewhere are
   * pruned (each under its reason, so it is reversible the same way). @default false
   */
  readonly changePresets?: boolean;
  /**
   * Distinct documents of evidence a learned host rule needs in a part of a host's path tree before
   * it holds there (rule-scope.ts). @default 3
   */
  readonly ruleThreshold?: number;
  /** Learn host rules from redirects and content hashes. @default true */
  readonly learnRules?: boolean;
  /**
   * Learn `mirror:<host>` rules too: a host whose documents are another host's under the same
   * paths (a `ServerAlias`), learned from equal content and checked like every rule. Opt-in: it
   * keeps an index of documents by content hash across hosts, and a wrong mirror rule costs a
   * whole host until its first contradiction. Not learned in a fleet (two hosts, two partitions).
   * @default false
   */
  readonly learnMirrors?: boolean;
  /** Treat 302, 303 and 307 like 301 and 308: merge (alias) and learn from them. @default false */
  readonly temporaryRedirectsMerge?: boolean;
  /** Queue the target of a recorded redirect when it is new. @default true */
  readonly enqueueRedirectTargets?: boolean;
  /** @default { everyBatches: 64, everyMs: 1000 } */
  readonly sync?: SyncPolicy;
  readonly scope?: AdmissionScope;
  /** Default document names for the `default-document` rule. @default rules.defaultDocuments */
  readonly defaultDocuments?: readonly string[];
  /** Bloom filter bits per key (≈ 1 % false positives at 10). @default 10 */
  readonly bloomBitsPerKey?: number;
  /**
   * Write the Bloom fronts down at `close()` when they hold at least this many keys, so that the
   * next open reads them back instead of every key (front-snapshot.ts; 18 s → under a second at
   * 10 million URLs). Below it, building them from the keys takes well under a second. `0`: always;
   * `Infinity`: never.
   * @default 65536
   */
  readonly frontSnapshotMinKeys?: number;
  /**
   * Keys held at most in the cache of `url` entries (each present key with its state, and for a
   * pruned one its reason and target; about 120 bytes of heap per key held, more in RSS while
   * the garbage collector lags): a key it holds is answered without a read. It starts small and
   * grows as keys come in. @default 200000
   */
  readonly cacheSize?: number;
  /** Supporting observations kept per rule, which its scopes are derived from (counts go on beyond it). @default 64 */
  readonly maxEvidencePerRule?: number;
  /**
   * Ask the crawler to fetch, at a host's root and in up to 4 directories where evidence for a
   * parameter rule lies (once each), a URL that cannot exist, so that the host's not-found page (often a 200: a soft 404) is
   * never taken as a document (learning/not-found.ts). @default true
   */
  readonly probeNotFound?: boolean;
  /** URLs moved per batch when a rule is withdrawn or activated, or a preset removed. @default 2000 */
  readonly restoreBatchSize?: number;
  /**
   * Open without changing anything: the presets recorded in `meta` are used (the `presets` option
   * is ignored, and nothing is given back), and every method that writes (`admit`,
   * `recordRedirect`, `recordFetch`, `next`, `release`, `restore`, `rebuildDerived`) rejects with
   * `StoreError('ERR_STORE_IO', location, { detail: 'read-only' })`. LevelDB has no shared lock: a
   * read-only open still takes the folder's LOCK, so it excludes every other opener.
   * @default false
   */
  readonly readOnly?: boolean;
}

export const defaultStoreOptions = {
  normalize: { level: 'scheme' },
  presets: [],
  changePresets: false,
  ruleThreshold: 3,
  learnRules: true,
  learnMirrors: false,
  temporaryRedirectsMerge: false,
  enqueueRedirectTargets: true,
  sync: { everyBatches: 64, everyMs: 1000 },
  scope: { schemes: ['http', 'https'] },
  bloomBitsPerKey: 10,
  frontSnapshotMinKeys: 65_536,
  cacheSize: 200_000,
  maxEvidencePerRule: 64,
  probeNotFound: true,
  restoreBatchSize: 2000,
} as const satisfies StoreOptions;

export interface AdmitOptions {
  /** Link depth of these URLs (0 for seeds). @default 0 */
  readonly depth?: number;
  /** The page they were found on (stored by key, password redacted). */
  readonly source?: string;
  /**
   * At-least-once delivery (for a caller that hands the new URLs on, as `urldedup filter` does):
   * each new entry is written with an "undelivered" mark in the same atomic batch as the admit,
   * cleared by `markDelivered` once the caller delivered it. An input whose stored canonical entry
   * still carries the mark (an earlier caller admitted it and stopped before delivering it) comes
   * back with `undelivered: true`, once per store session until marked.
   * @default false
   */
  readonly deliver?: boolean;
}

/** One input of `admit`, in input order. */
export interface AdmitResult {
  /** The input, as given. */
  readonly url: string;
  /**
   * The canonical key: what was queued (`new`) or what the URL is a duplicate of. `undefined`
   * for `invalid:*`; the identity key for `out-of-scope`.
   */
  readonly key: string | undefined;
  /** The key of the URL itself (RFC rungs only); differs from `key` after a preset, rule or alias. */
  readonly identityKey: string | undefined;
  /** A new frontier entry came from this input. */
  readonly admitted: boolean;
  readonly reason: AdmitReason;
  /** When admitted under another key: the preset, rule or alias that mapped it (`preset:tracking`, …). */
  readonly via?: string;
  /**
   * With `{ deliver: true }`: not new (`admitted` is false), but admitted earlier and never marked
   * delivered, so the caller should deliver it now (and then `markDelivered` its `key`).
   */
  readonly undelivered?: true;
}

export interface FetchRecord {
  /** HTTP status of the final response; 0 when there was none (network error, timeout). */
  readonly status: number;
  /** A hash of the response body, to compare URLs by content (query- and path-parameter, default-document rules). */
  readonly contentHash?: string;
  /**
   * A hash of the page's text with what echoes the request taken out (the crawler's page shape):
   * tells the host's not-found page when it repeats the requested path or a request id.
   */
  readonly shapeHash?: string;
  /**
   * A MinHash sketch of the page's words (the crawler's: 8 minimum hashes, 8 hex digits each):
   * lets a large difference between two pages count where a per-response token keeps their
   * content hashes apart on every fetch.
   */
  readonly wordSketch?: string;
  /**
   * A hash of the page's text, markup left out and every run of digits read as one (the
   * crawler's): where a page template prints a fresh token on every response (a CSRF field, a
   * "generated at" time), what stays the same between two fetches of one URL.
   */
  readonly stableHash?: string;
  /**
   * A hash of the page's text, markup left out, with the address it was requested under taken
   * out and every other character kept (the crawler's): a page that prints its own URL (a share
   * widget, session ids and tracking tags included) gives two names of one document two content
   * hashes and one of these.
   */
  readonly echoFreeHash?: string;
  /**
   * The stable hash of the page's main content alone, its `aside` and `nav` regions left out (the
   * crawler's): where a template draws a block per response (random posts, a rotating advert),
   * what stays the same between two fetches of one URL.
   */
  readonly mainHash?: string;
  /**
   * The hash of the page's `<title>` (the crawler's, `ExtractResult.titleHash`): a page a rule's
   * rewrite answered under the title of the host's not-found page has its original fetched to
   * check the rewrite. Not kept.
   */
  readonly titleHash?: string;
  /** Where redirects (followed by the fetcher) ended, when not `url` itself. */
  readonly finalUrl?: string;
  /**
   * The response's `Content-Location`, resolved against the URL that answered (RFC 9110 §8.7):
   * evidence for a rule between a negotiated name and its variant, or a directory and its default
   * document, checked like a redirect; never a merge by itself.
   */
  readonly contentLocation?: string;
  /** An error code for a failed fetch (`ERR_TOO_MANY_REDIRECTS`, `ETIMEDOUT`, …). */
  readonly error?: string;
  /**
   * The page's `<link rel=canonical>` (RFC 6596), resolved: evidence as `contentLocation` is, for
   * the same rules between names of one path; never a merge by itself (a template that names the
   * home page as every page's canonical claims nothing a rule can say).
   */
  readonly canonical?: string;
}

export type CanonicalState = UrlState | 'seen' | 'unknown';

/** One step of the chain, after which the URL is `url` (key `key`). */
export interface ExplainStep {
  /** `preset:<name>`, `rule:<id>` or `alias`. */
  readonly via: string;
  readonly url: string;
  readonly key: string;
  /** A rule's record: its scopes, counts and state. */
  readonly rule?: RuleRecord;
  /** A rule's stored observations (URL pairs, statuses, hashes), at most `EXPLAIN_OBSERVATIONS`. */
  readonly observations?: readonly Observation[];
}

export interface Explanation {
  readonly input: string;
  /** After the RFC rungs (§6.2.2, §6.2.3), the password redacted. */
  readonly normal: string;
  /** The identity key. */
  readonly key: string;
  readonly steps: readonly ExplainStep[];
  /** `canonical(input)`: the canonical key and URL, the state, and what mapped it. */
  readonly canonical: CanonicalResult;
}

export interface CanonicalResult {
  /** The URL's own key (RFC rungs, password redacted). */
  readonly key: string;
  /** After presets, active rules, aliases, and the target of a pruned entry. */
  readonly canonicalKey: string;
  readonly canonicalUrl: string;
  /** The URL's own state; `seen` when only an equivalent URL is recorded; else `unknown`. */
  readonly state: CanonicalState;
  /** What mapped `key` onto `canonicalKey`: `preset:<name>`, `rule:<id>` or `alias`. */
  readonly via?: string;
}

/** An input of `canonicalMany` that is not a URL the store can key (it fails alone). */
export interface CanonicalFailure {
  readonly ok: false;
  readonly code: UrlErrorCode;
  /** The input, as given. */
  readonly input: string;
}

/** What `rebuildDerived` rewrote. */
export interface RebuildReport {
  /** Counters whose stored value differed from the recount (now the recount). */
  readonly counters: number;
  /** Frontier blocks rewritten, written anew or deleted. */
  readonly blocks: number;
  /** Queued URLs that had no frontier position and were given one. */
  readonly placed: number;
  /** `pruned`, rewrite (`evidence` `w`) and `aliasrev` index entries added or removed. */
  readonly indexEntries: number;
}

export interface FrontierEntry {
  /** The normal form to fetch (password redacted). */
  readonly url: string;
  readonly key: string;
  /** `host[:port]`: the queue it came from. */
  readonly host: string;
  readonly depth: number;
  /** Discovery order. */
  readonly seq: number;
  /**
   * `probe`: a URL that cannot exist, fetched to learn the host's not-found answer. Its page is no
   * page of the site: its links are not followed (they resolve against a path nobody linked).
   */
  readonly check?: 'probe';
}

export interface NextOptions {
  /** Most entries returned. @default 1 */
  readonly limit?: number;
  /**
   * Most entries from one host per call (round-robin over hosts). A function gives each host its
   * own: a crawler passes how many more it can run there (0 skips the host, a paused one), so it
   * never lists the hosts itself. @default 1
   */
  readonly perHost?: number | ((host: string) => number);
  /** Take only from this host (`host[:port]`). */
  readonly host?: string;
}

export interface StatsOptions {
  /**
   * List every host's queued URLs in `frontier.hosts`: as long as the hosts with queued URLs, a
   * million in a broad crawl. `false` leaves it empty (`frontier.hostCount` still counts them):
   * what a progress line or a metrics scrape, asked every second, should pass. @default true
   */
  readonly hosts?: boolean;
}

export interface StoreStats {
  readonly urls: { readonly admitted: number } & Readonly<Record<UrlState, number>>;
  readonly aliases: number;
  readonly loops: number;
  readonly temporaryRedirects: number;
  readonly rules: Readonly<Record<RuleState, number>>;
  /** URLs pruned, by reason (`rule:<id>`, `preset:<name>`, `trap:<name>`). */
  readonly pruned: Readonly<Record<string, number>>;
  /**
   * Queued URLs (in flight included), those handed out, the hosts with queued URLs, and each such
   * host's count (`hosts`, by `host[:port]`; empty when `stats({ hosts: false })`).
   */
  readonly frontier: { readonly size: number; readonly inFlight: number; readonly hostCount: number; readonly hosts: Readonly<Record<string, number>> };
  /**
   * The in-memory Bloom fronts of the seen set and the alias table: where they came from at open
   * (`snapshot`: written down at the last clean close; `database`: built from every key; `none`:
   * a fleet partition opened without a snapshot, whose fronts hold no bits and answer "maybe", so
   * every lookup reads Redis), the keys added to them (a front may hold keys of a batch whose write
   * failed, or of an entry forgotten since: never fewer than stored; with `none`, those added
   * since the open), and their size.
   */
  readonly front: { readonly source: 'snapshot' | 'database' | 'none'; readonly keys: number; readonly aliasKeys: number; readonly bytes: number };
}

export interface AliasRecord {
  readonly from: string;
  readonly to: string;
  readonly fromUrl: string;
  readonly toUrl: string;
  readonly status: number;
}

export interface CanonicalUrlRecord {
  readonly key: string;
  readonly url: string;
  readonly state: 'queued' | 'fetched' | 'failed';
  /** HTTP status of the last fetch (0: no response). */
  readonly status?: number;
  /** The error code recorded with a failed fetch (`FetchRecord.error`: `ERR_TOO_MANY_REDIRECTS`, `ETIMEDOUT`, …). */
  readonly error?: string;
  readonly depth: number;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly counted: Readonly<Record<string, number>>;
}

/**
 * The seen-store. Every method that changes state runs one at a time (a queue inside the process)
 * and resolves after its LevelDB batch was written: acknowledged means durable against a process
 * crash. One `admit` call is one atomic batch.
 */
/** A URL the crawler refused, for `SeenStore.prune`. */
export interface PruneEntry {
  readonly url: string;
  /** `trap:<name>` (`trap:path-depth`, `trap:max-depth`, ...). */
  readonly reason: string;
  /** The depth it was found at: a URL queued at a smaller depth is left alone. */
  readonly depth?: number;
}

/** Which failed URLs `SeenStore.requeueFailed` queues again. */
export interface RequeueFailedOptions {
  /** Error codes of fetches worth another try (the crawler's transient ones). @example ['ERR_SOCKET', 'ERR_SERVER_ERROR'] */
  readonly codes: readonly string[];
  /** Only URLs whose last fetch was before this time (ms since the epoch): a cool-down. @default Infinity */
  readonly before?: number;
}

/** A crawl worker's per-host pacing, which a fleet carries from one holder of a host to the next. */
export interface WorkerPacing {
  /** When the next request to `host` may start (epoch ms). */
  notBefore(host: string): number;
  /** No request to `host` before `time`. */
  holdUntil(host: string, time: number): void;
}

/** What a crawl worker tells the store it works for (`SeenStore.attachWorker`). */
export interface WorkerHooks {
  readonly pacing: WorkerPacing;
  /** Told when the store hands this worker a host another worker held until its lease expired. */
  readonly onTakeover: (host: string) => void;
}

/** One fetch's hold on its host (`SeenStore.holdHost`). */
export interface HostHold {
  /** Aborted when the crawl stops, or when this worker may no longer record for the host. */
  readonly signal: AbortSignal;
  /** True once the hold was lost during the fetch: its answer is for the host's next holder to fetch. */
  readonly lost: boolean;
  stop(): void;
}

export interface SeenStore {
  readonly supports: StoreSupports;
  readonly location: string;
  /**
   * The frontier gate: normalize and key each URL, apply presets, active host rules and aliases,
   * check the seen set and queue what is new, in one atomic batch. Never throws for a bad URL.
   */
  admit(urls: readonly string[], options?: AdmitOptions): Promise<AdmitResult[]>;
  /**
   * Clear the undelivered mark (`AdmitOptions.deliver`) of these canonical keys (`AdmitResult.key`
   * of admitted or undelivered results), in one atomic batch. Call it only after the URLs were
   * delivered (their write completed): a key marked delivered is never offered again.
   */
  markDelivered(keys: readonly string[]): Promise<void>;
  /**
   * A redirect answered `from`. 301/308 make `from` an alias of `to`; 302/303/307 are evidence, and
   * an alias too when `to` is `from` with parameters added (its document is `from`'s own).
   */
  recordRedirect(from: string, to: string, status: number): Promise<void>;
  /** A fetch of `url` ended: state fetched or failed, its frontier entry removed, evidence learned. */
  recordFetch(url: string, response: FetchRecord): Promise<void>;
  /** Frontier entries to fetch, oldest first per host, round-robin over hosts. Not removed until recorded. */
  next(options?: NextOptions): Promise<FrontierEntry[]>;
  /** Give in-flight entries back without a fetch (they are offered again by `next`). */
  release(urls: readonly string[]): Promise<void>;
  /**
   * A crawl worker starts on this store: its pacing, and where it hears of hosts taken over. A
   * fleet carries a host's pacing to its next holder; a store of one worker keeps nothing.
   */
  attachWorker(worker: WorkerHooks): void;
  /**
   * Admit by `scope` from now on, in place of the scope the store was opened with (a resumed
   * crawl knows its scope once the store is open: its frontier's hosts). What was admitted stays.
   * A scope that is not one is a `TypeError`.
   */
  setScope(scope: AdmissionScope): void;
  /**
   * Hold `host` for one fetch, `signal` the crawl's. Undefined when this worker may not fetch it
   * now (a fleet worker whose lease on the host lapsed); otherwise the hold's signal aborts the
   * fetch as soon as the worker may no longer record it (docs/reliability.md 1f).
   */
  holdHost(host: string, signal: AbortSignal): HostHold | undefined;
  /**
   * An idle worker's wait: true when work came for it (a fleet hands it a host with queued URLs),
   * false when the crawl is done. A store of one worker has nothing more to give: false at once.
   */
  waitForWork(signal: AbortSignal): Promise<boolean>;
  canonical(url: string): Promise<CanonicalResult>;
  /**
   * The chain that takes `url` to its canonical key: normal form, identity key, each preset, host
   * rule (with its scopes and observations) and alias applied, and `canonical(url)`'s answer.
   */
  explain(url: string): Promise<Explanation>;
  /**
   * Withdraw a learned rule by hand (`host/spec`): it holds nowhere and is never learned again;
   * the URLs it pruned come back to the frontier. Resolves to the rule as stored.
   */
  withdrawRule(id: string): Promise<RuleRecord>;
  /** Keep a rule from being learned on `host` (`spec` as in a rule id: `slash-add`, `query-parameter:sid`, …); an active one is withdrawn. */
  blockRule(host: string, spec: string): Promise<RuleRecord>;
  /**
   * `canonical` for many URLs, results in input order: the Bloom fronts answer "absent" without a
   * read, and the rest is one `getMany` across the sublevels (a follow-up read only for aliases
   * and pruned entries that point further). An invalid URL fails alone (`{ ok: false, code, input }`);
   * a store error rejects the call.
   */
  canonicalMany(urls: readonly string[]): Promise<(CanonicalResult | CanonicalFailure)[]>;
  stats(options?: StatsOptions): Promise<StoreStats>;
  /**
   * Record URLs the crawler refused (a trap rule, the depth limit) as pruned with their reason,
   * `trap:<name>` (any other reason is a TypeError), in one batch. A URL is recorded under its
   * canonical key: an unknown one counts as admitted and pruned; a queued one leaves the frontier
   * (unless it is in flight, or `depth` is given and it was queued at a smaller depth: it was
   * reached by a shorter path); any other state is left alone. An invalid URL is skipped.
   * `restore('trap:<name>')` gives them back to the frontier.
   */
  prune(entries: readonly PruneEntry[]): Promise<void>;
  /** Give back the URLs pruned by `reason` (`rule:<id>`, `preset:<name>`, `trap:<name>`, or a bare rule id or preset name). */
  restore(reason: string): Promise<number>;
  /**
   * Queue again the `failed` URLs whose error code is one of `codes` and whose last fetch was before
   * `before`, in batches (engine/retry.ts); resolves to how many. Reads every `url` entry when some
   * URL is failed (there is no index of them).
   */
  requeueFailed(options: RequeueFailedOptions): Promise<number>;
  /** The canonical URL set: queued, fetched and failed URLs (not aliases, redirects or pruned). */
  canonicalUrls(): AsyncIterable<CanonicalUrlRecord>;
  aliases(): AsyncIterable<AliasRecord>;
  rules(): AsyncIterable<RuleRecord>;
  /** Check the store's invariants (urldedup verify): frontier ⇔ queued, acyclic aliases, counters, the front. */
  verify(): Promise<VerifyReport>;
  /**
   * Recompute what is derived from the `url` and `alias` sublevels (urldedup repair): every
   * counter from a recount, the frontier blocks from the queued URLs (lines of URLs not queued at
   * that block are dropped), the `pruned` and `aliasrev` indexes. Written in batches, not as one
   * atomic batch: it is idempotent, run it again after a crash. In-flight entries are forgotten.
   */
  rebuildDerived(): Promise<RebuildReport>;
  /**
   * The error that stopped the store's writes, if one did (`ERR_STORE_IO`): a LevelDB store takes
   * no write after a failed one until it is reopened (fail-stop: docs/reliability.md, promise 1);
   * reads still answer. `undefined` while writes are taken.
   */
  writeFailure(): StoreError | undefined;
  /** Wait for pending writes, write a synced marker, close. */
  close(): Promise<void>;
}

export type { UrlErrorCode };
