/**
 * A `%` not followed by two hex digits (RFC 3986 §2.1 says it must be). Lenient parsing keeps such
 * a `%` as a browser sends it, and the syntax rung then keeps a decodable escape near it encoded
 * (so that no new triplet forms, src/normalize/percent-encoding.ts). Whether an escape is decoded
 * thus depends on its neighbours. A preset that splices or reorders such a component could move an
 * escape away from that context, and the next pass would decode it: the output would leave the
 * normal form and the ladder would not be idempotent. So the presets that splice or reorder
 * (`session-ids`, `collapse-slashes`, `tracking`, `remove-empty-params`, `sort-query`) leave a
 * component holding a malformed `%` as it is. `strict: true` rejects such input outright.
 */

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** True when `component` holds a `%` that does not start a `%XX` triplet. */
export function hasMalformedPercent(component: string): boolean {
  let at = component.indexOf('%');
  while (at !== -1) {
    if (!isHexDigit(component.charCodeAt(at + 1)) || !isHexDigit(component.charCodeAt(at + 2))) return true;
    at = component.indexOf('%', at + 3);
  }
  return false;
}
