/**
 * Crawler canonicalization suites (test/fixtures/conformance): each suite and group run through the
 * closest profile, a named set of our presets plus options. The suites are other products'
 * policies; where they merge what RFC 3986 §6.1 says may differ, we deviate on purpose, and every
 * such case is listed with its reason in crawler-suites-deviations.json.
 */
import { readFileSync } from 'node:fs';
import { isUrlError } from '../../src/normalize/errors.js';
import { normalize, normalizeRecord, type NormalizeOptions } from '../../src/normalize/index.js';
import { applyPolicy, type PresetName } from '../../src/normalize/ladder/policy.js';
import { hostToSurt, toSurt, type SurtOptions } from '../../src/normalize/surt.js';
import type { UriRecord } from '../../src/normalize/uri-record.js';

export const TESTDATA = new URL('../fixtures/conformance/', import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- suite files differ in shape; each use below reads known fields
function load(name: string): any {
  return JSON.parse(readFileSync(new URL(name, TESTDATA), 'utf8'));
}

/** A named set of presets plus options: how we come closest to one suite. */
export interface Profile {
  readonly name: string;
  readonly presets: readonly PresetName[];
  readonly keepFragment?: boolean;
  readonly level?: NormalizeOptions['level'];
  /** What the suite does that the profile covers, and what it leaves out. */
  readonly note: string;
}

const profileTable = {
  'safe-browsing': {
    name: 'safe-browsing',
    presets: ['remove-empty-host-labels', 'collapse-slashes'],
    note: 'Safe Browsing (v4 docs, v2 table in surt): host dots trimmed, // collapsed. Not repeated unescaping, not the dropped port.',
  },
  'safe-browsing-go': {
    name: 'safe-browsing-go',
    presets: ['remove-empty-host-labels', 'collapse-slashes', 'remove-query'],
    note: 'google/safebrowsing Go canonicalURL(): safe-browsing plus the query removed.',
  },
  w3lib: {
    name: 'w3lib',
    presets: ['sort-query', 'remove-empty-params'],
    note: 'Scrapy canonicalize_url: sorted query, empty fields dropped; keep_fragments → keepFragment.',
  },
  nutch: {
    name: 'nutch',
    presets: ['collapse-slashes', 'remove-userinfo'],
    note: 'Nutch BasicURLNormalizer: // collapsed, http(s) userinfo dropped; trim-trailing-dot → remove-empty-host-labels.',
  },
  stormcrawler: {
    name: 'stormcrawler',
    presets: [],
    note: 'StormCrawler BasicURLNormalizer: queryElementsToRemove → sort-query (it sorts when it filters), removeHashes → session-ids, removeAnchorPart=false → keepFragment.',
  },
  crawlee: {
    name: 'crawlee',
    presets: ['tracking', 'sort-query', 'remove-trailing-slash', 'remove-empty-query'],
    note: 'Crawlee uniqueKey (apify normalizeUrl): utm_* (our tracking list is a superset), sorted query, trailing slash and empty ? dropped.',
  },
  'ia-google': {
    name: 'ia-google',
    presets: ['remove-empty-host-labels', 'collapse-slashes'],
    note: 'surt GoogleURLCanonicalizer (the v2 Safe Browsing rules, port kept): as safe-browsing.',
  },
  ia: {
    name: 'ia',
    presets: ['www', 'remove-userinfo', 'session-ids', 'remove-trailing-slash', 'sort-query', 'remove-empty-query'],
    note: 'surt IAURLCanonicalizer: www, userinfo, session ids, trailing slash, empty ? dropped, query sorted. Not the lowercased query.',
  },
  'ia-default': {
    name: 'ia-default',
    presets: [
      'remove-userinfo',
      'remove-empty-host-labels',
      'www',
      'session-ids',
      'collapse-slashes',
      'remove-trailing-slash',
      'sort-query',
      'remove-empty-query',
    ],
    note: 'surt DefaultIAURLCanonicalizer: ia-google and ia together.',
  },
  'handyurl-parse': {
    name: 'handyurl-parse',
    presets: [],
    level: 'syntax',
    keepFragment: true,
    note: 'surt handyurl.parse().geturl(): the syntax rung alone, fragment kept.',
  },
} as const satisfies Record<string, Profile>;

export type ProfileName = keyof typeof profileTable;
export const profiles: Readonly<Record<ProfileName, Profile>> = profileTable;

/** What we produce for a case: the output, or the error code for input we reject. */
export type Outcome = { readonly ok: true; readonly value: string | number | null } | { readonly ok: false; readonly code: string };

export interface CaseResult {
  readonly suite: string;
  readonly group: string;
  readonly input: string | null;
  readonly options?: Record<string, unknown>;
  readonly expected: string | number | null;
  /** Our output as a string: the value, `null`, or `!ERR_CODE` for a rejected input. */
  readonly ours: string | number | null;
  readonly pass: boolean;
  readonly profile: string;
}

export interface GroupRun {
  readonly suite: string;
  readonly group: string;
  readonly profile: string;
  readonly results: readonly CaseResult[];
}

function attemptOutcome(fn: () => string | number | null): Outcome {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    if (isUrlError(error)) return { ok: false, code: error.code };
    throw error;
  }
}

function show(o: Outcome): string | number | null {
  return o.ok ? o.value : `!${o.code}`;
}

/** `expected: null` (or `failure: true`) means the suite rejects the input: so must we. */
function passes(expected: string | number | null, o: Outcome): boolean {
  if (expected === null) return !o.ok || o.value === null;
  return o.ok && o.value === expected;
}

function options(p: Profile, extra?: { presets?: readonly PresetName[]; keepFragment?: boolean }): NormalizeOptions {
  const all = [...p.presets, ...(extra?.presets ?? [])];
  return {
    ...(p.level !== undefined ? { level: p.level } : {}),
    presets: all,
    keepFragment: extra?.keepFragment ?? p.keepFragment ?? false,
  };
}

interface RawCase {
  input: string | null;
  expected: string | number | null;
  options?: Record<string, unknown>;
  kwargs?: Record<string, unknown>;
  keepFragment?: boolean;
  failure?: boolean;
}

function runGroup(
  suite: string,
  group: string,
  profile: string,
  cases: readonly RawCase[],
  run: (c: RawCase) => Outcome,
): GroupRun {
  const results = cases.map((c): CaseResult => {
    const outcome = run(c);
    const expected = c.failure === true ? null : c.expected;
    const opts = c.options ?? c.kwargs ?? (c.keepFragment !== undefined ? { keepFragment: c.keepFragment } : undefined);
    return {
      suite,
      group,
      input: c.input,
      ...(opts !== undefined && Object.keys(opts).length > 0 ? { options: opts } : {}),
      expected,
      ours: show(outcome),
      pass: passes(expected, outcome),
      profile,
    };
  });
  return { suite, group, profile, results };
}

/** A dotted-quad IPv4 host, the only answer a "parse IP address" helper gives. */
function ipv4Host(rec: UriRecord): string | null {
  const h = rec.host ?? '';
  const parts = h.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p)) ? h : null;
}

const nonString = (c: RawCase, fn: (input: string) => string | number | null): Outcome =>
  c.input === null ? { ok: false, code: 'ERR_NOT_A_STRING' } : attemptOutcome(() => fn(c.input as string));

/** Every suite and group, run. */
export function runAllSuites(): GroupRun[] {
  const runs: GroupRun[] = [];

  // Safe Browsing --------------------------------------------------------------------------------
  const sb = load('safebrowsing-canonicalize.json');
  const sbOpts = options(profiles['safe-browsing']);
  runs.push(runGroup('safebrowsing', 'cases', 'safe-browsing', sb.cases, (c) => nonString(c, (u) => normalize(u, sbOpts))));
  const goOpts = options(profiles['safe-browsing-go']);
  runs.push(
    runGroup('safebrowsing', 'go_impl_canonical_url', 'safe-browsing-go', sb.go_impl_canonical_url.cases, (c) =>
      nonString(c, (u) => normalize(u, goOpts)),
    ),
  );
  runs.push(
    runGroup('safebrowsing', 'go_impl_parse_ip_address', 'safe-browsing (host of http://INPUT/)', sb.go_impl_parse_ip_address.cases, (c) =>
      nonString(c, (h) => ipv4Host(normalizeRecord(`http://${h}/`, sbOpts))),
    ),
  );
  runs.push(
    runGroup('safebrowsing', 'go_impl_canonical_host', 'safe-browsing (host)', sb.go_impl_canonical_host.cases, (c) =>
      nonString(c, (u) => normalizeRecord(u, sbOpts).host ?? null),
    ),
  );
  runs.push(
    runGroup('safebrowsing', 'go_impl_canonical_path', 'safe-browsing (path)', sb.go_impl_canonical_path.cases, (c) =>
      nonString(c, (u) => normalizeRecord(u, sbOpts).path),
    ),
  );

  // w3lib ----------------------------------------------------------------------------------------
  const w3 = load('w3lib-canonicalize.json');
  runs.push(
    runGroup('w3lib', 'cases', 'w3lib', w3.cases, (c) =>
      nonString(c, (u) => normalize(u, options(profiles.w3lib, { keepFragment: c.kwargs?.keep_fragments === true }))),
    ),
  );

  // Nutch and StormCrawler -----------------------------------------------------------------------
  const nu = load('nutch-basic-normalizer.json');
  runs.push(
    runGroup('nutch', 'nutch', 'nutch', nu.nutch.cases, (c) =>
      nonString(c, (u) =>
        normalize(
          u,
          options(profiles.nutch, {
            presets: c.options?.['urlnormalizer.basic.host.trim-trailing-dot'] === true ? ['remove-empty-host-labels'] : [],
          }),
        ),
      ),
    ),
  );
  runs.push(
    runGroup('nutch', 'stormcrawler', 'stormcrawler', nu.stormcrawler.cases, (c) => {
      const o = c.options ?? {};
      const extra: PresetName[] = [];
      if (Array.isArray(o.queryElementsToRemove) && o.queryElementsToRemove.length > 0) extra.push('sort-query');
      if (o.removeHashes === true) extra.push('session-ids');
      return nonString(c, (u) => normalize(u, options(profiles.stormcrawler, { presets: extra, keepFragment: o.removeAnchorPart === false })));
    }),
  );

  // Crawlee --------------------------------------------------------------------------------------
  const cr = load('crawlee-normalizeurl.json');
  runs.push(
    runGroup('crawlee', 'cases', 'crawlee', cr.cases, (c) =>
      nonString(c, (u) => normalize(u, options(profiles.crawlee, { keepFragment: c.keepFragment === true }))),
    ),
  );

  // SURT -----------------------------------------------------------------------------------------
  const su = load('surt.json');
  runs.push(
    runGroup('surt', 'surt', 'toSurt', su.surt, (c) => {
      const o = c.options ?? {};
      const so: SurtOptions = {
        ...(o.with_scheme !== undefined ? { withScheme: o.with_scheme === true } : {}),
        ...(o.trailing_comma !== undefined ? { trailingComma: o.trailing_comma === true } : {}),
        ...(o.host_massage !== undefined ? { hostMassage: o.host_massage === true } : {}),
        ...(o.reverse_ipaddr !== undefined ? { reverseIpaddr: o.reverse_ipaddr === true } : {}),
      };
      return nonString(c, (u) => toSurt(u, so));
    }),
  );
  const canon: Record<string, ProfileName> = {
    GoogleURLCanonicalizer: 'ia-google',
    IAURLCanonicalizer: 'ia',
    DefaultIAURLCanonicalizer: 'ia-default',
  };
  for (const [group, profile] of Object.entries(canon)) {
    const opts = options(profiles[profile]);
    runs.push(runGroup('surt', group, profile, su.canonicalizers[group], (c) => nonString(c, (u) => normalize(u, opts))));
  }
  const handy = options(profiles['handyurl-parse']);
  runs.push(
    runGroup('surt', 'handyurl_parse_geturl', 'handyurl-parse', su.handyurl_parse_geturl.cases, (c) => nonString(c, (u) => normalize(u, handy))),
  );

  // surt helpers: unit-level functions, each measured against our counterpart.
  const h = su.helpers;
  const preset = (name: PresetName, rec: UriRecord): UriRecord => applyPolicy(rec, [name]).record;
  const bare: UriRecord = { scheme: 'http', userinfo: undefined, host: 'h', port: undefined, path: '/', query: undefined, fragment: undefined };
  runs.push(
    runGroup('surt', 'helpers: GoogleURLCanonicalizer.attemptIPFormats', 'scheme rung (host of http://INPUT/)', h['GoogleURLCanonicalizer.attemptIPFormats'], (c) =>
      nonString(c, (host) => ipv4Host(normalizeRecord(`http://${host}/`))),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: GoogleURLCanonicalizer.unescapeRepeatedly', 'none: we never unescape repeatedly (identity)', h['GoogleURLCanonicalizer.unescapeRepeatedly'], (c) =>
      nonString(c, (s) => s),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: IAURLCanonicalizer.alphaReorderQuery', 'sort-query on the query', h['IAURLCanonicalizer.alphaReorderQuery'], (c) =>
      nonString(c, (q) => preset('sort-query', { ...bare, query: q }).query ?? ''),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: IAURLCanonicalizer.massageHost', 'www on the host', h['IAURLCanonicalizer.massageHost'], (c) =>
      nonString(c, (host) => preset('www', { ...bare, host }).host ?? null),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: IAURLCanonicalizer.getDefaultPort', 'scheme rung (port removed from SCHEME://h:PORT/)', h['IAURLCanonicalizer.getDefaultPort'], (c) =>
      nonString(c, (scheme) => {
        for (const port of [80, 443, 21]) if (normalizeRecord(`${scheme}://h:${port}/`).port === undefined) return port;
        return 0;
      }),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: URLRegexTransformer.stripPathSessionID', 'session-ids on path and query', h['URLRegexTransformer.stripPathSessionID'], (c) =>
      nonString(c, (pq) => {
        const q = pq.indexOf('?');
        const rec = preset('session-ids', { ...bare, path: q === -1 ? pq : pq.slice(0, q), query: q === -1 ? undefined : pq.slice(q + 1) });
        return rec.path + (rec.query === undefined ? '' : `?${rec.query}`);
      }),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: URLRegexTransformer.stripQuerySessionID', 'session-ids on the query', h['URLRegexTransformer.stripQuerySessionID'], (c) =>
      nonString(c, (q) => {
        const rec = preset('session-ids', { ...bare, query: q.startsWith('?') ? q.slice(1) : q });
        return rec.query === undefined ? '' : `?${rec.query}`;
      }),
    ),
  );
  runs.push(
    runGroup('surt', 'helpers: URLRegexTransformer.hostToSURT', 'hostToSurt', h['URLRegexTransformer.hostToSURT'], (c) =>
      nonString(c, (host) => hostToSurt(host, c.options?.reverse_ipaddr !== false)),
    ),
  );
  return runs;
}

/** The key a deviation is listed under. */
export function caseKey(r: { suite: string; group: string; input: string | null; options?: Record<string, unknown> }): string {
  return JSON.stringify([r.suite, r.group, r.input, r.options ?? {}]);
}

