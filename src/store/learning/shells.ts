/**
 * Shells (docs/rules.md, "Only documents are evidence"): one body served under URLs that differ by
 * more than a rule's component, an application shell or a soft 404, shows nothing about the rule.
 * A body under two names the rule language cannot say (a negotiated `P` and `P.en`, `.htm` beside
 * `.html`, a case variant) is a twin, not a shell.
 */
import { evidenceKeys, prefixRange, SEP } from '../keys.js';
import type { Kv } from '../backends/kv.js';
import { recordOfKey } from '../engine/url-state.js';
import type { RuleSpec } from '../rules.js';
import { imageKey } from './content-pairs.js';
import { bareParameterPath } from './parameter-difference.js';
import { foldCase, stemOf } from './path-variants.js';

/** Other documents with one hash read for the shell test. */
const SHELL_SAMPLE = 16;
/** Other paths one body must be served under, unexplained by the rule and not twins, to be a shell. */
const SHELL_OTHER_PATHS = 2;

async function* withFirst<T>(first: T, rest: AsyncIterable<T>): AsyncIterable<T> {
  yield first;
  yield* rest;
}

/**
 * True when `hash` is served on `host` under a URL that `spec` does not map onto `base` and that is
 * no twin of `variant` or `base`. `fetching` is the URL being recorded, not in the database yet.
 */
export async function servedAsShell(kv: Pick<Kv, 'entries'>, host: string, hash: string, spec: RuleSpec, variant: string, base: string, fetching?: string): Promise<boolean> {
  let n = 0;
  const others = new Set<string>();
  const stemKey = (k: string): string => foldCase(stemOf(bareParameterPath(recordOfKey(k).path)));
  const stems = new Set([stemKey(variant), stemKey(base)]);
  const keys = kv.entries('evidence', { ...prefixRange(evidenceKeys.documentPrefix(host, hash)), limit: SHELL_SAMPLE });
  const all = fetching === undefined ? keys : withFirst<[string, string]>([evidenceKeys.document(host, hash, fetching), ''], keys);
  for await (const [k] of all) {
    const w = k.slice(k.lastIndexOf(SEP) + 1);
    if (w !== variant && w !== base && imageKey(spec, recordOfKey(w)) !== base && !stems.has(stemKey(w))) {
      others.add(bareParameterPath(recordOfKey(w).path));
      if (others.size >= SHELL_OTHER_PATHS) return true;
    }
    if (++n >= SHELL_SAMPLE) break;
  }
  return false;
}
