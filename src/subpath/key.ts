/**
 * `urldedup/key`: the canonical key's format (docs/key-format.md), fingerprints for hot loops,
 * `identify` into a reused record, and the Internet Archive's SURT form.
 */
export { keyFromRecord, keyFromNormal, urlFromKey, normalizeAndKey, sortHost, KEY_FORMAT_VERSION } from '../normalize/key.js';
export { identifyInto, UrlIdentity } from '../normalize/identify.js';
export { fingerprintWords, fingerprintInto } from '../normalize/fingerprint.js';
export { toSurt, hostToSurt, defaultSurtOptions, type SurtOptions } from '../normalize/surt.js';
