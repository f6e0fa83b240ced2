/**
 * A fleet worker's fetch, fenced by its lease while it is in flight (docs/reliability.md 1f): a fetch
 * starts only while the worker holds the host's lease, and one in flight is aborted as soon as the
 * lease lapses (a worker stopped past its lease, a Redis outage that outlasts it), so that the
 * host's next holder and this worker do not both fetch it. The lease is looked at every 250 ms of
 * this worker's own clock: a worker resumed after SIGSTOP runs its timers before it reads any
 * response, and aborts first.
 */
import type { HostHold } from '../seen-store.js';

const EVERY_MS = 250;

export function watchLease(store: { holds(host: string): boolean }, host: string, crawl: AbortSignal): HostHold {
  const controller = new AbortController();
  let lost = false;
  const onStop = (): void => controller.abort(crawl.reason);
  crawl.addEventListener('abort', onStop, { once: true });
  const timer = setInterval(() => {
    if (store.holds(host)) return;
    lost = true;
    controller.abort(new Error(`the lease of ${host} lapsed`));
    clearInterval(timer);
  }, EVERY_MS);
  timer.unref();
  if (crawl.aborted) onStop();
  return {
    signal: controller.signal,
    get lost() {
      return lost;
    },
    stop() {
      clearInterval(timer);
      crawl.removeEventListener('abort', onStop);
    },
  };
}
