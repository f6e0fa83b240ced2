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
    if (r.host === undefined) {
      // `file:/x` is `file:///x` (RFC 8089 §2 local-path). A rootless path (`file:a/b`) is no
      // RFC 8089 path: with an authority it would be read as one (`file://a/b`, host "a"), so it
      // stays as it is (RFC 3986 §3.3: a path after an authority begins with "/")
      if (r.path !== '' && r.path.charCodeAt(0) !== 0x2f) return r;
      // with an authority, "/." no longer guards a path starting "//" (syntax.ts): drop it, so the
      // normal form is reached in one pass (`file:/.//g` → `file:////g`)
      const path = r.path === '' ? '/' : r.path.startsWith('/.//') ? r.path.slice(2) : r.path;
      return { ...r, host: '', path };
    }
    return r;
  },
};
