/**
 * `urldedup/store`: the seen-store's engine pieces (docs/store.md): the rule algebra, repair, the
 * LevelDB tuning and database types, the Redis Cluster store and fleet (docs/scale-out.md), and
 * the types of every `SeenStore` method.
 */
export { defaultDocuments, parseRuleId, formatSpec, type RuleKind } from '../store/rules.js';
export { explainRedirect } from '../store/learning/redirect-explanation.js';
export { repairStore, type RepairReport, type SublevelCounts } from '../store/backends/leveldb/repair.js';
export { STORE_FORMAT_VERSION } from '../store/keys.js';
export { openRedisStore, type OpenRedisStoreOptions, type RedisSeenStore } from '../store/backends/redis-store.js';
export { destroyRedisStore, type RedisStoreOptions, type RedisSyncMode, type RedisSeeds } from '../store/backends/redis/cluster.js';
export { openFleetStore, type FleetStore, type FleetOptions, type FleetLocation, type OpenFleetStoreOptions } from '../store/fleet/fleet-store.js';
export type { LevelTuning, LevelDatabase } from '../store/backends/level-store.js';
export type {
  StoreSupports,
  SyncPolicy,
  AdmissionScope,
  AdmitReason,
  CanonicalState,
  CanonicalFailure,
  RebuildReport,
  FrontierEntry,
  NextOptions,
  WorkerHooks,
  WorkerPacing,
  HostHold,
  StatsOptions,
  PruneEntry,
  AliasRecord,
  CanonicalUrlRecord,
  VerifyReport,
  UrlState,
  RuleRecord,
  RuleState,
  RuleSpec,
  Observation,
} from '../store/seen-store.js';
