/**
 * `urldedup explain URL…`: the chain that takes each URL to its canonical key (store.explain):
 * normal form, identity key, each preset, host rule (RFC 3986 §6.2.4, with its scopes and
 * evidence) and alias, then the canonical key, URL and state. The store is opened read-only.
 */
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isUrlError, urlFromKey } from '../../normalize/index.js';
import type { Explanation, ExplainStep, SeenStore } from '../../store/index.js';
import { formatScopes } from '../../store/learning/rule-scope.js';
import type { Observation, RuleRecord } from '../../store/rules.js';
import { presetsFrom } from '../args.js';
import { failure, UsageError } from '../errors.js';
import { EXIT_OK, EXIT_SOME_INVALID } from '../exit-codes.js';
import { openReadOnly, READ_ONLY_PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';

const EXPLAIN_HELP = `Usage: urldedup explain URL... [--db DIR | --redis SEEDS] [--json]

For each URL, the chain that takes it to its canonical key: its normal form and key, each
preset, host rule and alias that changed it (with the URL after it), then the canonical key,
URL and state. A rule step shows the rule's id, state, scopes, for/against counts and a few of
its observations (how, verdict, source URL -> other URL, status, content hashes).
An invalid URL gives an error line (!CODE<TAB>URL) and exit 1; the other URLs are explained.

Options:
${STORE_FLAGS_HELP}
  --json              one JSON object per URL (the shape of GET /v1/explain); an invalid URL
                      gives {"input", "ok": false, "code"}
${READ_ONLY_PRESET_NOTE}
  -h, --help

Example:
  urldedup explain --db ./seen http://example.com/docs/a
`;

const explainFlags = {
  ...STORE_FLAGS,
  json: { type: 'boolean' },
  preset: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Observations shown per rule in the text form (`--json` has all the store gives). */
const SHOWN_OBSERVATIONS = 3;

function shortHash(h: string): string {
  return h.length > 16 ? h.slice(0, 16) : h;
}

/** A stored key as a URL for people (the key itself when it is not one). */
function keyUrl(key: string): string {
  try {
    return urlFromKey(key);
  } catch {
    return key;
  }
}

/** One observation in one line: `redirect for 301 http://a/ -> https://a/ hash …`. */
export function formatObservation(o: Observation): string {
  const parts: string[] = [o.how, o.v];
  if (o.status !== undefined) parts.push(String(o.status));
  if (o.source !== '') parts.push(o.to === undefined ? keyUrl(o.source) : `${keyUrl(o.source)} -> ${keyUrl(o.to)}`);
  if (o.hash !== undefined) parts.push(`hash ${shortHash(o.hash)}${o.otherHash === undefined ? '' : ` vs ${shortHash(o.otherHash)}`}`);
  return parts.join(' ');
}

/** A rule's state, scopes and counts: `active, scopes /docs/, for 3, against 0`. */
export function formatRuleSummary(r: RuleRecord): string {
  return `${r.state}${r.manual === true ? ' (manual)' : ''}, scopes ${formatScopes(r.scopes ?? [])}, for ${r.for}, against ${r.against}`;
}

function formatStep(step: ExplainStep): string {
  const lines = [`  ${'step'.padEnd(10)} ${step.via} -> ${step.url}`];
  if (step.rule !== undefined) lines.push(`             ${formatRuleSummary(step.rule)}`);
  const obs = step.observations ?? [];
  for (const o of obs.slice(0, SHOWN_OBSERVATIONS)) lines.push(`             ${formatObservation(o)}`);
  if (obs.length > SHOWN_OBSERVATIONS) lines.push(`             … ${obs.length - SHOWN_OBSERVATIONS} more (--json)`);
  return lines.join('\n');
}

/** The human-readable form of one explanation. */
export function formatExplanation(e: Explanation): string {
  const c = e.canonical;
  const lines = [
    e.input,
    `  ${'normal'.padEnd(10)} ${e.normal}`,
    `  ${'key'.padEnd(10)} ${e.key}`,
    ...e.steps.map(formatStep),
    `  ${'canonical'.padEnd(10)} ${c.canonicalUrl}`,
    `  ${''.padEnd(10)} key ${c.canonicalKey}, state ${c.state}${c.via === undefined ? '' : `, via ${c.via}`}`,
  ];
  return lines.join('\n') + '\n';
}

/** `urldedup explain URL…`. */
export async function runExplainCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: explainFlags, allowPositionals: true, strict: true });
    if (values.help) {
      stdout.write(EXPLAIN_HELP);
      return EXIT_OK;
    }
    presetsFrom(values.preset); // validated; the store's recorded presets are used
    if (positionals.length === 0) throw new UsageError('give one or more URLs to explain');
    store = await openReadOnly(storeLocationFrom(values));
    let invalid = 0;
    for (const url of positionals) {
      try {
        const e = await store.explain(url);
        stdout.write(values.json === true ? JSON.stringify(e) + '\n' : formatExplanation(e));
      } catch (error) {
        if (!isUrlError(error)) throw error;
        invalid++;
        stdout.write(values.json === true ? JSON.stringify({ input: url, ok: false, code: error.code }) + '\n' : `!${error.code}\t${url}\n`);
      }
    }
    const s = store;
    store = undefined;
    await s.close();
    return invalid > 0 ? EXIT_SOME_INVALID : EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr, 'explain');
  }
}
