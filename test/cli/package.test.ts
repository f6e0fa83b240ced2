// What `npm publish` would ship (`npm pack --dry-run --json`): every shipped source map's `sources`
// resolve to shipped files (the maps under dist/src point at src/*.ts, so `src` is in `files`),
// and the `bin` is shipped executable and answers `--version` with the package's version.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; repository?: unknown };

interface PackedFile { path: string; mode: number }

function packed(): PackedFile[] {
  // --ignore-scripts: `prepare` would build; the suite runs on a built tree (npm test builds first)
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(json) as { files: PackedFile[] }[])[0]!.files;
}

describe('the published package', () => {
  const files = packed();
  const paths = new Set(files.map((f) => f.path));

  it('ships source maps only with the sources they point at', () => {
    const maps = files.filter((f) => f.path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const dangling: string[] = [];
    for (const m of maps) {
      const map = JSON.parse(readFileSync(join(ROOT, m.path), 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const source of map.sources) {
        const target = posix.normalize(posix.join(posix.dirname(m.path), map.sourceRoot ?? '', source));
        if (!paths.has(target)) dangling.push(`${m.path} → ${target}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it('ships the bin executable, and it prints the version', () => {
    for (const bin of Object.values(manifest.bin)) {
      const path = posix.normalize(bin);
      const file = files.find((f) => f.path === path);
      expect(file, `${path} is not shipped`).toBeDefined();
      expect(file!.mode & 0o111, `${path} is not executable`).not.toBe(0);
      for (const flag of ['--version', '-v']) {
        const r = spawnSync(join(ROOT, path), [flag], { cwd: dirname(join(ROOT, path)), encoding: 'utf8' }); // run as a file: its #! line
        expect(r.status).toBe(0);
        expect(r.stdout).toBe(`${manifest.version}\n`);
      }
    }
  });

  it('names its repository', () => {
    expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/urldedup/urldedup.git' });
  });
});
