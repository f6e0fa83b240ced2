// The normalization ladder's public surface (re-exports only).
export { UrlError, isUrlError, attempt, type UrlErrorCode, type Result } from './errors.js';
export { defaultLimits, type Limits } from './limits.js';
export { recompose, type UriRecord } from './uri-record.js';
export { parseUriReference, parseUriReference as parseUri, type ParseOptions } from './parse.js';
export { removeDotSegments } from './remove-dot-segments.js';
export { resolve, resolveRecord, mergePaths, defaultResolveOptions, type ResolveMode, type ResolveOptions } from './resolve.js';
export { resolveHtml, parseWhatwg, serializeWhatwg, isSpecialScheme, defaultPort, type WhatwgUrl } from './resolve-html.js';
export { parseSpecialHost, parseOpaqueHost, parseIPv4, parseIPv6, serializeIPv4, serializeIPv6, hostKind, type HostKind } from './host.js';
export {
  normalize,
  normalizeRecord,
  defaultNormalizeOptions,
  type NormalizeOptions,
  type NormalizationLevel,
} from './normalize.js';
export { syntaxNormalize } from './ladder/syntax.js';
export { schemeNormalize } from './ladder/scheme.js';
export { applyPolicy, presets, isPresetName, type PresetName, type Preset } from './ladder/policy.js';
export { looksMinted } from './presets/session-ids.js';
export { schemeRule, knownSchemes, type SchemeRule } from './schemes/registry.js';
export { key, keyFromRecord, keyFromNormal, urlFromKey, normalizeAndKey, sortHost, KEY_FORMAT_VERSION } from './key.js';
export { fingerprint, fingerprintInto, fingerprintWords } from './fingerprint.js';
export { toSurt, hostToSurt, defaultSurtOptions, type SurtOptions } from './surt.js';
export { isNormalHttpUrl } from './single-pass/fast-path.js';
export { identify, identifyInto, UrlIdentity } from './identify.js';
