/**
 * The network guard (docs/reliability.md `ssrf/*`): default deny on every special-use range, checked on
 * the resolved address at connect time. No test here connects anywhere but 127.0.0.0/8.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/crawler/http/fetch.js';
import { classifyAddress, isLoopbackName, NetworkGuard, type Resolver } from '../../src/crawler/http/guard.js';
import { tcpListener } from './support.js';

const REFUSED = [
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254',
  '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.170', '192.0.2.1', '192.88.99.1', '192.168.1.1',
  '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1',
  '255.255.255.255',
  '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1',
  '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a00:1', '::ffff:0:169.254.169.254',
  '64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b:1::1', '100::1', '2001::1', '2001:2::1', '2001:db8::1',
  '2002:7f00:1::1', '2002:c0a8:101::1', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0',
  'fec0::1', 'ff02::1',
];
const GLOBAL = [
  '1.1.1.1', '8.8.8.8', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0',
  '192.169.0.1', '198.17.255.255', '198.20.0.0', '223.255.255.255',
  '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
];

describe('classifyAddress', () => {
  it.each(REFUSED)('refuses %s', (a) => {
    const v = classifyAddress(a);
    expect(v.allowed).toBe(false);
    expect(v.range).toBeTruthy();
  });
  it.each(GLOBAL)('allows %s', (a) => {
    expect(classifyAddress(a)).toEqual({ allowed: true });
  });
  it('refuses what is not an IP address', () => {
    expect(classifyAddress('example.com').allowed).toBe(false);
  });
  it('names the range of an embedded address', () => {
    expect(classifyAddress('::ffff:127.0.0.1').range).toMatch(/IPv4-mapped form of loopback/);
    expect(classifyAddress('64:ff9b::a00:1').range).toMatch(/NAT64 .* private/);
  });
  it('treats localhost names as loopback (RFC 6761)', () => {
    for (const n of ['localhost', 'LOCALHOST', 'localhost.', 'a.localhost', 'demo.localhost.']) expect(isLoopbackName(n)).toBe(true);
    for (const n of ['localhost.com', 'mylocalhost', 'localhost.example']) expect(isLoopbackName(n)).toBe(false);
  });
});

describe('the guard refuses before connecting', () => {
  let listener: Awaited<ReturnType<typeof tcpListener>>;
  let fetcher: Fetcher;
  beforeAll(async () => {
    listener = await tcpListener((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    fetcher = new Fetcher({ deadlineMs: 2000, connectTimeoutMs: 500 });
  });
  afterAll(async () => {
    await fetcher.close();
    await listener.close();
  });

  it('IPv4 number forms, mapped IPv6 and loopback names of 127.0.0.1: 0 connections', async () => {
    const p = listener.port;
    const forms = [
      `http://127.0.0.1:${p}/`, `http://2130706433:${p}/`, `http://0x7f.1:${p}/`, `http://0177.0.0.1:${p}/`, `http://127.1:${p}/`,
      `http://0x7f000001:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://[::ffff:7f00:1]:${p}/`, `http://[::ffff:0:127.0.0.1]:${p}/`, `http://localhost:${p}/`,
      `http://localhost.:${p}/`, `http://x.localhost:${p}/`, `http://0.0.0.0:${p}/`, `http://[::1]:${p}/`, `http://[::]:${p}/`,
      `https://127.0.0.1:${p}/`,
    ];
    for (const url of forms) {
      const r = await fetcher.fetch(url);
      expect(r.error?.code, url).toBe('ERR_BLOCKED_ADDRESS');
      expect(r.requests).toBe(0);
    }
    expect(listener.connections()).toBe(0);
  });

  it('other schemes are never fetched', async () => {
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x', 'gopher://127.0.0.1:70/']) {
      const r = await fetcher.fetch(url);
      expect(r.error?.code, url).toBe('ERR_UNSUPPORTED_SCHEME');
    }
    expect(listener.connections()).toBe(0);
  });
});

/** Two HTTP servers on one port: 127.0.0.2 stands for a public address (allowed), 127.0.0.1 for a private one. */
async function pairOnOnePort(): Promise<{ port: number; hits: { public: number; private: number }; close(): Promise<void> }> {
  const hits = { public: 0, private: 0 };
  for (let attempt = 0; attempt < 20; attempt++) {
    const pub: Server = createServer((_q, res) => res.writeHead(200, { connection: 'close' }).end('public'));
    pub.on('connection', () => hits.public++);
    await new Promise<void>((r) => pub.listen(0, '127.0.0.2', r));
    const port = (pub.address() as AddressInfo).port;
    const priv: Server = createServer((_q, res) => res.writeHead(200, { connection: 'close' }).end('private'));
    priv.on('connection', () => hits.private++);
    const ok = await new Promise<boolean>((r) => {
      priv.once('error', () => r(false));
      priv.listen(port, '127.0.0.1', () => r(true));
    });
    if (ok) {
      const close = async (): Promise<void> => {
        pub.closeAllConnections();
        priv.closeAllConnections();
        await Promise.all([new Promise((r) => pub.close(r)), new Promise((r) => priv.close(r))]);
      };
      return { port, hits, close };
    }
    await new Promise((r) => pub.close(r));
  }
  throw new Error('no port free on both 127.0.0.1 and 127.0.0.2');
}

describe('DNS answers are checked at connect time (rebinding)', () => {
  let pair: Awaited<ReturnType<typeof pairOnOnePort>>;
  beforeAll(async () => {
    pair = await pairOnOnePort();
  });
  afterAll(async () => pair.close());

  it('a name that resolves to a private address is refused: 0 requests reach it', async () => {
    const lookups: string[] = [];
    const resolver: Resolver = async (h) => {
      lookups.push(h);
      return ['127.0.0.1'];
    };
    const f = new Fetcher({ guard: { resolver }, deadlineMs: 2000 });
    const r = await f.fetch(`http://internal.example:${pair.port}/`);
    await f.close();
    expect(r.error?.code).toBe('ERR_BLOCKED_ADDRESS');
    expect(lookups).toEqual(['internal.example']);
    expect(pair.hits.private).toBe(0);
  });

  it('a resolver alternating public and private: every request goes to the address checked', async () => {
    let n = 0;
    const resolver: Resolver = async () => (n++ % 2 === 0 ? ['127.0.0.2'] : ['127.0.0.1']);
    const before = { ...pair.hits };
    const f = new Fetcher({ guard: { resolver, allow: [{ address: '127.0.0.2' }] }, deadlineMs: 2000 });
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await f.fetch(`http://rebind.example:${pair.port}/x${i}`, { keepBody: true });
      codes.push(r.error?.code ?? r.body!.toString());
    }
    await f.close();
    expect(n).toBe(6); // one resolution per connection, never a second one behind the check
    expect(codes).toEqual(['public', 'ERR_BLOCKED_ADDRESS', 'public', 'ERR_BLOCKED_ADDRESS', 'public', 'ERR_BLOCKED_ADDRESS']);
    expect(pair.hits.private - before.private).toBe(0);
    expect(pair.hits.public - before.public).toBe(3);
  });

  it('a mixed answer (public and private) is refused whole', async () => {
    const before = { ...pair.hits };
    const f = new Fetcher({ guard: { resolver: async () => ['127.0.0.2', '127.0.0.1'], allow: [{ address: '127.0.0.2' }] }, deadlineMs: 2000 });
    const r = await f.fetch(`http://mixed.example:${pair.port}/`);
    await f.close();
    expect(r.error?.code).toBe('ERR_BLOCKED_ADDRESS');
    expect(pair.hits).toEqual(before);
  });

  it('allowPrivate opts in; an allowed endpoint is allowed on its port only', async () => {
    const open = new Fetcher({ guard: { allowPrivate: true }, deadlineMs: 2000 });
    expect((await open.fetch(`http://127.0.0.1:${pair.port}/`)).status).toBe(200);
    await open.close();
    const guard = new NetworkGuard({ allow: [{ address: '127.0.0.1', port: pair.port }] });
    expect(() => guard.checkAddress('127.0.0.1', pair.port)).not.toThrow();
    expect(() => guard.checkAddress('127.0.0.1', pair.port + 1)).toThrow(/ERR_BLOCKED_ADDRESS/);
    expect(() => guard.checkAddress('10.0.0.1', pair.port)).toThrow(/ERR_BLOCKED_ADDRESS/);
  });

  it('lookup answers in both net.connect shapes (all: true and a single address)', async () => {
    const guard = new NetworkGuard({ resolver: async () => ['127.0.0.2', '::ffff:127.0.0.2'], allow: [{ address: '127.0.0.2' }, { address: '::ffff:127.0.0.2' }] });
    const lookup = guard.lookupFor(80);
    const one = await new Promise((r) => lookup('x.example', { all: false }, (e, a, f) => r([e, a, f])));
    expect(one).toEqual([null, '127.0.0.2', 4]);
    const all = await new Promise((r) => lookup('x.example', { all: true }, (e, a) => r([e, a])));
    expect(all).toEqual([null, [{ address: '127.0.0.2', family: 4 }, { address: '::ffff:127.0.0.2', family: 6 }]]);
    const v6 = await new Promise((r) => lookup('x.example', { family: 6 }, (e, a) => r([e, a])));
    expect(v6).toEqual([null, '::ffff:127.0.0.2']);
  });
});
