// Preloaded into a fleet worker by bench/crawl-fleet.ts (`NODE_OPTIONS=--import=…`): counts the
// round trips the worker makes to Redis, as the client sees them. ioredis writes one buffer per
// command it sends alone and one per pipeline (auto-pipelining flushes the commands of a tick to
// each master as one pipeline), so a write to a Redis node's socket is a round trip. At exit the
// count is appended to URLDEDUP_BENCH_ROUND_TRIPS_FILE as one JSON line.
//
// URLDEDUP_BENCH_REDIS_PORTS: the cluster's ports (its nodes announce themselves on loopback).
import { appendFileSync } from 'node:fs';
import { Socket } from 'node:net';

const ports = new Set((process.env['URLDEDUP_BENCH_REDIS_PORTS'] ?? '').split(',').filter(Boolean).map(Number));
const file = process.env['URLDEDUP_BENCH_ROUND_TRIPS_FILE'];

if (file !== undefined && ports.size > 0) {
  let writes = 0;
  let bytes = 0;
  const write = Socket.prototype.write;
  // (a patch of the socket class in a bench-only preload: the worker's own code is not changed)
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]): boolean {
    if (this.remotePort !== undefined && ports.has(this.remotePort)) {
      writes++;
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
    }
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof Socket.prototype.write;
  process.on('exit', () => {
    appendFileSync(file, JSON.stringify({ pid: process.pid, writes, bytes }) + '\n');
  });
}
