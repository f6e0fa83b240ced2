// The learner's documents-per-path table (path-documents.ts): what it answers is what an iterator
// over the database answers, through inserts, deletes, loads overtaken by writes and large hosts.
import { describe, expect, it } from 'vitest';
import { evidenceKeys, prefixRange, SEP } from '../../src/store/keys.js';
import type { KvOp } from '../../src/store/backends/kv.js';
import { MemoryKv } from '../../src/store/backends/memory-store.js';
import { PathDocuments } from '../../src/store/learning/path-documents.js';
import { mulberry32 } from '../../sites/mulberry32.js';

async function fromDatabase(kv: MemoryKv, host: string, path: string, limit: number): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of kv.entries('evidence', { ...prefixRange(evidenceKeys.pathDocumentPrefix(host, path)), limit })) out.push(k.slice(k.lastIndexOf(SEP) + 1));
  return out;
}

/** Write `ops` as the engine does: to the database, then to the table (`RuleBook.wrote`). */
async function commit(kv: MemoryKv, docs: PathDocuments, ops: KvOp[]): Promise<void> {
  await kv.write(ops);
  docs.written(ops);
}

const doc = (host: string, path: string, key: string): KvOp => ({ space: 'evidence', key: evidenceKeys.pathDocument(host, path, key), value: 'h' });
const gone = (host: string, path: string, key: string): KvOp => ({ ...doc(host, path, key), value: undefined });

describe('PathDocuments', () => {
  it('answers what the database iterator answers, through random inserts and deletes', async () => {
    const kv = new MemoryKv();
    const docs = new PathDocuments(kv);
    const rand = mulberry32(7);
    const hosts = ['a.example', 'b.example', 'c.example:8080'];
    const paths = ['/', '/list', '/a/b', '/a/b;x'];
    const live: KvOp[] = [];
    for (let round = 0; round < 300; round++) {
      const ops: KvOp[] = [];
      for (let i = 0; i < 1 + Math.floor(rand() * 4); i++) {
        if (live.length > 0 && rand() < 0.25) {
          const [old] = live.splice(Math.floor(rand() * live.length), 1);
          ops.push({ ...old!, value: undefined });
        } else {
          const host = hosts[Math.floor(rand() * hosts.length)]!;
          const path = paths[Math.floor(rand() * paths.length)]!;
          const op = doc(host, path, `${host})http://${path}?id=${Math.floor(rand() * 60)}`);
          ops.push(op);
          live.push(op);
        }
      }
      // other evidence in the same batch changes nothing here
      ops.push({ space: 'evidence', key: evidenceKeys.notFound(hosts[0]!, '/'), value: '' });
      await commit(kv, docs, ops);
      const host = hosts[round % hosts.length]!;
      for (const path of paths) {
        for (const limit of [1, 5, 32]) expect(await docs.documents(host, path, limit)).toEqual(await fromDatabase(kv, host, path, limit));
      }
    }
  });

  it('does not keep a read that a write to the host overtook', async () => {
    const kv = new MemoryKv();
    const docs = new PathDocuments(kv);
    await commit(kv, docs, [doc('h.example', '/p', 'k1')]);
    // the write lands in the database while the host is being read, and in the table afterwards
    const reading = docs.documents('h.example', '/p', 32);
    const late = [doc('h.example', '/p', 'k0')];
    await kv.write(late);
    await reading;
    docs.written(late);
    expect(await docs.documents('h.example', '/p', 32)).toEqual(['k0', 'k1']);
    // and with the table told before the read ends
    const other = new PathDocuments(kv);
    const reading2 = other.documents('h.example', '/p', 32);
    const later = [doc('h.example', '/p', 'k2')];
    await kv.write(later);
    other.written(later);
    await reading2;
    expect(await other.documents('h.example', '/p', 32)).toEqual(['k0', 'k1', 'k2']);
    await commit(kv, docs, [gone('h.example', '/p', 'k1')]);
    expect(await docs.documents('h.example', '/p', 32)).toEqual(['k0']);
  });

  it('pairs: the kept documents whose image is a kept document too; none on a host too large to keep', async () => {
    const kv = new MemoryKv();
    const docs = new PathDocuments(kv);
    const key = (p: string): string => `example,a)http://${p}`;
    await commit(kv, docs, [doc('a.example', '/x.html', key('/x.html')), doc('a.example', '/x', key('/x')), doc('a.example', '/y.html', key('/y.html')), doc('a.example', '/z', key('/z'))]);
    const image = (k: string): string | undefined => (k.endsWith('.html') ? k.slice(0, -5) : undefined);
    expect(await docs.pairs('a.example', (p) => p.endsWith('.html'), image, 8)).toEqual([[key('/x.html'), key('/x')]]);
    expect(await docs.pairs('a.example', () => false, image, 8)).toEqual([]);
  });

  it('reads a large host path by path, and forgets everything on clear', async () => {
    const kv = new MemoryKv();
    const docs = new PathDocuments(kv);
    const many: KvOp[] = [];
    for (let i = 0; i < 20_001; i++) many.push(doc('big.example', `/d${i % 50}`, `k${String(i).padStart(6, '0')}`));
    await kv.write(many);
    expect(await docs.documents('big.example', '/d7', 3)).toEqual(await fromDatabase(kv, 'big.example', '/d7', 3));
    await commit(kv, docs, [doc('big.example', '/d7', 'k')]);
    expect(await docs.documents('big.example', '/d7', 32)).toEqual(await fromDatabase(kv, 'big.example', '/d7', 32));
    // the other names of a path's stem, read from the database too (`/d7.html` beside `/d7`)
    await commit(kv, docs, [doc('big.example', '/solo', 's'), doc('big.example', '/solo.html', 'h'), doc('big.example', '/solox', 'x')]);
    expect(await docs.variants('big.example', '/solo', 8)).toEqual([['/solo.html', 'h']]);
    // a table cleared (a rebuild) reads the database again
    await commit(kv, docs, [doc('small.example', '/', 'a')]);
    expect(await docs.documents('small.example', '/', 32)).toEqual(['a']);
    await kv.write([doc('small.example', '/', 'b')]);
    docs.clear();
    expect(await docs.documents('small.example', '/', 32)).toEqual(['a', 'b']);
  });
});
