/**
 * Case probes: does a host redirect a capitalized name it has never heard of to its lower-case
 * form?
 *
 * A redirect of `/FAQ.html` to `/faq.html` is the case rule's evidence for such names only where
 * no capitalized twin can answer (rule-scope.ts `scopeEvidence`). Apache mod_speling
 * (`CheckSpelling On`, `CheckCaseOnly`) redirects the names a directory lacks and answers those it
 * holds, so its redirects never show that a `FAQ.html` beside `faq.html` is not a document of its
 * own. An "enforce lowercase" rewrite redirects every capitalized name before a file is looked up
 * (IIS URL Rewrite's rule template: `<match url="[A-Z]" ignoreCase="false" />` with a permanent
 * `{ToLower:{R:0}}` redirect; Apache `RewriteMap lc int:tolower` under `RewriteCond %{REQUEST_URI}
 * [A-Z]`), so none answers as itself.
 *
 * A name no server has, in capitalized words (`/ref/Urldedup-Not-Found-…`), tells the two apart:
 * mod_speling finds no near miss and answers 404; the rewrite answers a permanent redirect to the
 * name lower-cased. The probe is asked at the place of a redirect the case rule explains from a
 * capitalized name (its first directory, `caseProbePlace`; once per place, at most
 * `CASE_PROBES_PER_HOST` per host), and a folded answer holds for that place alone: there, a
 * redirect of a capitalized name counts as the case rule's evidence.
 *
 * A rewrite guarded by "not an existing file" (`RewriteCond %{REQUEST_FILENAME} !-f`) folds the
 * probe and may still serve a twin. The case rule's sampled checks fetch some of the URLs it
 * rewrote, and one twin answered otherwise withdraws it from the whole host (rules.ts `rederive`).
 */
import { keyFromRecord, type UriRecord } from '../../normalize/index.js';
import { readRange, type Kv } from '../backends/kv.js';
import { evidenceKeys, startsWithRange } from '../keys.js';
import { getEvidence, putEvidence, type Txn } from '../engine/batch.js';
import { CASE_PROBE_SEGMENT, caseProbePlace, foldCase } from './path-variants.js';
import { probeCheck } from './not-found.js';
import type { CheckRequest, LearnedUrl } from './contract.js';

/** Places probed per host at most. */
const CASE_PROBES_PER_HOST = 8;

/** The key of the URL of `rec`'s host at `path`, query and fragment dropped. */
function keyAt(rec: UriRecord, path: string): string {
  return keyFromRecord({ ...rec, path, query: undefined, fragment: undefined });
}

export class CaseProbes {
  constructor(private readonly kv: Pick<Kv, 'get' | 'entries' | 'range'>) {}

  /**
   * Ask once for the probe of the place of `u`, the source of a redirect the case rule explains
   * (a capitalized name redirected to its lower-case form).
   */
  async ask(txn: Txn, u: LearnedUrl, checks: CheckRequest[]): Promise<void> {
    const place = caseProbePlace(u.rec.path);
    const placeKey = keyAt(u.rec, place);
    const k = evidenceKeys.caseProbe(placeKey);
    if ((await getEvidence(this.kv, txn, k)) !== undefined) return;
    const asked = await readRange(this.kv, 'evidence', { ...startsWithRange(evidenceKeys.caseProbe(keyAt(u.rec, '/'))), limit: CASE_PROBES_PER_HOST });
    if (asked.length >= CASE_PROBES_PER_HOST) return;
    putEvidence(txn, k, '');
    checks.push(probeCheck(u.rec, place + CASE_PROBE_SEGMENT, `case\u0000${placeKey}`));
  }

  /**
   * The answer to `probe`: a redirect to `to` (`merge`: one that names the same resource, a
   * permanent one), or a fetch (`to` undefined). True when the host redirected the probe to its
   * name lower-cased, and nothing else changed.
   */
  answered(txn: Txn, probe: LearnedUrl, to: LearnedUrl | undefined, merge: boolean): boolean {
    const folded = merge && to !== undefined && to.key === keyFromRecord({ ...probe.rec, path: foldCase(probe.rec.path) });
    putEvidence(txn, evidenceKeys.caseProbe(keyAt(probe.rec, caseProbePlace(probe.rec.path))), folded ? 'folded' : 'kept');
    return folded;
  }
}
