/** Riding out a Redis outage: a master restarting, a failover, a cluster re-forming its slots. */
/**
 * How long a command rides out a Redis outage (a master restarting, a failover, a cluster
 * re-forming its slots) before its error is the store's: tried again with a backoff of 100 ms
 * doubling to 1 s. Every script is safe to run again: a write puts and deletes whole values, a
 * read changes nothing.
 */
export const OUTAGE_MS = 30_000;

/** The errors a restart or failover gives for a while (and nothing else does). */
export function isTransientRedisError(e: unknown): boolean {
  const m = e instanceof Error ? e.message : String(e);
  return /Connection is closed|CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|max retries per request|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Connection timeout/i.test(m);
}

/** `fn` until it succeeds, fails for a reason an outage does not explain, or `OUTAGE_MS` have passed. */
export async function ridingOutages<T>(fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  let delay = 100;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!isTransientRedisError(e) || Date.now() - start + delay > OUTAGE_MS) throw e;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 1000);
    }
  }
}

/**
 * `cluster` with `commands` riding out outages (`ridingOutages`): only commands that are safe to
 * run twice (a reply lost with the connection leaves it unknown whether the first ran).
 */
export function ridingCommands<C extends object>(cluster: C, commands: readonly string[]): C {
  const ridden = new Set(commands);
  return new Proxy(cluster, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof prop === 'string' && ridden.has(prop)) return (...args: unknown[]) => ridingOutages(() => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
