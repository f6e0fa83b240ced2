/**
 * The store's options, validated once (conflicts rejected up front: a `TypeError` is programmer
 * misuse). All defaults live in `defaultStoreOptions` (seen-store.ts).
 */
import { isPresetName, type NormalizeOptions, type PresetName } from '../../normalize/index.js';
import { ScopeTest } from '../admission-scope.js';
import { defaultDocuments as builtinDefaultDocuments } from '../rules.js';
import { defaultStoreOptions, type StoreOptions, type SyncPolicy } from '../seen-store.js';

export interface ResolvedOptions {
  readonly normalize: NormalizeOptions;
  readonly presets: readonly PresetName[];
  /** `presets` was given (else the store's own are used: open.ts). */
  readonly presetsGiven: boolean;
  readonly changePresets: boolean;
  readonly ruleThreshold: number;
  readonly learnRules: boolean;
  readonly learnMirrors: boolean;
  readonly temporaryRedirectsMerge: boolean;
  readonly enqueueRedirectTargets: boolean;
  readonly sync: SyncPolicy;
  /** What the store admits (admission-scope.ts), compiled; `setScope` replaces it. */
  readonly scope: ScopeTest;
  readonly defaultDocuments: readonly string[];
  readonly bloomBitsPerKey: number;
  readonly frontSnapshotMinKeys: number;
  readonly cacheSize: number;
  readonly maxEvidencePerRule: number;
  readonly probeNotFound: boolean;
  readonly restoreBatchSize: number;
  readonly readOnly: boolean;
  /**
   * Set for one host's partition of a fleet store (fleet/partition.ts): the tag of the host it
   * holds. Another host's state is not in it, so a redirect to another host is neither queued here
   * nor learned from (the fleet hands the target to its host); `undefined` for a whole store.
   * `salt`: the fleet's, so a password is redacted alike in every partition and in the inboxes.
   */
  readonly partition: { readonly tag: string; readonly salt: string } | undefined;
}

/** Validate options once; conflicts are rejected up front (TypeError: programmer misuse). */
export function resolveStoreOptions(options: StoreOptions = {}): ResolvedOptions {
  const d = defaultStoreOptions;
  const normalize = { ...d.normalize, ...(options.normalize ?? {}) } as NormalizeOptions;
  if ((normalize as { presets?: unknown }).presets !== undefined) {
    throw new TypeError("store: give presets as the store's `presets` option (reversible), not in `normalize`");
  }
  if (normalize.level === 'policy') throw new TypeError("store: normalize.level 'policy' is the store's `presets` option");
  const presets = options.presets ?? d.presets;
  for (const p of presets) if (!isPresetName(p)) throw new TypeError(`store: unknown preset ${JSON.stringify(p)}`);
  const positiveInt = (name: string, v: number): number => {
    if (!Number.isInteger(v) || v < 1) throw new TypeError(`store: ${name} must be an integer >= 1`);
    return v;
  };
  const atLeastZero = (name: string, v: number): number => {
    if (!(v >= 0)) throw new TypeError(`store: ${name} must be a number >= 0`);
    return v;
  };
  const ruleThreshold = positiveInt('ruleThreshold', options.ruleThreshold ?? d.ruleThreshold);
  const maxEvidencePerRule = positiveInt('maxEvidencePerRule', options.maxEvidencePerRule ?? d.maxEvidencePerRule);
  if (ruleThreshold > maxEvidencePerRule) throw new TypeError('store: ruleThreshold must not exceed maxEvidencePerRule');
  const sync = options.sync ?? d.sync;
  if (typeof sync === 'object') {
    if (!(sync.everyBatches >= 1) || !(sync.everyMs >= 1)) throw new TypeError('store: sync.everyBatches and sync.everyMs must be >= 1');
  } else if (sync !== 'always' && sync !== 'never') {
    throw new TypeError(`store: sync must be 'always', 'never' or { everyBatches, everyMs }`);
  }
  return {
    normalize,
    presets: [...presets],
    presetsGiven: options.presets !== undefined,
    changePresets: options.changePresets ?? d.changePresets,
    ruleThreshold,
    learnRules: options.learnRules ?? d.learnRules,
    learnMirrors: options.learnMirrors ?? d.learnMirrors,
    temporaryRedirectsMerge: options.temporaryRedirectsMerge ?? d.temporaryRedirectsMerge,
    enqueueRedirectTargets: options.enqueueRedirectTargets ?? d.enqueueRedirectTargets,
    sync,
    scope: new ScopeTest(options.scope ?? {}, d.scope.schemes, normalize),
    defaultDocuments: options.defaultDocuments ?? builtinDefaultDocuments,
    bloomBitsPerKey: positiveInt('bloomBitsPerKey', options.bloomBitsPerKey ?? d.bloomBitsPerKey),
    frontSnapshotMinKeys: atLeastZero('frontSnapshotMinKeys', options.frontSnapshotMinKeys ?? d.frontSnapshotMinKeys),
    cacheSize: positiveInt('cacheSize', options.cacheSize ?? d.cacheSize),
    maxEvidencePerRule,
    probeNotFound: options.probeNotFound ?? d.probeNotFound,
    restoreBatchSize: positiveInt('restoreBatchSize', options.restoreBatchSize ?? d.restoreBatchSize),
    readOnly: options.readOnly === true,
    partition: undefined,
  };
}

/** The normalization options that shape identity keys, as recorded in `meta/identity`. */
export function identityOptions(o: NormalizeOptions): { level: string; keepFragment: boolean } {
  return { level: o.level ?? 'scheme', keepFragment: o.keepFragment === true };
}

/** The normalize options, or `undefined` when they are the defaults (normalize's fastest path). */
export function customNormalizeOptions(n: NormalizeOptions): NormalizeOptions | undefined {
  return Object.keys(n).every((k) => k === 'level') && (n.level ?? 'scheme') === 'scheme' ? undefined : n;
}
