/**
 * The public surface, as a user gets it: the BUILT package imported by its name (`npm test` builds
 * dist/ first; the package imports itself through package.json "exports"). The root's names are
 * listed exactly, so adding one is a conscious change (at most 45, values and types together);
 * each subpath loads, and docs/api.md has one line for every name of every entry point.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  name: string;
  exports: Record<string, { types: string; import: string }>;
};

const ROOT_VALUES = [
  'FetchError',
  'StoreError',
  'UrlError',
  'crawl',
  'defaultCrawlOptions',
  'defaultNormalizeOptions',
  'defaultResolveOptions',
  'defaultStoreOptions',
  'fingerprint',
  'formatReport',
  'identify',
  'isFetchError',
  'isStoreError',
  'isUrlError',
  'key',
  'normalize',
  'openMemoryStore',
  'openStore',
  'resolve',
  'runCrawl',
];

const ROOT_TYPES = [
  'AdmitOptions',
  'AdmitResult',
  'CanonicalResult',
  'Crawl',
  'CrawlErrorCode',
  'CrawlOptions',
  'CrawlProgress',
  'CrawlReport',
  'CrawledPage',
  'FetchRecord',
  'NormalizationLevel',
  'NormalizeOptions',
  'OpenStoreOptions',
  'PresetName',
  'ResolveMode',
  'ResolveOptions',
  'SeenStore',
  'StoreErrorCode',
  'StoreOptions',
  'StoreStats',
  'UriRecord',
  'UrlErrorCode',
  'UrlIdentity',
];

const SUBPATHS = ['whatwg', 'rfc3986', 'key', 'presets', 'store', 'crawler', 'crawlee'];

/** The runtime names of each entry point, imported by package name from the repository root. */
function runtimeNames(): Record<string, string[]> {
  const specifiers = ['', ...SUBPATHS].map((s) => (s === '' ? pkg.name : `${pkg.name}/${s}`));
  const script = `const out = {}; for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(stdout) as Record<string, string[]>;
}

let program: ts.Program | undefined;

/** The exported names of a declaration file, split into values and type-only names (compiler API). */
function declaredNames(dts: string): { values: string[]; types: string[] } {
  // one program for every entry point's declarations (a program takes a second or two to build)
  program ??= ts.createProgram(['', ...SUBPATHS].map(dtsOf), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dts);
  if (source === undefined) throw new Error(`cannot read ${dts}`);
  const module = checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${dts} is not a module`);
  const values: string[] = [];
  const types: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    // `export { type X }` and `export type { X }` export only the type, even of a class
    const typeOnly = (symbol.declarations ?? []).some((d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly));
    (target.flags & ts.SymbolFlags.Value && !typeOnly ? values : types).push(symbol.name);
  }
  return { values: values.sort(), types: types.sort() };
}

/** docs/api.md: the names listed (`` - `name` ``) under each entry point's heading (`` ## `urldedup/x` ``). */
function documentedNames(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let section: string[] | undefined;
  for (const line of readFileSync(`${ROOT}docs/api.md`, 'utf8').split('\n')) {
    const heading = /^## `([^`]+)`/.exec(line);
    if (heading !== null) out[heading[1]!] = section = [];
    else if (line.startsWith('## ')) section = undefined;
    const item = /^- `([A-Za-z_$][\w$]*)`/.exec(line);
    if (item !== null && section !== undefined) section.push(item[1]!);
  }
  for (const names of Object.values(out)) names.sort();
  return out;
}

function dtsOf(subpath: string): string {
  const entry = pkg.exports[subpath === '' ? '.' : `./${subpath}`];
  if (entry === undefined) throw new Error(`package.json "exports" has no ${subpath || '.'}`);
  return `${ROOT}${entry.types.replace(/^\.\//, '')}`;
}

describe('the public API (built package, imported by name)', () => {
  const runtime = runtimeNames();

  it('the root exports exactly the listed values', () => {
    expect(runtime[pkg.name]).toEqual([...ROOT_VALUES].sort());
  });

  it('the root declares exactly the listed values and types, at most 45 names', () => {
    const { values, types } = declaredNames(dtsOf(''));
    expect(values).toEqual([...ROOT_VALUES].sort());
    expect(types).toEqual([...ROOT_TYPES].sort());
    expect(values.length + types.length).toBeLessThanOrEqual(45);
  });

  it('"exports" names the root and exactly the documented subpaths, each built with its types', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', ...SUBPATHS.map((s) => `./${s}`)].sort());
    for (const entry of Object.values(pkg.exports)) {
      expect(existsSync(`${ROOT}${entry.import}`), entry.import).toBe(true);
      expect(existsSync(`${ROOT}${entry.types}`), entry.types).toBe(true);
    }
  });

  it.each(SUBPATHS)('urldedup/%s loads and its runtime names match its declarations', (subpath) => {
    const names = runtime[`${pkg.name}/${subpath}`];
    expect(names?.length).toBeGreaterThan(0);
    expect(declaredNames(dtsOf(subpath)).values).toEqual(names);
  });

  it('docs/api.md lists every name of every entry point, one line each, and nothing else', () => {
    const documented = documentedNames();
    for (const subpath of ['', ...SUBPATHS]) {
      const specifier = subpath === '' ? pkg.name : `${pkg.name}/${subpath}`;
      const { values, types } = declaredNames(dtsOf(subpath));
      expect(documented[specifier], specifier).toEqual([...values, ...types].sort());
    }
  });

  it('a deep import past "exports" is refused', () => {
    const script = `import('${pkg.name}/dist/src/normalize/index.js').then(() => console.log('loaded'), (e) => console.log(e.code));`;
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
});
