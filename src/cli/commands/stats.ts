/**
 * `urldedup stats`: the store's counts, human-readable or `--json`.
 */
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CanonicalUrlRecord, SeenStore, StoreStats } from '../../store/index.js';
import { presetsFrom } from '../args.js';
import { failure } from '../errors.js';
import { EXIT_OK } from '../exit-codes.js';
import { openReadOnly, READ_ONLY_PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';

const STATS_HELP = `Usage: urldedup stats [--db DIR | --redis SEEDS] [--json]

Prints the store's counts: URLs by state, failed URLs by error code, aliases, rules, pruned
URLs by reason, the frontier. The failures are counted by reading every URL entry (as export
does); a failed URL recorded without a code counts as 'status:<HTTP status>'.

Options:
${STORE_FLAGS_HELP}
  --json              one JSON object: the shape of GET /v1/stats, plus "failures" {code: count}
${READ_ONLY_PRESET_NOTE}
  -h, --help

Example:
  urldedup stats --db ./seen --json | jq .urls
`;

const statsFlags = {
  ...STORE_FLAGS,
  json: { type: 'boolean' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

function counts(record: Readonly<Record<string, number>>): string {
  const parts = Object.entries(record).map(([k, n]) => `${k} ${n}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/** Failed URLs by error code (`status:<n>` for one recorded without a code), most frequent first. */
export async function countFailures(urls: AsyncIterable<CanonicalUrlRecord>): Promise<Record<string, number>> {
  const counts = new Map<string, number>();
  for await (const r of urls) {
    if (r.state !== 'failed') continue;
    const code = r.error ?? `status:${r.status ?? 0}`;
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

/** The human-readable form of `urldedup stats`. */
export function formatStats(location: string, s: StoreStats, failures: Readonly<Record<string, number>> = {}): string {
  const { admitted, ...states } = s.urls;
  const hosts = Object.keys(s.frontier.hosts).length;
  const rows: [string, string][] = [
    ['store', location],
    ['urls seen', `${admitted} (${counts(states)})`],
    ['failed by code', counts(failures)],
    ['aliases', String(s.aliases)],
    ['redirect loops', String(s.loops)],
    ['temp. redirects', String(s.temporaryRedirects)],
    ['rules', counts(s.rules)],
    ['pruned', counts(s.pruned)],
    ['frontier', `${s.frontier.size} queued on ${hosts} host${hosts === 1 ? '' : 's'}, ${s.frontier.inFlight} in flight`],
  ];
  return rows.map(([k, v]) => `${k.padEnd(16)} ${v}`).join('\n') + '\n';
}

/** `urldedup stats`: the store's counts, human-readable or `--json`. */
export async function runStatsCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: statsFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(STATS_HELP);
      return EXIT_OK;
    }
    presetsFrom(values.preset); // accepted for compatibility: the store's recorded presets are used
    store = await openReadOnly(storeLocationFrom(values));
    const stats = await store.stats();
    const failures = stats.urls.failed > 0 ? await countFailures(store.canonicalUrls()) : {};
    const location = store.location;
    const s = store;
    store = undefined;
    await s.close();
    stdout.write(values.json === true ? JSON.stringify({ ...stats, failures }) + '\n' : formatStats(location, stats, failures));
    return EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr, 'stats');
  }
}
