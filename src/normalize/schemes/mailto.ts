/**
 * mailto (RFC 6068): the domain part of each address is case-insensitive (RFC 6068 §2, RFC 5321
 * §2.4), the local part is not. This is the §6.2.3 example `mailto:Joe@Example.COM`.
 */
import type { SchemeRule } from './scheme-rule.js';

/** Lowercase ASCII letters after the last "@" of each comma-separated address; "%XX" hex stays uppercase. */
function lowercaseDomains(path: string): string {
  let out = '';
  let start = 0;
  while (start <= path.length) {
    let end = path.indexOf(',', start);
    if (end === -1) end = path.length;
    const address = path.slice(start, end);
    const at = address.lastIndexOf('@');
    if (at === -1) {
      out += address;
    } else {
      out += address.slice(0, at + 1);
      const domain = address.slice(at + 1);
      for (let i = 0; i < domain.length; i++) {
        const c = domain.charCodeAt(i);
        if (c === 0x25) {
          out += domain.slice(i, i + 3);
          i += 2;
        } else {
          out += c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 32) : domain[i];
        }
      }
    }
    if (end < path.length) out += ',';
    start = end + 1;
  }
  return out;
}

export const mailto: SchemeRule = {
  scheme: 'mailto',
  defaultPort: undefined,
  specialHost: false,
  requiresHost: false,
  emptyPathIsRoot: false,
  dropEmptyUserinfo: false,
  extra(r) {
    const path = lowercaseDomains(r.path);
    return path === r.path ? r : { ...r, path };
  },
};
