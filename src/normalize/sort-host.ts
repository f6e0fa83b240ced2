/**
 * The key's sorthost (key.ts, format 1): domain labels in reverse, joined by ",", so one host's keys
 * sort together; IP addresses and literals as they are. In it `%`, `,` and `)` are written `%25`,
 * `%2C` and `%29`, so the first `)` of a key always ends it.
 */

function escapeHostPart(host: string): string {
  return host.replace(/[%,)]/g, (c) => (c === '%' ? '%25' : c === ',' ? '%2C' : '%29'));
}

/** A host as it leads the key: domain labels reversed, IP addresses and literals as they are. */
export function sortHost(host: string): string {
  const n = host.length;
  if (n === 0) return '';
  // One scan: does it need escaping, is it digits and dots only (IPv4), where is the last dot?
  let numeric = true;
  let lastDot = -1;
  for (let i = 0; i < n; i++) {
    const c = host.charCodeAt(i);
    if (c === 0x2e) lastDot = i;
    else if (c === 0x25 || c === 0x2c || c === 0x29) return sortHost2(escapeHostPart(host));
    else if (c < 0x30 || c > 0x39) numeric = false;
  }
  if (numeric || lastDot === -1 || host.charCodeAt(0) === 0x5b) return host;
  // labels in reverse, joined by ","
  let out = host.slice(lastDot + 1);
  let end = lastDot;
  for (;;) {
    const dot = end === 0 ? -1 : host.lastIndexOf('.', end - 1);
    out += ',' + host.slice(dot + 1, end);
    if (dot === -1) break;
    end = dot;
  }
  return out;
}

/** sortHost of an already escaped host (it holds no "," or ")"). */
function sortHost2(escaped: string): string {
  if (escaped.charCodeAt(0) === 0x5b || escaped.indexOf('.') === -1) return escaped;
  return escaped.split('.').reverse().join(',');
}

