/**
 * Line-oriented stdin → stdout plumbing for the pipeline commands: one output line per input line,
 * in order, constant memory, honouring backpressure.
 *
 * Input lines are read as bytes and decoded as UTF-8 (RFC 3629). A line that is not UTF-8 is never
 * decoded with U+FFFD replacements (which would give `caf\xE9` and `caf\xE8` one key): it comes as an
 * `InvalidUtf8Line` holding its bytes, and the commands answer it with `!ERR_INVALID_UTF8<TAB>`
 * and the bytes percent-encoded (`displayBytes`).
 */
import type { Readable, Writable } from 'node:stream';

/** Buffered writer: collects lines and writes in ~64 KiB chunks, waiting for 'drain' when asked to. */
export class LineWriter {
  private buffer: string[] = [];
  private size = 0;
  constructor(private readonly out: Writable, private readonly chunk = 64 * 1024) {}

  async write(line: string): Promise<void> {
    this.buffer.push(line);
    this.size += line.length + 1;
    if (this.size >= this.chunk) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('\n') + '\n';
    this.buffer = [];
    this.size = 0;
    if (!this.out.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => { cleanup(); resolve(); };
        const onError = (e: Error) => { cleanup(); reject(e); };
        const cleanup = () => { this.out.off('drain', onDrain); this.out.off('error', onError); };
        this.out.once('drain', onDrain);
        this.out.once('error', onError);
      });
    }
  }
}

/** An input line whose bytes are not UTF-8 (RFC 3629): kept as bytes, never decoded with replacements. */
export class InvalidUtf8Line {
  constructor(readonly bytes: Uint8Array) {}
}

/** The error code of an `InvalidUtf8Line`: the CLI's own, not a `UrlErrorCode` (the service answers it too). */
export const INVALID_UTF8 = 'ERR_INVALID_UTF8';

/**
 * An input line longer than the reader's limit: never held whole (the commands promise constant
 * memory), only its first bytes, for the error line, and its length.
 */
export class TooLongLine {
  constructor(
    /** Its first `TOO_LONG_HEAD` bytes, shown as `displayBytes` does. */
    readonly head: string,
    /** Its length in bytes. */
    readonly bytes: number,
  ) {}
}

/** The error code of a `TooLongLine` (a `UrlErrorCode`). */
export const TOO_LONG = 'ERR_TOO_LONG';

/** Bytes of a too-long line kept to show. */
const TOO_LONG_HEAD = 64;

/** The longest line, in bytes, that can hold `maxLength` UTF-16 code units (3 UTF-8 bytes each at most). */
export function lineBytesFor(maxLength: number): number {
  return 3 * maxLength;
}

/** An input shown in an error line: whole, or its start and its length when it is long. */
export function shownInput(input: string, max = 256): string {
  return input.length <= max ? input : `${input.slice(0, max)}… (${input.length} characters)`;
}

const HEX = '0123456789ABCDEF';

/**
 * Bytes for display, exactly and reversibly: printable ASCII other than `%` as itself, every other
 * byte (controls, space, `%`, and every byte ≥ 0x80) as `%XX` (RFC 3986 §2.1, uppercase).
 */
export function displayBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b > 0x20 && b < 0x7f && b !== 0x25 ? String.fromCharCode(b) : '%' + HEX[b >> 4]! + HEX[b & 15]!;
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A line's text, or its bytes when they are not UTF-8. */
function decodeLine(bytes: Buffer): string | InvalidUtf8Line {
  const text = bytes.toString('utf8');
  // U+FFFD in the result: a replacement, or a real U+FFFD (EF BF BD) in the input; ask the strict decoder
  if (!text.includes('\uFFFD')) return text;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return new InvalidUtf8Line(Uint8Array.from(bytes));
  }
}

/**
 * The input's lines, without their line terminators (LF, CR LF, or a lone CR, as readline splits
 * them; a final line with no newline counts too), each UTF-8 text or an `InvalidUtf8Line`; a line
 * longer than `maxBytes` is a `TooLongLine`, known as such while it is read: memory stays within
 * `maxBytes` (plus a chunk) whatever the input, and time linear in it.
 */
export async function* readLines(input: Readable, maxBytes = Infinity): AsyncGenerator<string | InvalidUtf8Line | TooLongLine> {
  // the start of a line that goes on in the next chunk: its pieces (copied), and their length
  let parts: Buffer[] = [];
  let partsLength = 0;
  let head: Buffer | undefined; // a too-long line: its first bytes, kept to show
  let afterCr = false; // the last chunk ended in CR: a LF starting this one belongs to it
  const take = (piece: Buffer): void => {
    if (head !== undefined) {
      partsLength += piece.length;
      return;
    }
    if (partsLength + piece.length > maxBytes) {
      head = Buffer.concat([...parts, piece.subarray(0, TOO_LONG_HEAD)]).subarray(0, TOO_LONG_HEAD);
      parts = [];
      partsLength += piece.length;
      return;
    }
    parts.push(Buffer.from(piece));
    partsLength += piece.length;
  };
  const finish = (): string | InvalidUtf8Line | TooLongLine => {
    const line = head !== undefined ? new TooLongLine(displayBytes(head), partsLength) : decodeLine(parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsLength));
    parts = [];
    partsLength = 0;
    head = undefined;
    return line;
  };
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    if (afterCr && buf.length > 0 && buf[0] === 0x0a) start = 1;
    afterCr = false;
    for (let i = start; i < buf.length; i++) {
      const b = buf[i];
      if (b !== 0x0a && b !== 0x0d) continue;
      take(buf.subarray(start, i));
      yield finish();
      if (b === 0x0d) {
        if (i + 1 < buf.length) {
          if (buf[i + 1] === 0x0a) i++;
        } else afterCr = true;
      }
      start = i + 1;
    }
    if (start < buf.length) take(buf.subarray(start));
  }
  if (partsLength > 0) yield finish();
}
