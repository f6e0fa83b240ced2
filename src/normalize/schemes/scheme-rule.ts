/**
 * RFC 3986 §6.2.3: scheme-based normalization is driven by what each scheme's specification
 * licenses. A `SchemeRule` states it; `ladder/scheme.ts` applies it.
 */
import type { UriRecord } from '../uri-record.js';

export interface SchemeRule {
  /** Lowercase scheme name. */
  readonly scheme: string;
  /** The port a URI of this scheme has when it names none (§3.2.3: omit it when equal). */
  readonly defaultPort: string | undefined;
  /**
   * The host is read as a browser reads it before a DNS lookup (WHATWG host parser: percent-decoding,
   * UTS #46 to ASCII, IPv4 number forms); the same DNS name is the same authority.
   */
  readonly specialHost: boolean;
  /** The scheme requires an authority with a non-empty host (http: RFC 9110 §4.2.1). */
  readonly requiresHost: boolean;
  /** An empty path with an authority is the same as "/" (http: RFC 9110 §4.2.3, §6.2.3 here). */
  readonly emptyPathIsRoot: boolean;
  /** An empty userinfo (`http://@a/`, `http://:@a/`) sends the same request as none (WHATWG serializer). */
  readonly dropEmptyUserinfo: boolean;
  /** What else the scheme's specification licenses, after the generic steps. */
  readonly extra?: (r: UriRecord, input: string) => UriRecord;
}
