/**
 * file (RFC 8089; WHATWG "file" state): `file://localhost/x` is `file:///x` (RFC 8089 §2),
 * the path is never empty, and there is no port.
 */
import { UrlError } from '../errors.js';
import type { SchemeRule } from './scheme-rule.js';

export const file: SchemeRule = {
  scheme: 'file',
  defaultPort: undefined,
  specialHost: true,
  requiresHost: false,
  emptyPathIsRoot: true,
  dropEmptyUserinfo: true,
  extra(r, input) {
    if (r.port !== undefined || r.userinfo !== undefined) {
      throw new UrlError('ERR_INVALID_HOST', input, { detail: 'file URLs have no port or userinfo' });
    }
    // RFC 8089 §2: "localhost" and the empty host both mean the local machine.
    if (r.host === 'localhost') return { ...r, host: '' };
    if (r.host === undefined) return { ...r, host: '', path: r.path === '' ? '/' : r.path };
    return r;
  },
};
