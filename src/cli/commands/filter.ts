/**
 * `urldedup filter`: stdin URLs, the ones the store admits on stdout (`--explain`: every decision),
 * delivered at least once (delivered-output.ts): a URL admitted but not written out (the run was
 * killed, or its reader went away) is written again by the next run over the same input.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultLimits } from '../../normalize/limits.js';
import type { AdmitResult, SeenStore } from '../../store/index.js';
import { integer, presetsFrom } from '../args.js';
import { DeliveredOutput, DELIVERY_WINDOW } from '../delivered-output.js';
import { failure, isBrokenPipe } from '../errors.js';
import { EXIT_BROKEN_PIPE, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, EXIT_SOME_INVALID } from '../exit-codes.js';
import { displayBytes, INVALID_UTF8, InvalidUtf8Line, lineBytesFor, LineWriter, readLines, shownInput, TOO_LONG, TooLongLine } from '../lines.js';
import { createLogger, LOG_FLAGS_HELP, logFormatFrom, logLevelFrom } from '../logger.js';
import { openForCommand, PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';

/** URLs per `admit` call in `filter`: one atomic batch each, so memory stays constant. */
export const FILTER_BATCH = 1000;

const FILTER_HELP = `Usage: urldedup filter [--db DIR | --redis SEEDS] [--explain] [--preset NAME]… < urls.txt

Reads URLs on stdin, one per line, and writes the ones the store admits (new: never seen,
not a duplicate of a URL seen before) to stdout as given, in order. The store remembers them,
so a second run over the same URLs writes nothing. Invalid lines go to stderr as
'!ERR_CODE<TAB>line' (exit 1); a line that is not UTF-8 as '!ERR_INVALID_UTF8<TAB>' and its
bytes percent-encoded. Lines are admitted ${FILTER_BATCH} at a time, in constant memory.

Delivery is at-least-once: a URL counts as delivered only after its line was written and
${DELIVERY_WINDOW / 1024 / 1024} MiB more were written after it (what a pipe and its reader may still hold), or the
run ended normally. When a run is cut short (killed, Ctrl-C, or its reader went away, as
with '| head'), the next run over the same input writes the admitted-but-undelivered URLs
again, so a URL may be written twice, never lost. Exit codes of a cut run: 141 when the
reader went away (EPIPE), 130 on SIGINT, 143 on SIGTERM (output of admitted URLs is flushed
first); SIGKILL leaves the rest to the next run.

Options:
${STORE_FLAGS_HELP}
  --explain           write every input as JSONL {url, key, admitted, reason[, via][, undelivered]} instead
  --batch N           lines per admit batch (default ${FILTER_BATCH})
  --delivery-window BYTES
                      bytes written after a line before it counts as delivered (default ${DELIVERY_WINDOW})
${PRESET_NOTE}
${LOG_FLAGS_HELP}
  -h, --help

Example:
  cat day1.txt day2.txt | urldedup filter --db ./seen --preset tracking > new.txt
  printf 'https://a.example/x\\nhttps://A.example:443/x\\n' | urldedup filter --db ./seen --explain
`;

const filterFlags = {
  ...STORE_FLAGS,
  explain: { type: 'boolean' },
  batch: { type: 'string' },
  'delivery-window': { type: 'string' },
  preset: { type: 'string', multiple: true },
  'change-presets': { type: 'boolean' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function explainLine(r: AdmitResult): string {
  const o: { url: string; key: string | null; admitted: boolean; reason: string; via?: string; undelivered?: true } = {
    url: r.url,
    key: r.key ?? null,
    admitted: r.admitted,
    reason: r.reason,
  };
  if (r.via !== undefined) o.via = r.via;
  if (r.undelivered === true) o.undelivered = true;
  return JSON.stringify(o);
}

type Line = string | InvalidUtf8Line | TooLongLine;

/** A signal that stops `filter`, and its exit code. */
const STOP_SIGNALS = { SIGINT: EXIT_SIGINT, SIGTERM: EXIT_SIGTERM } as const;
type StopSignal = keyof typeof STOP_SIGNALS;

/** `urldedup filter`: stdin URLs → the admitted ones (or every decision with `--explain`). */
export async function runFilterCommand(argv: string[], stdin: Readable, stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  let stopping: StopSignal | undefined;
  const onSignal = (signal: StopSignal): void => {
    if (stopping !== undefined) return;
    stopping = signal;
    stdin.destroy(); // stop intake: the lines not yet admitted are the next run's
  };
  const onInt = (): void => onSignal('SIGINT');
  const onTerm = (): void => onSignal('SIGTERM');
  const ignore = (): void => undefined; // write errors come back through each write's callback
  try {
    const { values } = parseArgs({ args: argv, options: filterFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(FILTER_HELP);
      return EXIT_OK;
    }
    const batchSize = integer('batch', values.batch, 1, 100_000) ?? FILTER_BATCH;
    const window = integer('delivery-window', values['delivery-window'], 0) ?? DELIVERY_WINDOW;
    const presets = presetsFrom(values.preset);
    const location = storeLocationFrom(values);
    const explain = values.explain === true;
    const log = createLogger(logLevelFrom(values['log-level']), logFormatFrom(values['log-format'], process.stderr.isTTY === true));
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    stdout.on('error', ignore);
    store = await openForCommand(location, presets, true, values['change-presets'] === true);
    const s = store;
    const out = new DeliveredOutput(stdout, s, window);
    const err = new LineWriter(stderr);
    let invalid = 0;
    /** The write error that cut the output short (EPIPE: the reader went away). */
    let cut: Error | undefined;
    const emit = async (lines: readonly Line[], results: readonly AdmitResult[]): Promise<void> => {
      let text = '';
      let n = 0;
      const keys: string[] = [];
      let q = 0;
      for (const line of lines) {
        if (line instanceof InvalidUtf8Line || line instanceof TooLongLine) {
          invalid++;
          const utf8 = line instanceof InvalidUtf8Line;
          const shown = utf8 ? displayBytes(line.bytes) : `${line.head}… (${line.bytes} bytes)`;
          const code = utf8 ? INVALID_UTF8 : TOO_LONG;
          if (explain) {
            text += JSON.stringify({ url: shown, key: null, admitted: false, reason: `invalid:${code}` }) + '\n';
            n++;
          } else await err.write(`!${code}\t${shown}`);
          continue;
        }
        const r = results[q++]!;
        const deliver = r.admitted || r.undelivered === true;
        if (deliver) keys.push(r.key!);
        if (explain || deliver) {
          text += (explain ? explainLine(r) : r.url) + '\n';
          n++;
        }
        if (r.reason.startsWith('invalid:')) {
          invalid++;
          if (!explain) await err.write(`!${r.reason.slice(8)}\t${r.reason === 'invalid:ERR_TOO_LONG' ? shownInput(r.url) : r.url}`);
        }
      }
      try {
        await out.write(text, n, keys);
      } catch (error) {
        cut = error as Error;
      }
    };
    // one batch admitted while the next is read (the store pipelines them); results in input order
    let pending: { lines: Line[]; results: Promise<AdmitResult[]> } | undefined;
    let batch: Line[] = [];
    const emitPending = async (): Promise<void> => {
      if (pending === undefined) return;
      const p = pending;
      pending = undefined;
      await emit(p.lines, await p.results);
    };
    const submit = async (): Promise<void> => {
      const urls = batch.filter((l): l is string => typeof l === 'string');
      const results = s.admit(urls, { deliver: true });
      results.catch(() => undefined); // awaited below; this only keeps an early rejection from being unhandled
      const lines = batch;
      batch = [];
      await emitPending();
      pending = { lines, results };
    };
    try {
      for await (const line of readLines(stdin, lineBytesFor(defaultLimits.maxLength))) {
        if (stopping !== undefined || cut !== undefined) break;
        batch.push(line);
        if (batch.length >= batchSize) await submit();
      }
    } catch (error) {
      if (stopping === undefined) throw error; // after a signal: stdin was destroyed on purpose
    }
    if (stopping === undefined && cut === undefined && batch.length > 0) await submit();
    // what was admitted is written out (unless the reader is gone); lines read but not admitted are left
    if (cut === undefined) await emitPending();
    else if (pending !== undefined) await pending.results.catch(() => undefined);
    if (stopping === undefined && cut === undefined) await out.finish();
    else await out.abandon();
    await err.flush();
    store = undefined;
    await s.close();
    const detail = { lines: out.lines, delivered: out.marked, invalid };
    if (stopping !== undefined || cut !== undefined) {
      log.info({ ...detail, signal: stopping, error: cut?.message }, 'output cut short: a re-run over the same input writes the undelivered URLs again');
    } else log.info(detail, 'done');
    if (stopping !== undefined) return STOP_SIGNALS[stopping];
    if (cut !== undefined) {
      if (isBrokenPipe(cut)) return EXIT_BROKEN_PIPE;
      throw cut;
    }
    return invalid > 0 ? EXIT_SOME_INVALID : EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    if (isBrokenPipe(error)) return EXIT_BROKEN_PIPE; // the reader went away: what was not written stays undelivered
    return failure(error, stderr, 'filter');
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    stdout.off('error', ignore);
  }
}
