/**
 * The `Host` header check against DNS rebinding.
 *
 * A web page cannot read or write a service on another origin, but it can make its own name
 * resolve to 127.0.0.1 after the page has loaded (DNS rebinding): the browser then sends the page's
 * requests to the service as same-origin requests, with the attacker's name in `Host`
 * (RFC 9110 §7.2). So the service answers only requests whose `Host` names it: its bound address,
 * the loopback names (`localhost`, `*.localhost` of RFC 6761 §6.3, `127.0.0.1`, `[::1]`) with its
 * port, and the names the operator allows (`allowedHosts`). Others get 421 Misdirected Request
 * (RFC 9110 §15.5.20): "the server is not able to produce a response for this target".
 *
 * A request without `Host` (HTTP/1.0; node:http refuses HTTP/1.1 without it) is answered: a
 * browser always sends it, so it is no rebinding.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** A `Host` header value split (RFC 9110 §7.2: `uri-host [ ":" port ]`), the name lowercased. */
export interface HostHeader {
  /** Lowercase, one trailing dot dropped, IPv6 literals in brackets (`[::1]`). */
  readonly name: string;
  /** `undefined` when the header gives none. */
  readonly port: number | undefined;
}

/** Split a `Host` value; `undefined` when it is not `name[:port]`. */
export function parseHostHeader(value: string): HostHeader | undefined {
  let name: string;
  let rest: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close === -1) return undefined;
    name = value.slice(0, close + 1);
    rest = value.slice(close + 1);
  } else {
    const colon = value.indexOf(':');
    name = colon === -1 ? value : value.slice(0, colon);
    rest = colon === -1 ? '' : value.slice(colon);
  }
  let port: number | undefined;
  if (rest !== '') {
    if (!/^:\d{1,5}$/.test(rest)) return undefined;
    port = Number(rest.slice(1));
    if (port > 65535) return undefined;
  }
  name = name.toLowerCase();
  if (name.endsWith('.') && !name.startsWith('[')) name = name.slice(0, -1);
  if (name === '') return undefined;
  return { name, port };
}

/** The form an address takes in `Host`: IPv6 in brackets. */
function hostForm(address: string): string {
  return isIP(address) === 6 ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** RFC 1122 §3.2.1.3 (127/8) and RFC 4291 §2.5.3 (`::1`), IPv4-mapped included. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (a === '::1' || a === 'localhost') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** `0.0.0.0` or `::`: every interface. */
function isUnspecified(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '::0';
}

export interface HostCheckOptions {
  /** The address the server is bound to (`server.address().address`). */
  readonly boundAddress: string;
  readonly port: number;
  /**
   * Names to answer besides the bound address and the loopback names: `name` (any port) or
   * `name:port`. IPv6 literals in brackets (`[fd00::1]:7070`).
   */
  readonly allowedHosts: readonly string[];
}

/** A check of `Host` header values: true when the request may be answered. */
export type HostCheck = (host: string | undefined) => boolean;

export function createHostCheck(o: HostCheckOptions): HostCheck {
  /** Names answered on the bound port only. */
  const ownNames = new Set<string>(['localhost', '127.0.0.1', '[::1]', hostForm(o.boundAddress)]);
  if (isUnspecified(o.boundAddress)) {
    // bound to every interface: each interface's address names this service
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) ownNames.add(hostForm(i.address));
  }
  /** Allowed names with any port, and `name:port` pairs. */
  const anyPort = new Set<string>();
  const withPort = new Set<string>();
  for (const entry of o.allowedHosts) {
    const h = parseHostHeader(entry);
    if (h === undefined) throw new TypeError(`service: allowedHosts: ${JSON.stringify(entry)} is not a host name, name:port or [IPv6]:port`);
    if (h.port === undefined) anyPort.add(h.name);
    else withPort.add(`${h.name}:${h.port}`);
  }
  return (value) => {
    if (value === undefined) return true;
    const h = parseHostHeader(value);
    if (h === undefined) return false;
    if (anyPort.has(h.name)) return true;
    // RFC 9110 §7.2: no port in Host means the scheme's default, 80 for http
    const port = h.port ?? 80;
    if (withPort.has(`${h.name}:${port}`)) return true;
    if (port !== o.port) return false;
    return ownNames.has(h.name) || h.name.endsWith('.localhost');
  };
}
