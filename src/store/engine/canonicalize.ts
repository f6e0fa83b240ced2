/**
 * The canonical key of a URL, RFC 3986 §6.2.4 at the frontier gate:
 *
 *     url ─ normalize (§6.2.2, §6.2.3) ─ redact password ─► identity key
 *         ─ presets (named, reversible) ─ active host rules ─► transformed key ─ alias table ─► canonical key
 *
 * `identity` and `transform` are pure given the state (the aliases are read by the callers, which
 * batch those reads).
 */
import { applyPolicy, defaultLimits, keyFromRecord, normalizeRecord, UrlError, type PresetName, type UriRecord } from '../../normalize/index.js';
import { identifyInto, UrlIdentity } from '../../normalize/identify.js';
import { applyRules, hostOf } from '../rules.js';
import { redactPassword } from '../userinfo.js';
import { redirectLeavesRewrite } from '../learning/failure-agreement.js';
import { getAlias, getUrl, type Txn } from './batch.js';
import type { AliasEntry } from '../keys.js';
import type { EngineParts } from './parts.js';
import { answeredDocument, recordOfKey } from './url-state.js';

export interface Identity {
  readonly rec: UriRecord;
  readonly key: string;
}

export interface Transformed {
  readonly rec: UriRecord;
  readonly key: string;
  /** `preset:<name>` or `rule:<id>`: the first step that changed the key. */
  readonly via: string | undefined;
  /**
   * When presets changed the URL and rules then moved it further: the presets' output, a URL of
   * its own that the rules rewrote (a link is recorded onto it, and it onto the rules' end, so
   * that the rules' checks and give-backs reach it as they reach a link named so).
   */
  readonly preset?: { readonly key: string; readonly rec: UriRecord };
}

export function isUrlError(e: unknown): e is UrlError {
  return e instanceof UrlError;
}

/** The URL at hand, identified (identity is synchronous: one scratch serves every call). */
const scratch = new UrlIdentity();

/**
 * normalize (RFC rungs) → redact the password → key. Throws `UrlError`. At the default options the
 * URL is identified once (`identifyInto`: the single pass's scan, or the ladder where it
 * declines) and its record cut from that, not parsed again; only userinfo takes the ladder anew,
 * for its password.
 */
export function identity(s: Pick<EngineParts, 'normalizeOptions' | 'salt'>, url: string): Identity {
  if (s.normalizeOptions === undefined && url.length <= defaultLimits.maxLength) {
    identifyInto(url, scratch);
    if (scratch.record === undefined || scratch.record.userinfo === undefined) return { rec: scratch.normalRecord(), key: scratch.key };
  }
  const rec = redactPassword(normalizeRecord(url, s.normalizeOptions), s.salt);
  return { rec, key: keyFromRecord(rec) };
}

/** The store's scope (admission-scope.ts): depth, scheme, `always`, hosts, patterns, path limits, filter. */
export function inScope(s: Pick<EngineParts, 'o'>, rec: UriRecord, depth: number): boolean {
  return s.o.scope.admits(rec, depth);
}

/**
 * True when preset `name` is off for `rec` (preset-suspensions.ts), judged where the preset sends
 * it: the server's redirect to the preset's input form has its evidence at the preset's output. A
 * segment the preset removes may lead the path (`/(S(id))/a/b.html`, an ASP.NET cookieless
 * session), and the directory it opens is the session's, not the page's.
 */
export function presetOff(s: Pick<EngineParts, 'rules'>, rec: UriRecord, name: PresetName): boolean {
  const off = s.rules.suspendedPresets;
  const host = hostOf(rec);
  if (!off.anywhere(host, name)) return false;
  return off.isOff(host, name, applyPolicy(rec, [name]).record.path || '/');
}

/**
 * Presets, then active host rules. `exclude` (a reason) is left out, for a give-back. `steps`, when
 * given, gets the key after each rule applied but the last (the URLs a chain of rules passes
 * through on its way); `chain`, the reason of each rule applied, in order.
 */
export function transform(s: Pick<EngineParts, 'o' | 'rules'>, rec: UriRecord, k0: string, exclude?: string, steps?: string[], chain?: string[]): Transformed {
  const presetNames = s.o.presets;
  let cur = rec;
  let via: string | undefined;
  let preset: UriRecord | undefined;
  if (presetNames.length > 0) {
    let presets = exclude?.startsWith('preset:') ? presetNames.filter((p) => `preset:${p}` !== exclude) : presetNames;
    if (s.rules.suspendedPresets.size > 0) presets = presets.filter((p) => !presetOff(s, rec, p));
    if (presets.length > 0) {
      const r = applyPolicy(cur, presets);
      if (r.applied.length > 0) {
        cur = preset = r.record;
        via = `preset:${r.applied[0]}`;
      }
    }
  }
  if (s.rules.anyActive) {
    const passed: UriRecord[] | undefined = steps === undefined ? undefined : [];
    const trace =
      passed === undefined && chain === undefined
        ? undefined
        : (id: string, after: UriRecord): void => {
            passed?.push(after);
            chain?.push(`rule:${id}`);
          };
    const r = applyRules(cur, s.rules.activeOf, exclude?.startsWith('rule:') ? exclude.slice(5) : undefined, trace);
    if (r.first !== undefined) {
      cur = r.record;
      via ??= `rule:${r.first}`;
      if (preset !== undefined) {
        const pk = keyFromRecord(preset);
        const key = keyFromRecord(cur);
        if (pk !== k0 && key !== k0 && key !== pk) {
          // the presets' output is the first URL on the chain's way
          if (passed !== undefined) {
            steps!.push(pk);
            for (let i = 0; i < passed.length - 1; i++) steps!.push(keyFromRecord(passed[i]!));
          }
          return { rec: cur, key, via, preset: { key: pk, rec: preset } };
        }
      }
    }
    // the last step is the result, keyed below
    if (passed !== undefined) for (let i = 0; i < passed.length - 1; i++) steps!.push(keyFromRecord(passed[i]!));
  }
  if (cur === rec) return { rec, key: k0, via: undefined };
  const key = keyFromRecord(cur);
  return key === k0 ? { rec, key: k0, via: undefined } : { rec: cur, key, via };
}

/** The canonical key of one URL inside a batch, and the step that first moved it (`alias` for the alias table). */
export interface Canonical {
  readonly key: string;
  readonly via: string | undefined;
  /** The key and record after presets and rules, before the alias table. */
  readonly t: Transformed;
  /**
   * The rules' rewrite redirected elsewhere (`redirectLeavesRewrite`): it answered no document,
   * and the URL is not pruned onto the redirect's end.
   */
  readonly left?: true;
}

/**
 * True when `t` is a rules' rewrite that redirected to `to`, elsewhere (`redirectLeavesRewrite`):
 * it answered no document of its own, and the URL it came from is not sent on to `to`.
 */
export function leavesRewrite(s: Pick<EngineParts, 'o'>, t: Transformed, to: string): boolean {
  return t.via?.startsWith('rule:') === true && redirectLeavesRewrite(t.rec, recordOfKey(to), s.o.defaultDocuments);
}

/**
 * Presets, rules, then the alias table (through the batch overlay). An alias back onto the
 * identity key cancels the transform: the URL is its own canonical form.
 */
export async function canonicalize(s: Pick<EngineParts, 'kv' | 'o' | 'rules' | 'seen'>, txn: Txn, rec: UriRecord, k0: string, exclude?: string): Promise<Canonical> {
  const steps: string[] = [];
  let t = transform(s, rec, k0, exclude, steps);
  // the alias of the chain's stop, where one stopped it (read once: it is the alias of `t.key`)
  let stopAlias: AliasEntry | undefined;
  // a chain of rules stops at a URL on its way the host answered with a document (admit.ts
  // `stopChains`, lookup.ts), the presets' output among them
  if (steps.length > 0 && t.via !== undefined) {
    for (const k of steps) {
      const e = await getUrl(s.kv, txn, k);
      // (or redirected as an alias: the host named the document there, lookup.ts)
      stopAlias = e?.s === 'redirected' ? await getAlias(s, txn, k) : undefined;
      if (answeredDocument(e) || stopAlias !== undefined) {
        t = { rec: recordOfKey(k), key: k, via: t.via, ...(t.preset !== undefined && t.preset.key !== k ? { preset: t.preset } : {}) };
        break;
      }
    }
  }
  let key = t.key;
  let via = t.via;
  const alias = stopAlias ?? (await getAlias(s, txn, key));
  if (alias !== undefined && alias.to !== k0) {
    if (leavesRewrite(s, t, alias.to)) return { key, via, t, left: true };
    key = alias.to;
    via ??= 'alias';
  } else if (alias !== undefined) {
    key = k0;
    via = undefined;
  }
  return { key, via, t };
}
