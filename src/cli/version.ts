/** `urldedup --version`: the version in the package's package.json (shipped with every install). */
import { readFileSync } from 'node:fs';

/** The package's version, read from its package.json (from src/cli when run from source, dist/src/cli when built). */
export function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'urldedup' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not at this level: try the next
    }
  }
  throw new Error('package.json of urldedup not found');
}
