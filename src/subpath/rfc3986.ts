/**
 * `urldedup/rfc3986`: the ladder's pieces on URI records (RFC 3986 §3, §5.2, §6.2.2, §6.2.3), for
 * callers that compose their own: parse once, transform records, recompose.
 */
export { parseUriReference, type ParseOptions } from '../normalize/parse.js';
export { recompose, type UriRecord } from '../normalize/uri-record.js';
export { removeDotSegments } from '../normalize/remove-dot-segments.js';
export { mergePaths, resolveRecord } from '../normalize/resolve.js';
export { normalizeRecord } from '../normalize/normalize.js';
export { syntaxNormalize } from '../normalize/ladder/syntax.js';
export { schemeNormalize } from '../normalize/ladder/scheme.js';
export { schemeRule, knownSchemes, type SchemeRule } from '../normalize/schemes/registry.js';
export { parseSpecialHost, parseOpaqueHost, parseIPv4, parseIPv6, serializeIPv4, serializeIPv6, hostKind, type HostKind } from '../normalize/host.js';
export { defaultLimits, type Limits } from '../normalize/limits.js';
export { attempt, type Result } from '../normalize/errors.js';
