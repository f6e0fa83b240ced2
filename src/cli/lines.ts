/**
 * Line-oriented stdin → stdout plumbing for the pipeline commands: one output line per input line,
 * in order, constant memory, honouring backpressure.
 */
import { createInterface } from 'node:readline';
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

/** The input's lines, without their line terminators (a final line with no newline counts too). */
export function readLines(input: Readable): AsyncIterable<string> {
  return createInterface({ input, crlfDelay: Infinity, terminal: false });
}
