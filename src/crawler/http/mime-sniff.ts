/**
 * WHATWG MIME Sniffing §7.1 (the HTML patterns): whether a response without Content-Type goes to
 * the link extractor.
 */
import type { BodySink } from './fetch.js';

/** The media types whose bodies are searched for links. */
export const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);
const SNIFF_BYTES = 512;

/**
 * A body sink for a response without Content-Type: the first bytes decide (WHATWG MIME Sniffing
 * §7.1, the HTML patterns) whether the link extractor gets the body.
 */
export class SniffingSink implements BodySink {
  private head: Buffer[] = [];
  private size = 0;
  private target: BodySink | null | undefined;

  constructor(private readonly make: () => BodySink) {}

  private decide(): void {
    const text = Buffer.concat(this.head).toString('latin1').trimStart().slice(0, 16).toLowerCase();
    const html = ['<!doctype html', '<html', '<head', '<body', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a', '<style', '<title', '<b', '<br', '<p', '<!--'].some(
      (t) => text.startsWith(t) && (text.length === t.length || t === '<!--' || /[ >]/.test(text.charAt(t.length))),
    );
    this.target = html ? this.make() : null;
    if (this.target !== null) for (const c of this.head) this.target.write(c);
    this.head = [];
  }

  write(chunk: Buffer): void {
    if (this.target === null) return;
    if (this.target !== undefined) return this.target.write(chunk);
    this.head.push(chunk);
    this.size += chunk.length;
    if (this.size >= SNIFF_BYTES) this.decide();
  }

  end(): void {
    if (this.target === undefined) this.decide();
    this.target?.end();
  }
}
