/**
 * The fast-path test: is a URL already in normal form? Most URLs a crawler sees are; the single
 * pass (single-pass.ts) answers in one scan, with no allocation when the answer is yes.
 */
import { singlePassNormal } from './single-pass.js';

/**
 * True when `url` is an http(s) URL that `normalize` (default options) returns unchanged and the
 * single pass handles: lowercase scheme and plain host, no userinfo, a kept port or none, a path
 * starting with "/" and free of dot-segments, only characters the component may hold raw, `%XX`
 * uppercase and never of an unreserved character (a `%` that starts no escape stays as written, as
 * `normalize` keeps it), and no fragment.
 */
export function isNormalHttpUrl(url: string): boolean {
  return singlePassNormal(url) === url;
}
