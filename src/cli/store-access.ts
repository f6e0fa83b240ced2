/**
 * Where a command's store lives (`--db DIR`, or `--redis SEEDS` with `--redis-name` and
 * `--redis-sync`) and opening it: created when missing (filter, serve), or read-only and never
 * created (stats, export, verify, explain, rules listing).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { ParseArgsConfig } from 'node:util';
import { dirname, resolve as resolvePath } from 'node:path';
import type { PresetName } from '../normalize/index.js';
import { StoreError } from '../store/index.js';
import { openStore, type SeenStore } from '../store/index.js';
import { defaultRedisStoreOptions, parseSeeds, resolveRedisOptions, type RedisStoreOptions } from '../store/backends/redis/cluster.js';
import { openRedisStore } from '../store/backends/redis-store.js';
import { FleetStore, openFleetStore } from '../store/fleet/fleet-store.js';
import { UsageError } from './errors.js';

/** Where the store lives when neither `--db` nor `--redis` is given. */
export const DEFAULT_DB = './.urldedup/db';

/** A LevelDB folder, or a named store on a Redis Cluster reached through its seed nodes. */
export type StoreLocation =
  | { readonly kind: 'level'; readonly db: string }
  | { readonly kind: 'redis'; readonly seeds: string; readonly redis: RedisStoreOptions };

/** The store flags of every store command, spread into its parseArgs options. */
export const STORE_FLAGS = {
  db: { type: 'string' },
  redis: { type: 'string' },
  'redis-name': { type: 'string' },
  'redis-sync': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Their help lines, the same in every store command's --help. */
export const STORE_FLAGS_HELP = `  --db DIR            the LevelDB store folder (default ${DEFAULT_DB})
  --redis SEEDS       the store on a Redis Cluster instead: comma-separated seed nodes
                      (redis://HOST:PORT,…; one reachable master is enough); not with --db
  --redis-name NAME   the store's name in the cluster, so several share one (default ${defaultRedisStoreOptions.name})
  --redis-sync MODE   everysec or always: refuse to open (exit 3) unless every master has
                      appendonly yes and appendfsync MODE (or always); default: as configured`;

export const PRESET_NOTE = `  --preset NAME       store preset, repeatable (tracking, session-ids, sort-query, www, …).
                      A store's presets are its own: recorded when it is made and used by
                      every open without --preset; naming others is an error (exit 3)
                      unless --change-presets is given too.
  --change-presets    make the presets named the store's own: what a preset no longer named
                      pruned comes back, queued URLs a new one maps elsewhere are pruned`;

/** For the commands that open the store read-only (stats, export, verify). */
export const READ_ONLY_PRESET_NOTE = `  --preset NAME       accepted for compatibility and ignored: the store is opened read-only
                      and uses the presets it was last opened with (recorded in the store).`;

interface StoreFlagValues {
  readonly db?: string | undefined;
  readonly redis?: string | undefined;
  readonly 'redis-name'?: string | undefined;
  readonly 'redis-sync'?: string | undefined;
}

/** The store location from parsed `STORE_FLAGS`; a conflict or a malformed value is a UsageError. */
export function storeLocationFrom(values: StoreFlagValues): StoreLocation {
  const { db, redis, 'redis-name': name, 'redis-sync': sync } = values;
  if (redis === undefined) {
    if (name !== undefined || sync !== undefined) throw new UsageError('--redis-name and --redis-sync need --redis');
    return { kind: 'level', db: db ?? DEFAULT_DB };
  }
  if (db !== undefined) throw new UsageError('give --db or --redis, not both');
  if (sync !== undefined && sync !== 'everysec' && sync !== 'always') throw new UsageError(`--redis-sync must be everysec or always, not ${JSON.stringify(sync)}`);
  const options: RedisStoreOptions = { ...(name === undefined ? {} : { name }), ...(sync === undefined ? {} : { sync }) };
  try {
    parseSeeds(redis);
    resolveRedisOptions(options);
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`--redis: ${error.message}`);
    throw error;
  }
  return { kind: 'redis', seeds: redis, redis: options };
}

/**
 * Open the store for a command. LevelDB, `create`: make the folder (and its parents) when
 * missing; otherwise a missing folder is `ERR_STORE_IO`, not a new empty store. Redis: the store
 * is its name in the cluster, made by its first write. Held by another process: ERR_STORE_LOCKED.
 */
export async function openForCommand(location: StoreLocation, presets: readonly PresetName[] | undefined, create: boolean, changePresets = false): Promise<SeenStore> {
  const own = { ...(presets === undefined ? {} : { presets }), ...(changePresets ? { changePresets } : {}) };
  if (location.kind === 'redis') return openRedisStore(location.seeds, { ...own, redis: location.redis });
  const folder = resolvePath(location.db);
  if (create) await mkdir(dirname(folder), { recursive: true });
  else if (!existsSync(folder)) throw new StoreError('ERR_STORE_IO', folder, { detail: 'no store in this folder' });
  return openStore(folder, own);
}

/**
 * Open the store read-only (stats, export, verify, explain, rules): nothing is written, and the
 * presets recorded in the store are used, so `--preset` is not needed (it is still validated,
 * then ignored). It still takes the store's lock (LevelDB's LOCK, the Redis lock key): a store
 * another process has open is ERR_STORE_LOCKED.
 */
export async function openReadOnly(location: StoreLocation): Promise<SeenStore> {
  if (location.kind === 'redis') {
    // a fleet's store is read partition by partition, without taking the workers' leases
    const name = location.redis.name ?? defaultRedisStoreOptions.name;
    if (await FleetStore.exists(location.seeds, name)) return openFleetStore(location.seeds, { readOnly: true, fleet: { ...location.redis, name } });
    return openRedisStore(location.seeds, { readOnly: true, redis: location.redis });
  }
  const folder = resolvePath(location.db);
  if (!existsSync(folder)) throw new StoreError('ERR_STORE_IO', folder, { detail: 'no store in this folder' });
  return openStore(folder, { readOnly: true });
}
