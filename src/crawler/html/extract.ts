/**
 * Link extraction from HTML with htmlparser2's streaming tokenizer (html-tags.ts: the start tags
 * and text htmlparser2's parser reports, without its element stack): the body is parsed chunk by
 * chunk as it arrives, never held whole.
 *
 * Links (HTML Living Standard): `a[href]`, `area[href]`, `link[href]` with a rel that creates a
 * hyperlink (§4.6.7: `alternate`, `author`, `help`, `license`, `next`, `prev`, `search`,
 * `privacy-policy`, `terms-of-service`; and `canonical`, RFC 6596), never with a rel that names
 * an external resource (`stylesheet`, `icon`, …), `iframe[src]`, `frame[src]`, and
 * `<meta http-equiv=refresh>` (§4.2.5.3, "shared declarative refresh steps"). Each is resolved
 * the way a browser resolves it: WHATWG URL parsing (`resolve(ref, base, { mode: 'html' })`)
 * against the document base URL, which is the frozen base URL of the first `base` element with an
 * `href` (§2.4.1, resolved against the document URL; it applies to links before it too, so
 * resolution waits for the end of the document), else the document URL. Each link is parsed once:
 * its URL record travels with it (`ExtractedLink.record`), so scope and trap rules read the
 * components instead of parsing the href again.
 *
 * Departures: queries are encoded as UTF-8 whatever the document's encoding (the URL Standard
 * uses the document encoding for the query of special URLs); `<meta charset>` is not sniffed (the
 * Content-Type charset or UTF-8 decodes the text; URLs are almost always ASCII).
 *
 * `rel=canonical` is returned as evidence, not merged; `<meta name=robots content=nofollow>` is
 * reported. Bounded work: at most `maxOutlinks` distinct links per page (the rest are counted as
 * dropped) and `maxHrefBytes` of raw reference text kept until the end.
 */
import { pageShape, SHAPE_TEXT_LIMIT, textHashes, textWords, withoutOwnAddress, wordSketch, type RequestedParts } from './page-shape.js';
import { createHash, type Hash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { parseWhatwg, serializeWhatwg, type WhatwgUrl } from '../../normalize/index.js';
import { serializePath } from '../../normalize/whatwg/url-serializer.js';
import type { BodySink } from '../http/fetch.js';
import { HtmlTags } from './html-tags.js';

export type LinkKind = 'a' | 'area' | 'link' | 'iframe' | 'frame' | 'refresh';

export interface ExtractedLink {
  /** The absolute URL, as a browser resolves it (fragment kept). */
  readonly url: string;
  /** The reference as written in the document (entities decoded). */
  readonly raw: string;
  readonly kind: LinkKind;
  /** The URL record `url` serializes (URL Standard §4.1), fragment included. */
  readonly record: Readonly<WhatwgUrl>;
}

export interface ExtractOptions {
  /** Distinct links returned per page; the rest are counted in `dropped`. @default 5000 */
  readonly maxOutlinks?: number;
  /** Raw reference text kept until the end of the document. @default 4 MiB */
  readonly maxHrefBytes?: number;
  /** The document's character encoding (a WHATWG encoding label). @default 'utf-8' */
  readonly charset?: string;
}

export const defaultExtractOptions = {
  maxOutlinks: 5000,
  maxHrefBytes: 4 * 1024 * 1024,
  charset: 'utf-8',
} as const satisfies Required<ExtractOptions>;

export interface ExtractResult {
  /** Distinct http(s) links in document order (by resolved URL). */
  readonly links: readonly ExtractedLink[];
  /** The document base URL the links were resolved against. */
  readonly base: string;
  /** `link rel=canonical`, resolved (evidence only). */
  readonly canonical?: string;
  /** `meta http-equiv=refresh` target, resolved. */
  readonly refresh?: string;
  /** `<meta name=robots>` says nofollow (or none). */
  readonly nofollow: boolean;
  /** References found (every kind, before any filtering). */
  readonly found: number;
  /** References that resolved to a URL already in `links`. */
  readonly repeated: number;
  /** References to other schemes (mailto:, javascript:, data:, ftp:, …): never fetched. */
  readonly otherScheme: number;
  /** References that do not resolve (invalid URLs). */
  readonly invalid: number;
  /** References over `maxOutlinks` or `maxHrefBytes`. */
  readonly dropped: number;
  /**
   * SHA-256 (32 hex) of the document's text nodes, markup and attribute values left out: two pages
   * that differ only in where their links point have the same one (the pattern-trap rule's notion
   * of new content, traps.ts).
   */
  readonly textHash: string;
  /** The text's shape (page-shape.ts): its hash with what echoes the request taken out. */
  readonly shapeHash: string;
  /** The distinct words of its text (page-shape.ts `textWords`): what new text a page brings. */
  readonly words: readonly string[];
  /** A MinHash sketch of those words (page-shape.ts `wordSketch`). */
  readonly wordSketch: string;
  /** Its text, its own address taken out, with runs of digits read as one (page-shape.ts `stableTextHash`). */
  readonly stableHash: string;
  /** Its text, its own address taken out (page-shape.ts `echoFreeTextHash`). */
  readonly echoFreeHash: string;
  /**
   * The stable hash of its main content alone: text and links outside `<aside>` and `<nav>`
   * (HTML §4.3.5: sidebars, advertising; §4.3.4: navigation), where a template draws per-response
   * blocks (random posts, rotating adverts). Present only for a page with such regions and at
   * least `MAIN_MIN_WORDS` words outside them.
   */
  readonly mainHash?: string;
  /**
   * The hash of its first `<title>` (16 hex: the text in lower case, white space collapsed), when
   * it has one: the learner asks whether a page a rule's rewrite answered wears the title of the
   * host's not-found page (learning/not-found.ts).
   */
  readonly titleHash?: string;
}

/** Link types that create hyperlinks on `link` (HTML §4.6.7, its table), `canonical` (RFC 6596), and `previous` (a common synonym of `prev`). */
const LINK_RELS = new Set(['alternate', 'author', 'canonical', 'help', 'license', 'next', 'prev', 'previous', 'privacy-policy', 'search', 'terms-of-service']);
const NOT_PAGES = new Set(['stylesheet', 'icon', 'preload', 'prefetch', 'modulepreload', 'dns-prefetch', 'preconnect', 'manifest']);
/** The elements whose attributes `onOpenTag` reads. */
const LINK_TAGS: ReadonlySet<string> = new Set(['a', 'area', 'link', 'iframe', 'frame', 'base', 'meta']);
/** Regions of content beside the page's own (HTML §4.3.4 `nav`, §4.3.5 `aside`): left out of `mainHash`. */
const ASIDE_TAGS: ReadonlySet<string> = new Set(['aside', 'nav']);
const TAGS: ReadonlySet<string> = new Set([...LINK_TAGS, ...ASIDE_TAGS, 'title']);
/** The end tags the extractor is told of. */
const END_TAGS: ReadonlySet<string> = new Set([...ASIDE_TAGS, 'title']);
/** Characters of a title kept at most. */
const TITLE_LIMIT = 1024;
/** Words of main content below which a page has no `mainHash` (one with nearly all of it aside says nothing alone). */
export const MAIN_MIN_WORDS = 20;
/** Text is hashed in pieces of about this many characters (one `update` per text node costs more than the hashing). */
const TEXT_HASH_PIECE = 16 * 1024;

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isAsciiWhitespace(c: number): boolean {
  return c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
}

/**
 * HTML §4.2.5.3 shared declarative refresh steps: the URL of a `<meta http-equiv=refresh
 * content>` value, or undefined when it has none (a plain reload) or does not parse.
 */
export function parseMetaRefresh(input: string): string | undefined {
  let pos = 0;
  const n = input.length;
  const skipWs = (): void => {
    while (pos < n && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
  };
  // 1-4. skip whitespace; collect the time (digits); a leading "." is allowed
  skipWs();
  const digitsStart = pos;
  while (pos < n && input.charCodeAt(pos) >= 0x30 && input.charCodeAt(pos) <= 0x39) pos++;
  if (pos === digitsStart && input.charCodeAt(pos) !== 0x2e) return undefined;
  // 5. skip digits and dots (the fractional part)
  while (pos < n && ((input.charCodeAt(pos) >= 0x30 && input.charCodeAt(pos) <= 0x39) || input.charCodeAt(pos) === 0x2e)) pos++;
  // 7. no URL: a reload of the same document
  if (pos >= n) return undefined;
  // 8. the time must be followed by ";", "," or whitespace
  const c = input.charCodeAt(pos);
  if (c !== 0x3b && c !== 0x2c && !isAsciiWhitespace(c)) return undefined;
  // 9-10. skip whitespace, one ";" or ",", whitespace
  skipWs();
  if (input.charCodeAt(pos) === 0x3b || input.charCodeAt(pos) === 0x2c) pos++;
  skipWs();
  if (pos >= n) return undefined;
  // 11. urlString starts here
  let urlString = input.slice(pos);
  // 12-13. an optional "URL" (any case), whitespace, "=", whitespace
  if (/^url/i.test(urlString)) {
    let p = pos + 3;
    while (p < n && isAsciiWhitespace(input.charCodeAt(p))) p++;
    if (input.charCodeAt(p) === 0x3d) {
      p++;
      while (p < n && isAsciiWhitespace(input.charCodeAt(p))) p++;
      pos = p;
      urlString = input.slice(pos);
    }
  }
  // 14. skip quotes: a quoted URL ends at the matching quote
  const q = urlString.charCodeAt(0);
  if (q === 0x22 || q === 0x27) {
    const end = urlString.indexOf(String.fromCharCode(q), 1);
    urlString = end === -1 ? urlString.slice(1) : urlString.slice(1, end);
  }
  urlString = urlString.trim();
  return urlString === '' ? undefined : urlString;
}

interface RawRef {
  readonly raw: string;
  readonly kind: LinkKind;
  /** First met inside an `aside` or `nav` region. */
  readonly aside?: true;
}

/** A link of the body, read with its text by the stable hashes (not a head's `link`, not a refresh). */
function inBody(r: RawRef): boolean {
  return r.kind !== 'link' && r.kind !== 'refresh';
}

/** A streaming extractor: write the body's bytes, then `end()` for the links. */
export class LinkExtractor implements BodySink {
  private readonly o: Required<ExtractOptions>;
  private readonly parser: HtmlTags;
  private readonly decoder: TextDecoder;
  private readonly refs: RawRef[] = [];
  private readonly seenRaw = new Set<string>();
  private rawBytes = 0;
  private baseHref: string | undefined;
  private documentParts: RequestedParts | undefined;
  private canonicalRaw: string | undefined;
  private refreshRaw: string | undefined;
  private nofollow = false;
  private found = 0;
  private repeatedRaw = 0;
  private droppedRaw = 0;
  private ended: ExtractResult | undefined;
  private readonly text: Hash = createHash('sha256');
  /** Text not yet given to `text`: its pieces, their length, and whether the last ends in a high surrogate. */
  private readonly textPieces: string[] = [];
  private textPending = 0;
  private textEndsHigh = false;
  /** The first `SHAPE_TEXT_LIMIT` characters of text, for the shape. */
  private readonly shapeText: string[] = [];
  private shapeLength = 0;
  /** Open `aside`/`nav` regions, and whether the page had any; the text outside them (to `SHAPE_TEXT_LIMIT`). */
  private asideDepth = 0;
  private hadAside = false;
  private readonly mainText: string[] = [];
  private mainLength = 0;
  /** The first `<title>`'s text: undefined before it, open while `titleOpen`. */
  private title: string | undefined;
  private titleOpen = false;

  constructor(
    /** The document's URL (after redirects): the fallback base URL. */
    readonly documentUrl: string,
    options: ExtractOptions = {},
  ) {
    this.o = { ...defaultExtractOptions, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(this.o.charset);
    } catch {
      decoder = new TextDecoder('utf-8');
    }
    this.decoder = decoder;
    this.parser = new HtmlTags(TAGS, {
      startTag: (name, attribs) => this.onOpenTag(name, attribs),
      text: (t) => this.addText(t),
      endTag: (name) => {
        if (name === 'title') this.titleOpen = false;
        else if (this.asideDepth > 0) this.asideDepth--;
      },
    }, END_TAGS);
  }

  /**
   * The text hash is of the text's UTF-8, one piece after another: pieces are joined before
   * hashing, except where the join would pair two lone surrogates that were hashed apart (each as
   * U+FFFD).
   */
  private addText(t: string): void {
    if (t.length === 0) return;
    if (this.titleOpen && this.title!.length < TITLE_LIMIT) this.title += t;
    if (this.shapeLength <= SHAPE_TEXT_LIMIT) {
      this.shapeText.push(t);
      this.shapeLength += t.length;
    }
    if (this.asideDepth === 0 && this.mainLength <= SHAPE_TEXT_LIMIT) {
      this.mainText.push(t);
      this.mainLength += t.length;
    }
    if (this.textEndsHigh || this.textPending + t.length > TEXT_HASH_PIECE) this.flushText();
    this.textPieces.push(t);
    this.textPending += t.length;
    this.textEndsHigh = isHighSurrogate(t.charCodeAt(t.length - 1));
  }

  private flushText(): void {
    if (this.textPieces.length > 0) this.text.update(this.textPieces.join(''));
    this.textPieces.length = 0;
    this.textPending = 0;
    this.textEndsHigh = false;
  }

  private add(raw: string | undefined, kind: LinkKind): void {
    if (raw === undefined) return;
    this.found++;
    if (this.seenRaw.has(raw)) {
      this.repeatedRaw++;
      return;
    }
    if (this.rawBytes + raw.length > this.o.maxHrefBytes || this.refs.length >= this.o.maxOutlinks * 4) {
      this.droppedRaw++;
      return;
    }
    this.rawBytes += raw.length;
    this.seenRaw.add(raw);
    this.refs.push(this.asideDepth > 0 ? { raw, kind, aside: true } : { raw, kind });
  }

  private onOpenTag(name: string, a: Record<string, string>): void {
    switch (name) {
      case 'title':
        // the first one: the document's title (HTML §4.2.2; its text is RCDATA, one text run)
        if (this.title === undefined) {
          this.title = '';
          this.titleOpen = true;
        }
        break;
      case 'aside':
      case 'nav':
        this.asideDepth++;
        this.hadAside = true;
        break;
      case 'a':
      case 'area':
        this.add(a['href'], name);
        break;
      case 'link': {
        const href = a['href'];
        if (href === undefined) break;
        const rels = (a['rel'] ?? '').toLowerCase().split(/[\t\n\f\r ]+/).filter((r) => r !== '');
        if (rels.some((r) => NOT_PAGES.has(r)) || !rels.some((r) => LINK_RELS.has(r))) break;
        if (rels.includes('canonical') && this.canonicalRaw === undefined) this.canonicalRaw = href;
        this.add(href, 'link');
        break;
      }
      case 'iframe':
      case 'frame':
        this.add(a['src'], name);
        break;
      case 'base':
        // §2.4.1: the first base element with an href attribute sets the document base URL
        if (this.baseHref === undefined && a['href'] !== undefined) this.baseHref = a['href'];
        break;
      case 'meta': {
        const equiv = (a['http-equiv'] ?? '').trim().toLowerCase();
        if (equiv === 'refresh' && a['content'] !== undefined) {
          const target = parseMetaRefresh(a['content']);
          if (target !== undefined) {
            this.refreshRaw ??= target;
            this.add(target, 'refresh');
          }
        }
        if ((a['name'] ?? '').trim().toLowerCase() === 'robots') {
          const directives = (a['content'] ?? '').toLowerCase().split(/[\s,]+/);
          if (directives.includes('nofollow') || directives.includes('none')) this.nofollow = true;
        }
        break;
      }
      default:
        break;
    }
  }

  write(chunk: Buffer | string): void {
    if (this.ended !== undefined) return;
    this.parser.write(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    if (this.ended !== undefined) return;
    const tail = this.decoder.decode();
    if (tail !== '') this.parser.write(tail);
    this.parser.end();
    this.ended = this.resolveAll();
  }

  /** The links (ends the document if `end()` was not called). */
  result(): ExtractResult {
    if (this.ended === undefined) this.end();
    return this.ended!;
  }

  /** URL Standard "URL parser" of `raw` against the base record; undefined when it fails. */
  private parseOne(raw: string, base: WhatwgUrl): WhatwgUrl | undefined {
    try {
      return parseWhatwg(raw, base);
    } catch {
      return undefined;
    }
  }

  /** The document base URL's record: a string base is parsed once per document, not once per link. */
  private parseBase(base: string): WhatwgUrl | undefined {
    try {
      return parseWhatwg(base);
    } catch {
      return undefined;
    }
  }

  private resolveOne(raw: string, base: WhatwgUrl | undefined): string | undefined {
    const record = base === undefined ? undefined : this.parseOne(raw, base);
    return record === undefined ? undefined : serializeWhatwg(record);
  }

  /**
   * The hashes of the page's text. The stable and echo-free hashes read the links of its body too,
   * after the text: two listings that print the same words and link to other pages (a sort order)
   * are two documents. A `<link>` of the head is left out: `rel=canonical` or `alternate` names the
   * page's other names, not its content.
   */
  private shapeAndWords(): { shapeHash: string; words: string[]; wordSketch: string; stableHash: string; echoFreeHash: string; mainHash?: string; titleHash?: string } {
    const text = this.shapeText.join('').slice(0, SHAPE_TEXT_LIMIT);
    const words = textWords(text);
    const truncated = this.shapeLength > SHAPE_TEXT_LIMIT;
    // each link as written, before links are told apart by the URL they resolve to: the same
    // bytes read alike under every name of the page (a relative link resolves against the name it
    // was requested under: `<a href="/">` is the same URL as the head's `rel=canonical` on one
    // host and not on its mirror, and was dropped as a repeat on the first alone)
    let linked = text;
    for (const r of this.refs) if (inBody(r)) linked += '\n' + r.raw;
    const own = withoutOwnAddress(linked, this.documentUrl, this.documentParts);
    const main = this.hadAside ? this.mainHash() : undefined;
    const title = this.title?.replace(/\s+/g, ' ').trim().toLowerCase();
    const titleHash = title === undefined || title === '' ? undefined : createHash('sha256').update(title).digest('hex').slice(0, 16);
    return { shapeHash: pageShape(text, this.documentParts ?? this.documentUrl, truncated), words, wordSketch: wordSketch(words), ...textHashes(own, truncated), ...(main === undefined ? {} : { mainHash: main }), ...(titleHash === undefined ? {} : { titleHash }) };
  }

  /** The stable hash of the text and links outside `aside` and `nav` (`ExtractResult.mainHash`). */
  private mainHash(): string | undefined {
    const text = this.mainText.join('').slice(0, SHAPE_TEXT_LIMIT);
    if (textWords(text).length < MAIN_MIN_WORDS) return undefined;
    let linked = text;
    for (const r of this.refs) if (inBody(r) && r.aside !== true) linked += '\n' + r.raw;
    return textHashes(withoutOwnAddress(linked, this.documentUrl, this.documentParts), this.mainLength > SHAPE_TEXT_LIMIT).stableHash;
  }

  private textDigest(): string {
    this.flushText();
    return this.text.digest('hex').slice(0, 32);
  }

  private resolveAll(): ExtractResult {
    // §2.4.1 frozen base URL: the base href parsed against the fallback base URL; failure (or a
    // data:/javascript: base, which browsers refuse) leaves the fallback base URL
    let base = this.documentUrl;
    let baseRecord = this.parseBase(base);
    // the page's own path and query, for its shape (page-shape.ts): from this parse, not another
    if (baseRecord !== undefined) this.documentParts = { path: serializePath(baseRecord), query: baseRecord.query ?? '' };
    if (this.baseHref !== undefined && baseRecord !== undefined) {
      const b = this.parseOne(this.baseHref, baseRecord);
      if (b !== undefined && (b.scheme === 'http' || b.scheme === 'https')) {
        base = serializeWhatwg(b);
        // the base as its href, parsed again (and held to the length limit) as before: links
        // resolve against exactly what a string base gives
        baseRecord = this.parseBase(base);
      }
    }
    const links: ExtractedLink[] = [];
    const seen = new Set<string>();
    let repeated = this.repeatedRaw;
    let otherScheme = 0;
    let invalid = 0;
    let dropped = this.droppedRaw;
    for (const ref of this.refs) {
      const record = baseRecord === undefined ? undefined : this.parseOne(ref.raw, baseRecord);
      if (record === undefined) {
        invalid++;
        continue;
      }
      if (record.scheme !== 'http' && record.scheme !== 'https') {
        otherScheme++;
        continue;
      }
      const url = serializeWhatwg(record);
      if (seen.has(url)) {
        repeated++;
        continue;
      }
      if (links.length >= this.o.maxOutlinks) {
        dropped++;
        continue;
      }
      seen.add(url);
      links.push({ url, raw: ref.raw, kind: ref.kind, record });
    }
    const canonical = this.canonicalRaw === undefined ? undefined : this.resolveOne(this.canonicalRaw, baseRecord);
    const refresh = this.refreshRaw === undefined ? undefined : this.resolveOne(this.refreshRaw, baseRecord);
    return {
      links,
      base,
      ...(canonical === undefined ? {} : { canonical }),
      ...(refresh === undefined ? {} : { refresh }),
      nofollow: this.nofollow,
      found: this.found,
      repeated,
      otherScheme,
      invalid,
      dropped,
      textHash: this.textDigest(),
      ...this.shapeAndWords(),
    };
  }
}

/** Extract the links of a whole document at once. */
export function extractLinks(html: string | Buffer, documentUrl: string, options?: ExtractOptions): ExtractResult {
  const x = new LinkExtractor(documentUrl, options);
  x.write(html);
  x.end();
  return x.result();
}
