/** The conformance data, vendored in test/fixtures/conformance/ (provenance: PROVENANCE.md there; refresh: scripts/refresh-conformance.mjs). */
import { readFileSync } from 'node:fs';

export const TESTDATA = new URL('../fixtures/conformance/', import.meta.url);

export function readTestdata<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, TESTDATA), 'utf8')) as T;
}
