/**
 * The report's label for a duplicate link: the lowest step of the ladder at which the link, as
 * written on its page, equals the stored normal form (the buckets are listed in report.ts).
 *
 * A link is labelled only when the store found it seen, and its steps are climbed only as far as
 * needed: RFC 3986 §5.2 resolution against the page's base (parsed once per page, not once per
 * link), then the fragment (§3.5), then the syntax rung (§6.2.2), then the scheme rung (§6.2.3).
 */
import { defaultResolveOptions, normalize, parseUriReference, recompose, resolveRecord, type NormalizeOptions, type UriRecord } from '../../normalize/index.js';

/** RFC 3986 §3.1: a reference that starts with a scheme is absolute as written. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** The limits `resolve(ref, base, { mode: 'rfc3986' })` parses with (its defaults). */
const PARSE_OPTIONS = { maxLength: defaultResolveOptions.maxLength, strict: false } as const;
const SYNTAX: NormalizeOptions = { level: 'syntax' };
const SCHEME: NormalizeOptions = { level: 'scheme' };

/**
 * A reference RFC 3986 §5.2 and the URL Standard resolve alike: unreserved characters and `/` only,
 * no dot-segment (§5.2.4 and the URL path state remove them alike, but only this is checked
 * here), not a network-path reference. Its browser resolution is then its RFC 3986 resolution.
 */
const PLAIN_REFERENCE = /^(?!\/\/)[A-Za-z0-9._~/-]+$/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;
/** A base both resolutions read alike: http(s), a lower-case ASCII host, a plain path and query. */
const PLAIN_BASE = /^https?:\/\/[a-z0-9.-]+(:[0-9]+)?(\/[A-Za-z0-9._~/-]*)?(\?[A-Za-z0-9._~&=+-]*)?$/;

function stripFragment(url: string): string {
  const i = url.indexOf('#');
  return i === -1 ? url : url.slice(0, i);
}

/** Labels the duplicate links of one page (one base URL). */
export class RungLabeler {
  /** The base's RFC 3986 record: undefined until a relative link needs it, null when it does not parse. */
  private baseRecord: UriRecord | null | undefined;

  private readonly plainBase: boolean;

  constructor(readonly base: string) {
    this.plainBase = PLAIN_BASE.test(base) && !DOT_SEGMENT.test(base);
  }

  /** §5.2 resolution of the base, once: §5.1, a base URI must have a scheme. */
  private parsedBase(): UriRecord | null {
    if (this.baseRecord !== undefined) return this.baseRecord;
    try {
      const b = parseUriReference(this.base, PARSE_OPTIONS);
      this.baseRecord = b.scheme === undefined ? null : b;
    } catch {
      this.baseRecord = null;
    }
    return this.baseRecord;
  }

  /** The link as written, made absolute by RFC 3986 §5.2 (not by a browser's rules). */
  private written(raw: string, resolved: string): string {
    const trimmed = raw.trim();
    if (HAS_SCHEME.test(trimmed)) return trimmed;
    const base = this.parsedBase();
    if (base === null) return resolved;
    try {
      // §5.2.2 transform references (strict), as resolve(trimmed, base, { mode: 'rfc3986' })
      return recompose(resolveRecord(parseUriReference(trimmed, PARSE_OPTIONS), base, true));
    } catch {
      return resolved;
    }
  }

  /** Which step of the ladder makes `raw` (resolved by a browser to `resolved`) equal `stored`. */
  label(raw: string, resolved: string, stored: string): string {
    // the common duplicate, a plain link written as stored: no parse needed to say so
    if (resolved === stored && this.plainBase && PLAIN_REFERENCE.test(raw) && !DOT_SEGMENT.test(raw)) return 'exact';
    const written = this.written(raw, resolved);
    if (written === stored) return 'exact';
    const bare = stripFragment(written);
    if (bare === stored) return 'fragment';
    try {
      if (normalize(bare, SYNTAX) === stored) return 'syntax';
      if (normalize(bare, SCHEME) === stored) return 'scheme';
    } catch {
      // not an RFC 3986 URI as written: only the browser's resolution made it one
    }
    return 'resolution';
  }
}

/** Which step of the ladder makes `link` (as written on a page with base `base`) equal `stored`. */
export function rungOf(raw: string, resolved: string, base: string, stored: string): string {
  return new RungLabeler(base).label(raw, resolved, stored);
}
