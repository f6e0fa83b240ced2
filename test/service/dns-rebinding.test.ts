// service/dns-rebinding (docs/reliability.md): a web page whose name was rebound to 127.0.0.1 reaches
// the service with its own name in `Host`. Before the fix the service answered any Host, so the
// page could admit URLs and write evidence; now such a request gets 421 ERR_MISDIRECTED_REQUEST
// and changes nothing. The bound address, the loopback names on the bound port, and names given
// with allowedHosts (`--allowed-host`) are answered.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostCheck, parseHostHeader } from '../../src/service/host.js';
import { startHarness, tempDir, type Harness } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/serve.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/src/cli/commands/serve.js', import.meta.url));

/** A request with exactly this `Host` header (fetch does not let a caller set it). */
function withHost(base: string, method: string, path: string, host: string, body?: string): Promise<{ status: number; body: { error?: { code: string } } | undefined }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    const req = httpRequest(`${base}${path}`, { method, headers, setHost: false, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: { error?: { code: string } } | undefined;
        try {
          parsed = JSON.parse(text) as { error?: { code: string } };
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host header check over HTTP', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness({ allowedHosts: ['crawler.internal', 'box.internal:8080', '[fd00::7]'] });
    port = h.service.port;
  });
  afterAll(async () => {
    await h.stop();
  });

  it('a rebound name gets 421 with a JSON error, and its admit and evidence change nothing', async () => {
    const evil = `rebind.attacker.example:${port}`;
    const admit = await withHost(h.url, 'POST', '/v1/admit', evil, JSON.stringify(['https://victim.example/x']));
    expect(admit.status).toBe(421);
    expect(admit.body?.error?.code).toBe('ERR_MISDIRECTED_REQUEST');
    const evidence = await withHost(h.url, 'POST', '/v1/evidence', evil, JSON.stringify({ redirects: [{ from: 'http://victim.example/a', to: 'https://victim.example/a', status: 301 }] }));
    expect(evidence.status).toBe(421);
    expect((await h.store.canonical('https://victim.example/x')).state).toBe('unknown');
    expect((await h.store.stats()).aliases).toBe(0);
    for (const path of ['/v1/key?url=http%3A%2F%2Fa.example%2F', '/v1/stats', '/healthz', '/metrics', '/nowhere']) {
      const a = await withHost(h.url, 'GET', path, evil);
      expect(a.status, path).toBe(421);
      expect(a.body?.error?.code, path).toBe('ERR_MISDIRECTED_REQUEST');
    }
  });

  it('answers the bound address and the loopback names on the bound port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `localhost.:${port}`, `app.localhost:${port}`, `[::1]:${port}`]) {
      expect((await withHost(h.url, 'GET', '/healthz', host)).status, host).toBe(200);
    }
    const admit = await withHost(h.url, 'POST', '/v1/admit', `localhost:${port}`, JSON.stringify(['https://own.example/x']));
    expect(admit.status).toBe(200);
  });

  it('refuses the loopback names on another port, lookalikes and malformed values', async () => {
    for (const host of ['localhost', `localhost:${port + 1}`, `127.0.0.1:${port + 1}`, `localhost.attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `evil-localhost:${port}`, `localhost:${port}x`, `[::1`, `a b:${port}`, `:${port}`]) {
      expect((await withHost(h.url, 'GET', '/healthz', host)).status, host).toBe(421);
    }
  });

  it('answers allowedHosts: a bare name on any port, name:port on that port only', async () => {
    expect((await withHost(h.url, 'GET', '/healthz', 'crawler.internal')).status).toBe(200);
    expect((await withHost(h.url, 'GET', '/healthz', 'CRAWLER.internal:9999')).status).toBe(200);
    expect((await withHost(h.url, 'GET', '/healthz', 'box.internal:8080')).status).toBe(200);
    expect((await withHost(h.url, 'GET', '/healthz', `box.internal:${port}`)).status).toBe(421);
    expect((await withHost(h.url, 'GET', '/healthz', '[FD00::7]:443')).status).toBe(200);
  });

  it('answers an HTTP/1.0 request without Host (no browser sends one)', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.0\r\n\r\n'));
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => (got += d));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
  });
});

describe('createHostCheck', () => {
  it('refuses a malformed allowedHosts entry up front', () => {
    expect(() => createHostCheck({ boundAddress: '127.0.0.1', port: 1, allowedHosts: ['a:b:c'] })).toThrow(TypeError);
  });
  it('answers the bound IPv6 address in brackets, and no port as port 80', () => {
    const check = createHostCheck({ boundAddress: '::1', port: 80, allowedHosts: [] });
    expect(check('[::1]')).toBe(true);
    expect(check('[::1]:80')).toBe(true);
    expect(check('[::2]')).toBe(false);
    expect(parseHostHeader('[::1]:99999')).toBeUndefined();
  });
});

describe('urldedup serve (the built CLI)', () => {
  /** Start serve with these flags, read the listening line, stop it with SIGTERM; return its stderr. */
  async function serve(flags: string[], during: (url: string) => Promise<void> = async () => {}): Promise<string> {
    const dir = await tempDir();
    try {
      const child = spawn(process.execPath, [FIXTURE, 'serve', '--db', join(dir, 'db'), '--port', '0', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error(`serve exited before listening: ${stderr}`)));
      });
      const { port } = JSON.parse(line) as { port: number };
      await during(`http://127.0.0.1:${port}`);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      return stderr;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('--allowed-host adds names; others get 421', async () => {
    expect(existsSync(BUILT), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
    const stderr = await serve(['--allowed-host', 'crawler.internal', '--allowed-host', 'other.internal'], async (url) => {
      expect((await withHost(url, 'GET', '/healthz', 'crawler.internal')).status).toBe(200);
      expect((await withHost(url, 'GET', '/healthz', 'other.internal:1')).status).toBe(200);
      expect((await withHost(url, 'GET', '/healthz', 'rebind.attacker.example')).status).toBe(421);
    });
    expect(stderr).not.toContain('warning');
  });

  it('warns on stderr when bound to a non-loopback address without --token-file, not with one', async () => {
    const open = await serve(['--host', '0.0.0.0'], async (url) => {
      // bound to every interface: still answered on loopback names, still not for others
      expect((await withHost(url, 'GET', '/healthz', 'rebind.attacker.example')).status).toBe(421);
    });
    expect(open).toMatch(/warning: listening on 0\.0\.0\.0.*without --token-file/);
    const dir = await tempDir();
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'secret-token\n', { mode: 0o600 });
    try {
      expect(await serve(['--host', '0.0.0.0', '--token-file', tokenFile])).not.toContain('without --token-file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
