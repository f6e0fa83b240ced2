/**
 * The policy rung: each preset's exact behaviour, the canonical order, idempotence (fast-check),
 * no decoding of reserved characters, and linear time on hostile input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyPolicy,
  isPresetName,
  presetOrder,
  presets,
  type PresetName,
} from '../../src/normalize/ladder/policy.js';
import { isUrlError } from '../../src/normalize/errors.js';
import { normalize } from '../../src/normalize/index.js';
import { recompose, type UriRecord } from '../../src/normalize/uri-record.js';

/** Test-only: a URI in normal form as a record, split by RFC 3986 Appendix B, then the authority at `@` and `:`. */
const APPENDIX_B = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

function record(uri: string): UriRecord {
  const m = APPENDIX_B.exec(uri);
  if (m === null) throw new Error(`not a URI: ${uri}`);
  const [, scheme, authority, path = '', query, fragment] = m;
  let userinfo: string | undefined;
  let host: string | undefined;
  let port: string | undefined;
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    userinfo = at === -1 ? undefined : authority.slice(0, at);
    const hostport = authority.slice(at + 1);
    const colon = hostport.lastIndexOf(':');
    if (colon !== -1 && !hostport.slice(colon).includes(']')) {
      host = hostport.slice(0, colon);
      port = hostport.slice(colon + 1);
    } else host = hostport;
  }
  return { scheme, userinfo, host, port, path, query, fragment };
}


function policy(names: readonly PresetName[], uri: string): string {
  return recompose(applyPolicy(record(uri), names).record);
}

/** [input, expected] pairs; expected === input means "unchanged, and the same object". */
type Table = ReadonlyArray<readonly [string, string]>;

function checkTable(name: PresetName, table: Table): void {
  for (const [input, expected] of table) {
    const rec = record(input);
    const out = presets[name].apply(rec);
    expect(recompose(out), `${name}: ${input}`).toBe(expected);
    if (expected === input) expect(out, `${name}: ${input} returns the same object`).toBe(rec);
    else expect(out).not.toBe(rec);
  }
}

describe('registry', () => {
  it('presetOrder lists every preset once, under its own name', () => {
    expect([...presetOrder].sort()).toEqual(Object.keys(presets).sort());
    expect(new Set(presetOrder).size).toBe(presetOrder.length);
    for (const name of presetOrder) {
      const p = presets[name];
      expect(p.name).toBe(name);
      expect(p.summary.length).toBeGreaterThan(10);
      expect(p.removes.length).toBeGreaterThan(0);
    }
  });

  it('docs/presets.md documents every preset and every name on its lists', async () => {
    const { readFileSync } = await import('node:fs');
    const { trackingParameterNames } = await import('../../src/normalize/presets/tracking.js');
    const session = await import('../../src/normalize/presets/session-ids.js');
    const { indexDocumentNames } = await import('../../src/normalize/presets/remove-index-document.js');
    const doc = readFileSync(new URL('../../docs/presets.md', import.meta.url), 'utf8');
    for (const name of presetOrder) expect(doc, name).toContain(`### \`${name}\``);
    // The documented order is the canonical order.
    expect(doc.replace(/\s+/g, ' ')).toContain(presetOrder.map((n) => `\`${n}\``).join(', '));
    const listed = [
      ...Object.keys(trackingParameterNames),
      ...session.sessionParameterNames,
      ...session.sessionParameterLetterPrefixes,
      ...session.guardedSessionParameterNames,
      ...indexDocumentNames,
    ];
    for (const name of listed) expect(doc, name).toContain(`\`${name}\``);
  });

  it('isPresetName accepts exactly the preset names', () => {
    for (const name of presetOrder) expect(isPresetName(name)).toBe(true);
    for (const s of ['', 'Tracking', 'toString', '__proto__', 'constructor', 'utm', 'www ']) expect(isPresetName(s)).toBe(false);
  });
});

describe('tracking', () => {
  it('removes utm_* and the listed click ids, exactly and case-sensitively', () => {
    checkTable('tracking', [
      ['http://a/?utm_source=x&id=1', 'http://a/?id=1'],
      ['http://a/?id=1&utm_medium=email&utm_campaign=spring&x', 'http://a/?id=1&x'],
      ['http://a/?utm_=1&utm_anything=2&k=v', 'http://a/?k=v'],
      ['http://a/?fbclid=IwAR0&gclid=Cj0&dclid=1&gbraid=2&wbraid=3&msclkid=4&mc_cid=5&mc_eid=6&yclid=7&_ga=8&_gl=9&igshid=10&q=1', 'http://a/?q=1'],
      ['http://a/?ttclid=1&twclid=2&li_fat_id=3&_hsenc=4&_hsmi=5&mkt_tok=6&srsltid=7&gad_source=8&pk_campaign=9&mtm_source=10&q', 'http://a/?q'],
      // The `?` goes with the last tracking parameter …
      ['http://a/?utm_source=x', 'http://a/'],
      ['http://a/?utm_source=x&fbclid=y', 'http://a/'],
      ['http://a/p?&utm_source=x', 'http://a/p'],
      // … but an empty query that had none stays, and other empty fields stay.
      ['http://a/?', 'http://a/?'],
      ['http://a/?a&&utm_source=x', 'http://a/?a&'],
      // Case-sensitive names; look-alikes and prefixes of other names are kept.
      ['http://a/?UTM_SOURCE=x&Fbclid=y&utm=z&xutm_source=1&gclid_x=2&ga=3', 'http://a/?UTM_SOURCE=x&Fbclid=y&utm=z&xutm_source=1&gclid_x=2&ga=3'],
      // Bare names count; values are never read.
      ['http://a/?utm_source&b', 'http://a/?b'],
      // Percent-encoded names are not decoded: `utm%5Fsource` cannot appear in normal form, `%26` is data.
      ['http://a/?x=%26utm_source%3D1', 'http://a/?x=%26utm_source%3D1'],
      // The path and fragment are never read.
      ['http://a/utm_source=1?k#utm_source=2', 'http://a/utm_source=1?k#utm_source=2'],
      ['http://a/', 'http://a/'],
    ]);
  });
});

describe('session-ids', () => {
  it('removes ;jsessionid= path parameters (any case) up to the next ; or /', () => {
    checkTable('session-ids', [
      ['http://a/login/auth;jsessionid=8DBFC2FEDBD740BBC8B4D1A504A6DE7F', 'http://a/login/auth'],
      ['http://a/p;JSESSIONID=abc.node1?x=1', 'http://a/p?x=1'],
      ['http://a/p;jsessionid=1;type=a/q', 'http://a/p;type=a/q'],
      ['http://a/p;v=1;jsessionid=1/q;jSessionId=2', 'http://a/p;v=1/q'],
      ['http://a/p;jsessionid=/q', 'http://a/p/q'],
      ['http://a/;jsessionid=1', 'http://a/'],
      // The segment would become a dot-segment: left alone (RFC 3986 §5.2.4).
      ['http://a/b/.;jsessionid=1/c', 'http://a/b/.;jsessionid=1/c'],
      ['http://a/b/..;jsessionid=1', 'http://a/b/..;jsessionid=1'],
      // Other path parameters, look-alikes and encoded semicolons are kept.
      ['http://a/p;jsessionidx=1;sid=0123456789abcdef0', 'http://a/p;jsessionidx=1;sid=0123456789abcdef0'],
      ['http://a/p%3Bjsessionid=1', 'http://a/p%3Bjsessionid=1'],
      // Only under an authority.
      ['urn:x;jsessionid=1', 'urn:x;jsessionid=1'],
    ]);
  });

  it('removes ASP.NET cookieless-state segments', () => {
    checkTable('session-ids', [
      ['http://a/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx', 'http://a/mileg.aspx'],
      ['http://a/(4hqa0555fwsecu455xqckv45)/mileg.aspx', 'http://a/mileg.aspx'],
      ['http://a/x/(A(4hqa0555fwsecu455xqckv45)S(4hqa0555fwsecu455xqckv45)F(4hqa0555fwsecu455xqckv45))/m.aspx?p=1', 'http://a/x/m.aspx?p=1'],
      ['http://a/x/(S(4hqa0555fwsecu455xqckv45))', 'http://a/x/'],
      ['http://a/(S(4hqa0555fwsecu455xqckv45));jsessionid=1/m', 'http://a/m'],
      // Not the shape: kept.
      ['http://a/(S(short))/m.aspx', 'http://a/(S(short))/m.aspx'],
      ['http://a/(Q(4hqa0555fwsecu455xqckv45))/m.aspx', 'http://a/(Q(4hqa0555fwsecu455xqckv45))/m.aspx'],
      ['http://a/(abcdefghijklmnopqrstuvwx)/m', 'http://a/(abcdefghijklmnopqrstuvwx)/m'],
      ['http://a/(4hqa0555fwsecu455xqckv4)/m', 'http://a/(4hqa0555fwsecu455xqckv4)/m'],
      ['http://a/photos/36050182@N05/', 'http://a/photos/36050182@N05/'],
    ]);
  });

  it('removes the session query parameters, any case; the `?` goes when nothing is left', () => {
    checkTable('session-ids', [
      ['http://a/?jsessionid=0123&x=y', 'http://a/?x=y'],
      ['http://a/?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221', 'http://a/?action=profile;u=4221'],
      ['http://a/?aspsessionidABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX&x=y', 'http://a/?x=y'],
      ['http://a/?ASPSESSIONID=1&x=y', 'http://a/?x=y'],
      ['http://a/?CFID=1169580&CFTOKEN=48630702&dt=19', 'http://a/?dt=19'],
      ['http://a/?osCsid=1&zenid=2&k', 'http://a/?k'],
      ['http://a/?jsessionid=1', 'http://a/'],
      ['http://a/?jsessionid', 'http://a/'],
      // Look-alikes are kept.
      ['http://a/?aspsessionid1=x&jsessionid2=y&phpsessid_x=z', 'http://a/?aspsessionid1=x&jsessionid2=y&phpsessid_x=z'],
    ]);
  });

  it('removes sid, sessionid, session_id, sessid only when the value looks like a session token', () => {
    checkTable('session-ids', [
      ['http://a/?sid=9682993c8daa2c5497996114facdc805&x=y', 'http://a/?x=y'],
      ['http://a/?SessionID=0123456789abcdefA&session_id=AB12CD34EF56GH78&sessid=z1z1z1z1z1z1z1z1&k', 'http://a/?k'],
      // Too short, digits only (a snowflake id), letters only, or other characters: kept.
      ['http://a/?sid=12&sid=en&sid=0123456789abcde', 'http://a/?sid=12&sid=en&sid=0123456789abcde'],
      ['http://a/?sid=1234567890123456789', 'http://a/?sid=1234567890123456789'],
      ['http://a/?sid=abcdefghijklmnopqrst', 'http://a/?sid=abcdefghijklmnopqrst'],
      ['http://a/?sid=2D89F5AF-3048-2957-DA4EE4B6B13661AB', 'http://a/?sid=2D89F5AF-3048-2957-DA4EE4B6B13661AB'],
      ['http://a/?sid=0123456789abcdef%41', 'http://a/?sid=0123456789abcdef%41'],
      ['http://a/?sid', 'http://a/?sid'],
    ]);
  });
});

describe('sort-query', () => {
  it('sorts fields by name, stably', () => {
    checkTable('sort-query', [
      ['http://a/?c=1&b=2&a=3', 'http://a/?a=3&b=2&c=1'],
      ['http://a/?a=2&a=1', 'http://a/?a=2&a=1'],
      ['http://a/?b=1&a=2&b=0&a=1', 'http://a/?a=2&a=1&b=1&b=0'],
      ['http://a/?c=3&b=5&b=2&a=50', 'http://a/?a=50&b=5&b=2&c=3'],
      // Bare names and `name=` sort by the same name and keep their order.
      ['http://a/?b&a=&a', 'http://a/?a=&a&b'],
      // Empty fields have the empty name: first.
      ['http://a/?a=1&', 'http://a/?&a=1'],
      // Code-unit order: uppercase before lowercase, `%` before letters; no decoding.
      ['http://a/?b=1&B=2&%41=3', 'http://a/?%41=3&B=2&b=1'],
      // `;` is not a separator.
      ['http://a/?c=1;b=2;a=3', 'http://a/?c=1;b=2;a=3'],
      ['http://a/?a=1&b=2', 'http://a/?a=1&b=2'],
      ['http://a/?', 'http://a/?'],
      ['http://a/', 'http://a/'],
    ]);
  });
});

describe('www', () => {
  it('strips one leading www. when two labels remain', () => {
    checkTable('www', [
      ['http://www.example.com/', 'http://example.com/'],
      ['http://u@www.example.co.uk:8080/p', 'http://u@example.co.uk:8080/p'],
      ['http://www.example.com./', 'http://example.com./'],
      ['http://www.com/', 'http://www.com/'],
      ['http://www.com./', 'http://www.com./'],
      ['http://www.www.example.com/', 'http://www.www.example.com/'],
      ['http://www2.example.com/', 'http://www2.example.com/'],
      ['http://www-1.example.com/', 'http://www-1.example.com/'],
      ['http://wwwexample.com/', 'http://wwwexample.com/'],
      ['http://example.www.com/', 'http://example.www.com/'],
      ['http://www.1.2/', 'http://www.1.2/'],
      ['http://[::1]/', 'http://[::1]/'],
      ['mailto:www.example.com', 'mailto:www.example.com'],
    ]);
  });
});

describe('remove-empty-host-labels', () => {
  it('removes trailing, leading and repeated dots of a registered name', () => {
    checkTable('remove-empty-host-labels', [
      ['http://example.com./', 'http://example.com/'],
      ['http://www.google.com.../', 'http://www.google.com/'],
      ['http://..google.com/', 'http://google.com/'],
      ['http://google...com:8080/', 'http://google.com:8080/'],
      ['http://example.com/', 'http://example.com/'],
      ['http://./', 'http://./'],
      ['http://a.1./', 'http://a.1./'],
      ['http://[::1]/', 'http://[::1]/'],
    ]);
  });
});

describe('remove-userinfo', () => {
  it('removes userinfo from http and https only', () => {
    checkTable('remove-userinfo', [
      ['http://user:pass@a/', 'http://a/'],
      ['https://john.doe@a:1234/x', 'https://a:1234/x'],
      ['http://@a/', 'http://a/'],
      ['ftp://user@a/', 'ftp://user@a/'],
      ['http://a/', 'http://a/'],
    ]);
  });
});

describe('collapse-slashes', () => {
  it('makes runs of / one /', () => {
    checkTable('collapse-slashes', [
      ['http://a//x//y///z////', 'http://a/x/y/z/'],
      ['http://a/x?y//z', 'http://a/x?y//z'],
      ['http://a/x%2F%2Fy', 'http://a/x%2F%2Fy'],
      ['file:///var//www', 'file:///var/www'],
      ['urn:a//b', 'urn:a//b'],
      ['mailto:/.//x', 'mailto:/.//x'],
      ['http://a/', 'http://a/'],
    ]);
  });
});

describe('remove-index-document', () => {
  it('removes a listed default document name from the last segment', () => {
    checkTable('remove-index-document', [
      ['http://a/index.html', 'http://a/'],
      ['http://a/dir/index.php?page=2', 'http://a/dir/?page=2'],
      ['http://a/dir/Default.aspx', 'http://a/dir/'],
      ['http://a/index.html/', 'http://a/index.html/'],
      ['http://a/INDEX.HTML', 'http://a/INDEX.HTML'],
      ['http://a/myindex.html', 'http://a/myindex.html'],
      ['http://a/index.html;x', 'http://a/index.html;x'],
      ['http://a/index.html.bak', 'http://a/index.html.bak'],
      ['urn:index.html', 'urn:index.html'],
    ]);
  });
});

describe('remove-trailing-slash', () => {
  it('removes trailing / from a non-root path', () => {
    checkTable('remove-trailing-slash', [
      ['http://a/dir/', 'http://a/dir'],
      ['http://a/dir//?q', 'http://a/dir?q'],
      ['http://a/f:2111:25235;2278:9720,9539;p:579,580/', 'http://a/f:2111:25235;2278:9720,9539;p:579,580'],
      ['http://a/', 'http://a/'],
      ['http://a//', 'http://a//'],
      ['http://a/index.html/', 'http://a/index.html/'],
      ['http://a/dir', 'http://a/dir'],
      ['http://a/?x/', 'http://a/?x/'],
      ['mailto:/.//', 'mailto:/.//'],
      ['urn:a/', 'urn:a/'],
    ]);
  });
});

describe('remove-empty-params, remove-empty-query, remove-query', () => {
  it('remove-empty-params drops empty fields and keeps the ?', () => {
    checkTable('remove-empty-params', [
      ['http://a/?&a=1&&b=2&', 'http://a/?a=1&b=2'],
      ['http://a/?&', 'http://a/?'],
      ['http://a/?a=&b', 'http://a/?a=&b'],
      ['http://a/?', 'http://a/?'],
      ['http://a/?%26', 'http://a/?%26'],
    ]);
  });
  it('remove-empty-query drops a ? with nothing after it', () => {
    checkTable('remove-empty-query', [
      ['http://a/p?', 'http://a/p'],
      ['http://a/p?#f', 'http://a/p#f'],
      ['http://a/p?&', 'http://a/p?&'],
      ['http://a/p', 'http://a/p'],
    ]);
  });
  it('remove-query drops the query', () => {
    checkTable('remove-query', [
      ['http://a/p?q=1#f', 'http://a/p#f'],
      ['http://a/p?', 'http://a/p'],
      ['http://a/p', 'http://a/p'],
    ]);
  });
});

describe('malformed % guard', () => {
  it('the presets that splice or reorder leave a component with a malformed % alone', () => {
    const all = presetOrder.filter((n) => n !== 'remove-query');
    expect(policy(all, 'http://a/?utm_source=%&%41&b=1')).toBe('http://a/?utm_source=%&%41&b=1');
    expect(policy(all, 'http://a/?b=%4&a=1')).toBe('http://a/?b=%4&a=1');
    expect(policy(all, 'http://a/x;jsessionid=%/%41//y/')).toBe('http://a/x;jsessionid=%/%41//y');
    // The other component is still edited.
    expect(policy(all, 'http://www.a.b/x%/?utm_source=1&b=2&a=1')).toBe('http://a.b/x%?a=1&b=2');
    expect(policy(all, 'http://a.b/x;jsessionid=1?q=%')).toBe('http://a.b/x?q=%');
  });
});

describe('applyPolicy', () => {
  it('applies in the canonical order whatever order the names are given in', () => {
    const uri = 'http://u@www.example.com/x//index.html;jsessionid=1?utm_source=a&b=1&&a=2&sid=0123456789abcdefA';
    const expected = 'http://example.com/x?a=2&b=1';
    const all = [...presetOrder].filter((n) => n !== 'remove-query');
    expect(policy(all, uri)).toBe(expected);
    expect(policy([...all].reverse(), uri)).toBe(expected);
    const { applied } = applyPolicy(record(uri), [...all].reverse());
    expect(applied).toEqual([
      'remove-userinfo',
      'www',
      'session-ids',
      'collapse-slashes',
      'remove-index-document',
      'remove-trailing-slash',
      'tracking',
      'remove-empty-params',
      'sort-query',
    ]);
  });

  it('lists only the presets that changed something and returns the same record when none did', () => {
    const rec = record('http://example.com/a?b=1');
    const result = applyPolicy(rec, ['tracking', 'www', 'sort-query', 'tracking']);
    expect(result.record).toBe(rec);
    expect(result.applied).toEqual([]);
    expect(applyPolicy(rec, []).record).toBe(rec);
  });

  it('index document, then trailing slash: one pass is enough', () => {
    const names: PresetName[] = ['remove-index-document', 'remove-trailing-slash'];
    expect(policy(names, 'http://a/dir/index.html')).toBe('http://a/dir');
    expect(policy(names, 'http://a/index.html/')).toBe('http://a/index.html/');
    expect(policy(names, 'http://a/index.html')).toBe('http://a/');
  });

  it('rejects an unknown name with a TypeError', () => {
    expect(() => applyPolicy(record('http://a/'), ['nope' as PresetName])).toThrow(TypeError);
  });
});

describe('no decoding, no `+` rewriting', () => {
  const reserved = 'http://www.example.com/a%2Fb%3B;jsessionid=1/c%2F/?q=a%26b%3Dc&utm_source=x&s=a+b%20c&%3D=1#f%23';
  const count = (s: string, what: string): number => s.split(what).length - 1;
  it.each(presetOrder)('%s keeps every reserved escape and every +', (name) => {
    const out = policy([name], reserved);
    // Only `remove-query` removes a component that holds escapes.
    const kept = name === 'remove-query' ? reserved.replace(/\?[^#]*/, '') : reserved;
    for (const what of ['%2F', '%3B', '%26', '%3D', '%20', '%23', '+']) {
      expect(count(out, what), `${name}: ${what} in ${out}`).toBe(count(kept, what));
    }
    expect(count(out, '/')).toBeLessThanOrEqual(count(reserved, '/'));
    expect(count(out, '&')).toBeLessThanOrEqual(count(reserved, '&'));
    expect(count(out, '=')).toBeLessThanOrEqual(count(reserved, '='));
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Pieces that exercise every preset's edge cases. */
const hostPiece = fc.constantFrom('www', 'www2', 'example', 'com', '1', '0x1', '', 'co', 'uk');
const segmentPiece = fc.constantFrom(
  '', '.', '..', 'a', 'index.html', 'Default.aspx', ';jsessionid=1', ';JSESSIONID=', ';x=1', ';', 'jsessionid=',
  '(S(4hqa0555fwsecu455xqckv45))', '(4hqa0555fwsecu455xqckv45)', '%2F', '%3B', 'b;v', 'index.html;jsessionid=2', '%', ';jsessionid=%',
);
const fieldPiece = fc.constantFrom(
  '', 'a', 'a=', 'a=1', 'a=2', 'b=1', 'B=1', 'utm_source=x', 'fbclid', 'jsessionid=1', 'PHPSESSID=z', 'sid=0123456789abcdefA',
  'sid=12', '%26=%3D', 'q=a+b', 'q=%20', 'c;d=1', '_ga=1', 'cfid=1', '%', 'x=%4', '%41',
);

const hostArb = fc.oneof(
  fc.array(hostPiece, { maxLength: 5 }).map((ls) => ls.join('.')),
  fc.constantFrom('[::1]', '127.0.0.1'),
);
const pathArb = fc.array(segmentPiece, { maxLength: 6 }).map((ss) => ss.map((s) => '/' + s).join(''));
const queryArb = fc.option(fc.array(fieldPiece, { maxLength: 6 }).map((fs) => fs.join('&')), { nil: undefined });

/** A record with an authority (http, https or ftp), in a shape the lower rungs can emit. */
const recordArb: fc.Arbitrary<UriRecord> = fc
  .record({
    scheme: fc.constantFrom('http', 'https', 'ftp'),
    userinfo: fc.option(fc.constantFrom('u', 'u:p', ''), { nil: undefined }),
    host: hostArb,
    port: fc.option(fc.constantFrom('8080', ''), { nil: undefined }),
    path: pathArb,
    query: queryArb,
    fragment: fc.option(fc.constantFrom('', 'f', 'utm_source=1'), { nil: undefined }),
  })
  .map((r) => ({ ...r, path: r.path === '' ? '/' : r.path }))
  // The lower rungs never emit dot-segments (RFC 3986 §5.2.4).
  .filter((r) => !/\/\.\.?(\/|$)/.test(r.path));

const namesArb = fc.subarray([...presetOrder]);

/** Components as units: a `%XX` triplet is one unit, any other character one unit. */
function units(s: string | undefined): string[] {
  if (s === undefined) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%' && /^[0-9A-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(s.slice(i, i + 3));
      i += 2;
    } else out.push(s[i]!);
  }
  return out;
}
function isSubsequence(small: readonly string[], big: readonly string[]): boolean {
  let j = 0;
  for (const u of big) if (j < small.length && small[j] === u) j++;
  return j === small.length;
}
function multisetIncludes(big: readonly string[], small: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const x of big) counts.set(x, (counts.get(x) ?? 0) + 1);
  for (const x of small) {
    const n = counts.get(x) ?? 0;
    if (n === 0) return false;
    counts.set(x, n - 1);
  }
  return true;
}

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
/** The budget of all three properties together (about 3 s), split below; the seed is printed. */
const TIME_BOX_MS = Number(process.env.POLICY_BUDGET_MS ?? 3000);

describe('properties (fast-check)', () => {
  it(`idempotent: applyPolicy(applyPolicy(x)) == applyPolicy(x), every preset set (seed ${SEED})`, () => {
    console.log(`policy properties: fast-check seed ${SEED} (rerun with FC_SEED=${SEED})`);
    fc.assert(
      fc.property(recordArb, namesArb, (rec, names) => {
        const once = applyPolicy(rec, names).record;
        const twice = applyPolicy(once, names);
        expect(recompose(twice.record)).toBe(recompose(once));
        expect(twice.applied).toEqual([]);
        expect(twice.record).toBe(once);
      }),
      { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: TIME_BOX_MS / 4, markInterruptAsFailure: false },
    );
  }, TIME_BOX_MS + 20_000);

  it(`only removes or reorders: no unit is created, none decoded (seed ${SEED})`, () => {
    fc.assert(
      fc.property(recordArb, namesArb, (rec, names) => {
        const out = applyPolicy(rec, names).record;
        expect(out.scheme).toBe(rec.scheme);
        expect(out.port).toBe(rec.port);
        expect(out.fragment).toBe(rec.fragment);
        for (const k of ['userinfo', 'host', 'path'] as const) {
          expect(isSubsequence(units(out[k]), units(rec[k])), `${k}: ${out[k]} from ${rec[k]}`).toBe(true);
        }
        if (out.query !== undefined) {
          expect(rec.query).toBeDefined();
          expect(multisetIncludes(rec.query!.split('&'), out.query.split('&')), `${out.query} from ${rec.query}`).toBe(true);
        }
        // The normal form keeps a path under an authority absolute, and never creates dot-segments.
        expect(out.path.startsWith('/')).toBe(true);
        expect(/\/\.\.?(\/|$)/.test(out.path)).toBe(false);
      }),
      { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: TIME_BOX_MS / 4, markInterruptAsFailure: false },
    );
  }, TIME_BOX_MS + 20_000);
});

/** URL strings for the whole ladder: the lower rungs decide the normal form, the presets edit it. */
const urlToken = fc.constantFrom(
  'a', 'B', '0', '.', '..', '/', '//', '%', '%4', '%41', '%2e', '%2F', '%25', '%26', '%3D', '+', ' ', '&', '=', ';', '?', '#',
  'www.', 'utm_source=1', 'fbclid=2', ';jsessionid=ABC', 'jsessionid=1', 'sid=0123456789abcdefA', 'index.html',
  '(S(4hqa0555fwsecu455xqckv45))', '\u00e9', 'xn--', '::1', '[', ']', '@',
);
const urlPiece = fc.array(urlToken, { maxLength: 6 }).map((t) => t.join(''));
const urlArb = fc
  .tuple(
    fc.constantFrom('http://', 'HTTPS://', 'ftp://', 'foo://', 'http://u:p@', 'http://www.'),
    fc.array(fc.constantFrom('www', 'a', 'b', '', '1', 'xn--a'), { maxLength: 4 }).map((l) => l.join('.')),
    fc.constantFrom('', ':8080', ':80', ':'),
    urlPiece,
    fc.option(urlPiece),
    fc.option(urlPiece),
  )
  .map(([p, h, port, path, q, f]) => `${p}${h || 'h'}${port}/${path}${q === null ? '' : `?${q}`}${f === null ? '' : `#${f}`}`);

describe('the whole ladder with presets (fast-check)', () => {
  it(`normalize(normalize(x, p), p) === normalize(x, p) for every preset set (seed ${SEED})`, () => {
    fc.assert(
      fc.property(urlArb, namesArb, fc.boolean(), (url, names, keepFragment) => {
        const o = { presets: names, keepFragment };
        let once: string;
        try {
          once = normalize(url, o);
        } catch (error) {
          if (isUrlError(error)) return;
          throw error;
        }
        expect(normalize(once, o), `${url} with ${names.join(',')}`).toBe(once);
      }),
      { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: TIME_BOX_MS / 2, markInterruptAsFailure: false },
    );
  }, TIME_BOX_MS + 20_000);
});

describe('linear time on hostile input (hang guard, not a benchmark)', () => {
  const N = 100_000;
  const everything = [...presetOrder];
  it(
    'a 100k-char path of ;jsessionid= and a 100k-char query of session fields',
    () => {
      const path = '/' + ';jsessionid='.repeat(Math.ceil(N / 12));
      expect(policy(['session-ids'], `http://a${path}`)).toBe('http://a/');
      const almost = '/' + ';jsessionid'.repeat(Math.ceil(N / 11));
      expect(policy(['session-ids'], `http://a${almost}`)).toBe(`http://a${almost}`);
      const query = 'jsessionid=&'.repeat(Math.ceil(N / 12));
      expect(policy(['session-ids'], `http://a/?${query}`)).toBe('http://a/');
      const parens = '/' + '(S('.repeat(Math.ceil(N / 3));
      expect(policy(['session-ids'], `http://a${parens}`)).toBe(`http://a${parens}`);
    },
    20_000,
  );
  it(
    'every preset on 100k-char hosts, paths and queries',
    () => {
      const inputs = [
        `http://${'www.'.repeat(N / 4)}example.com/`,
        `http://${'.'.repeat(N)}a.b/`,
        `http://a${'/'.repeat(N)}x${'/'.repeat(N)}`,
        `http://a/?${'&'.repeat(N)}`,
        `http://a/?${Array.from({ length: N / 5 }, (_, i) => `k${(N - i) % 997}=${i}`).join('&')}`,
        `http://a/?${'utm_source=1&'.repeat(N / 13)}`,
        `http://a/${'index.html/'.repeat(N / 11)}`,
        `http://a/?${'sid=0123456789abcdef0&'.repeat(N / 21)}`,
      ];
      for (const uri of inputs) {
        const once = policy(everything.filter((n) => n !== 'remove-query'), uri);
        expect(policy(everything.filter((n) => n !== 'remove-query'), once)).toBe(once);
      }
    },
    20_000,
  );
});
