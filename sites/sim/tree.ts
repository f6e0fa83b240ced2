/**
 * Real documentation trees, the simulator's documents: the HTML manuals Debian packages install
 * under /usr/share/doc. A tree is read once per process: its pages reached from `index.html`
 * over relative links, each with its title, a piece of its text and the pages it links to.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

/** Trees the simulator looks for, in this order (`npm test`, scripts/test.sh, installs the packages). */
export const KNOWN_TREES: readonly string[] = [
  '/usr/share/doc/python-flask-doc/html',
  '/usr/share/doc/python-requests-doc/html',
  '/usr/share/doc/python-click-doc/html',
  '/usr/share/doc/python-jinja2-doc/html',
  '/usr/share/doc/valgrind/html',
  '/usr/share/doc/git-doc',
  '/usr/share/doc/libxml2-doc/html',
];

/** Debian packages of the known trees (for messages). */
export const TREE_PACKAGES = 'python-flask-doc python-requests-doc python-click-doc python-jinja2-doc';

export interface TreePage {
  /** Path in the tree (`user/quickstart.html`). */
  readonly file: string;
  readonly title: string;
  /** Some of its text, tags removed. */
  readonly text: string;
  /** Pages of the tree it links to (files). */
  readonly links: readonly string[];
}

export interface Tree {
  readonly root: string;
  readonly pages: readonly TreePage[];
}

const cache = new Map<string, Tree>();

/** The trees present on this machine (`URLDEDUP_SIM_TREES`, colon-separated, overrides). */
export function availableTrees(): string[] {
  const env = process.env['URLDEDUP_SIM_TREES'];
  const list = env !== undefined && env !== '' ? env.split(':') : KNOWN_TREES;
  return list.filter((d) => existsSync(join(d, 'index.html')));
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Read a tree (at most `maxPages` pages, breadth first from index.html). */
export function loadTree(root: string, maxPages = 600): Tree {
  const known = cache.get(root);
  if (known !== undefined) return known;
  const pages: TreePage[] = [];
  const queue = ['index.html'];
  const met = new Set(queue);
  while (queue.length > 0 && pages.length < maxPages) {
    const file = queue.shift()!;
    let html: string;
    try {
      html = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    const links: string[] = [];
    for (const m of html.matchAll(/\bhref\s*=\s*(["'])([^"']*)\1/gi)) {
      const href = decodeEntities(m[2]!).split('#')[0]!;
      if (!/^[A-Za-z0-9_./-]+\.html$/.test(href) || href.startsWith('/')) continue;
      const t = posix.normalize(posix.join(posix.dirname(file), href));
      if (t.startsWith('..') || t.startsWith('_') || t.includes('/_')) continue;
      if (!links.includes(t)) links.push(t);
      if (met.has(t) || !isFile(join(root, t))) continue;
      met.add(t);
      queue.push(t);
    }
    const title = decodeEntities((/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? file).replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
    const text = decodeEntities(body.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]*>/g, ' '))
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 700);
    pages.push({ file, title: title === '' ? file : title, text, links });
  }
  if (pages.length === 0) throw new Error(`sim: no index.html under ${root} (give the folder that holds the manual's index.html)`);
  const inTree = new Set(pages.map((p) => p.file));
  const tree: Tree = { root, pages: pages.map((p) => ({ ...p, links: p.links.filter((l) => inTree.has(l) && l !== p.file) })) };
  cache.set(root, tree);
  return tree;
}
