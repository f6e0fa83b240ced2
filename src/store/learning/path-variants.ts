/**
 * Path variants: two names of one document that differ only in the last segment's suffix
 * (`/a/b.htm` and `/a/b.html`; `/a/b` and `/a/b.html`; a negotiated `/index.html` and its
 * variant `/index.html.en`) or only in the case of letters (`/Docs/A.html` on a server whose file
 * system folds case). RFC 3986 §6.2.4 leaves both to the server: a path is case-sensitive and a
 * suffix is part of the name, so a learner may merge them only where the host showed it.
 *
 * - Apache `mod_negotiation` MultiViews serves `/index.html` from `index.html.en` and names it in
 *   `Content-Location`; `Options +MultiViews` serves `/a` from `a.html`. IIS and Windows file
 *   systems, and macOS's default volumes, answer a path in any case.
 * - A suffix rule names one pair of suffixes (`.htm` → `.html`), never a family: a host that
 *   serves `.en` variants says nothing about `.de`, and `.html` twins say nothing of `.php`.
 */
import { bareParameterPath } from './parameter-difference.js';

/**
 * A suffix: up to two extensions of letters, digits, `_` or `-`, each with a letter (`.html`,
 * `.html.en`, `.tar.gz`, `.mp3`), or none. An extension of digits alone is a version in the name
 * (`3.10.html` beside `3.9.html`, `release-1.2.tar`), another document, not a variant.
 */
const SUFFIX = /^(\.(?=[0-9_-]*[A-Za-z])[A-Za-z0-9_-]{1,10}){0,2}$/;

/** True when a suffix has two extensions (`.de.html`). */
function twoExtensions(suffix: string): boolean {
  return suffix.lastIndexOf('.') > 0;
}

/** The path with ASCII letters lower-cased, percent-encoded octets kept (RFC 3986 §6.2.2.1 keeps their hex upper-case). */
export function foldCase(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x25 /* % */) {
      out += path.slice(i, i + 3);
      i += 2;
    } else out += c >= 0x41 && c <= 0x5a ? String.fromCharCode(c + 32) : path[i];
  }
  return out;
}

/** The path's stem: its last segment cut at the segment's first `.` (`/a/b.html.en` → `/a/b`). */
export function stemOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.indexOf('.', slash + 1);
  return dot === -1 ? path : path.slice(0, dot);
}

/** A suffix pair `from` → `to`: `from` is replaced by `to` at the end of a path. */
export interface SuffixPair {
  readonly from: string;
  readonly to: string;
}

/**
 * The suffix pair that maps one of two paths onto the other, when they differ only in the last
 * segment's suffix; `undefined` otherwise. The direction is fixed by the suffixes, not by which
 * was seen first, so one pair has one rule: a name without extension goes onto the file's name
 * (`/a` → `/a.html`); where one suffix extends the other (`.html`/`.html.en`), the shorter is the
 * canonical name (the one a negotiating server answers for); between two others (`.htm`/`.html`),
 * the greater in code-unit order.
 */
export function suffixPair(a: string, b: string): SuffixPair | undefined {
  if (a === b || bareParameterPath(a) !== a || bareParameterPath(b) !== b) return undefined;
  const slash = a.lastIndexOf('/');
  if (slash !== b.lastIndexOf('/') || a.slice(0, slash) !== b.slice(0, slash)) return undefined;
  // the longest common prefix of the two last segments, cut where both remainders start a suffix
  let n = slash + 1;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  const boundary = (i: number): boolean => (i === a.length || a[i] === '.') && (i === b.length || b[i] === '.');
  while (n > slash + 1 && !boundary(n)) n--;
  if (n <= slash + 1 || a[n - 1] === '.') return undefined; // no stem left
  const sa = a.slice(n);
  const sb = b.slice(n);
  if (!SUFFIX.test(sa) || !SUFFIX.test(sb)) return undefined;
  // a name without extension onto the file's name: a catch-all route (a CMS, a soft 404) answers
  // any extension-less name, so that is the name a rewrite must not land on
  const dot = a.indexOf('.', slash + 1);
  const extensionless = dot === -1 || dot >= n; // the stem has no `.` of its own
  if (extensionless && sa === '') return { from: sa, to: sb };
  if (extensionless && sb === '') return { from: sb, to: sa };
  // one extends the other by whole extensions (`.html` → `.html.en`; not `.htm` → `.html`)
  if (sb.startsWith(sa) && sb[sa.length] === '.') return { from: sb, to: sa };
  if (sa.startsWith(sb) && sa[sb.length] === '.') return { from: sa, to: sb };
  // two suffixes of two extensions each (`.en.html` and `.de.html`: two values of one slot, two
  // documents a language or a format tells apart), or one of two extensions beside another than
  // its tail (`curses.panel.htm` beside `curses.html`: another page whose name extends the stem)
  const ma = twoExtensions(sa);
  const mb = twoExtensions(sb);
  if (ma && mb) return undefined;
  if (ma !== mb && !(ma ? sa.endsWith(sb) : sb.endsWith(sa))) return undefined;
  return sa < sb ? { from: sa, to: sb } : { from: sb, to: sa };
}

/**
 * True when `pair` maps `path`: its last segment ends in `from` after a stem of its own (for an
 * empty `from`, a last segment without a `.`, as a server that redirects `/a` → `/a.html` maps).
 */
export function suffixApplies(pair: SuffixPair, path: string): boolean {
  if (bareParameterPath(path) !== path) return false;
  const slash = path.lastIndexOf('/');
  if (pair.from === '') return path.length > slash + 1 && path.indexOf('.', slash + 1) === -1;
  if (!path.endsWith(pair.from)) return false;
  const stemEnd = path.length - pair.from.length;
  return stemEnd > slash + 1 && path[stemEnd - 1] !== '.';
}

/**
 * The stem kind of a path under a suffix pair, the kind of a suffix rule's evidence (rule-scope.ts):
 * `dotted` when the name left once `pair.from` is cut has a `.` of its own (`/a.en` of
 * `/a.en.html`), `plain` otherwise (`/a` of `/a.html`). `.html` cut from `/a.en.html` names the
 * negotiated `/a.en`; cut from `/a.html` it names `/a`, which a server may route elsewhere (a
 * CMS's catch-all): evidence of one kind says nothing about the other.
 *
 * Where the pair cuts a name down to its stem or extends a stem (one side empty), the stem's own
 * last extension is the kind (`dotted.en`): the negotiated `/a.en` and `/a.de` say nothing about
 * `/3.5` of `/whatsnew/3.5.html` or `/os.path` of `/library/os.path.html`, a version and a module
 * whose names hold a dot and which no server negotiates.
 */
export function suffixStemKind(pair: SuffixPair, path: string): string {
  const slash = path.lastIndexOf('/');
  const stem = path.slice(slash + 1, path.length - pair.from.length);
  const dot = stem.lastIndexOf('.');
  if (dot === -1) return 'plain';
  return pair.from === '' || pair.to === '' ? `dotted${stem.slice(dot)}` : 'dotted';
}

/** `path` with `pair.from` replaced by `pair.to` (`suffixApplies` must hold). */
export function applySuffix(pair: SuffixPair, path: string): string {
  return path.slice(0, path.length - pair.from.length) + pair.to;
}

/**
 * True when `from` → `to` is a suffix pair, in either direction (a rule spec's check): content
 * pairs give the canonical direction, a server's redirects give its own.
 */
export function isSuffixPair(from: string, to: string): boolean {
  const p = suffixPair('/x' + from, '/x' + to);
  return p !== undefined && ((p.from === from && p.to === to) || (p.from === to && p.to === from));
}

/**
 * The case shape of a path, the kind of a case rule's evidence (rule-scope.ts): `word` when each
 * run of letters with an upper-case letter is all upper-case or capitalized (`/FAQ.html`,
 * `/Docs/Intro.html`: the names people give files, which a server may hold beside their
 * lower-case namesakes, as Apache `mod_speling` does with `CheckCaseOnly`), `mixed` otherwise
 * (`/quicK-Start.html`: a name nobody gives a second file). Evidence of one shape says nothing
 * about the other: aliases with random case never show that `FAQ.html` and `faq.html` are one.
 */
export function caseShape(path: string): 'word' | 'mixed' {
  const runs = path.match(/[A-Za-z]+/g) ?? [];
  for (const run of runs) {
    if (!/[A-Z]/.test(run)) continue;
    if (!/^[A-Z][a-z]*$/.test(run) && !/^[A-Z]+$/.test(run)) return 'mixed';
  }
  return 'word';
}

/** True when the case-insensitive rule maps `path`: it has an upper-case letter outside a percent-encoding, and no segment parameters. */
export function caseApplies(path: string): boolean {
  return bareParameterPath(path) === path && foldCase(path) !== path;
}

/** `path` with each run of slashes read as one (nginx `merge_slashes`): `/a//b` → `/a/b`. */
export function mergeSlashes(path: string): string {
  return path.replace(/\/{2,}/g, '/');
}

/** True when `long` is `short` with empty segments inserted (`/a//b` and `/a/b`): the `merge-slashes` rule maps one onto the other. */
export function slashesMergeTo(long: string, short: string): boolean {
  return long.includes('//') && mergeSlashes(long) === short;
}

/**
 * The name of a case probe (case-probe.ts): capitalized words (`word`-shaped) no server has a
 * file for, followed by a hash.
 */
export const CASE_PROBE_SEGMENT = 'Urldedup-Not-Found-';

/** True when `path` is a case probe's. */
export function isCaseProbe(path: string): boolean {
  return path.startsWith(CASE_PROBE_SEGMENT, path.lastIndexOf('/') + 1);
}

/**
 * The `Support.v` of a case probe the host redirected to its lower-case name: no evidence of a
 * document, but of the place (`caseProbePlace`), where every capitalized name is redirected.
 */
export const CASE_FOLDED = 'folded';

/**
 * The place a case probe answers for: the first directory of the path, its case folded
 * (`/Ref/models/A.html` → `/ref/`; `/A.html` → `/`, the root's own files).
 */
export function caseProbePlace(path: string): string {
  const folded = foldCase(path);
  const slash = folded.indexOf('/', 1);
  return slash === -1 ? '/' : folded.slice(0, slash + 1);
}
