/**
 * Bearer token authentication (RFC 6750 §2.1: `Authorization: Bearer <token>`).
 *
 * The token comes from a file (`--token-file`), never from the command line, where `ps` would
 * show it. The presented and expected tokens are compared as SHA-256 digests with
 * `crypto.timingSafeEqual`: both digests are 32 bytes whatever the tokens' lengths, so neither the
 * comparison's time nor an early length check tells an attacker how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER = /^Bearer +(\S+) *$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A check of `Authorization` header values against one token. */
export interface BearerCheck {
  (authorization: string | undefined): boolean;
}

export function createBearerCheck(token: string): BearerCheck {
  if (!B64TOKEN.test(token)) throw new TypeError('bearer token: use 1 or more of A-Z a-z 0-9 - . _ ~ + / (RFC 6750 b64token)');
  const expected = digest(token);
  return (authorization) => {
    if (authorization === undefined) return false;
    const m = BEARER.exec(authorization);
    // a missing or malformed header still costs one digest and one comparison
    const presented = digest(m?.[1] ?? '');
    return timingSafeEqual(presented, expected) && m !== null;
  };
}

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/**
 * Read the token: the file's text without surrounding whitespace (a trailing newline is usual).
 * Returns a warning when other users may read the file.
 */
export async function readTokenFile(path: string): Promise<{ token: string; warning?: string }> {
  let text: string;
  let mode: number;
  try {
    text = await readFile(path, 'utf8');
    mode = (await stat(path)).mode;
  } catch (error) {
    throw new TokenFileError(`cannot read --token-file ${path}: ${(error as Error).message}`, { cause: error });
  }
  const token = text.trim();
  if (token === '') throw new TokenFileError(`--token-file ${path} is empty`);
  if (!B64TOKEN.test(token)) throw new TokenFileError(`--token-file ${path}: the token may hold only A-Z a-z 0-9 - . _ ~ + / (RFC 6750)`);
  return (mode & 0o077) !== 0 ? { token, warning: `--token-file ${path} can be read by other users (chmod 600 it)` } : { token };
}
