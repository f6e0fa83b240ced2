/**
 * The query string's text check (WHATWG URL, application/x-www-form-urlencoded parsing).
 *
 * `URLSearchParams` percent-decodes each name and value and then decodes the bytes as UTF-8
 * "without BOM or fail"… in replacement mode: `?url=caf%E9` and `?url=caf%E8` both become
 * `caf\uFFFD`, one URL and one key. So before the query is parsed, every name and value is
 * percent-decoded here and its bytes decoded with a fatal decoder; bytes that are not UTF-8 are
 * 400 `ERR_INVALID_UTF8` (RFC 3629), as for a request body.
 */
import { ServiceError } from './response.js';

const PERCENT = 0x25;

function hexValue(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** WHATWG URL "percent-decode": `%XX` with two hex digits becomes its byte; all else stays. */
function percentDecode(text: string): Uint8Array {
  const input = Buffer.from(text, 'utf8');
  const out = Buffer.allocUnsafe(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    const b = input[i]!;
    const hi = b === PERCENT ? hexValue(input[i + 1]) : -1;
    const lo = hi === -1 ? -1 : hexValue(input[i + 2]);
    if (lo === -1) {
      out[n++] = b;
    } else {
      out[n++] = hi * 16 + lo;
      i += 2;
    }
  }
  return out.subarray(0, n);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Throws 400 `ERR_INVALID_UTF8` when a name or value of `search` (no `?`) decodes to bytes that are not UTF-8. */
export function assertUtf8Query(search: string): void {
  if (!search.includes('%')) return;
  for (const pair of search.split('&')) {
    if (!pair.includes('%')) continue;
    try {
      utf8.decode(percentDecode(pair));
    } catch {
      const eq = pair.indexOf('=');
      throw new ServiceError(400, 'ERR_INVALID_UTF8', 'a query parameter is percent-encoded bytes that are not UTF-8', eq === -1 ? pair : pair.slice(0, eq));
    }
  }
}
