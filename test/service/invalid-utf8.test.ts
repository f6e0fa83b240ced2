// input/invalid-utf8 (docs/reliability.md), the service half: request bodies were decoded with U+FFFD
// for every invalid byte, so `caf\xE9` and `caf\xE8` became one URL and one key. A body that is
// not UTF-8 is now refused whole with 400 ERR_INVALID_UTF8, before anything is recorded. The same
// held for `GET /v1/key?url=caf%E9` (URLSearchParams decodes with U+FFFD): refused the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answer, errorOf, get, startHarness, type Answer, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

async function postBytes(path: string, bytes: Buffer): Promise<Answer> {
  return answer(await fetch(`${h.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(bytes) }));
}

/** `["https://utf8.example/caf<byte>"]` with the raw byte. */
function urlListWithByte(...bytes: number[]): Buffer {
  return Buffer.concat([Buffer.from('["https://utf8.example/caf', 'latin1'), Buffer.from(bytes), Buffer.from('"]', 'latin1')]);
}

describe('a body that is not UTF-8', () => {
  it('caf\\xE9 and caf\\xE8 are both refused (never one shared key), on key and admit, and nothing is admitted', async () => {
    for (const path of ['/v1/key', '/v1/admit']) {
      for (const byte of [0xe9, 0xe8]) {
        const a = await postBytes(path, urlListWithByte(byte));
        expect(a.status, `${path} ${byte}`).toBe(400);
        expect(errorOf(a).code).toBe('ERR_INVALID_UTF8');
      }
    }
    const stats = await h.store.stats();
    expect(stats.urls.admitted).toBe(0);
  });

  it('other ill-formed sequences too: overlong, surrogate, truncated, stray continuation', async () => {
    for (const bytes of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4], [0x80], [0xff]]) {
      const a = await postBytes('/v1/admit', urlListWithByte(...bytes));
      expect(errorOf(a).code, bytes.join(' ')).toBe('ERR_INVALID_UTF8');
    }
    const evidence = Buffer.concat([Buffer.from('{"fetches":[{"url":"https://utf8.example/", "status": 200, "contentHash": "'), Buffer.from([0xe9]), Buffer.from('"}]}')]);
    expect(errorOf(await postBytes('/v1/evidence', evidence)).code).toBe('ERR_INVALID_UTF8');
  });

  it('UTF-8 café (C3 A9) and caf\\u00e8 as an escape are answered, with different keys', async () => {
    const a = await postBytes('/v1/key', urlListWithByte(0xc3, 0xa9));
    const b = await postBytes('/v1/key', Buffer.from('["https://utf8.example/caf\\u00e8"]'));
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const ka = (a.body as { results: { key: string }[] }).results[0]!.key;
    const kb = (b.body as { results: { key: string }[] }).results[0]!.key;
    expect(ka).toContain('caf%C3%A9');
    expect(kb).toContain('caf%C3%A8');
  });
});

describe('a query parameter percent-encoding bytes that are not UTF-8', () => {
  it('?url=…caf%E9 and …caf%E8 are both refused (never one shared key); %C3%A9 is answered', async () => {
    for (const enc of ['%E9', '%e8', '%C0%AF', '%ED%A0%80']) {
      const a = await get(`${h.url}/v1/key?url=https://utf8.example/caf${enc}`);
      expect(a.status, enc).toBe(400);
      expect(errorOf(a)).toMatchObject({ code: 'ERR_INVALID_UTF8', item: 'url' });
    }
    const ok = await get(`${h.url}/v1/key?url=https://utf8.example/caf%C3%A9`);
    expect(ok.status).toBe(200);
    expect((ok.body as { key: string }).key).toContain('caf%C3%A9');
    // a % that encodes no byte is text, as URLSearchParams reads it: answered as before
    const literal = await get(`${h.url}/v1/key?url=https://utf8.example/%zz%`);
    expect(literal.status).toBe(200);
    expect((literal.body as { url: string }).url).toBe('https://utf8.example/%zz%');
  });
});
