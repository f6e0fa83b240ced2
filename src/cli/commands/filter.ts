/**
 * `urldedup filter`: stdin URLs, the ones the store admits on stdout (`--explain`: every decision).
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AdmitResult, SeenStore } from '../../store/index.js';
import { integer, presetsFrom } from '../args.js';
import { failure, isBrokenPipe } from '../errors.js';
import { EXIT_OK, EXIT_SOME_INVALID } from '../exit-codes.js';
import { LineWriter, readLines } from '../lines.js';
import { DEFAULT_DB, openForCommand, PRESET_NOTE } from '../store-access.js';

/** URLs per `admit` call in `filter`: one atomic batch each, so memory stays constant. */
export const FILTER_BATCH = 1000;

const FILTER_HELP = `Usage: urldedup filter [--db DIR] [--explain] [--preset NAME]… < urls.txt

Reads URLs on stdin, one per line, and writes the ones the store admits (new: never seen,
not a duplicate of a URL seen before) to stdout as given, in order. The store remembers them,
so a second run over the same URLs writes nothing. Invalid lines go to stderr as
'!ERR_CODE<TAB>line' (exit 1). Lines are admitted ${FILTER_BATCH} at a time, in constant memory.

Options:
  --db DIR            the store folder (default ${DEFAULT_DB})
  --explain           write every input as JSONL {url, key, admitted, reason[, via]} instead
  --batch N           lines per admit batch (default ${FILTER_BATCH})
${PRESET_NOTE}
  -h, --help

Example:
  cat day1.txt day2.txt | urldedup filter --db ./seen --preset tracking > new.txt
  printf 'https://a.example/x\\nhttps://A.example:443/x\\n' | urldedup filter --db ./seen --explain
`;

const filterFlags = {
  db: { type: 'string' },
  explain: { type: 'boolean' },
  batch: { type: 'string' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function explainLine(r: AdmitResult): string {
  const o: { url: string; key: string | null; admitted: boolean; reason: string; via?: string } = {
    url: r.url,
    key: r.key ?? null,
    admitted: r.admitted,
    reason: r.reason,
  };
  if (r.via !== undefined) o.via = r.via;
  return JSON.stringify(o);
}

/** `urldedup filter`: stdin URLs → the admitted ones (or every decision with `--explain`). */
export async function runFilterCommand(argv: string[], stdin: Readable, stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: filterFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(FILTER_HELP);
      return EXIT_OK;
    }
    const batchSize = integer('batch', values.batch, 1, 100_000) ?? FILTER_BATCH;
    const presets = presetsFrom(values.preset);
    const explain = values.explain === true;
    store = await openForCommand(values.db ?? DEFAULT_DB, presets, true);
    const s = store;
    const out = new LineWriter(stdout);
    const err = new LineWriter(stderr);
    let invalid = 0;
    const emit = async (results: readonly AdmitResult[]): Promise<void> => {
      for (const r of results) {
        if (explain) await out.write(explainLine(r));
        else if (r.admitted) await out.write(r.url);
        if (r.reason.startsWith('invalid:')) {
          invalid++;
          if (!explain) await err.write(`!${r.reason.slice(8)}\t${r.url}`);
        }
      }
    };
    // one batch admitted while the next is read (the store pipelines them); results in input order
    let pending: Promise<AdmitResult[]> | undefined;
    let batch: string[] = [];
    const submit = async (): Promise<void> => {
      const next = s.admit(batch);
      next.catch(() => undefined); // awaited below; this only keeps an early rejection from being unhandled
      batch = [];
      if (pending !== undefined) await emit(await pending);
      pending = next;
    };
    for await (const line of readLines(stdin)) {
      batch.push(line);
      if (batch.length >= batchSize) await submit();
    }
    if (batch.length > 0) await submit();
    if (pending !== undefined) await emit(await pending);
    await out.flush();
    await err.flush();
    store = undefined;
    await s.close();
    return invalid > 0 ? EXIT_SOME_INVALID : EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    if (isBrokenPipe(error)) return EXIT_OK; // the reader went away (`| head`): nothing left to do
    return failure(error, stderr);
  }
}
