/** The shared conformance data lives beside the repository: ../shared/testdata (CI has it too). */
import { readFileSync } from 'node:fs';

export const TESTDATA = new URL('../../../shared/testdata/', import.meta.url);

export function readTestdata<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, TESTDATA), 'utf8')) as T;
}
