/**
 * A page's shape: a hash of its text with what echoes the request taken out. Many servers answer
 * a URL that does not exist with one page that repeats the requested path or a request id ("Nothing
 * found for /a/b", "Reference #18.2f…"); its content hash then differs for every URL, and a
 * not-found signature by exact hash never matches (Bar-Yossef et al., "Sic transit gloria telae",
 * WWW 2004, learn the signature from a probe; they note that such pages vary). The shape is that
 * page's text with, in order:
 *
 * 1. the request's path removed, or where the whole path is not printed, its segments; its query
 *    removed, or where it is not printed whole, its values (raw, percent-decoded, and with `-`/`_`
 *    read as spaces, as a slug is printed), in any case: the text is read in lower case (a server
 *    that folds the case of paths prints the path it folded);
 * 2. every token of 16 or more letters and digits, both present, replaced by `~` (a request id in
 *    hex, `7f3a09c2…`, which digits alone would leave half in place). Steps 1 and 2 read the text
 *    as it came: an echo is not looked for inside a token (a segment `da` inside an id `…cda42…`),
 *    unless it covers the whole token (a session id printed back);
 * 3. every run of digits replaced by `#` (request ids, times, counters);
 * 4. runs of white space collapsed.
 *
 * Two answers with one shape are the same page but for the echo. The learner uses the shape only
 * to tell the not-found page (learning/not-found.ts): never to call two documents equal.
 */
import { createHash } from 'node:crypto';
import { looksMinted } from '../../normalize/index.js';
import { nodeUrl } from '../../normalize/parse-count.js';

/** Text kept for the shape, at most (a not-found page is small; a longer page is a document). */
export const SHAPE_TEXT_LIMIT = 64 * 1024;

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** A requested URL's path and query (without the `?`), as its parsed record has them. */
export interface RequestedParts {
  readonly path: string;
  readonly query: string;
}

/**
 * What of `url` a server may echo, in two rounds each longest first: the whole path and the whole
 * query, then its segments and its query values. The parts are read only where their whole was
 * not printed: a page that echoes `/blog/search` has said what it echoes, and the word `search`
 * elsewhere on it is its template's ("Maybe try a search?"), the same on every not-found answer.
 */
function echoes(url: string | RequestedParts): { wholes: string[]; parts: string[] }[] {
  let path = '';
  let query = '';
  if (typeof url === 'string') {
    try {
      const u = nodeUrl(url);
      path = u.pathname;
      query = u.search.slice(1);
    } catch {
      return [];
    }
  } else {
    path = url.path;
    query = url.query;
  }
  const forms = (list: string[]): string[] => {
    const out = new Set<string>();
    for (const s of list) {
      if (s.length < 2) continue;
      out.add(s);
      const d = decoded(s);
      out.add(d);
      out.add(d.replace(/[-_]+/g, ' '));
    }
    return [...out].filter((s) => s.trim().length >= 2).sort((a, b) => b.length - a.length);
  };
  const values = query.split('&').map((field) => {
    const eq = field.indexOf('=');
    return eq === -1 ? field : field.slice(eq + 1);
  });
  return [
    { wholes: forms([path, path.replace(/^\/+|\/+$/g, '')]), parts: forms(path.split('/')) },
    // the query with its `?`, as a page prints the URL it was asked (a probe has none to print)
    { wholes: forms(query === '' ? [] : [`?${query}`, query]), parts: forms(values) },
  ];
}

/** A run of this many token characters (`[A-Za-z0-9_-]`) or more may be a token a server minted. */
const TOKEN_RUN = 16;

function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/** The maximal runs of `TOKEN_RUN` token characters or more in `t` that `looksMinted` calls a token: [start, end). */
function mintedRuns(t: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < t.length; ) {
    if (!isTokenChar(t.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < t.length && isTokenChar(t.charCodeAt(j))) j++;
    if (j - i >= TOKEN_RUN && looksMinted(t.slice(i, j))) out.push([i, j]);
    i = j;
  }
  return out;
}

/** The shape of a page's `text` requested as `url` (or its path and query: 32 hex digits). */
export function pageShape(text: string, url: string | RequestedParts, truncated = false): string {
  // in lower case (step 1 read case-insensitively): a server that folds the case of paths prints
  // the path as it folded it ("Nothing found for /library/x" asked as `/Library/X`)
  const t = text.toLowerCase();
  // steps 1 and 2 on the text as it came, each character taken by one of them at most: an echo
  // inside a minted token is no echo (a segment `da` in the request id `…18cda42e…` would cut the
  // id into runs too short to read as a token, and the shape would vary with the id)
  const runs = mintedRuns(t);
  const cut = new Uint8Array(t.length); // 1: an echo, 2: a token
  for (const [a, b] of runs) cut.fill(2, a, b);
  const cutAll = (e: string): boolean => {
    const l = e.toLowerCase();
    let found = false;
    for (let at = t.indexOf(l); at !== -1; at = t.indexOf(l, at + 1)) {
      const end = at + l.length;
      if (takenWithin(cut, runs, at, end)) continue;
      cut.fill(1, at, end);
      found = true;
      at = end - 1;
    }
    return found;
  };
  for (const { wholes, parts } of echoes(url)) {
    let whole = false;
    for (const e of wholes) whole = cutAll(e) || whole;
    if (!whole) for (const e of parts) cutAll(e);
  }
  let out = '';
  for (let i = 0; i < t.length; ) {
    const c = cut[i]!;
    let j = i + 1;
    while (j < t.length && cut[j] === c) j++;
    out += c === 0 ? t.slice(i, j) : c === 1 ? ' ' : '~';
    i = j;
  }
  out = out.replace(/[0-9]+/g, '#').replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(truncated ? `${out}\u0000…` : out).digest('hex').slice(0, 32);
}

/**
 * True when `[at, end)` may not be read as an echo: it overlaps one read already, or lies in part
 * of a minted token without covering all of it (an echo that is the whole token, a probe's name
 * or a session id printed back, is an echo).
 */
function takenWithin(cut: Uint8Array, runs: readonly [number, number][], at: number, end: number): boolean {
  for (let i = at; i < end; i++) if (cut[i] === 1) return true;
  for (const [a, b] of runs) {
    if (b <= at) continue;
    if (a >= end) break;
    if (!(at <= a && b <= end)) return true;
  }
  return false;
}

/**
 * The hash of a page's text (`withoutOwnAddress`) with every run of digits read as one (`#`) and
 * white space collapsed (16 hex digits): a page template that prints a fresh time or counter on
 * every response keeps it, and markup (a hidden CSRF field, a script nonce) is not text. The
 * learner compares it only where a URL fetched twice gave two content hashes and one stable hash
 * (learning/learner.ts): there it is what stays the same between two fetches.
 */
export function stableTextHash(text: string, truncated = false): string {
  return textHash(collapsed(text).replace(/[0-9]+/g, '#'), truncated);
}

/** `text` with runs of white space read as one space, trimmed. */
function collapsed(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function textHash(t: string, truncated: boolean): string {
  return createHash('sha256').update(truncated ? `${t}\u0000…` : t).digest('hex').slice(0, 16);
}

/**
 * `stableTextHash` and `echoFreeTextHash` of one text, its white space collapsed once (digits and
 * `#` are not white space: reading digits as `#` before or after collapsing gives one string).
 */
export function textHashes(text: string, truncated = false): { stableHash: string; echoFreeHash: string } {
  const t = collapsed(text);
  return { stableHash: textHash(t.replace(/[0-9]+/g, '#'), truncated), echoFreeHash: textHash(t, truncated) };
}

/**
 * The forms in which a page prints the address it was requested under: the absolute URL and its
 * target (path and query), raw, percent-encoded as a query value (`tweet?url=http%3A%2F%2F…`, a
 * share widget's link) and percent-decoded; and the same of its bare form, without query and
 * segment parameters (a page's link to itself: `/a` on `/a?utm_source=x` as on `/a`). Longest
 * first.
 */
function ownAddress(url: string, parts?: RequestedParts): string[] {
  let path: string;
  let search: string;
  let origin: string;
  if (parts !== undefined) {
    // the record the extractor parsed already (no parse again): the origin is what precedes the path
    path = parts.path;
    search = parts.query === '' ? '' : '?' + parts.query;
    const at = url.indexOf('/', url.indexOf('//') + 2);
    origin = at === -1 ? url : url.slice(0, at);
  } else {
    try {
      const u = nodeUrl(url);
      path = u.pathname;
      search = u.search;
      origin = u.origin;
    } catch {
      return [];
    }
  }
  const target = path + search;
  const bare = path.indexOf(';') === -1 ? path : path.split('/').map((s) => s.split(';')[0]).join('/');
  const out = new Set<string>();
  for (const s of [url, target, origin + bare, bare]) {
    if (s.length < 2) continue;
    out.add(s);
    out.add(encodeURIComponent(s));
    out.add(decoded(s));
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * The hash of a page's text (`withoutOwnAddress`: the address it was requested under taken
 * out), every other character kept (16 hex digits): a share widget or an `og:url` printed from
 * the request (session ids and tracking tags included) makes two names of one document differ in
 * their bytes, not in this. The learner compares it where content hashes differ (learning/learner.ts): two
 * pages equal on it differ in nothing but the address each prints of itself.
 */
export function echoFreeTextHash(text: string, truncated = false): string {
  return textHash(collapsed(text), truncated);
}

/**
 * What continues a URL printed raw (a character), and one printed percent-encoded as a query value
 * (an encoded `/`, `?`, `#`, `&`, `=`: a longer URL). Text pieces are joined without a separator,
 * so a letter after an encoded URL may be the next element's text: only those continue it.
 */
const RAW_URL_CHAR = /[A-Za-z0-9\-._~%/;?#=+:@!$'()*,&]/;
const ENCODED_URL_GOES_ON = /^%(2F|3F|23|26|3D)/i;

/**
 * `text` with the address `url` it was requested under taken out (`ownAddress`), for the two
 * hashes above and below: each whole occurrence, not one that goes on as a longer URL (`/a` in a
 * link to `/a/b` stays, so two directory pages that link to their own children never read alike).
 */
export function withoutOwnAddress(text: string, url: string, parts?: RequestedParts): string {
  let t = text;
  for (const e of ownAddress(url, parts)) {
    if (!t.includes(e)) continue;
    const encoded = e.includes('%') && !e.includes('/');
    let out = '';
    let from = 0;
    for (let at = t.indexOf(e); at !== -1; at = t.indexOf(e, at + e.length)) {
      const end = at + e.length;
      if (encoded ? ENCODED_URL_GOES_ON.test(t.slice(end, end + 3)) : end < t.length && RAW_URL_CHAR.test(t.charAt(end))) continue;
      out += t.slice(from, at) + ' ';
      from = at + e.length;
    }
    t = out + t.slice(from);
  }
  return t;
}

/** Words a page brings at most (its first distinct ones). */
const MAX_WORDS = 4096;

/**
 * The distinct words of a text: runs of letters of at least three, lower-cased, digits left out
 * (a printed date or counter is no new text). The pattern-trap rule counts how many a page adds to
 * what its host has shown (traps.ts).
 */
export function textWords(text: string): string[] {
  // the runs of `\p{L}{3,}` (three code points or more), found by a scan: a page's text is read
  // once, character by character, and a regular expression's match objects cost more than the words
  const t = text.toLowerCase();
  const out = new Set<string>();
  let start = 0;
  let run = 0;
  for (let i = 0; i <= t.length; ) {
    let c = i < t.length ? t.charCodeAt(i) : -1;
    let size = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      c = t.codePointAt(i)!;
      if (c > 0xffff) size = 2;
    }
    if (c !== -1 && isLetter(c)) {
      if (run++ === 0) start = i;
    } else {
      if (run >= 3) {
        out.add(t.slice(start, i));
        if (out.size >= MAX_WORDS) break;
      }
      run = 0;
    }
    i += size;
  }
  return [...out];
}

const LETTER = /^\p{L}$/u;
/** Whether each non-ASCII code point seen is a letter (`\p{L}`); a text uses few of them. */
const letters = new Map<number, boolean>();

function isLetter(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  let v = letters.get(c);
  if (v === undefined) {
    v = LETTER.test(String.fromCodePoint(c));
    if (letters.size < 65_536) letters.set(c, v);
  }
  return v;
}

/** Minimum hashes in a word sketch. */
const SKETCH_HASHES = 8;

/**
 * A MinHash sketch of a page's words (Broder, "On the resemblance and containment of documents",
 * 1997): for each of 8 hash functions, the least hash over the words, as 8 hex digits each. The
 * share of equal positions of two sketches estimates the Jaccard similarity of their word sets.
 * The learner uses it only to see a large difference where a per-response token keeps content
 * hashes from ever being equal (learning/learner.ts): never to call two pages the same.
 */
export function wordSketch(words: readonly string[]): string {
  if (words.length === 0) return '';
  const mins = new Array<number>(SKETCH_HASHES).fill(0xffffffff);
  for (const w of words) {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    for (let k = 0; k < SKETCH_HASHES; k++) {
      // a family of hash functions from one: mix in k (murmur3's finalizer)
      let x = (h ^ Math.imul(k + 1, 0x9e3779b9)) >>> 0;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
      x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
      x = (x ^ (x >>> 16)) >>> 0;
      if (x < mins[k]!) mins[k] = x;
    }
  }
  return mins.map((m) => m.toString(16).padStart(8, '0')).join('');
}
