/**
 * What some tests need from the machine beyond Node (a Redis server, Debian's documentation trees,
 * Chromium), and what a test file does without it. `npm test` (scripts/test.sh) installs all of it
 * where it can (as root, or with sudo) and then requires it: `URLDEDUP_REQUIRE_ALL=1`, as under
 * `CI=true`, makes a missing requirement a failure. Elsewhere (a developer's machine without root)
 * the tests that need it are skipped, each with a one-line reason, and the rest run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { POSTGRES_DOCS } from '../../sites/alias-site.js';
import { SQLITE_DOCS } from '../../sites/realistic-site.js';
import { redisServerAvailable } from './redis-cluster.js';

export interface Requirement {
  /** Why it is missing, with what to install; `undefined` when it is there. */
  readonly missing: string | undefined;
}

/** True when a missing requirement must fail the tests instead of skipping them. */
export const REQUIRE_ALL = process.env['URLDEDUP_REQUIRE_ALL'] === '1' || process.env['CI'] === 'true';

function check(present: () => boolean, reason: string): Requirement {
  return { missing: present() ? undefined : reason };
}

/** A Redis Cluster: the one `URLDEDUP_REDIS_CLUSTER` names, or redis-server to start one. */
export const REDIS: Requirement = check(
  () => (process.env['URLDEDUP_REDIS_CLUSTER'] ?? '') !== '' || redisServerAvailable(),
  'needs redis-server (apt-get install redis-server redis-tools) or URLDEDUP_REDIS_CLUSTER',
);
/** redis-server itself (tests that start, kill and restart their own masters). */
export const REDIS_SERVER: Requirement = check(redisServerAvailable, 'needs redis-server (apt-get install redis-server redis-tools)');
export const POSTGRES_TREE: Requirement = check(() => existsSync(POSTGRES_DOCS), `needs ${POSTGRES_DOCS} (apt-get install postgresql-doc-15)`);
export const SQLITE_TREE: Requirement = check(() => existsSync(`${SQLITE_DOCS}/index.html`), `needs ${SQLITE_DOCS} (apt-get install sqlite3-doc)`);
/** The Python Scrapy runs on: Debian's (python3-scrapy), whatever python3 comes first on PATH. */
export const SCRAPY_PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
export const SCRAPY: Requirement = check(() => spawnSync(SCRAPY_PYTHON, ['-c', 'import scrapy']).status === 0, 'needs Scrapy (apt-get install python3-scrapy)');
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM: Requirement = check(() => existsSync(CHROMIUM_PATH), `needs ${CHROMIUM_PATH} (apt-get install chromium)`);

/**
 * `describe`, when every requirement is met; else the same suite skipped, its title saying why
 * (or, under `URLDEDUP_REQUIRE_ALL` / `CI`, a suite whose one test fails with the reason).
 */
export function describeWith(needs: readonly Requirement[], title: string, body: () => void): void {
  const missing = needs.map((n) => n.missing).filter((m): m is string => m !== undefined);
  if (missing.length === 0) {
    describe(title, body);
  } else if (REQUIRE_ALL) {
    describe(title, () => {
      it(`requirements: ${missing.join('; ')}`, () => {
        throw new Error(`missing on this machine: ${missing.join('; ')} (scripts/test.sh installs them as root)`);
      });
    });
  } else {
    // the one line that says why, in the run's output (the default reporter lists no skipped suite)
    console.warn(`skipped ${title}: ${missing.join('; ')}`);
    describe.skip(`${title} (skipped: ${missing.join('; ')})`, body);
  }
}

/** True when every requirement is met: for a file's top-level hooks (`beforeAll(() => { if (met(REDIS)) … })`). */
export function met(...needs: readonly Requirement[]): boolean {
  return needs.every((n) => n.missing === undefined);
}
