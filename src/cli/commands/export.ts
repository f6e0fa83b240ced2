/**
 * `urldedup export`: the store's canonical URLs, aliases or rules as JSONL, streamed.
 */
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { toSurt } from '../../normalize/index.js';
import type { SeenStore } from '../../store/index.js';
import { presetsFrom } from '../args.js';
import { failure, isBrokenPipe, UsageError } from '../errors.js';
import { EXIT_OK } from '../exit-codes.js';
import { LineWriter } from '../lines.js';
import { openReadOnly, READ_ONLY_PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';

const EXPORT_HELP = `Usage: urldedup export [--db DIR | --redis SEEDS] [--what urls|aliases|rules]

Writes the store's contents as JSONL (one JSON object per line), streamed:
  urls      the canonical URL set: {key, url, state, depth, status?, error?, surt} (queued, fetched,
            failed; error: the code recorded with a failed fetch, ERR_CONNECT_TIMEOUT, ERR_DNS, …;
            surt: the Internet Archive SURT of url, the key of CDX indexes and pywb, or null)
  aliases   {from, to, fromUrl, toUrl, status}: URLs merged into another by permanent redirects
  rules     learned host rules with their state and evidence

Options:
${STORE_FLAGS_HELP}
  --what KIND         urls (default), aliases or rules
${READ_ONLY_PRESET_NOTE}
  -h, --help

Example:
  urldedup export --db ./seen --what urls | jq -r 'select(.state == "queued") | .url'
`;

const exportFlags = {
  ...STORE_FLAGS,
  what: { type: 'string' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export type ExportKind = 'urls' | 'aliases' | 'rules';

/** The Internet Archive SURT of `url`; `null` where the IA's canonicalizer refuses it. */
function surtOf(url: string): string | null {
  try {
    return toSurt(url);
  } catch {
    return null;
  }
}

/** `urldedup export`: the canonical URLs, aliases or rules as JSONL, streamed. */
export async function runExportCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: exportFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(EXPORT_HELP);
      return EXIT_OK;
    }
    const what = values.what ?? 'urls';
    if (what !== 'urls' && what !== 'aliases' && what !== 'rules') throw new UsageError('--what must be urls, aliases or rules');
    presetsFrom(values.preset); // accepted for compatibility: the store's recorded presets are used
    store = await openReadOnly(storeLocationFrom(values));
    const out = new LineWriter(stdout);
    if (what === 'urls') {
      // each URL with its Internet Archive SURT, the key CDX indexes and pywb sort by
      for await (const r of store.canonicalUrls()) await out.write(JSON.stringify({ ...r, surt: surtOf(r.url) }));
    } else {
      for await (const r of what === 'aliases' ? store.aliases() : store.rules()) await out.write(JSON.stringify(r));
    }
    await out.flush();
    const s = store;
    store = undefined;
    await s.close();
    return EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    if (isBrokenPipe(error)) return EXIT_OK;
    return failure(error, stderr, 'export');
  }
}
