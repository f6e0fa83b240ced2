/**
 * The crawler's name on the wire (RFC 9110 §10.1.5 User-Agent) and in robots.txt (RFC 9309 §2.2.1,
 * the product token).
 */
import { readFileSync } from 'node:fs';

/** RFC 9309 §2.2.1: the product token robots.txt groups are matched against (case-insensitively). */
export const PRODUCT_TOKEN = 'urldedup';

/** Where a site owner reads what the crawler is and how to reach its operator. */
export const INFO_URL = 'https://www.npmjs.com/package/urldedup';

/** The package version, read once from the nearest package.json named urldedup. */
function packageVersion(): string {
  let dir = new URL('.', import.meta.url);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'urldedup' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one folder up
    }
    dir = new URL('..', dir);
  }
  return '0.0.0';
}

export const VERSION = packageVersion();

/** `urldedup/<version> (+<info url>)`. */
export const USER_AGENT = `${PRODUCT_TOKEN}/${VERSION} (+${INFO_URL})`;
