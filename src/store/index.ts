// The seen-store's public surface (re-exports only).
export { openStore, storeError, type OpenStoreOptions, type LevelTuning, type LevelDatabase } from './backends/level-store.js';
export { openMemoryStore } from './backends/memory-store.js';
export { StoreError, isStoreError, type StoreErrorCode } from './errors.js';
export { repairStore, type RepairReport, type SublevelCounts } from './backends/leveldb/repair.js';
export { openRedisStore, type OpenRedisStoreOptions, type RedisSeenStore } from './backends/redis-store.js';
export { openFleetStore, isFleetMember, isFleetLocation, FleetStore, type FleetOptions, type FleetLocation, type FleetMember, type OpenFleetStoreOptions } from './fleet/fleet-store.js';
export { defaultRedisStoreOptions, destroyRedisStore, type RedisStoreOptions, type RedisSyncMode, type RedisSeeds } from './backends/redis/cluster.js';
export {
  defaultStoreOptions,
  type SeenStore,
  type StoreSupports,
  type StoreOptions,
  type SyncPolicy,
  type AdmissionScope,
  type AdmitOptions,
  type AdmitResult,
  type AdmitReason,
  type FetchRecord,
  type CanonicalResult,
  type CanonicalState,
  type CanonicalFailure,
  type RebuildReport,
  type FrontierEntry,
  type NextOptions,
  type WorkerHooks,
  type WorkerPacing,
  type HostHold,
  type PruneEntry,
  type StatsOptions,
  type StoreStats,
  type AliasRecord,
  type CanonicalUrlRecord,
  type VerifyReport,
  type UrlState,
  type RuleRecord,
  type RuleState,
  type RuleSpec,
  type Observation,
} from './seen-store.js';
export { defaultDocuments, parseRuleId, formatSpec, type RuleKind } from './rules.js';
export { explainRedirect } from './learning/redirect-explanation.js';
export { STORE_FORMAT_VERSION } from './keys.js';
export type { Explanation, ExplainStep } from './seen-store.js';
export type { Scope } from './learning/rule-scope.js';
