// The line commands promise constant memory (docs/cli.md): a line past the longest input accepted
// is known as such while it is read, never held whole, and its error line shows its start and its
// length, not the line. A 64 MiB line once took quadratic time (a 128 MiB one: 101 s, 737 MB).
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runLineCommand } from '../../src/cli/line-command.js';
import { readLines, TooLongLine } from '../../src/cli/lines.js';
import { measureRss } from '../support/rss-sampler.js';

/** `size` bytes of one line, in 64 KiB chunks, then a newline and a URL. */
function hugeLineThen(size: number, after: string): Readable {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.push(`\n${after}\n`);
        this.push(null);
        return;
      }
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

describe('long lines', () => {
  it('a 64 MiB line: one short error line, the next line keyed, in linear time and bounded memory', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const t = performance.now();
    const { value: code, rss } = await measureRss(() => runLineCommand({ command: 'key', json: false, normalize: {} }, hugeLineThen(64 * 2 ** 20, 'http://after.example/'), out));
    const seconds = (performance.now() - t) / 1000;
    console.log(`64 MiB line: ${seconds.toFixed(2)} s, peak RSS +${(rss.deltaBytes / 2 ** 20).toFixed(1)} MiB`);
    expect(code).toBe(1);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^!ERR_TOO_LONG\ta{64}… \(67108864 bytes\)$/);
    expect(lines[1]).toBe('example,after)http:///');
    expect(seconds).toBeLessThan(20);
    expect(rss.deltaBytes).toBeLessThan(48 * 2 ** 20);
  }, 60_000);

  it('a line just past the limit is too long; one at the limit is read whole', async () => {
    const lines: unknown[] = [];
    for await (const l of readLines(Readable.from([Buffer.from('abc\nabcd\r\nab'), Buffer.from('cd\n')]), 3)) lines.push(l);
    expect(lines[0]).toBe('abc');
    expect(lines[1]).toBeInstanceOf(TooLongLine);
    expect((lines[1] as TooLongLine).bytes).toBe(4);
    expect(lines[2]).toBeInstanceOf(TooLongLine);
    expect(lines).toHaveLength(3);
  });

  it('an over-long URL under the byte limit: its error line shows its start and its length', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const long = `http://x.example/${'p'.repeat(20_000)}`;
    await runLineCommand({ command: 'normalize', json: false, normalize: {} }, Readable.from([`${long}\n`]), out);
    expect(text.length).toBeLessThan(400);
    expect(text).toMatch(/^!ERR_TOO_LONG\thttp:\/\/x\.example\/p+… \(20017 characters\)\n$/);
  });
});
