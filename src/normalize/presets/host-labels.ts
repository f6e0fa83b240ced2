/**
 * Labels of a registered name (RFC 3986 §3.2.2, RFC 1034 §3.1) as the host presets read them.
 */

/** Labels of a host name; empty ones (leading, trailing or repeated dots) are not counted. */
export function countLabels(host: string): number {
  let labels = 0;
  let inLabel = false;
  for (let i = 0; i < host.length; i++) {
    if (host.charCodeAt(i) === 0x2e) inLabel = false;
    else if (!inLabel) {
      inLabel = true;
      labels++;
    }
  }
  return labels;
}

/**
 * True when the last non-empty label is all digits or starts with `0x`: the WHATWG host parser
 * would read such a name as an IPv4 address, so a preset must not produce one.
 */
export function endsInNumber(host: string): boolean {
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 0x2e) end--;
  const start = host.lastIndexOf('.', end - 1) + 1;
  const label = host.slice(start, end);
  if (label === '') return false;
  if (label.length >= 2 && label.charCodeAt(0) === 0x30 && (label.charCodeAt(1) | 0x20) === 0x78) return true;
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** An IP literal (`[…]`) has no labels. */
export function isIpLiteral(host: string): boolean {
  return host.charCodeAt(0) === 0x5b;
}
