import { describe, expect, it } from 'vitest';
import { looksMinted } from '../../src/normalize/index.js';
import { activeScopes, checksEveryPlace, covers, formatScopes, inScope, readsAsCopy, type ContradictionSite, type Support } from '../../src/store/learning/rule-scope.js';

const at = (p: string, d = p, q = false): Support => ({ p, d, q, s: 'k' + p + d });
const site = (p: string): ContradictionSite => ({ p, s: 'k' + p });

describe('rule scope (pattern tree)', () => {
  it('evidence from three files of one directory holds there, not host-wide', () => {
    const scopes = activeScopes([at('/topics/a'), at('/topics/b'), at('/topics/c')], [], 3);
    expect(scopes.map((s) => s.at)).toEqual(['/topics/']);
    expect(inScope(scopes, '/topics/z', false)).toBe(true);
    expect(inScope(scopes, '/guide/z', false)).toBe(false);
    expect(inScope(scopes, '/topics', false)).toBe(false);
  });

  it('a directory never inherits a rule from one child: /old/topics/* says nothing of /old/*', () => {
    const scopes = activeScopes([at('/old/topics/a'), at('/old/topics/b'), at('/old/topics/c')], [], 3);
    expect(scopes.map((s) => s.at)).toEqual(['/old/topics/']);
    expect(inScope(scopes, '/old/other', false)).toBe(false);
  });

  it('the scope grows with its support: evidence in two subtrees holds their parent', () => {
    const scopes = activeScopes([at('/a/x'), at('/a/y'), at('/b/z')], [], 3);
    expect(scopes.map((s) => s.at)).toEqual(['/']);
  });

  it('distinct documents count, not URLs: one body under many URLs is one document', () => {
    const shell = [at('/app/a', 'H'), at('/app/b', 'H'), at('/app/c', 'H'), at('/app/d', 'H')];
    expect(activeScopes(shell, [], 3)).toEqual([]);
    expect(activeScopes([...shell, at('/app/e', 'I'), at('/app/f', 'J')], [], 3).map((s) => s.at)).toEqual(['/app/']);
  });

  it('an exact path holds a rule from several documents of one path (its queries)', () => {
    const scopes = activeScopes([at('/search', 'h1', true), at('/search', 'h2', true), at('/search', 'h3', true)], [], 3);
    expect(scopes).toEqual([{ at: '=/search', docs: 3, query: true }]);
    expect(inScope(scopes, '/search', true)).toBe(true);
    expect(inScope(scopes, '/search/x', true)).toBe(false);
  });

  it('a contradiction narrows the rule to the scopes that do not cover it', () => {
    const support = [at('/old/topics/a'), at('/old/topics/b'), at('/old/topics/c'), at('/old/guides/x')];
    expect(activeScopes(support, [], 3).map((s) => s.at)).toEqual(['/old/']);
    const narrowed = activeScopes(support, [site('/old/other')], 3);
    expect(narrowed.map((s) => s.at)).toEqual(['/old/topics/']);
    expect(activeScopes(support, [site('/old/topics/q')], 3)).toEqual([]);
  });

  it('support that far outweighs a contradiction keeps the scope, less the contradicted place', () => {
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((x) => at(`/t/${x}`));
    const scopes = activeScopes(many, [site('/t/q')], 3);
    expect(scopes).toEqual([{ at: '/t/', flat: true, docs: 8, query: false, except: ['/t/q'] }]);
    expect(inScope(scopes, '/t/a', false)).toBe(true);
    expect(inScope(scopes, '/t/q', false)).toBe(false);
    expect(inScope(scopes, '/t/q/deeper', false)).toBe(false);
    expect(inScope(scopes, '/t/qq', false)).toBe(true);
    expect(formatScopes(scopes)).toBe('/t/* -/t/q');
    // two contradicted places weigh 16 documents: 8 no longer hold the directory
    expect(activeScopes(many, [site('/t/q'), site('/t/r')], 3)).toEqual([]);
    // a contradiction at a node itself removes it, whatever its support
    expect(activeScopes(many, [site('/t/')], 3)).toEqual([]);
  });

  it('a contradiction in a directory where no support lies excepts that directory, not its path alone', () => {
    // a host-wide rule (`/x.html` → `/x`) and a folder of old names, each a page of its own: the
    // first one contradicted is all the evidence of that folder, and the next must not be pruned
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((x) => at(`/s${x.charCodeAt(0) % 2}/${x}.html`));
    const scopes = activeScopes(many, [site('/old/array.html')], 3);
    expect(scopes).toEqual([{ at: '/', docs: 8, query: false, except: ['/old/'] }]);
    expect(inScope(scopes, '/old/zipfile.html', false)).toBe(false);
    expect(inScope(scopes, '/s0/z.html', false)).toBe(true);
    // where support lies in the directory (or below it), its path alone
    const beside = activeScopes([...many, at('/old/sub/k.html')], [site('/old/array.html')], 3);
    expect(beside[0]!.except).toEqual(['/old/array.html']);
    // a contradiction at the root is its path: the root is every scope's
    expect(activeScopes(many, [site('/array.html')], 3)[0]!.except).toEqual(['/array.html']);
  });

  it('a directory whose evidence lies in its own files holds for those, not for its subdirectories', () => {
    const files = activeScopes([at('/a.html'), at('/b.html'), at('/c.html')], [], 3);
    expect(files).toEqual([{ at: '/', flat: true, docs: 3, query: false }]);
    expect(inScope(files, '/d.html', false)).toBe(true);
    expect(inScope(files, '/docs/', false)).toBe(true); // an entry of its own, as a directory name
    expect(inScope(files, '/archive/d.html', false)).toBe(false);
    // evidence in a subdirectory too: the directory holds for everything under it
    const deep = activeScopes([at('/a.html'), at('/b.html'), at('/c/d.html')], [], 3);
    expect(deep).toEqual([{ at: '/', docs: 3, query: false }]);
    expect(inScope(deep, '/archive/d.html', false)).toBe(true);
    // evidence in its files and deeper down: it holds for all of it
    const apart = activeScopes([at('/a'), at('/b'), at('/c'), at('/s/t/1'), at('/s/t/2'), at('/s/t/3')], [], 3);
    expect(formatScopes(apart)).toBe('/');
  });

  it('evidence without a query does not license URLs with one', () => {
    const scopes = activeScopes([at('/a'), at('/b'), at('/c')], [], 3);
    expect(inScope(scopes, '/login', false)).toBe(true);
    expect(inScope(scopes, '/login', true)).toBe(false);
    const withQuery = activeScopes([at('/a'), at('/b'), at('/c', '/c', true)], [], 3);
    expect(inScope(withQuery, '/login', true)).toBe(true);
  });

  it('keeps only the maximal scopes; a directory covers queries when any evidence under it had one', () => {
    const support = [at('/d/a'), at('/d/b'), at('/e/c'), at('/d/x', 'q1', true), at('/d/y', 'q2', true), at('/d/z', 'q3', true)];
    expect(activeScopes(support, [], 3)).toEqual([{ at: '/', docs: 6, query: true }]);
    const deep = activeScopes([at('/d/a/1'), at('/d/a/2'), at('/d/a/3'), at('/d/b/1'), at('/d/b/2'), at('/d/b/3')], [], 3);
    expect(deep).toEqual([{ at: '/d/', docs: 6, query: false }]);
  });

  it('a directory that holds on its own evidence stays beside a wider scope that excepts it', () => {
    const support = [at('/a'), at('/b'), at('/c/x'), at('/d'), at('/e'), at('/f'), at('/g'), at('/h'), at('/lib/x'), at('/lib/y'), at('/lib/z')];
    // `/lib` (the directory's name without its slash) contradicted: `/` keeps the rule less `/lib`
    const scopes = activeScopes(support, [site('/lib')], 3);
    expect(scopes.map((s) => [s.at, s.except])).toEqual([['/', ['/lib']], ['/lib/', undefined]]);
    expect(inScope(scopes, '/lib', false)).toBe(false);
    expect(inScope(scopes, '/lib/w', false)).toBe(true);
    // without support of its own there, what lies under the contradicted name stays excepted
    const thin = activeScopes(support.slice(0, 9), [site('/lib')], 3);
    expect(thin.map((s) => s.at)).toEqual(['/']);
    expect(inScope(thin, '/lib/w', false)).toBe(false);
  });

  it('kinds of path that vary with the documents hold for no kind; a kind with the threshold holds for itself', () => {
    const kind = (p: string, v: string): Support => ({ ...at(p), v });
    const varied = ['config', 'path', 'handler', 'mock', 'abc'].map((x, i) => kind(`/lib/m${i}.${x}.html`, `dotted.${x}`));
    // as parameter values these would be ids (hold for any value); as kinds each is seen once
    expect(activeScopes(varied, [], 3)[0]!.values).toBeUndefined();
    expect(activeScopes(varied, [], 3, true)).toEqual([]);
    const repeated = [...varied, kind('/lib/a.de.html', 'dotted.de'), kind('/lib/b.de.html', 'dotted.de'), kind('/lib/c.de.html', 'dotted.de')];
    const scopes = activeScopes(repeated, [], 3, true);
    expect(scopes.map((s) => [s.at, s.values])).toEqual([['/lib/', ['dotted.de']]]);
    expect(inScope(scopes, '/lib/d.de.html', false, () => 'dotted.de')).toBe(true);
    expect(inScope(scopes, '/lib/aifc.html', false, () => 'plain')).toBe(false);
  });

  it('two values of one page that each recur on other pages are a choice: the rule holds at its exact paths only', () => {
    const v = (p: string, d: string, value: string): Support => ({ ...at(p, d), v: value });
    // listings seen in both orders; one of them reads the same either way (one item)
    const sorted = [v('/news/', 'n1', 'asc'), v('/news/', 'n1', 'desc'), v('/blog/', 'b1', 'asc'), v('/blog/', 'b2', 'desc'), v('/tips/', 't1', 'asc'), v('/tips/', 't2', 'desc')];
    const scopes = activeScopes(sorted, [], 3);
    expect(scopes.every((x) => x.at.startsWith('='))).toBe(true);
    expect(inScope(scopes, '/events/', false, () => 'desc')).toBe(false);
  });

  it('a recurring value contradicted anywhere on the host holds at the exact paths of its evidence only', () => {
    const v = (p: string, d: string, value: string): Support => ({ ...at(p, d), v: value });
    // a language switcher's ?lang=ja: the original page where no translation exists (five pages of
    // /community/ read the same), a translation at /search.html
    const same = ['a', 'b', 'c', 'd', 'e'].map((n) => v(`/community/${n}.html`, n, 'ja'));
    const before = activeScopes(same, [], 3);
    expect(inScope(before, '/community/z.html', false, () => 'ja')).toBe(true);
    const contra: ContradictionSite = { ...site('/search.html'), v: 'ja' };
    const after = activeScopes(same, [contra], 3);
    expect(inScope(after, '/community/z.html', false, () => 'ja')).toBe(false);
    expect(after.every((x) => x.at.startsWith('='))).toBe(true);
    // a minted value (a session id) contradicted elsewhere excepts that place only
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => v(`/community/${n}.html`, n, `95C6A6B00D0F720B${n}985DBB51B76B1FB`));
    const minted = activeScopes(ids, [{ ...site('/search.html'), v: '0003C5E7A1B2C3D4' }], 3);
    expect(inScope(minted, '/community/z.html', false, () => '0003C5E7A1B2C3D4')).toBe(true);
  });

  it('a recurring value most pages of its evidence offered of themselves holds at their exact paths only', () => {
    const v = (p: string, d: string, value: string, own: boolean): Support => ({ ...at(p, d), v: value, ...(own ? { o: true as const } : {}) });
    // a language switcher: `/x?lang=de` first linked from `/x` itself, on every page but one (a
    // page served under a second name offers it too)
    const switcher = ['a', 'b', 'c', 'd', 'e'].map((n) => v(`/docs/${n}.html`, n, 'de', n !== 'e'));
    const held = activeScopes(switcher, [], 3);
    expect(inScope(held, '/docs/z.html', false, () => 'de')).toBe(false);
    expect(held.every((x) => x.at.startsWith('='))).toBe(true);
    // a tag a site puts on its links to other pages (`?ref=nav`), met on its own page now and then
    const tag = ['a', 'b', 'c', 'd', 'e'].map((n) => v(`/docs/${n}.html`, n, 'nav', n === 'a' || n === 'b'));
    expect(inScope(activeScopes(tag, [], 3), '/docs/z.html', false, () => 'nav')).toBe(true);
  });

  it('a server\'s id for a path, repeated on other paths, beside a link\'s own id, is no choice', () => {
    const v = (p: string, d: string, value: string): Support => ({ ...at(p, d), v: value });
    // a servlet container's ;jsessionid= made from the path (paths of one length share it), and
    // links that carry ids of their own: one page seen under both
    const s1 = '0003C5E7A1B2C3D4';
    const s2 = '00042B3FA1B2C3D4';
    const ids = [v('/a/x', 'x', s1), v('/a/y', 'y', s1), v('/b/z', 'z', s1), v('/b/w', 'w', s2), v('/c/u', 'u', s2), v('/c/t', 't', s2), v('/a/x', 'x', '95C6A6B00D0F720B3985DBB51B76B1FB')];
    const scopes = activeScopes(ids, [], 3);
    expect(scopes.map((x) => x.at)).toEqual(['/']);
    expect(scopes[0]!.values).toBeUndefined();
    expect(looksMinted(s1)).toBe(true);
    for (const word of ['asc', 'DESC', 'en', '20', 'newest-first', 'ABCDEFGHIJKLMNOPQRST']) expect(looksMinted(word)).toBe(false);
  });

  it('a server\'s id for a path is counted once there, whatever documents the path has', () => {
    const v = (p: string, d: string, value: string, q = false): Support => ({ ...at(p, d, q), v: value });
    // the id a servlet makes from the path (`/list` and `/news` share it) on twenty pages of one
    // listing, and a page's own id on twelve other pages: fewer values than documents, yet each
    // value is a path's id, not a choice that recurs
    const id = '000271A2A1B2C3D4';
    const pages = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].map((n, i) => v(`/${n}.html`, n, `00${(0x1000 + i).toString(16)}A2A1B2C3D4`.toUpperCase()));
    const listing = Array.from({ length: 20 }, (_, i) => v(i % 2 === 0 ? '/list' : '/news', `page${i}`, id, true));
    const scopes = activeScopes([...pages, ...listing], [], 3);
    expect(scopes.map((x) => x.at)).toEqual(['/']);
    expect(scopes[0]!.values).toBeUndefined();
    expect(inScope(scopes, '/m.html', false, () => 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF')).toBe(true);
    // a choice beside it still holds for its values only: `asc`/`desc` on those twenty pages
    const sorts = Array.from({ length: 20 }, (_, i) => v(i % 2 === 0 ? '/list' : '/news', `page${i}`, i % 4 < 2 ? 'asc' : 'desc', true));
    expect(activeScopes(sorts, [], 3).every((x) => x.values !== undefined || x.at.startsWith('='))).toBe(true);
  });

  it('covers and formats', () => {
    expect(covers('/a/', '/a/')).toBe(true);
    expect(covers('/a/', '/ab')).toBe(false);
    expect(covers('=/a', '/a')).toBe(true);
    expect(covers('=/a', '/a/')).toBe(false);
    expect(formatScopes([{ at: '/t/', docs: 3, query: false }, { at: '=/s', docs: 3, query: true }])).toBe('/t/, =/s +query');
    expect(formatScopes([])).toBe('(none)');
  });
});

describe('copies of a tree (readsAsCopy)', () => {
  const content: Support[] = [{ p: '//a.html', d: 'A', s: 'k1', t: 'k' }];
  const redirect: Support[] = [{ p: '/old/a.html', d: 'k', s: 'k1' }];
  it('a mirror, and a prefix on content alone, are copies', () => {
    expect(readsAsCopy('mirror:a.example', [])).toBe(true);
    expect(readsAsCopy('path-prefix:/de/>/', [{ p: '/de/a.html', d: 'A', s: 'k1', t: 'k' }])).toBe(true);
    expect(readsAsCopy('path-prefix:/index.php/>/', [{ p: '/index.php/a.html', d: 'A', s: 'k1', t: 'k' }])).toBe(true);
  });
  it('a prefix its redirects support, or one that only doubles slashes, is not', () => {
    expect(readsAsCopy('path-prefix:/old/>/', redirect)).toBe(false);
    expect(readsAsCopy('path-prefix://>/', content)).toBe(false);
    expect(readsAsCopy('path-prefix:/a//>/a/', content)).toBe(false);
    expect(readsAsCopy('path-prefix:/a///b/>/a/b/', content)).toBe(false);
    // a slash doubled and a segment changed: a second tree
    expect(readsAsCopy('path-prefix:/a//>/b/', content)).toBe(true);
  });
});

describe('rules checked in every new directory (checksEveryPlace)', () => {
  it('a default document learned on content alone; not one a redirect supports, nor another rule', () => {
    expect(checksEveryPlace('default-document:index.html', [{ p: '/a/index.html', d: 'A', s: 'k1', t: 'k' }])).toBe(true);
    expect(checksEveryPlace('default-document:index.html', [{ p: '/a/index.html', d: 'k', s: 'k1' }])).toBe(false);
    expect(checksEveryPlace('default-document:index.html', [])).toBe(false);
    expect(checksEveryPlace('slash-add', [{ p: '/a', d: 'A', s: 'k1', t: 'k' }])).toBe(false);
  });
});
