/**
 * The ladder's errors for http(s) authorities it rejected, remembered by the text of the URL up to
 * the end of its authority, so that the next URL with that same text fails at once, with the same
 * error, instead of climbing the ladder again. A crawl meets a bad link many times over: one
 * template on every page of a site (`https://[::1/…`, `http://www.example.com:80:80/…`).
 *
 * This never changes an answer. Under the single pass's options (scheme rung, no presets, fragment
 * dropped, not strict), what the ladder rejects in an http(s) URL is decided by its scheme and
 * authority alone:
 *   - the lenient syntax rung encodes what a path, query or fragment may not hold raw and keeps a
 *     stray "%" (percent-encoding.ts): it throws for no path, query or fragment;
 *   - the parse (§3.2, Appendix B), the host's percent-encoding and the scheme rung's host parser
 *     (UTS #46, IPv4, IPv6) and port check read only the authority, which for a special scheme
 *     ends at the first "/", "\\", "?" or "#" (URL Standard, authority state);
 *   - the limits that read the whole input (`maxLength`) are checked before this cache is asked.
 * The text remembered must itself fix what the ladder reads: it starts with "http://" or
 * "https://" (any case) and a non-empty authority (not a run of slashes, which the URL Standard
 * skips), holds no control character (a browser removes tabs and newlines wherever they stand),
 * and neither starts nor ends with a space: a browser trims spaces at the input's ends, so a text
 * ending with one could be read two ways (`https://a.b:80 ` alone is `https://a.b:80`). A space
 * inside (`https://www example.org/`) is read one way, wherever the input goes on: it is not at
 * either end. The error is rebuilt for the new input: same code, same detail.
 */
import { UrlError } from '../errors.js';
import { rememberFailedAuthority, type AuthorityFailure } from './single-pass.js';

/**
 * "http://" or "https://" (any case), a non-empty authority of printable characters that neither
 * starts nor ends with a space, its end.
 */
const HTTP_AUTHORITY = /[hH][tT][tT][pP][sS]?:\/\/[^\x00-\x20/\\?#\x7f](?:[^\x00-\x1f/\\?#\x7f]*[^\x00-\x20/\\?#\x7f])?(?=[/\\?#]|$)/y;

/** Entries kept before the table is emptied, so hostile input cannot grow it. */
const FAILURES_MAX = 1024;
const failures = new Map<string, AuthorityFailure>();

/** The URL's text up to the end of its authority, when that text alone decides the ladder's errors. */
function authorityText(url: string): string | undefined {
  HTTP_AUTHORITY.lastIndex = 0;
  return HTTP_AUTHORITY.test(url) ? url.slice(0, HTTP_AUTHORITY.lastIndex) : undefined;
}

/**
 * The error the ladder gave for `url`'s authority before, rebuilt for `url`; `undefined` when none
 * is known. `scanned`: what the single pass's scan of `url` found in its own table, if it was
 * scanned (see `rememberAuthorityFailure`; its `SinglePassResult.failure`).
 */
export function knownAuthorityFailure(url: string, scanned?: AuthorityFailure): UrlError | undefined {
  if (failures.size === 0) return undefined;
  let failure = scanned;
  if (failure === undefined) {
    const text = authorityText(url);
    failure = text === undefined ? undefined : failures.get(text);
  }
  return failure === undefined ? undefined : new UrlError(failure.code, url, failure.detail === undefined ? undefined : { detail: failure.detail });
}

/** Remember the ladder's `error` for `url` (the caller checked the options, see above). */
export function rememberAuthorityFailure(url: string, error: UrlError): void {
  if (error.code === 'ERR_TOO_LONG' || error.input !== url) return;
  const text = authorityText(url);
  if (text === undefined) return;
  if (failures.size === FAILURES_MAX) failures.clear();
  const failure: AuthorityFailure = { code: error.code, detail: error.detail };
  failures.set(text, failure);
  // and in the single pass's table of authorities, where its scan looks this text up anyway
  rememberFailedAuthority(text, failure);
}
