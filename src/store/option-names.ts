/**
 * The option names `openStore` and `openMemoryStore` know. A misspelt option would otherwise be
 * ignored in silence; an unknown name is misuse (a `TypeError` naming it and listing the known
 * ones). The values are checked by `resolveStoreOptions` (engine/options.ts).
 */
import { checkOptionNames, type OptionNames } from '../normalize/misuse.js';
import type { OpenStoreOptions } from './backends/level-store.js';
import type { AdmissionScope, StoreOptions } from './seen-store.js';

export const storeOptionNames = {
  normalize: true,
  presets: true,
  ruleThreshold: true,
  learnRules: true,
  learnMirrors: true,
  temporaryRedirectsMerge: true,
  enqueueRedirectTargets: true,
  sync: true,
  scope: true,
  defaultDocuments: true,
  bloomBitsPerKey: true,
  frontSnapshotMinKeys: true,
  cacheSize: true,
  maxEvidencePerRule: true,
  probeNotFound: true,
  restoreBatchSize: true,
  readOnly: true,
  changePresets: true,
} as const satisfies OptionNames<StoreOptions>;

export const openStoreOptionNames = { ...storeOptionNames, level: true } as const satisfies OptionNames<OpenStoreOptions>;

const storeNormalizeOptionNames = {
  level: true,
  keepFragment: true,
  strict: true,
  maxLength: true,
  maxSegments: true,
} as const satisfies OptionNames<NonNullable<StoreOptions['normalize']>>;

const scopeOptionNames = { schemes: true, hosts: true, hostMatch: true, include: true, exclude: true, maxPathDepth: true, maxRepeats: true, always: true, maxDepth: true, filter: true } as const satisfies OptionNames<AdmissionScope>;

/** Check `options` (written `path` by the caller) against `names`, and its `normalize` and `scope`. */
export function checkStoreOptionNames(fn: string, options: unknown, names: Readonly<Record<string, true>>, path = 'options'): void {
  checkOptionNames(fn, options, names, path);
  if (options === undefined) return;
  const { normalize, scope } = options as StoreOptions;
  if (normalize !== undefined && normalize !== null && typeof normalize === 'object' && 'presets' in normalize) {
    throw new TypeError(`${fn}: give presets as the store's \`presets\` option (reversible), not in \`${path}.normalize\``);
  }
  checkOptionNames(fn, normalize, storeNormalizeOptionNames, `${path}.normalize`);
  checkOptionNames(fn, scope, scopeOptionNames, `${path}.scope`);
}
