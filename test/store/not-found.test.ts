/**
 * Not-found signatures (src/store/learning/not-found.ts): probes asked once per directory, their
 * answers matched by bytes or by shape, and a signature whose shape an earlier version read
 * probed again.
 */
import { describe, expect, it } from 'vitest';
import { keyFromRecord, normalizeRecord } from '../../src/normalize/index.js';
import { Txn } from '../../src/store/engine/batch.js';
import type { CheckRequest, LearnedUrl } from '../../src/store/learning/contract.js';
import { NotFoundSignatures, TITLED } from '../../src/store/learning/not-found.js';
import { MemoryKv } from '../../src/store/backends/memory-store.js';
import { encodeJson, evidenceKeys } from '../../src/store/keys.js';

function url(u: string): LearnedUrl {
  const rec = normalizeRecord(u);
  return { rec, key: keyFromRecord(rec) };
}

async function ask(kv: MemoryKv, sigs: NotFoundSignatures, at: string, dir: string): Promise<CheckRequest[]> {
  const txn = new Txn(0);
  const checks: CheckRequest[] = [];
  await sigs.ask(txn, url(at), dir, checks);
  await kv.write(txn.ops);
  return checks;
}

describe('not-found signatures', () => {
  it('asks once per directory, and matches a page by its shape once the probe answered', async () => {
    const kv = new MemoryKv();
    const sigs = new NotFoundSignatures(kv);
    const [probe] = await ask(kv, sigs, 'http://a.example/docs/x.html', '/docs/');
    expect(probe!.rec.path).toMatch(/^\/docs\/urldedup-not-found-[0-9a-f]{16}$/);
    expect(await ask(kv, sigs, 'http://a.example/docs/y.html', '/docs/')).toEqual([]);
    const txn = new Txn(0);
    await sigs.record(txn, { rec: probe!.rec, key: probe!.key }, 200, 'H1', 'SHAPE');
    await kv.write(txn.ops);
    expect(await sigs.matches(new Txn(0), 'a.example', '/docs/z', 'H2', 'SHAPE')).toBe(true);
    expect(await sigs.matches(new Txn(0), 'a.example', '/other/z', 'H2', 'SHAPE')).toBe(false);
  });

  it('a session segment is no directory: one probe where the URL lies, its signature for every session', async () => {
    const kv = new MemoryKv();
    const sigs = new NotFoundSignatures(kv);
    const [probe] = await ask(kv, sigs, 'http://a.example/(S(lit3py55t21z5v55vlm25s55))/docs/x.html', '/(S(lit3py55t21z5v55vlm25s55))/docs/');
    // asked where the server answers it, session and all
    expect(probe!.rec.path).toMatch(/^\/\(S\(lit3py55t21z5v55vlm25s55\)\)\/docs\/urldedup-not-found-/);
    expect(await ask(kv, sigs, 'http://a.example/(S(q0c4xy2vbt1m5dzkq0fjwn3u))/docs/y.html', '/(S(q0c4xy2vbt1m5dzkq0fjwn3u))/docs/')).toEqual([]);
    expect(await ask(kv, sigs, 'http://a.example/docs;jsessionid=0A1B/y.html', '/docs;jsessionid=0A1B/')).toEqual([]);
    const txn = new Txn(0);
    await sigs.record(txn, { rec: probe!.rec, key: probe!.key }, 200, 'H1', 'SHAPE');
    await kv.write(txn.ops);
    for (const path of ['/docs/z', '/(S(q0c4xy2vbt1m5dzkq0fjwn3u))/docs/z', '/docs;jsessionid=0A1B/z']) expect(await sigs.matches(new Txn(0), 'a.example', path, 'H2', 'SHAPE')).toBe(true);
    expect(await sigs.matches(new Txn(0), 'a.example', '/(S(q0c4xy2vbt1m5dzkq0fjwn3u))/api/z', 'H2', 'SHAPE')).toBe(false);
  });

  it('probes again, under another name, a directory whose shape an earlier version read, and keeps it until then', async () => {
    const kv = new MemoryKv();
    const sigs = new NotFoundSignatures(kv);
    const key = evidenceKeys.notFound('a.example', '/docs/');
    // written before shapes were read in any case: no `v`
    await kv.write([{ space: 'evidence', key, value: encodeJson({ st: 200, c: 'H1', x: 'OLDSHAPE' }) }]);
    // the name a first probe of that directory takes
    const fresh = new MemoryKv();
    const [original] = await ask(fresh, new NotFoundSignatures(fresh), 'http://a.example/docs/x.html', '/docs/');
    const [again] = await ask(kv, sigs, 'http://a.example/docs/x.html', '/docs/');
    expect(again).toBeDefined();
    expect(again!.key).not.toBe(original!.key);
    // the old signature still matches by its bytes until the new probe answers
    expect(await sigs.matches(new Txn(0), 'a.example', '/docs/z', 'H1')).toBe(true);
    const txn = new Txn(0);
    await sigs.record(txn, { rec: again!.rec, key: again!.key }, 200, 'H1', 'NEWSHAPE');
    await kv.write(txn.ops);
    expect(await sigs.matches(new Txn(0), 'a.example', '/docs/z', 'H9', 'NEWSHAPE')).toBe(true);
    // a signature of this version is not probed again
    expect(await ask(kv, sigs, 'http://a.example/docs/y.html', '/docs/')).toEqual([]);
  });

  it('a shape of version 2 (an echo read inside a request id) is probed again too', async () => {
    const kv = new MemoryKv();
    const sigs = new NotFoundSignatures(kv);
    await kv.write([{ space: 'evidence', key: evidenceKeys.notFound('a.example', '/docs/'), value: encodeJson({ st: 200, c: 'H1', x: 'V2SHAPE', v: 2 }) }]);
    const [again] = await ask(kv, sigs, 'http://a.example/docs/x.html', '/docs/');
    expect(again?.kind).toBe('probe');
    // a 404 signature has no shape to read again
    await kv.write([{ space: 'evidence', key: evidenceKeys.notFound('a.example', '/api/'), value: encodeJson({ st: 404 }) }]);
    expect(await ask(kv, sigs, 'http://a.example/api/x', '/api/')).toEqual([]);
  });

  it('a rule\'s image under the not-found page\'s title has its originals checked, whichever answered first', async () => {
    const kv = new MemoryKv();
    const sigs = new NotFoundSignatures(kv);
    const image = url('http://a.example/docs/old-name');
    const original = url('http://a.example/docs/old-name.html');
    // the rewrite index (url-state.ts): the original, pruned onto the image by a rule
    const pruned = async (): Promise<void> => {
      await kv.write([
        { space: 'url', key: original.key, value: `p d0 t0 T${image.key} Brule:a.example/suffix:.html>` },
        { space: 'evidence', key: evidenceKeys.rewrite(image.key, original.key), value: 'rule:a.example/suffix:.html>' },
      ]);
    };
    await pruned();
    const rewrites = [[evidenceKeys.rewrite(image.key, original.key), 'rule:a.example/suffix:.html>']] as const;
    // 1. the image answers while the probe is out: its title waits (a rule's image's alone)
    const [probe] = await ask(kv, sigs, 'http://a.example/docs/x.html', '/docs/');
    let txn = new Txn(0);
    expect(await sigs.originalsToCheck(txn, image, 'T404', rewrites)).toEqual([]);
    expect(await sigs.originalsToCheck(txn, url('http://a.example/docs/other'), 'T404', [])).toEqual([]);
    await kv.write(txn.ops);
    // the probe answers a page titled alike, whose shape differs (it suggests other pages)
    txn = new Txn(0);
    await sigs.record(txn, { rec: probe!.rec, key: probe!.key }, 200, 'H1', 'SHAPE1', 'T404');
    const later = await sigs.titledBefore(txn, image.key.slice(0, image.key.lastIndexOf('/') + 1), 'T404', 64);
    await kv.write(txn.ops);
    expect(later.map((c) => [c.kind, c.key])).toEqual([['original', original.key]]);
    expect(await kv.get('evidence', evidenceKeys.imageTitle(url('http://a.example/docs/other').key))).toBeUndefined();
    expect(await kv.get('evidence', evidenceKeys.imageTitle(image.key))).toBe(`${TITLED}T404`);
    // 2. an image fetched once the probe answered: at once; a page titled otherwise: nothing
    txn = new Txn(0);
    expect((await sigs.originalsToCheck(txn, image, 'T404', rewrites)).map((c) => c.key)).toEqual([original.key]);
    expect(await sigs.originalsToCheck(txn, url('http://a.example/docs/page'), 'A page', [])).toEqual([]);
    // the title is no verdict: the page is not taken for the not-found page
    expect(await sigs.matches(new Txn(0), 'a.example', '/docs/old-name', 'H2', 'SHAPE2')).toBe(false);
  });
});

