/**
 * `urldedup rules`: the store's host rules (RFC 3986 §6.2.4 learned from evidence, see
 * docs/rules.md), one line each; `rules withdraw ID` and `rules block HOST SPEC` steer them.
 */
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { SeenStore } from '../../store/index.js';
import type { RuleRecord, RuleState } from '../../store/rules.js';
import { presetsFrom } from '../args.js';
import { failure, UsageError } from '../errors.js';
import { EXIT_OK } from '../exit-codes.js';
import { openForCommand, openReadOnly, PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';
import { formatObservation, formatRuleSummary } from './explain.js';

const RULES_HELP = `Usage: urldedup rules [--db DIR | --redis SEEDS] [--json] [--state active|candidate|withdrawn]
       urldedup rules withdraw ID [--db DIR | --redis SEEDS] [--json] [--preset NAME]...
       urldedup rules block HOST SPEC [--db DIR | --redis SEEDS] [--json] [--preset NAME]...

The store's host rules (docs/rules.md), one line each: id, state, scopes, for and against
counts, (manual) when an operator withdrew or blocked it, and the last contradiction.

  withdraw ID        withdraw a rule by hand (ID is host/spec as listed, e.g.
                     example.com/https): it holds nowhere and is never learned again; the URLs
                     it pruned come back to the frontier. Prints the rule as stored and how many
                     URLs came back.
  block HOST SPEC    keep a rule from being learned on HOST (host[:port]); SPEC is https,
                     www-add, www-remove, slash-add, slash-remove, default-document:NAME,
                     path-prefix:FROM>TO, query-parameter:NAME[&NAME...] or path-parameter:NAME.
                     An active rule is withdrawn (its URLs come back).

Listing opens the store read-only; withdraw and block open it for writing (a store another
process has open is ERR_STORE_LOCKED, exit 3). A wrong ID, HOST or SPEC is exit 2.

Options:
${STORE_FLAGS_HELP}
  --json              NDJSON: one rule record per line (withdraw/block: {"rule", "restored"})
  --state STATE       list only rules in this state
${PRESET_NOTE}
                      (withdraw and block only; listing uses the recorded presets)
  -h, --help

Examples:
  urldedup rules --db ./seen --state active
  urldedup rules withdraw example.com/https --db ./seen
  urldedup rules block example.com query-parameter:page --db ./seen
`;

const rulesFlags = {
  ...STORE_FLAGS,
  json: { type: 'boolean' },
  state: { type: 'string' },
  preset: { type: 'string', multiple: true },
  'change-presets': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const STATES: readonly RuleState[] = ['candidate', 'active', 'withdrawn'];

function shortTime(t: number): string {
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One rule in one line: `id  state  scopes  for N  against N  (manual)  last: …`. */
export function formatRuleLine(r: RuleRecord): string {
  const c = r.contradiction;
  return `${r.id}\t${formatRuleSummary(r)}${c === undefined ? '' : `\tlast contradiction ${shortTime(c.t)}: ${formatObservation(c)}`}\n`;
}

/** A store TypeError (wrong id or spec) is the user's: exit 2. */
function asUsage(error: unknown): unknown {
  return error instanceof TypeError ? new UsageError(error.message) : error;
}

/** `urldedup rules …`. */
export async function runRulesCommand(argv: string[], stdout: Writable, stderr: Writable = process.stderr): Promise<number> {
  let store: SeenStore | undefined;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: rulesFlags, allowPositionals: true, strict: true });
    if (values.help) {
      stdout.write(RULES_HELP);
      return EXIT_OK;
    }
    const presets = presetsFrom(values.preset);
    const location = storeLocationFrom(values);
    const [action, ...args] = positionals;
    const json = values.json === true;
    if (action === undefined) {
      const state = values.state;
      if (state !== undefined && !(STATES as readonly string[]).includes(state)) throw new UsageError(`--state must be one of ${STATES.join(', ')}, not ${JSON.stringify(state)}`);
      store = await openReadOnly(location);
      for await (const r of store.rules()) {
        if (state !== undefined && r.state !== state) continue;
        stdout.write(json ? JSON.stringify(r) + '\n' : formatRuleLine(r));
      }
    } else if (action === 'withdraw' || action === 'block') {
      if (values.state !== undefined) throw new UsageError(`--state is for listing, not ${action}`);
      const wanted = action === 'withdraw' ? 1 : 2;
      if (args.length !== wanted) throw new UsageError(action === 'withdraw' ? 'usage: urldedup rules withdraw ID (host/spec)' : 'usage: urldedup rules block HOST SPEC');
      store = await openForCommand(location, presets, false, values['change-presets'] === true);
      const s = store;
      const reason = (id: string): string => `rule:${id}`;
      const prunedBy = async (id: string): Promise<number> => (await s.stats()).pruned[reason(id)] ?? 0;
      let rule: RuleRecord;
      let restored: number;
      if (action === 'withdraw') {
        const id = args[0]!;
        const before = await prunedBy(id);
        rule = await s.withdrawRule(id).catch((e: unknown) => Promise.reject(asUsage(e)));
        restored = before - (await prunedBy(rule.id));
      } else {
        const [host, spec] = args as [string, string];
        // the id is known only once the store parsed the spec: count after, by the stored id
        const pruned = (await s.stats()).pruned;
        rule = await s.blockRule(host, spec).catch((e: unknown) => Promise.reject(asUsage(e)));
        restored = (pruned[reason(rule.id)] ?? 0) - (await prunedBy(rule.id));
      }
      stdout.write(json ? JSON.stringify({ rule, restored }) + '\n' : `${formatRuleLine(rule)}${restored} URL${restored === 1 ? '' : 's'} back to the frontier\n`);
    } else {
      throw new UsageError(`unknown rules action ${JSON.stringify(action)} (withdraw, block, or none to list)`);
    }
    const s = store;
    store = undefined;
    await s.close();
    return EXIT_OK;
  } catch (error) {
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr, 'rules');
  }
}
