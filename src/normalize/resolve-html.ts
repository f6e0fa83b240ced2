/**
 * WHATWG URL Standard: resolve links the way browsers do (HTML "parse a URL" with UTF-8).
 * The parser lives in ./whatwg/ (one module per spec concept); this module is its public face.
 */
import { UrlError } from './errors.js';
import { defaultLimits, type Limits } from './limits.js';
import { checkOptionNames, describeValue, urlArgument, type OptionNames } from './misuse.js';
import { parseCount } from './parse-count.js';
import { basicUrlParse } from './whatwg/basic-url-parser.js';
import { parseRelativeUrl } from './whatwg/relative-url.js';
import type { WhatwgUrl } from './whatwg/url-record.js';
import { serializeWhatwg } from './whatwg/url-serializer.js';

export type { WhatwgUrl } from './whatwg/url-record.js';
export { defaultPort, isSpecialScheme } from './whatwg/url-record.js';
export { serializeWhatwg } from './whatwg/url-serializer.js';

/** Options of {@link parseWhatwg}. */
export interface WhatwgParseOptions {
  /**
   * Longest input (and string base) accepted, in UTF-16 code units, checked before parsing.
   * @default defaultLimits.maxLength (16384)
   * @example parseWhatwg(longUrl, null, { maxLength: 2_000_000 })
   */
  readonly maxLength?: Limits['maxLength'];
}

const whatwgParseOptionNames = { maxLength: true } as const satisfies OptionNames<WhatwgParseOptions>;

/** One-entry memo of the last string base: links on one page share their base. Records are never mutated. */
let lastBaseInput: string | null = null;
let lastBaseRecord: WhatwgUrl | null = null;

function parseBase(input: string, base: string, maxLength: number): WhatwgUrl {
  if (base.length > maxLength) {
    throw new UrlError('ERR_TOO_LONG', base, { detail: `base longer than ${maxLength}` });
  }
  if (base === lastBaseInput && lastBaseRecord !== null) return lastBaseRecord;
  let record: WhatwgUrl;
  try {
    parseCount.whatwg++;
    record = basicUrlParse(base, null);
  } catch (error) {
    throw new UrlError('ERR_INVALID_URL', input, { detail: 'invalid base URL', cause: error });
  }
  lastBaseInput = base;
  lastBaseRecord = record;
  return record;
}

/**
 * URL Standard "URL parser" (basic URL parser, UTF-8, no state override), as `new URL(input, base)`.
 * A string base is parsed first; a failing base fails the parse. Throws UrlError('ERR_INVALID_URL',
 * input, { detail }) on failure, or ERR_TOO_LONG when the input is longer than `maxLength`.
 * @example parseWhatwg('../x', 'http://a/b/c').path // ['x']
 */
export function parseWhatwg(
  input: string | URL,
  base?: WhatwgUrl | string | URL | null,
  options?: WhatwgParseOptions,
): WhatwgUrl {
  if (typeof input !== 'string') input = urlArgument('parseWhatwg', 'input', input);
  if (typeof base !== 'string' && base !== undefined && base !== null) {
    if (base instanceof URL) base = base.href;
    else if (typeof base !== 'object') throw new TypeError(`parseWhatwg: base must be a URL string, a URL object or a URL record, not ${describeValue(base)}`);
  }
  if (options !== undefined) checkOptionNames('parseWhatwg', options, whatwgParseOptionNames);
  const maxLength = options?.maxLength ?? defaultLimits.maxLength;
  if (input.length > maxLength) {
    throw new UrlError('ERR_TOO_LONG', input, { detail: `longer than ${maxLength}` });
  }
  const baseRecord = typeof base === 'string' ? parseBase(input, base, maxLength) : (base ?? null);
  parseCount.whatwg++;
  // most links are relative references the parser copies as they are: the same record, without
  // the whole state machine (relative-url.ts)
  return (baseRecord === null ? undefined : parseRelativeUrl(input, baseRecord)) ?? basicUrlParse(input, baseRecord);
}

/**
 * What a browser gives for <a href=ref> on a page whose base URL is `base`: the href of the
 * reference parsed against the base. Throws like {@link parseWhatwg}.
 * @example resolveHtml('  /a\tb\n ', 'http://example.com/x/y') // 'http://example.com/ab'
 */
export function resolveHtml(ref: string | URL, base: string | URL): string {
  if (typeof ref !== 'string') ref = urlArgument('resolveHtml', 'ref', ref);
  if (typeof base !== 'string') base = urlArgument('resolveHtml', 'base', base);
  return serializeWhatwg(parseWhatwg(ref, base));
}
