/**
 * The line plumbing of `urldedup normalize`, `key` and `resolve BASE` (commands/*.ts parse their
 * arguments): one URL per stdin line (or per argument), one result per stdout line, in order. An
 * invalid input gives `!ERR_CODE<TAB>input` on its line; a line that is not UTF-8 gives
 * `!ERR_INVALID_UTF8<TAB>` and its bytes percent-encoded (lines.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { UrlError } from '../normalize/errors.js';
import { fingerprint } from '../normalize/fingerprint.js';
import { normalizeAndKey } from '../normalize/key.js';
import type { NormalizeOptions } from '../normalize/normalize.js';
import { resolve, type ResolveOptions } from '../normalize/resolve.js';
import { toSurt } from '../normalize/surt.js';
import { EXIT_OK, EXIT_SOME_INVALID } from './exit-codes.js';
import { defaultLimits } from '../normalize/limits.js';
import { displayBytes, INVALID_UTF8, InvalidUtf8Line, lineBytesFor, LineWriter, readLines, shownInput, TOO_LONG, TooLongLine } from './lines.js';

export type LineCommand = 'normalize' | 'key' | 'resolve';

export interface LineCommandOptions {
  readonly command: LineCommand;
  readonly json: boolean;
  readonly normalize: NormalizeOptions;
  /** For `key`: `surt` writes the Internet Archive SURT (its own canonicalization) instead of the key. */
  readonly format?: 'key' | 'surt';
  /** For `resolve`. */
  readonly base?: string;
  readonly resolve?: ResolveOptions;
}

/** An invalid line: `!CODE<TAB>input` (tabs and newlines in the input cannot occur: it is one line). */
function errorLine(code: string, input: string, json: boolean): string {
  return json ? JSON.stringify({ input, ok: false, code }) : `!${code}\t${input}`;
}

function resultLine(o: LineCommandOptions, input: string): string {
  switch (o.command) {
    case 'normalize': {
      const { normal, key } = normalizeAndKey(input, o.normalize);
      return o.json ? JSON.stringify({ input, ok: true, normal, key, fingerprint: fingerprint(key) }) : normal;
    }
    case 'key': {
      if (o.format === 'surt') {
        const surt = toSurt(input, o.normalize.maxLength === undefined ? {} : { maxLength: o.normalize.maxLength });
        return o.json ? JSON.stringify({ input, ok: true, surt }) : surt;
      }
      const { normal, key } = normalizeAndKey(input, o.normalize);
      return o.json ? JSON.stringify({ input, ok: true, normal, key, fingerprint: fingerprint(key) }) : key;
    }
    case 'resolve': {
      const resolved = resolve(input, o.base!, o.resolve);
      return o.json ? JSON.stringify({ input, ok: true, resolved }) : resolved;
    }
  }
}

/**
 * Run a line command over `inputs` (the command line's URLs) or, when there are none, stdin's
 * lines; returns the exit code (0, or 1 when some inputs were invalid).
 */
export async function runLineCommand(o: LineCommandOptions, stdin: Readable, stdout: Writable, inputs: readonly string[] = []): Promise<number> {
  const out = new LineWriter(stdout);
  let invalid = 0;
  // a line longer than the longest input accepted is known as it is read, never held whole
  const maxLength = (o.command === 'resolve' ? o.resolve?.maxLength : o.normalize.maxLength) ?? defaultLimits.maxLength;
  for await (const line of inputs.length > 0 ? inputs : readLines(stdin, lineBytesFor(maxLength))) {
    if (line instanceof InvalidUtf8Line) {
      invalid++;
      await out.write(errorLine(INVALID_UTF8, displayBytes(line.bytes), o.json));
      continue;
    }
    if (line instanceof TooLongLine) {
      invalid++;
      await out.write(errorLine(TOO_LONG, `${line.head}… (${line.bytes} bytes)`, o.json));
      continue;
    }
    let text: string;
    try {
      text = resultLine(o, line);
    } catch (error) {
      if (!(error instanceof UrlError)) throw error;
      invalid++;
      text = errorLine(error.code, error.code === 'ERR_TOO_LONG' ? shownInput(line) : line, o.json);
    }
    await out.write(text);
  }
  await out.flush();
  return invalid > 0 ? EXIT_SOME_INVALID : EXIT_OK;
}
