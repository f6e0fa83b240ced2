// The bearer token: missing or wrong → 401 with WWW-Authenticate, right → 200, /healthz open;
// the comparison goes through equal-length digests, so tokens of any length compare without
// throwing or returning early.
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBearerCheck, readTokenFile, TokenFileError } from '../../src/service/auth.js';
import { errorOf, get, postJson, startHarness, tempDir, type Harness } from './support.js';

const TOKEN = 'k3y-For.Tests_~+/abc==';

describe('bearer token over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ token: TOKEN });
  });
  afterAll(async () => {
    await h.stop();
  });

  it('401 without a token or with a wrong one, on every route but /healthz', async () => {
    const wrong = [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Basic ${TOKEN}`, TOKEN, 'Bearer a'];
    for (const authorization of wrong) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      for (const a of [
        await get(`${h.url}/v1/key?url=http%3A%2F%2Fa.example%2F`, headers),
        await postJson(`${h.url}/v1/admit`, ['https://auth.example/'], headers),
        await get(`${h.url}/v1/stats`, headers),
        await get(`${h.url}/metrics`, headers),
      ]) {
        expect(a.status, String(authorization)).toBe(401);
        expect(a.headers.get('www-authenticate')).toBe('Bearer realm="urldedup"');
        expect(errorOf(a).code).toBe('ERR_UNAUTHORIZED');
      }
    }
    expect((await h.store.canonical('https://auth.example/')).state).toBe('unknown');
    expect((await get(`${h.url}/healthz`)).status).toBe(200);
  });

  it('200 with the right token (scheme name in any case)', async () => {
    expect((await get(`${h.url}/v1/stats`, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await get(`${h.url}/v1/stats`, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
    const a = await postJson(`${h.url}/v1/admit`, ['https://auth.example/'], { authorization: `Bearer ${TOKEN}` });
    expect(a.status).toBe(200);
    expect((a.body as { results: { admitted: boolean }[] }).results[0]!.admitted).toBe(true);
  });
});

describe('createBearerCheck', () => {
  it('accepts exactly the token; any length of guess compares without throwing', () => {
    const check = createBearerCheck('s3cret');
    expect(check('Bearer s3cret')).toBe(true);
    for (const guess of ['', 's', 's3cre', 's3cretX', 's3cret s3cret', 'x'.repeat(10_000), 'S3CRET']) {
      expect(check(`Bearer ${guess}`), guess).toBe(false);
    }
    expect(check(undefined)).toBe(false);
    expect(check('s3cret')).toBe(false);
  });

  it('refuses a token with characters RFC 6750 does not allow', () => {
    expect(() => createBearerCheck('has space')).toThrow(TypeError);
    expect(() => createBearerCheck('')).toThrow(TypeError);
  });
});

describe('readTokenFile', () => {
  it('trims the newline, warns when others may read the file, refuses an empty file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'token');
    await writeFile(file, 'abc123\n');
    await chmod(file, 0o600);
    expect(await readTokenFile(file)).toEqual({ token: 'abc123' });
    await chmod(file, 0o644);
    expect((await readTokenFile(file)).warning).toMatch(/other users/);
    await writeFile(file, '\n');
    await expect(readTokenFile(file)).rejects.toBeInstanceOf(TokenFileError);
    await expect(readTokenFile(join(dir, 'missing'))).rejects.toBeInstanceOf(TokenFileError);
    await rm(dir, { recursive: true, force: true });
  });
});
