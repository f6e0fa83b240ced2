/**
 * Test-only: write records as URI strings. Splits a URI in normal form with the RFC 3986
 * Appendix B expression (the inputs are fixed test strings), then the authority at `@` and `:`.
 */
import { recompose, type UriRecord } from '../../src/normalize/uri-record.js';

const APPENDIX_B = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

export function record(uri: string): UriRecord {
  const m = APPENDIX_B.exec(uri);
  if (m === null) throw new Error(`not a URI: ${uri}`);
  const [, scheme, authority, path = '', query, fragment] = m;
  let userinfo: string | undefined;
  let host: string | undefined;
  let port: string | undefined;
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    userinfo = at === -1 ? undefined : authority.slice(0, at);
    const hostport = authority.slice(at + 1);
    const colon = hostport.lastIndexOf(':');
    if (colon !== -1 && !hostport.slice(colon).includes(']')) {
      host = hostport.slice(0, colon);
      port = hostport.slice(colon + 1);
    } else host = hostport;
  }
  return { scheme, userinfo, host, port, path, query, fragment };
}

export { recompose };
