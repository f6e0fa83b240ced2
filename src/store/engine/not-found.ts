/**
 * Not-found signatures (Bar-Yossef, Broder, Kumar, Tomkins, "Sic transit gloria telae: towards an
 * understanding of the web's decay", WWW 2004): many servers answer a URL that does not exist with
 * one page, often with status 200 (a soft 404). Such a page is no document: two URLs that both
 * got it are not shown equal, and a rewrite that gets it failed. A host's signature is learned by
 * fetching a URL that cannot exist, at its root and in each directory where evidence for a
 * parameter rule lies (once each) (servers often answer differently under an application's prefix, and
 * unknown ids are where soft 404s are), at most `PROBES_PER_HOST` per host, through the
 * crawler's own fetch path, so robots.txt and politeness apply.
 */
import { createHash } from 'node:crypto';
import { keyFromRecord } from '../../normalize/index.js';
import { decodeJson, encodeJson, evidenceKeys, prefixRange } from '../keys.js';
import type { Kv } from '../kv.js';
import { dirOf } from '../rule-scope.js';
import { hostOf, isDocumentStatus } from '../rules.js';
import { getEvidence, putEvidence, type Txn } from './batch.js';
import type { CheckRequest, LearnedUrl } from './learner.js';

/** Directories probed per host at most (the root included). */
const PROBES_PER_HOST = 5;

interface Signature {
  readonly st: number;
  readonly c?: string;
}

/** A probe's name: no server has it. */
export const PROBE_SEGMENT = 'urldedup-not-found-';

export class NotFoundSignatures {
  constructor(private readonly kv: Pick<Kv, 'get' | 'entries'>) {}

  /** Ask once for a probe in `dir` of `u`'s host (at most `PROBES_PER_HOST` per host). */
  async ask(txn: Txn, u: LearnedUrl, dir: string, checks: CheckRequest[]): Promise<void> {
    const host = hostOf(u.rec);
    const k = evidenceKeys.notFound(host, dir);
    if ((await getEvidence(this.kv, txn, k)) !== undefined) return;
    let n = 0;
    for await (const _ of this.kv.entries('evidence', { ...prefixRange(evidenceKeys.notFoundPrefix(host)), limit: PROBES_PER_HOST })) n++;
    if (n >= PROBES_PER_HOST) return;
    putEvidence(txn, k, '');
    // a name no server has, the same for one host and directory in every store (reproducible runs)
    const name = createHash('sha256').update(`${host}\u0000${dir}`).digest('hex').slice(0, 16);
    const rec = { ...u.rec, path: dir + PROBE_SEGMENT + name, query: undefined, fragment: undefined };
    checks.push({ kind: 'probe', key: keyFromRecord(rec), rec });
  }

  /** A probe's answer. Returns the soft-404 signature it found (a 2xx body), if any. */
  async record(txn: Txn, u: LearnedUrl, status: number, hash: string | undefined): Promise<{ dir: string; hash: string } | undefined> {
    const dir = dirOf(u.rec.path);
    const sig: Signature = hash === undefined ? { st: status } : { st: status, c: hash };
    putEvidence(txn, evidenceKeys.notFound(hostOf(u.rec), dir), encodeJson(sig));
    return isDocumentStatus(status) && hash !== undefined ? { dir, hash } : undefined;
  }

  /** True when `hash` is the body a probe got in a directory that holds `path`. */
  async matches(_txn: Txn, host: string, path: string, hash: string): Promise<boolean> {
    const prefix = evidenceKeys.notFoundPrefix(host);
    for await (const [k, v] of this.kv.entries('evidence', { ...prefixRange(prefix), limit: PROBES_PER_HOST })) {
      if (v === '') continue;
      const dir = k.slice(prefix.length);
      if (path.startsWith(dir) && decodeJson<Signature>(v).c === hash) return true;
    }
    return false;
  }
}
