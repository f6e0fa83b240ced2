/**
 * The network guard: a default-deny policy on where the crawler may connect.
 *
 * - Schemes: only `http:` and `https:` (anything else is `ERR_UNSUPPORTED_SCHEME`).
 * - Addresses: every special-use range of the IANA IPv4 and IPv6 Special-Purpose Address Registries
 *   (RFC 6890) that is not globally reachable is refused with `ERR_BLOCKED_ADDRESS`: loopback,
 *   private (RFC 1918, unique local), link-local, CGNAT (RFC 6598), multicast, unspecified,
 *   documentation and benchmarking ranges, reserved space, and the IPv4-mapped, IPv4-translated
 *   (RFC 2765), IPv4-compatible, NAT64 (RFC 6052) and 6to4 (RFC 3056) forms of a refused IPv4 address.
 * - `localhost` and `*.localhost` are loopback names (RFC 6761 §6.3): they resolve to 127.0.0.1 and
 *   ::1 without a DNS query.
 *
 * The check is made at connect time on the resolved address, inside the undici connector: a name
 * is resolved once by the guard's `lookup` (passed to `net.connect` through undici's `connect`
 * options), every address of the answer is checked (one refused address refuses the name, so a
 * mixed answer cannot slip a private address through), and the socket connects to exactly the
 * addresses that were checked. DNS rebinding (a name that answers public first and private next)
 * therefore cannot reach a refused address. IP literals skip `lookup` in `net.connect`, so the
 * connector checks them itself. `checkUrl` refuses literals and loopback names earlier, before any
 * connection attempt.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { parseIPv6, parseSpecialHost, UrlError } from '../../normalize/index.js';
import { nodeUrl } from '../../normalize/parse-count.js';
import { FetchError } from '../errors.js';

/** Resolves a host name to its addresses (IPv4 dotted decimal or IPv6 text). */
export type Resolver = (hostname: string) => Promise<readonly string[]>;

/** An endpoint allowed although its address is in a refused range (for example the demo site). */
export interface AllowedEndpoint {
  /** An IP address, as the resolver returns it. @example '127.0.0.1' */
  readonly address: string;
  /** Only this port; every port when absent. */
  readonly port?: number;
}

export interface GuardOptions {
  /**
   * Allow every address, including loopback and private ones. Off by default; tests and intranet
   * crawls switch it on explicitly. Schemes other than http and https stay refused.
   * @default false
   */
  readonly allowPrivate?: boolean;
  /** Endpoints allowed whatever their range. @default [] @example [{ address: '127.0.0.1', port: 8080 }] */
  readonly allow?: readonly AllowedEndpoint[];
  /** Name resolution. @default `dns.lookup(hostname, { all: true })` */
  readonly resolver?: Resolver;
}

/** A refused range: the registry's name for it. */
export interface AddressVerdict {
  readonly allowed: boolean;
  /** Why an address is refused: the special-use range it is in. */
  readonly range?: string;
}

// ---- the ranges ---------------------------------------------------------------------------------

/** IANA IPv4 Special-Purpose Address Registry entries that are not globally reachable, plus multicast. */
const IPV4_REFUSED: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'this network (RFC 791), unspecified'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space, CGNAT (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback (RFC 1122)'],
  ['169.254.0.0', 16, 'link-local (RFC 3927)'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0', 24, 'documentation TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0', 24, '6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking (RFC 2544)'],
  ['198.51.100.0', 24, 'documentation TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0', 24, 'documentation TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0', 4, 'multicast (RFC 5771)'],
  ['240.0.0.0', 4, 'reserved (RFC 1112), limited broadcast'],
];

/** IANA IPv6 Special-Purpose Address Registry entries that are not globally reachable, plus multicast. */
const IPV6_REFUSED: readonly (readonly [string, number, string])[] = [
  ['::', 96, 'unspecified, loopback, IPv4-compatible (RFC 4291)'],
  ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation (RFC 8215)'],
  ['100::', 64, 'discard-only (RFC 6666)'],
  ['2001::', 23, 'IETF protocol assignments: Teredo, benchmarking, ORCHID (RFC 2928)'],
  ['2001:db8::', 32, 'documentation (RFC 3849)'],
  ['3fff::', 20, 'documentation (RFC 9637)'],
  ['5f00::', 16, 'segment routing SIDs (RFC 9602)'],
  ['fc00::', 7, 'unique local (RFC 4193)'],
  ['fe80::', 10, 'link-local (RFC 4291)'],
  ['fec0::', 10, 'site-local, deprecated (RFC 3879)'],
  ['ff00::', 8, 'multicast (RFC 4291)'],
];

/** Prefixes whose addresses carry an IPv4 address that decides (RFC 4291 §2.5.5.2, RFC 6052, RFC 3056). */
const IPV6_EMBEDDING: readonly (readonly [string, number, number, string])[] = [
  // [prefix, prefix length, bit offset of the IPv4 address, name]
  ['::ffff:0:0', 96, 96, 'IPv4-mapped'],
  // SIIT's IPv4-translated form (RFC 2765 §2.1, ::ffff:0:a.b.c.d): a translator reaches the IPv4
  // address inside, so it decides as in the mapped form
  ['::ffff:0:0:0', 96, 96, 'IPv4-translated'],
  ['64:ff9b::', 96, 96, 'NAT64 well-known prefix'],
  ['2002::', 16, 16, '6to4'],
];

function ipv4ToNumber(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

function ipv6ToBigInt(text: string): bigint | undefined {
  const zone = text.indexOf('%');
  const bare = zone === -1 ? text : text.slice(0, zone);
  let pieces: number[] | null;
  try {
    pieces = parseIPv6(bare);
  } catch {
    return undefined;
  }
  if (pieces === null) return undefined;
  let n = 0n;
  for (const p of pieces) n = (n << 16n) | BigInt(p);
  return n;
}

const V4 = IPV4_REFUSED.map(([base, bits, name]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (ipv4ToNumber(base)! & mask) >>> 0, mask, name };
});

const MASK128 = (1n << 128n) - 1n;
const maskOf = (bits: number): bigint => (MASK128 << BigInt(128 - bits)) & MASK128;

const V6 = IPV6_REFUSED.map(([base, bits, name]) => ({ base: ipv6ToBigInt(base)! & maskOf(bits), mask: maskOf(bits), name }));
const V6_EMBED = IPV6_EMBEDDING.map(([base, bits, offset, name]) => ({
  base: ipv6ToBigInt(base)! & maskOf(bits),
  mask: maskOf(bits),
  shift: BigInt(128 - offset - 32),
  name,
}));

function classifyIPv4(n: number): AddressVerdict {
  for (const r of V4) if (((n & r.mask) >>> 0) === r.base) return { allowed: false, range: r.name };
  return { allowed: true };
}

function classifyIPv6(n: bigint): AddressVerdict {
  // the embedding forms: the IPv4 address inside decides (RFC 4291 §2.5.5.2, RFC 6052 §2.1, RFC 3056 §2)
  for (const e of V6_EMBED) {
    if ((n & e.mask) === e.base) {
      const v4 = Number((n >> e.shift) & 0xffffffffn);
      const inner = classifyIPv4(v4);
      return inner.allowed ? inner : { allowed: false, range: `${e.name} form of ${inner.range}` };
    }
  }
  for (const r of V6) if ((n & r.mask) === r.base) return { allowed: false, range: r.name };
  return { allowed: true };
}

/**
 * Is this IP address globally reachable? Text forms: IPv4 dotted decimal, IPv6 (zone ids ignored).
 * Anything else is refused (`range: 'not an IP address'`).
 */
export function classifyAddress(address: string): AddressVerdict {
  const kind = isIP(address.includes('%') ? address.slice(0, address.indexOf('%')) : address);
  if (kind === 4) return classifyIPv4(ipv4ToNumber(address)!);
  if (kind === 6) {
    const n = ipv6ToBigInt(address);
    if (n !== undefined) return classifyIPv6(n);
  }
  return { allowed: false, range: 'not an IP address' };
}

/** RFC 6761 §6.3: `localhost.` and names under it are loopback names. */
export function isLoopbackName(hostname: string): boolean {
  const h = (hostname.endsWith('.') ? hostname.slice(0, -1) : hostname).toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost');
}

const LOOPBACK_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];

const defaultResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

function blocked(input: string, detail: string): FetchError {
  return new FetchError('ERR_BLOCKED_ADDRESS', input, detail);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The `lookup` signature of `net.connect`. */
export type LookupFunction = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => void;

type Connector = buildConnector.connector;
type ConnectorOptions = buildConnector.Options;
type ConnectorCallback = buildConnector.Callback;

export class NetworkGuard {
  private readonly allowPrivate: boolean;
  private readonly allowed: readonly AllowedEndpoint[];
  private readonly resolver: Resolver;
  /** Connections and URLs refused so far. */
  refused = 0;

  constructor(options: GuardOptions = {}) {
    this.allowPrivate = options.allowPrivate === true;
    this.allowed = options.allow ?? [];
    this.resolver = options.resolver ?? defaultResolver;
  }

  /** The verdict on connecting to `address` port `port`. */
  verdict(address: string, port: number): AddressVerdict {
    const v = classifyAddress(address);
    if (v.allowed || this.allowPrivate) return v.range === 'not an IP address' ? v : { allowed: true };
    const bare = address.includes('%') ? address.slice(0, address.indexOf('%')) : address;
    for (const e of this.allowed) {
      if ((e.port === undefined || e.port === port) && sameAddress(e.address, bare)) return { allowed: true };
    }
    return v;
  }

  /** Throws `ERR_BLOCKED_ADDRESS` unless connecting to `address`:`port` is allowed. */
  checkAddress(address: string, port: number, input = address): void {
    const v = this.verdict(address, port);
    if (!v.allowed) {
      this.refused++;
      throw blocked(input, `${address} is ${v.range}`);
    }
  }

  /**
   * Before any connection: the scheme (http, https), and a host that is an IP literal or a loopback
   * name. Host names are checked again, resolved, at connect time. Returns the parsed URL.
   * Throws `FetchError` (`ERR_UNSUPPORTED_SCHEME`, `ERR_BLOCKED_ADDRESS`) or `UrlError` (`ERR_INVALID_URL`).
   */
  checkUrl(url: string): URL {
    let u: URL;
    try {
      u = nodeUrl(url);
    } catch (cause) {
      throw new UrlError('ERR_INVALID_URL', url, { cause });
    }
    return this.checkParsed(u, url);
  }

  /** `checkUrl` for `url` already parsed into `u` (its one parse). */
  checkParsed(u: URL, url: string): URL {
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      this.refused++;
      throw new FetchError('ERR_UNSUPPORTED_SCHEME', url, `${u.protocol} is not fetched`);
    }
    const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    // the WHATWG host parser (IPv4 number forms such as 2130706433, 0x7f.1, 127.1 become dotted decimal)
    const host = parseSpecialHost(u.hostname);
    const literal = host.startsWith('[') ? host.slice(1, -1) : host;
    if (isIP(literal) !== 0) this.checkAddress(literal, port, url);
    else if (isLoopbackName(host)) for (const a of LOOPBACK_ADDRESSES) this.checkAddress(a, port, url);
    return u;
  }

  /** Resolve `hostname` and check every address for `port`; the addresses to connect to. */
  async resolve(hostname: string, port: number): Promise<string[]> {
    const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (isIP(literal) !== 0) {
      this.checkAddress(literal, port, hostname);
      return [literal];
    }
    const addresses = isLoopbackName(hostname) ? LOOPBACK_ADDRESSES : await this.resolver(hostname);
    if (addresses.length === 0) throw Object.assign(new Error(`${hostname}: no addresses`), { code: 'ENOTFOUND' });
    // one refused address refuses the name: a mixed answer is a rebinding attempt or a misconfiguration
    for (const a of addresses) this.checkAddress(a, port, `${hostname} → ${a}`);
    return [...addresses];
  }

  /** A `net.connect` `lookup` that resolves once through the guard, for connections to `port`. */
  lookupFor(port: number): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname, port).then(
        (addresses) => {
          const wanted = Number(options.family) === 4 ? 4 : Number(options.family) === 6 ? 6 : 0;
          const records = addresses
            .map((address) => ({ address, family: isIP(address.includes('%') ? address.slice(0, address.indexOf('%')) : address) }))
            .filter((r) => wanted === 0 || r.family === wanted);
          if (records.length === 0) {
            callback(Object.assign(new Error(`${hostname}: no IPv${wanted} address`), { code: 'ENOTFOUND' }), '', 0);
          } else if (options.all === true) {
            callback(null, records);
          } else {
            callback(null, records[0]!.address, records[0]!.family);
          }
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }

  /**
   * An undici `connect` function: IP literals are checked here (net.connect does not call `lookup`
   * for them), names through `lookupFor(port)`. `options` are undici's connect options.
   */
  connector(options: Omit<buildConnector.BuildOptions, 'lookup'> = {}): Connector {
    const byPort = new Map<number, Connector>();
    return (opts: ConnectorOptions, callback: ConnectorCallback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      const literal = opts.hostname.startsWith('[') ? opts.hostname.slice(1, -1) : opts.hostname;
      if (isIP(literal) !== 0) {
        try {
          this.checkAddress(literal, port, `${opts.protocol}//${opts.host ?? opts.hostname}`);
        } catch (error) {
          callback(error as Error, null);
          return;
        }
      }
      let connect = byPort.get(port);
      if (connect === undefined) {
        connect = buildConnector({ ...options, lookup: this.lookupFor(port) } as buildConnector.BuildOptions);
        byPort.set(port, connect);
      }
      connect(opts, callback);
    };
  }
}

function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  if (isIP(a) === 6 && isIP(b) === 6) return ipv6ToBigInt(a) === ipv6ToBigInt(b);
  return false;
}
