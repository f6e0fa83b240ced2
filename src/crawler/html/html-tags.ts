/**
 * The start tags and the text of an HTML document, straight from htmlparser2's tokenizer: what
 * htmlparser2's `Parser` gives `onopentag` and `ontext` with `decodeEntities`, `lowerCaseTags` and
 * `lowerCaseAttributeNames`, without the parser's element stack (implied end tags, void and
 * foreign elements: none of it changes a start tag's name or attributes, or the text) and
 * without an attribute object for every tag: only the tags `wants` names collect theirs.
 *
 * As in the parser: names are lowercased; an attribute's first occurrence wins; a start tag is
 * reported when its `>` (or `/>`) is read, never for a tag cut off by the end of the document;
 * character references in text and attribute values are decoded by the tokenizer; the text of
 * comments, CDATA sections, declarations and processing instructions is not text.
 */
import { Tokenizer, type QuoteType, type TokenizerCallbacks } from 'htmlparser2';

export interface HtmlTagSink {
  /** A start tag whose name `wants` holds, with its attributes. */
  startTag(name: string, attributes: Readonly<Record<string, string>>): void;
  /** A piece of text (in document order; pieces are not whole text nodes). */
  text(data: string): void;
  /** An end tag whose name `ends` holds (no element stack: as written, implied ends not reported). */
  endTag?(name: string): void;
}

export class HtmlTags implements TokenizerCallbacks {
  private readonly tokenizer: Tokenizer;
  /** The chunks not yet read past, and the document offset of the first (htmlparser2's `getSlice`). */
  private readonly buffers: string[] = [];
  private bufferOffset = 0;
  private tagName = '';
  /** The attributes of the current start tag, when `wants` has its name. */
  private attributes: Record<string, string> | undefined;
  private attributeName = '';
  private attributeValue = '';
  private ended = false;

  /** The lengths of the names in `ends`: most end tags are told apart without reading their name. */
  private readonly endLengths: ReadonlySet<number>;

  constructor(
    private readonly wants: ReadonlySet<string>,
    private readonly sink: HtmlTagSink,
    private readonly ends: ReadonlySet<string> = new Set(),
  ) {
    this.tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, this);
    this.endLengths = new Set([...ends].map((n) => n.length));
  }

  write(chunk: string): void {
    if (this.ended) return;
    this.buffers.push(chunk);
    this.tokenizer.write(chunk);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.tokenizer.end();
  }

  private slice(start: number, end: number): string {
    while (start - this.bufferOffset >= this.buffers[0]!.length) this.shiftBuffer();
    let s = this.buffers[0]!.slice(start - this.bufferOffset, end - this.bufferOffset);
    while (end - this.bufferOffset > this.buffers[0]!.length) {
      this.shiftBuffer();
      s += this.buffers[0]!.slice(0, end - this.bufferOffset);
    }
    return s;
  }

  private shiftBuffer(): void {
    this.bufferOffset += this.buffers[0]!.length;
    this.buffers.shift();
  }

  // ---- the tokenizer's callbacks ---------------------------------------------------------------

  /** @internal */
  ontext(start: number, endIndex: number): void {
    this.sink.text(this.slice(start, endIndex));
  }

  /** @internal */
  ontextentity(codepoint: number): void {
    this.sink.text(String.fromCodePoint(codepoint));
  }

  /** @internal */
  onopentagname(start: number, endIndex: number): void {
    const name = this.slice(start, endIndex).toLowerCase();
    this.tagName = name;
    this.attributes = this.wants.has(name) ? {} : undefined;
  }

  /** @internal */
  onattribname(start: number, endIndex: number): void {
    if (this.attributes !== undefined) this.attributeName = this.slice(start, endIndex).toLowerCase();
  }

  /** @internal */
  onattribdata(start: number, endIndex: number): void {
    if (this.attributes !== undefined) this.attributeValue += this.slice(start, endIndex);
  }

  /** @internal */
  onattribentity(codepoint: number): void {
    if (this.attributes !== undefined) this.attributeValue += String.fromCodePoint(codepoint);
  }

  /** @internal */
  onattribend(_quote: QuoteType, _endIndex: number): void {
    const a = this.attributes;
    if (a === undefined) return;
    if (!Object.prototype.hasOwnProperty.call(a, this.attributeName)) a[this.attributeName] = this.attributeValue;
    this.attributeValue = '';
  }

  /** @internal */
  onopentagend(): void {
    this.startTagEnd();
  }

  /** @internal */
  onselfclosingtag(): void {
    this.startTagEnd();
  }

  private startTagEnd(): void {
    const a = this.attributes;
    if (a === undefined) return;
    this.attributes = undefined;
    this.sink.startTag(this.tagName, a);
  }

  /** @internal */
  onclosetag(start: number, endIndex: number): void {
    if (this.sink.endTag === undefined || !this.endLengths.has(endIndex - start)) return;
    const name = this.slice(start, endIndex).toLowerCase();
    if (this.ends.has(name)) this.sink.endTag(name);
  }
  /** @internal */
  oncomment(): void {}
  /** @internal */
  oncdata(): void {}
  /** @internal */
  ondeclaration(): void {}
  /** @internal */
  onprocessinginstruction(): void {}
  /** @internal */
  onend(): void {}
}
