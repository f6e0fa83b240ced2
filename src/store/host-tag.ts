/**
 * The tag of a host: what its keys carry on Redis Cluster (`{tag}`, one slot per host) and what
 * names its partition of a fleet store. The host in key order (`sortHost`), without its port, so
 * `www.example.com:8080` and `www.example.com` share one: robots.txt and politeness are per host.
 */
import { sortHost } from '../normalize/key.js';

/** A host (`name[:port]`, `[v6][:port]`) as its tag, `h` + the name in key order. */
export function hostTag(host: string): string {
  let end = host.length;
  if (host.charCodeAt(0) === 0x5b) {
    const close = host.indexOf(']');
    if (close !== -1) end = close + 1;
  } else {
    const colon = host.indexOf(':');
    if (colon !== -1) end = colon;
  }
  return 'h' + sortHost(host.slice(0, end));
}

/**
 * The partition of a fleet store that holds `host`: its tag without a leading `www.` label, so
 * `www.example.com` and `example.com` share one partition and the rules between them (`www-add`,
 * `www-remove`) are learned and checked in it, as in a whole store. (A single-writer Redis store
 * keys by `hostTag`, one slot per host.)
 */
export function partitionTag(host: string): string {
  const www = host.length > 4 && host.slice(0, 4).toLowerCase() === 'www.' && host.indexOf('.', 4) !== -1;
  return hostTag(www ? host.slice(4) : host);
}

/**
 * In a fleet partition, the one holding the hosts tagged `partition.tag` (engine options.ts
 * `partition`): `host` is another partition's. Always false for a whole store (`undefined`).
 */
export function outsidePartition(partition: { readonly tag: string } | undefined, host: string): boolean {
  return partition !== undefined && partitionTag(host) !== partition.tag;
}
