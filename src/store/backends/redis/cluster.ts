/**
 * The connection to a Redis Cluster for the store: options, the ioredis `Cluster` client, the
 * durability check at open, and the single-writer lock.
 *
 * Client: ioredis's `Cluster`. Its `defineCommand` runs Lua by EVALSHA and falls back to EVAL on
 * NOSCRIPT (a master restarted from its AOF has an empty script cache), it follows MOVED/ASK, and
 * with `enableAutoPipelining` the commands issued in one tick go to each master as one pipeline,
 * which is how a batch split by host tag reaches all shards in one round trip. `nodes('master')`
 * gives the per-node connections that INFO, SCAN and CONFIG GET need.
 */
import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';
import { StoreError } from '../../errors.js';

/** What an acknowledged write survives (docs/scale-out.md, "Durability"). */
export type RedisSyncMode = 'server' | 'everysec' | 'always';

export interface RedisStoreOptions {
  /**
   * The store's name: the first part of every Redis key, so several stores share one cluster.
   * Letters, digits, `_`, `-`, `.` and `:`.
   * @default 'ud'
   * @example 'crawl-2026-11' → keys `crawl-2026-11{hcom,example}u`, …
   */
  readonly name?: string;
  /**
   * `'server'`: use the masters as configured, and report their `appendfsync` in `durability`.
   * `'everysec'`: refuse to open (`ERR_STORE_IO`) unless every master has `appendonly yes` and
   * `appendfsync everysec` or `always` (an acknowledged write loses at most ~1 s to a power loss).
   * `'always'`: refuse to open (`ERR_STORE_IO`) unless every master has `appendonly yes` and
   * `appendfsync always`, so that an acknowledged write survives a crash of its master.
   * @default 'server'
   */
  readonly sync?: RedisSyncMode;
  /**
   * The lock's time to live. A store whose writer was killed opens again once this has passed;
   * the writer renews the lock every third of it.
   * @default 15000
   */
  readonly lockTtlMs?: number;
}

export const defaultRedisStoreOptions: Required<RedisStoreOptions> = { name: 'ud', sync: 'server', lockTtlMs: 15_000 };

/** The seed list: `redis://host:port` strings (or `host:port`), or one comma-separated string. */
export type RedisSeeds = string | readonly string[];

export function parseSeeds(seeds: RedisSeeds): { host: string; port: number }[] {
  const list = typeof seeds === 'string' ? seeds.split(',') : [...seeds];
  const out = list.map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    const u = new URL(s.includes('://') ? s : `redis://${s}`);
    if (u.protocol !== 'redis:') throw new TypeError(`redis seed ${JSON.stringify(s)}: only redis:// is supported`);
    return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port === '' ? 6379 : Number(u.port) };
  });
  if (out.length === 0) throw new TypeError('redis store: no seed address');
  return out;
}

export function resolveRedisOptions(options: RedisStoreOptions = {}): Required<RedisStoreOptions> {
  const o = { ...defaultRedisStoreOptions, ...options };
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(o.name)) throw new TypeError(`redis store: name ${JSON.stringify(o.name)} is not 1-64 of [A-Za-z0-9_.:-]`);
  if (o.sync !== 'server' && o.sync !== 'everysec' && o.sync !== 'always') throw new TypeError(`redis store: sync must be 'server', 'everysec' or 'always'`);
  if (!Number.isInteger(o.lockTtlMs) || o.lockTtlMs < 1000) throw new TypeError('redis store: lockTtlMs must be an integer ≥ 1000');
  return o;
}

/** A Redis error as a coded `StoreError` (`ERR_STORE_IO`) with the original as `cause`. */
export function redisError(error: unknown, location: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError('ERR_STORE_IO', location, { cause: error, detail: `redis: ${message}` });
}

export function connectCluster(seeds: RedisSeeds): Cluster {
  return new Cluster(parseSeeds(seeds), {
    enableAutoPipelining: true,
    // auto-pipelining routes a command by its first argument; a script's is its key count or text
    autoPipeliningIgnoredCommands: ['udWrite', 'udFencedWrite', 'udGet', 'eval', 'evalsha'],
    scaleReads: 'master',
    // a master that is down fails the command after a few tries instead of queueing it forever
    maxRedirections: 16,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    // reconnect through an outage (a restart, a failover) for about a minute before giving up:
    // the commands themselves ride it out for OUTAGE_MS (redis-kv.ts)
    clusterRetryStrategy: (times) => (times > 60 ? null : Math.min(100 * times, 1000)),
    redisOptions: { maxRetriesPerRequest: 3, connectTimeout: 5000 },
  });
}

/** Wait for the cluster's slot map (the first connection); an unreachable cluster is ERR_STORE_IO. */
export async function clusterReady(cluster: Cluster, location: string, timeoutMs = 15_000): Promise<void> {
  if (cluster.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: unknown): void => {
      clearTimeout(timer);
      cluster.off('ready', onReady);
      cluster.off('error', onError);
      cluster.off('end', onEnd);
      if (error === undefined) resolve();
      else reject(redisError(error, location));
    };
    const onReady = (): void => done();
    const onError = (e: unknown): void => done(e);
    const onEnd = (): void => done(new Error('the cluster connection ended before the slot map was read (is the cluster up and its nodes reachable at the addresses they announce?)'));
    const timer = setTimeout(() => done(new Error(`no slot map within ${timeoutMs} ms`)), timeoutMs);
    cluster.once('ready', onReady);
    cluster.once('error', onError);
    cluster.once('end', onEnd);
  });
}

/** The masters' AOF settings; with `sync: 'everysec'` or `'always'`, refuses a master that promises less. */
export async function checkDurability(cluster: Cluster, mode: RedisSyncMode, location: string): Promise<string> {
  const masters = cluster.nodes('master');
  const settings = await Promise.all(
    masters.map(async (m: Redis) => {
      // CONFIG may be disabled or renamed (managed services): unknown, which 'always' refuses
      const get = async (name: string): Promise<string> => ((await m.config('GET', name).catch(() => [])) as string[])[1] ?? 'unknown';
      return { node: `${m.options.host}:${m.options.port}`, appendonly: await get('appendonly'), appendfsync: await get('appendfsync') };
    }),
  );
  if (mode !== 'server') {
    const enough = mode === 'always' ? ['always'] : ['everysec', 'always'];
    const weak = settings.filter((s) => s.appendonly !== 'yes' || !enough.includes(s.appendfsync));
    if (weak.length > 0) {
      throw new StoreError('ERR_STORE_IO', location, {
        detail: `sync '${mode}' needs appendonly yes and appendfsync ${enough.join(' or ')} on every master; ${weak.map((s) => `${s.node} has appendonly ${s.appendonly}, appendfsync ${s.appendfsync}`).join('; ')}`,
      });
    }
  }
  const kinds = new Set(settings.map((s) => (s.appendonly === 'yes' ? `aof ${s.appendfsync}` : 'no aof')));
  return [...kinds].join(', ');
}

const RENEW = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
const RELEASE = `#!lua
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * The single-writer lock: `SET key token NX PX ttl`, renewed every ttl/3 while open. A second
 * opener gets `ERR_STORE_LOCKED`. A killed writer's lock expires after `ttl`, so a restart needs
 * no manual unlock (it waits at most `ttl`). A lock lost (not renewed in time, or taken over after
 * expiry) makes every later write fail with `ERR_STORE_LOCKED`.
 */
export class ClusterLock {
  /** What the lock key holds while this lock has it (a fleet partition's writes are fenced by it). */
  readonly token = randomBytes(16).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  lost: StoreError | undefined;
  /** Until when the lock is this process's for sure: its last take or renewal, sent at this clock's time, plus its TTL. */
  private validUntil = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly key: string,
    private readonly ttlMs: number,
    private readonly location: string,
  ) {}

  async acquire(): Promise<void> {
    if (!(await this.tryAcquire())) {
      const left = await this.cluster.pttl(this.key);
      throw new StoreError('ERR_STORE_LOCKED', this.location, { detail: `another writer holds the store's Redis lock (${this.key}, expires in ${left} ms unless renewed)` });
    }
  }

  /** Take the lock if nobody holds it (then renewed every ttl/3); false when another holder has it. */
  async tryAcquire(): Promise<boolean> {
    const sent = Date.now();
    const ok = await this.cluster.set(this.key, this.token, 'PX', this.ttlMs, 'NX');
    if (ok !== 'OK') return false;
    this.validUntil = sent + this.ttlMs;
    this.timer = setInterval(() => void this.renew(), Math.floor(this.ttlMs / 3));
    this.timer.unref();
    return true;
  }

  /**
   * True while the lock is surely this process's: not found lost, and taken or renewed less than
   * its TTL ago (less a margin for clocks). A process stopped past its TTL (SIGSTOP, a long GC, a
   * cut network) holds nothing when it resumes, whatever its timers have not yet noticed.
   */
  get held(): boolean {
    return this.lost === undefined && Date.now() < this.validUntil - Math.min(1000, this.ttlMs / 10);
  }

  /** The key, for a fenced write (redis-kv.ts `KvPartition`). */
  get name(): string {
    return this.key;
  }

  private async renew(): Promise<void> {
    try {
      const sent = Date.now();
      const r = await this.cluster.eval(RENEW, 1, this.key, this.token, String(this.ttlMs));
      if (r === 1) this.validUntil = sent + this.ttlMs;
      if (r !== 1 && this.lost === undefined) {
        this.lost = new StoreError('ERR_STORE_LOCKED', this.location, { detail: `the store's Redis lock ${this.key} was lost (expired or taken over)` });
        if (this.timer !== undefined) clearInterval(this.timer);
        this.timer = undefined;
      }
    } catch {
      // the next renewal tries again; the lock outlives a few missed ones (ttl/3 each)
    }
  }

  async release(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.lost === undefined) await this.cluster.eval(RELEASE, 1, this.key, this.token).catch(() => undefined);
  }
}

/** Every key of the store `name` (SCAN on each master, MATCH `name{*`). */
export async function* scanStoreKeys(cluster: Cluster, name: string): AsyncIterable<string> {
  for (const m of cluster.nodes('master')) {
    let cursor = '0';
    do {
      const [next, keys] = await m.scan(cursor, 'MATCH', `${name}{*`, 'COUNT', 1000);
      cursor = next;
      yield* keys;
    } while (cursor !== '0');
  }
}

/** Delete every key of the store `name` (tests, benchmarks, `urldedup` tooling). */
export async function destroyRedisStore(seeds: RedisSeeds, name: string): Promise<number> {
  resolveRedisOptions({ name });
  const cluster = connectCluster(seeds);
  try {
    await clusterReady(cluster, name);
    let n = 0;
    const batch: string[] = [];
    for await (const k of scanStoreKeys(cluster, name)) batch.push(k);
    await Promise.all(batch.map((k) => cluster.unlink(k)));
    n += batch.length;
    return n;
  } finally {
    cluster.disconnect();
  }
}

/** Bytes used by the masters (INFO memory `used_memory`), summed. */
export async function usedMemory(cluster: Cluster): Promise<number> {
  let total = 0;
  for (const m of cluster.nodes('master')) {
    const info = await m.info('memory');
    const line = /^used_memory:(\d+)/m.exec(info);
    total += line === null ? 0 : Number(line[1]);
  }
  return total;
}

// Redis Cluster specification, "Key distribution model": HASH_SLOT = CRC16(key) mod 16384, with
// CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0); only the hash tag's content when the key has
// a non-empty `{…}`.
const CRC16_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

/** The hash slot of a key whose hash tag is `tag` (the text between the braces). */
export function tagSlot(tag: string): number {
  const bytes = Buffer.from(tag, 'utf8');
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ bytes[i]!) & 0xff]!;
  return crc & 16383;
}
