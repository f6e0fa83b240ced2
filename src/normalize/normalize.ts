/**
 * RFC 3986 §6.2: the comparison ladder. Each rung is a pure record → record function:
 *   parse (§3) → syntax (§6.2.2) → scheme (§6.2.3) → policy (opt-in presets beyond the RFC).
 * Protocol-based normalization (§6.2.4) needs evidence and lives in the store.
 * `normalize(normalize(x)) === normalize(x)` for every rung and option.
 */
import { knownAuthorityFailure, rememberAuthorityFailure } from './single-pass/authority-failures.js';
import { UrlError } from './errors.js';
import { applyPolicy, isPresetName, type PresetName } from './ladder/policy.js';
import { schemeNormalize } from './ladder/scheme.js';
import { syntaxNormalize } from './ladder/syntax.js';
import { defaultLimits, type Limits } from './limits.js';
import { checkOptionNames, urlArgument, type OptionNames } from './misuse.js';
import { parseUriReference } from './parse.js';
import { countSegments } from './remove-dot-segments.js';
import { normalOf, singlePassScan, SinglePassResult, type AuthorityFailure } from './single-pass/single-pass.js';
import { recompose, type UriRecord } from './uri-record.js';

/** How far up the ladder to go. */
export type NormalizationLevel = 'syntax' | 'scheme' | 'policy';

export interface NormalizeOptions extends Limits {
  /**
   * The highest rung: `syntax` (§6.2.2 only), `scheme` (§6.2.2 and §6.2.3), or `policy` (also the
   * named presets). `policy` is implied when `presets` is not empty.
   * @default 'scheme'
   * @example level 'syntax': 'HTTP://A:80/%7e' → 'http://a:80/~'; level 'scheme': → 'http://a/~'
   */
  readonly level?: NormalizationLevel;
  /**
   * Opt-in presets for what RFC 3986 does not license (see docs/presets.md). Off by default.
   * @default []
   * @example ['tracking']: 'http://a/?utm_source=x&id=1' → 'http://a/?id=1'
   */
  readonly presets?: readonly PresetName[];
  /**
   * Keep the fragment. By default the scheme rung drops it: it is never sent to a server (§3.5).
   * @default false
   */
  readonly keepFragment?: boolean;
  /**
   * Reject anything that is not an RFC 3986 URI with a coded error, instead of reading it as a
   * browser does (raw spaces, non-ASCII, `\`, surrounding whitespace).
   * @default false
   */
  readonly strict?: boolean;
}

export const defaultNormalizeOptions: Required<NormalizeOptions> = {
  level: 'scheme',
  presets: [],
  keepFragment: false,
  strict: false,
  maxLength: defaultLimits.maxLength,
  maxSegments: defaultLimits.maxSegments,
};

/** The names `NormalizeOptions` knows (an unknown one is misuse). */
const normalizeOptionNames = {
  level: true,
  presets: true,
  keepFragment: true,
  strict: true,
  maxLength: true,
  maxSegments: true,
} as const satisfies OptionNames<NormalizeOptions>;

const LEVELS: Readonly<Record<NormalizationLevel, number>> = { syntax: 1, scheme: 2, policy: 3 };

interface ResolvedOptions {
  readonly rung: number;
  readonly presets: readonly PresetName[];
  readonly keepFragment: boolean;
  readonly strict: boolean;
  readonly maxLength: number;
  readonly maxSegments: number;
  /** Options under which the fast path gives the answer. */
  readonly fast: boolean;
}

const DEFAULT_RESOLVED: ResolvedOptions = {
  rung: 2,
  presets: [],
  keepFragment: false,
  strict: false,
  maxLength: defaultLimits.maxLength,
  maxSegments: 0,
  fast: true,
};

/**
 * Validate options once; unknown names and conflicts are rejected up front with a `TypeError`
 * (programmer misuse) whose message starts with `fn`, the entry point the caller called.
 */
export function resolveNormalizeOptions(options: NormalizeOptions | undefined, fn = 'normalize'): ResolvedOptions {
  if (options === undefined) return DEFAULT_RESOLVED;
  checkOptionNames(fn, options, normalizeOptionNames);
  const presets = options.presets ?? [];
  for (const p of presets) if (!isPresetName(p)) throw new TypeError(`${fn}: unknown preset ${JSON.stringify(p)}`);
  const level = options.level ?? (presets.length > 0 ? 'policy' : 'scheme');
  const rung = LEVELS[level];
  if (rung === undefined) throw new TypeError(`${fn}: unknown level ${JSON.stringify(level)}`);
  if (presets.length > 0 && rung < 3) throw new TypeError(`${fn}: presets need level 'policy', not '${level}'`);
  const maxLength = options.maxLength ?? defaultLimits.maxLength;
  const maxSegments = options.maxSegments ?? defaultLimits.maxSegments;
  const keepFragment = options.keepFragment === true;
  return {
    rung,
    presets,
    keepFragment,
    strict: options.strict === true,
    maxLength,
    maxSegments,
    fast: rung >= 2 && !keepFragment && maxSegments === 0,
  };
}

/** The single pass's record for the scans made here (read only within the call that scanned). */
const scanned = new SinglePassResult();

/**
 * The ladder on a record, from parse to the requested rung. `knownNotFast`: the caller's scan
 * declined `input`, having found `failure` for its authority (or none).
 */
function climb(input: string, o: ResolvedOptions, knownNotFast = false, failure?: AuthorityFailure): UriRecord {
  // Limits first (bounded work per input), then the fast path.
  if (input.length > o.maxLength) throw new UrlError('ERR_TOO_LONG', input, { detail: `longer than ${o.maxLength}` });
  let r: UriRecord;
  let normal: string | undefined;
  if (o.fast && !knownNotFast) {
    if (singlePassScan(input, scanned, o.strict, true)) normal = normalOf(scanned, input);
    else failure = scanned.failure;
  }
  if (normal !== undefined) {
    r = parseUriReference(normal, { maxLength: o.maxLength });
  } else if (o.fast && !o.strict && o.presets.length === 0) {
    // the single pass's options: an authority the ladder rejected before fails alike, at once
    const known = knownAuthorityFailure(input, failure);
    if (known !== undefined) throw known;
    try {
      r = climbRungs(input, o);
    } catch (e) {
      if (e instanceof UrlError) rememberAuthorityFailure(input, e);
      throw e;
    }
  } else {
    r = climbRungs(input, o);
  }
  if (o.presets.length > 0) r = applyPolicy(r, o.presets).record;
  if (o.maxSegments > 0 && countSegments(r.path) > o.maxSegments) {
    throw new UrlError('ERR_TOO_MANY_SEGMENTS', input, { detail: `more than ${o.maxSegments} path segments` });
  }
  return r;
}

/** Parse (§3), then the syntax rung (§6.2.2) and, when asked, the scheme rung (§6.2.3). */
function climbRungs(input: string, o: ResolvedOptions): UriRecord {
  const parsed = parseUriReference(input, { strict: o.strict, browser: !o.strict, maxLength: o.maxLength });
  if (parsed.scheme === undefined) {
    throw new UrlError('ERR_RELATIVE_URL', input, { detail: 'an absolute URI needs a scheme (§4.3)' });
  }
  const r = syntaxNormalize(parsed, input, o.strict);
  return o.rung >= 2 ? schemeNormalize(r, input, { keepFragment: o.keepFragment }) : r;
}

/**
 * Normalize an absolute URI (a string or a `URL`) along the ladder and return its normal form as a
 * string. Throws `UrlError` with a code for input it cannot read; never rewrites malformed input
 * into a different valid URI. Misuse (not a string or URL, unknown options) is a `TypeError`.
 */
export function normalize(url: string | URL, options?: NormalizeOptions): string {
  if (typeof url !== 'string') url = urlArgument('normalize', 'url', url);
  if (options === undefined) {
    // the default options, known without resolving them (the common call: one per extracted link)
    if (url.length > defaultLimits.maxLength) return recompose(climb(url, DEFAULT_RESOLVED));
    if (singlePassScan(url, scanned, false, true)) return normalOf(scanned, url);
    return recompose(climb(url, DEFAULT_RESOLVED, true, scanned.failure));
  }
  const o = resolveNormalizeOptions(options);
  if (!(o.fast && o.presets.length === 0 && url.length <= o.maxLength)) return recompose(climb(url, o));
  if (singlePassScan(url, scanned, o.strict, true)) return normalOf(scanned, url);
  return recompose(climb(url, o, true, scanned.failure));
}

/** Like `normalize`, returning the normal form's components. */
export function normalizeRecord(url: string | URL, options?: NormalizeOptions): UriRecord {
  if (typeof url !== 'string') url = urlArgument('normalizeRecord', 'url', url);
  return climb(url, resolveNormalizeOptions(options, 'normalizeRecord'));
}

/**
 * The ladder for callers that resolved their options once (batch and store paths).
 * `knownNotFast`: the caller already found the single pass (single-pass.ts) declines `url`; skip it.
 * `failure`: what that scan found for the URL's authority (`SinglePassResult.failure`).
 */
export function normalizeWith(url: string, o: ResolvedOptions, knownNotFast = false, failure?: AuthorityFailure): UriRecord {
  return climb(url, o, knownNotFast, failure);
}

export type { ResolvedOptions };
