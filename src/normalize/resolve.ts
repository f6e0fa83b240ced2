/**
 * RFC 3986 §5.2: reference resolution, and the `resolve(ref, base, { mode })` entry point.
 *
 * - `mode: 'rfc3986'` (default) is §5.2.2 exactly, on the components as written. `strict: false`
 *   turns on the §5.2.2 backward-compatibility rule (`http:g` against an http base is relative).
 * - `mode: 'html'` is the WHATWG URL Standard's basic URL parser with the base: what a browser
 *   gives for `<a href>` on a page (see resolve-html.ts).
 */
import { UrlError } from './errors.js';
import { checkOptionNames, urlArgument, type OptionNames } from './misuse.js';
import { parseUriReference } from './parse.js';
import { removeDotSegments } from './remove-dot-segments.js';
import { resolveHtml } from './resolve-html.js';
import { recompose, type UriRecord } from './uri-record.js';

export type ResolveMode = 'rfc3986' | 'html';

export interface ResolveOptions {
  /** `rfc3986`: RFC 3986 §5.2; `html`: the WHATWG URL Standard, as a browser resolves an `href`. @default 'rfc3986' */
  readonly mode?: ResolveMode;
  /**
   * rfc3986 mode: `true` is the strict parser of §5.2.2 (a reference with a scheme is absolute, so
   * `http:g` stays `http:g`); `false` ignores a reference's scheme when it equals the base's.
   * Also makes parsing strict (RFC 3986 grammar only). @default true
   */
  readonly strict?: boolean;
  /** Longest reference or base accepted (`ERR_TOO_LONG`). @default 16384 */
  readonly maxLength?: number;
}

export const defaultResolveOptions: Required<ResolveOptions> = {
  mode: 'rfc3986',
  strict: true,
  maxLength: 16384,
};

/** The names `ResolveOptions` knows (an unknown one is misuse). */
const resolveOptionNames = { mode: true, strict: true, maxLength: true } as const satisfies OptionNames<ResolveOptions>;

/** §5.2.3: merge a relative-path reference with the base path. */
export function mergePaths(base: UriRecord, refPath: string): string {
  // If the base URI has a defined authority component and an empty path, then return "/" + R.path
  if (base.host !== undefined && base.path === '') return '/' + refPath;
  // otherwise, all but the last segment of the base URI's path, with the reference's path appended
  const slash = base.path.lastIndexOf('/');
  return slash === -1 ? refPath : base.path.slice(0, slash + 1) + refPath;
}

/**
 * A target path without an authority must not begin with "//" (§3.3), or its recomposition
 * (§5.3) would read as an authority: `.//g` against `f:/a` removes to `//g`, which would give
 * `f://g`, another URI. "/." is kept in front instead (`f:/.//g`), as RFC 3986's errata and the
 * WHATWG URL Standard do.
 */
function guarded(host: string | undefined, path: string): string {
  return host === undefined && path.charCodeAt(0) === 0x2f && path.charCodeAt(1) === 0x2f ? '/.' + path : path;
}

/** §5.2.2: transform references. `base` must have a scheme (§5.1). */
export function resolveRecord(ref: UriRecord, base: UriRecord, strict = true): UriRecord {
  let scheme = ref.scheme;
  // A non-strict parser may ignore a scheme in the reference if it is identical to the base URI's scheme.
  if (!strict && scheme !== undefined && base.scheme !== undefined && scheme.toLowerCase() === base.scheme.toLowerCase()) {
    scheme = undefined;
  }
  // if defined(R.scheme) then T.* = R.*, T.path = remove_dot_segments(R.path)
  if (scheme !== undefined) {
    return { ...ref, path: guarded(ref.host, removeDotSegments(ref.path)) };
  }
  // else if defined(R.authority) then T.authority = R.authority, T.path = remove_dot_segments(R.path)
  if (ref.host !== undefined) {
    return { ...ref, scheme: base.scheme, path: removeDotSegments(ref.path) };
  }
  let path: string;
  let query: string | undefined;
  if (ref.path === '') {
    // T.path = Base.path; T.query = defined(R.query) ? R.query : Base.query
    path = base.path;
    query = ref.query !== undefined ? ref.query : base.query;
  } else {
    // R.path starting with "/" is absolute; otherwise merge, then remove_dot_segments
    path = ref.path.charCodeAt(0) === 0x2f ? removeDotSegments(ref.path) : removeDotSegments(mergePaths(base, ref.path));
    query = ref.query;
  }
  // T.authority = Base.authority; T.scheme = Base.scheme; T.fragment = R.fragment
  return {
    scheme: base.scheme,
    userinfo: base.userinfo,
    host: base.host,
    port: base.port,
    path: guarded(base.host, path),
    query,
    fragment: ref.fragment,
  };
}

/**
 * Resolve `ref` against `base` (each a string or a `URL`) and return the target URI as a string.
 * Throws `UrlError` (`ERR_RELATIVE_URL` when the base has no scheme, or the parser's codes);
 * misuse (a missing argument, unknown options) is a `TypeError`.
 */
export function resolve(ref: string | URL, base: string | URL, options: ResolveOptions = {}): string {
  if (typeof ref !== 'string') ref = urlArgument('resolve', 'ref', ref);
  if (typeof base !== 'string') base = urlArgument('resolve', 'base', base);
  checkOptionNames('resolve', options, resolveOptionNames);
  const mode = options.mode ?? defaultResolveOptions.mode;
  const maxLength = options.maxLength ?? defaultResolveOptions.maxLength;
  if (mode === 'html') {
    if (ref.length > maxLength) throw new UrlError('ERR_TOO_LONG', ref);
    if (base.length > maxLength) throw new UrlError('ERR_TOO_LONG', base);
    return resolveHtml(ref, base);
  }
  if (mode !== 'rfc3986') throw new TypeError(`resolve: unknown mode ${String(mode)}`);
  const strict = options.strict ?? defaultResolveOptions.strict;
  const baseRecord = parseUriReference(base, { maxLength, strict: false });
  if (baseRecord.scheme === undefined) throw new UrlError('ERR_RELATIVE_URL', base, { detail: 'base URI has no scheme (§5.1)' });
  // §5.1: the fragment of the base is not used.
  const refRecord = parseUriReference(ref, { maxLength, strict: false });
  return recompose(resolveRecord(refRecord, baseRecord, strict));
}
