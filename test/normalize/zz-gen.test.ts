import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { runAllSuites, type CaseResult } from './crawler-suites.js';

const R: Record<string, string> = {
  'repeated-unescape': 'suite unescapes repeatedly, so %2525, %25 and a literal % become one — lossy, a false positive under RFC 3986 §6.1 (%25 is a literal %, and a server decodes once)',
  'port-dropped': 'suite drops a non-default port (Safe Browsing v4 hashes the host without it) — another port is another server, a different resource; RFC 3986 §6.2.3 removes only the default port',
  'invalid-host': 'suite keeps a host holding a character no host may contain (space, control, #, <, >, ^ or U+FFFD after decoding) where we return ERR_INVALID_HOST, as a browser refuses the URL (WHATWG forbidden host code point)',
  'host-trailing-garbage': 'suite ignores the text after the address; a host with a space in it is invalid (ERR_INVALID_HOST)',
  'scheme-guessed': 'suite guesses http:// for a reference without a scheme; we need an absolute URI and return ERR_RELATIVE_URL (RFC 3986 §4.3) — resolve it against its page first',
  'whole-url-unescaped': 'suite percent-decodes the whole string before parsing, turning data into delimiters (%3A%2F%2F → ://); it is a relative reference (ERR_RELATIVE_URL)',
  'empty-authority-lenient': 'in lenient (browser) mode http:///blah reads as a browser reads it, host blah (WHATWG skips the extra slashes of special schemes); the suite rejects it, and so does strict: true (ERR_INVALID_HOST)',
  'non-http-scheme': 'Safe Browsing keys only http(s) and rejects other schemes; mailto: is a valid URI, which we normalize',
  'ipv4-wraparound': 'suite wraps an out-of-range IPv4 number into another address (276.2.3 → 20.2.0.3, 39024579298 mod 2^32); browsers (WHATWG IPv4 parser) reject it and so do we (ERR_INVALID_HOST) — wrapping names a different host',
  'normalizer-bug': 'BUG, not a deviation: the lenient parser rejects every bracketed IP literal (src/normalize/parse.ts parseAuthority, non-strict branch); reported to the lead — remove these entries when fixed',
  'query-separator-option': 'suite option query_separator=";" sorts ;-separated fields; we split the query on & only (; is data in application/x-www-form-urlencoded), and no preset offers ; as a separator',
  'sort-by-value': 'suite sorts fields of the same name by value (b=5&b=2 → b=2&b=5) — a repeated parameter is an ordered list to most servers; sort-query sorts by name only, stably',
  'blank-values-dropped': 'suite option keep_blank_values=False drops parameters with an empty value — ?b= can select a different resource; no preset offers it',
  'equals-added': 'suite writes a bare name as name= (c → c=) — ?c and ?c= are different queries to many servers (RFC 3986 gives the query no name=value structure); we keep them distinct',
  'subdelim-encoded': 'suite percent-encodes a sub-delimiter (, → %2C, ( → %28) — RFC 3986 §2.2: encoding a reserved character can change the meaning; we keep it as written',
  'plus-for-space': 'suite writes a space in the query as + (form encoding); we write %20 — + and %20 are different octets (RFC 3986 §6.2.2.2) and many servers read + literally; we never convert between them',
  'legacy-charset': 'suite option encoding=latin1/cp1251 encodes the query in a legacy charset; we always encode as UTF-8 (RFC 3986 §2.5, WHATWG for http(s)) — the page charset is the link extractor\'s business',
  'reserved-decoded': 'suite decodes %2C to , (a sub-delimiter) — RFC 3986 §6.2.2.2 allows decoding unreserved characters only; %2C and , may differ',
  'relative-reference': 'suite canonicalizes a relative reference; we need an absolute URI (ERR_RELATIVE_URL, RFC 3986 §4.3) — resolve it against its base first',
  'idna-failure-kept-unicode': 'suite leaves the host in Unicode when its IDNA encoder fails (empty label, label over 63 octets); we apply UTS #46 ToASCII as browsers do, without the DNS length check — the same host in its ASCII form',
  'idn-unicode-output': 'suite leaves or turns the host into Unicode (urlnormalizer.basic.host.idn unset or toUnicode); our normal form is the ASCII (A-label) host a browser looks up (UTS #46) — the same host, spelled differently',
  'idna-transitional': 'suite applies IDNA2003 transitional mapping (ß → ss); under IDNA2008 and in browsers straße.de and strasse.de are different domains — merging them is a false positive',
  'no-host': 'suite keeps an http or ftp URL with no host (http:, ftp:/); those schemes require one (RFC 9110 §4.2.1, RFC 1738 §3.1), so we return ERR_INVALID_HOST',
  'stray-percent': 'suite escapes a % that starts no valid escape as %25; we keep it as a browser sends it (WHATWG) and strict: true rejects it (ERR_INVALID_PERCENT) — rewriting would turn malformed input into a different valid URI',
  'file-authority': 'we write a file URI with its empty authority (file:///var/…, as WHATWG serializes it; RFC 8089 §2 allows both forms) — the same file',
  'custom-param-list': 'suite removes a caller-chosen parameter list (queryElementsToRemove: a, foo); our presets remove fixed, documented lists only',
  'mangled-query': 'suite rewrites a first & after the host into ? (unmangleQueryString) — guesswork: google.com&d=4&good=true is a (strange) host name, which we keep',
  'empty-path-kept': 'suite leaves an empty http path; our normal form writes it / (RFC 3986 §6.2.3: the same resource, spelled differently)',
  'hash-heuristic': 'suite drops any parameter whose value looks like a hash (removeHashes) — that also drops content ids and signed-URL tokens; session-ids removes only named session parameters',
  'backslash': 'suite percent-encodes \\; in lenient mode we read \\ as / in http(s) URLs as browsers do (WHATWG), and strict: true rejects it',
  'percent-u': 'suite converts the non-standard %uXXXX escape to UTF-8; it is not an RFC 3986 escape, so we leave it as written (strict: true rejects it)',
  'root-slash-dropped': 'suite drops the / of the root path (http://example.com) — RFC 3986 §6.2.3 writes an empty http path as /, and our normal form keeps it (remove-trailing-slash never removes the root)',
  'not-applicable': 'non-string input (None upstream); toSurt takes a string (the empty-string case gives -)',
  'query-lowercased': 'suite lowercases the query (query_lowercase=True) — queries are case-sensitive (RFC 3986 §6.2.2.1); no preset offers it (toSurt does, since SURT is a lossy export format)',
  'wwwN': 'suite strips www plus digits (www34., www12.) — www2.example.com is often a different server; the www preset strips exactly www.',
  'empty-query-dropped': 'suite\'s parser drops an empty query before a fragment — RFC 3986 §6.2.3 keeps http://a/? distinct from http://a/',
  'iri-kept': 'suite keeps non-ASCII characters raw (an IRI); a URI percent-encodes them as UTF-8 (RFC 3986 §2.1, RFC 3987 §3.1), which the syntax rung does',
  'scheme-rung-step': 'suite also does a scheme-rung step (empty path → /, empty port removed, RFC 3986 §6.2.3); this profile is the syntax rung alone, as handyurl.parse is the parser alone',
  'scheme-repair': 'suite repairs a doubled scheme (http://https://… → https://…) — guesswork; the string names host https with an empty port',
  'separator-left-behind': 'IA\'s helper leaves the ? or a trailing & behind and its canonicalizer removes them later; session-ids removes a field with its & and the ? when no field is left',
  'session-value-shape': 'IA strips jsessionid only when the value is exactly 32 characters; for us the name alone marks a servlet session id, and session-ids removes it whatever the value',
  'ipv6-form': 'suite keeps the embedded dotted IPv4 of ::192.9.5.5; we serialize IPv6 as WHATWG does, in hex (::c009:505; RFC 5952 §5 keeps dotted form only for IPv4-mapped prefixes) — the same address, spelled differently',
  'empty-fragment-dropped': 'with keepFragment it drops an empty fragment (#), which RFC 3986 §6.2.3 keeps',
  'whole-field-sort': 'suite sorts whole fields, so a=b&a=a becomes a=a&a=b — it reorders the values of a repeated parameter; sort-query sorts by name only, stably',
};

function classify(r: CaseResult): string[] {
  const i = r.input ?? '';
  const o = (r.options ?? {}) as Record<string, unknown>;
  const ours = String(r.ours);
  const g = r.group;
  if (r.input === null) return ['not-applicable'];
  if (i.includes('[::192.9.5.5]')) return ['ipv6-form'];
  if (i.includes('[') && ours === '!ERR_INVALID_HOST') return ['normalizer-bug'];
  if (g.includes('unescapeRepeatedly')) return ['repeated-unescape'];
  if (g.includes('alphaReorderQuery')) return ['whole-field-sort'];
  if (g.includes('massageHost') || i.includes('www34.')) return ['wwwN'];
  if (g.includes('stripQuerySessionID')) return i.endsWith('uv0') ? ['session-value-shape'] : ['separator-left-behind'];
  if (/^(276\.2\.3|39024579298)$/.test(i)) return ['ipv4-wraparound'];
  if (i === '10.192.95.89 xy') return ['host-trailing-garbage'];
  if (i.startsWith('http%3A')) return ['whole-url-unescaped'];
  if (/^(ftp:\/|http:\/*)$/.test(i)) return ['no-host'];
  if (i.startsWith('http:////')) return ['scheme-rung-step'];
  if (i.startsWith('http:///')) return ['empty-authority-lenient'];
  if (i.startsWith('mailto:')) return ['non-http-scheme'];
  if (ours === '!ERR_RELATIVE_URL') return r.suite === 'w3lib' ? ['relative-reference'] : i.startsWith('%20') ? ['scheme-guessed', 'invalid-host'] : ['scheme-guessed'];
  if (ours === '!ERR_INVALID_HOST') {
    if (/^(ftp:\/|http:\/*)$/.test(i)) return ['no-host'];
    return i.includes('%25') ? ['invalid-host', 'repeated-unescape'] : ['invalid-host'];
  }
  if (/%25%32%35|%2525/.test(i)) return ['repeated-unescape'];
  if (i.includes('gotaport')) return ['port-dropped'];
  if (o.query_separator === ';') return ['query-separator-option'];
  if (o.keep_blank_values === false) return ['blank-values-dropped'];
  if (o.encoding !== undefined) return ['legacy-charset'];
  if (o.query_lowercase !== undefined || /\?X=Y$/.test(i)) return ['query-lowercased'];
  if (r.suite === 'w3lib') {
    if (i.includes('b=5&b=2')) return ['sort-by-value'];
    if (i.includes('1750,4')) return ['subdelim-encoded', 'equals-added'];
    if (i.includes('&c&')) return ['equals-added'];
    if (i.includes('a space') || i.includes('a%20space')) return ['plus-for-space'];
    if (i.includes('%2c')) return ['reserved-decoded'];
    if (i.includes('price(')) return ['subdelim-encoded'];
    if (i.includes('xampl')) return ['idna-failure-kept-unicode'];
  }
  if (r.suite === 'nutch' && g === 'nutch') {
    if (i.includes('straße')) return ['idna-transitional'];
    if (o['urlnormalizer.basic.host.idn'] === 'toUnicode' || /[^\x00-\x7f]/.test(String(r.expected))) return ['idn-unicode-output'];
    if (i.startsWith('file:/')) return ['file-authority'];
    if (i.includes('%')) return ['stray-percent'];
  }
  if (g === 'stormcrawler') {
    if (i.startsWith('http://google.com&')) return o.unmangleQueryString === false ? ['empty-path-kept'] : ['mangled-query', 'empty-path-kept'];
    if (Array.isArray(o.queryElementsToRemove) && /[?&](a|foo)=/.test(i)) return ['custom-param-list', 'empty-path-kept'];
    if (o.removeHashes === true) return ['hash-heuristic'];
    if (i.includes('\\')) return ['backslash'];
    if (i.includes('%u')) return ['percent-u'];
    if (i.startsWith('http://vins.lemonde.fr?')) return ['empty-path-kept'];
  }
  if (r.suite === 'crawlee') {
    const extra: string[] = [];
    if (i.includes('foo bar')) extra.push('plus-for-space');
    if (i.includes('&dalsi')) extra.push('equals-added');
    if (i.endsWith('#') && o.keepFragment === true) extra.push('empty-fragment-dropped');
    return ['root-slash-dropped', ...extra];
  }
  if (g === 'handyurl_parse_geturl') {
    if (/[^\x00-\x7f]/.test(i)) return i.includes('?#') ? ['iri-kept', 'empty-query-dropped', 'scheme-rung-step'] : ['iri-kept'];
    if (i.includes('https://order')) return ['scheme-repair'];
    if (i.includes('?#')) return i.includes('8080?') ? ['empty-query-dropped', 'scheme-rung-step'] : ['empty-query-dropped'];
    return ['scheme-rung-step'];
  }
  return ['UNCLASSIFIED'];
}

it('gen', () => {
  const out: object[] = [];
  for (const g of runAllSuites()) {
    for (const r of g.results) {
      if (r.pass) continue;
      const cats = classify(r);
      const reason = cats.map((c) => R[c] ?? c).join('; and ');
      out.push({
        suite: r.suite,
        group: r.group,
        input: r.input,
        ...(r.options !== undefined ? { options: r.options } : {}),
        expected: r.expected,
        ours: r.ours,
        category: cats[0],
        reason: cats.length > 1 ? reason.charAt(0).toUpperCase() === reason.charAt(0) ? reason : reason : reason,
      });
    }
  }
  writeFileSync('/tmp/deviations.json', JSON.stringify(out, null, 2) + '\n');
});
