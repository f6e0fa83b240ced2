// A real Redis Cluster on loopback for the Redis store's tests (no mocks).
//
// `sharedCluster()`: the cluster `npm test` (scripts/test.sh) started (URLDEDUP_REDIS_CLUSTER=redis://127.0.0.1:7001,…),
// else, when redis-server is on PATH, one started here for this test file (scripts/redis-cluster.sh
// in a temp folder on free ports) and stopped with `stop()`. With CI=true a missing
// URLDEDUP_REDIS_CLUSTER is an error: CI must test against the cluster it started, never skip.
// `ownCluster()` always starts one (tests that kill masters must not kill the shared one).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '../../scripts/redis-cluster.sh');

export interface TestCluster {
  readonly seeds: string;
  readonly ports: readonly number[];
  readonly dir: string | undefined;
  /** The pid of the redis-server on `port` (own clusters only). */
  pid(port: number): number;
  /** Start the node on `port` again on its folder (after a kill), and wait until the cluster is ok. */
  restart(port: number): void;
  stop(): void;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** `n` consecutive ports whose cluster bus ports (+10000) are free too. */
async function freePorts(n: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 25000);
    const ports = Array.from({ length: n }, (_, i) => base + i);
    const free = await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10000)]));
    if (free.every(Boolean)) return ports;
  }
  throw new Error('no free ports for a Redis Cluster');
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

export async function ownCluster(masters = 3, appendfsync: 'everysec' | 'always' = 'everysec'): Promise<TestCluster> {
  if (!redisServerAvailable()) {
    throw new Error('redis-server is not on PATH: install it (Debian: apt-get install redis-server), or set URLDEDUP_REDIS_CLUSTER');
  }
  const ports = await freePorts(masters);
  const dir = mkdtempSync(join(tmpdir(), 'urldedup-redis-'));
  const env = { ...process.env, APPENDFSYNC: appendfsync };
  const args = (cmd: string): string[] => [SCRIPT, cmd, dir, ...ports.map(String)];
  const seeds = execFileSync('bash', args('start'), { env, encoding: 'utf8' }).trim();
  return {
    seeds,
    ports,
    dir,
    pid: (port) => Number(readFileSync(join(dir, String(port), 'redis.pid'), 'utf8')),
    restart: (port) => void execFileSync('bash', [SCRIPT, 'start', dir, String(port)], { env, encoding: 'utf8' }),
    stop: () => {
      execFileSync('bash', args('stop'), { env });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function sharedCluster(): Promise<TestCluster> {
  const given = process.env['URLDEDUP_REDIS_CLUSTER'];
  if (given !== undefined && given !== '') {
    const none = (): never => {
      throw new Error('not an own cluster');
    };
    return { seeds: given, ports: [], dir: undefined, pid: none, restart: none, stop: () => undefined };
  }
  if (process.env['CI'] === 'true') {
    throw new Error('CI=true but URLDEDUP_REDIS_CLUSTER is not set: npm test (scripts/test.sh) must start the Redis Cluster (scripts/redis-cluster.sh) and export its seeds');
  }
  return ownCluster();
}
