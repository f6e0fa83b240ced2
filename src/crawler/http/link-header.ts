/**
 * The `Link` response header (RFC 8288, Web Linking) as evidence: the target of a link whose
 * relation types include `canonical`. RFC 6596 §3 lets a server name a document's canonical URL
 * there ("MAY be specified in the HTTP Link header"), which is how a PDF or any other answer
 * without a head names one (Apache `Header append Link "<…>; rel=\"canonical\""`). The crawl
 * records it as the page's `rel=canonical`, evidence checked like a redirect, never merged as is.
 */
import { resolve } from '../../normalize/index.js';
import type { HeaderValues } from './fetch.js';

/** One link-value of a `Link` field (RFC 8288 §3): its target as written and its parameters (names lower-cased, the first of each). */
export interface LinkValue {
  readonly target: string;
  readonly params: ReadonlyMap<string, string>;
}

const OWS = /[ \t]/;

/**
 * The link-values of a `Link` field value (RFC 8288 §3, `Link = #link-value`, `link-value = "<"
 * URI-Reference ">" *( OWS ";" OWS link-param )`). A comma inside `<…>` or a quoted string
 * separates nothing; a link-value that does not open with `<` is skipped to the next comma. A
 * parameter after the first of its name is ignored (§3.3 says so of `rel`; §3.4 for the others).
 */
export function parseLinkHeader(value: string): LinkValue[] {
  const out: LinkValue[] = [];
  let i = 0;
  const n = value.length;
  const skipTo = (stop: string): void => {
    let quoted = false;
    for (; i < n; i++) {
      const c = value[i]!;
      if (quoted) {
        if (c === '\\') i++;
        else if (c === '"') quoted = false;
      } else if (c === '"') quoted = true;
      else if (stop.includes(c)) return;
    }
  };
  while (i < n) {
    while (i < n && (OWS.test(value[i]!) || value[i] === ',')) i++;
    if (i >= n) break;
    if (value[i] !== '<') {
      skipTo(',');
      continue;
    }
    const end = value.indexOf('>', i + 1);
    if (end === -1) break;
    const target = value.slice(i + 1, end).trim();
    i = end + 1;
    const params = new Map<string, string>();
    for (;;) {
      while (i < n && OWS.test(value[i]!)) i++;
      if (value[i] !== ';') break;
      i++;
      while (i < n && OWS.test(value[i]!)) i++;
      const nameStart = i;
      while (i < n && !/[=;,\s]/.test(value[i]!)) i++;
      const name = value.slice(nameStart, i).toLowerCase();
      while (i < n && OWS.test(value[i]!)) i++;
      let v = '';
      if (value[i] === '=') {
        i++;
        while (i < n && OWS.test(value[i]!)) i++;
        if (value[i] === '"') {
          i++;
          for (; i < n && value[i] !== '"'; i++) v += value[i] === '\\' && i + 1 < n ? value[++i] : value[i];
          i++;
        } else {
          const start = i;
          while (i < n && !/[;,\s]/.test(value[i]!)) i++;
          v = value.slice(start, i);
        }
      }
      if (name !== '' && !params.has(name)) params.set(name, v);
    }
    out.push({ target, params });
    skipTo(',');
  }
  return out;
}

/**
 * The canonical URL a response names in its `Link` header, resolved against `base` (the URL that
 * answered, RFC 8288 §3.1), or undefined: none, or several that disagree (a response naming two
 * canonical URLs names none). A link with an `anchor` names the canonical URL of another
 * resource than the response's (§3.2) and is left out. Relation types are compared without case
 * (§2.1.1).
 */
export function linkHeaderCanonical(header: HeaderValues[string], base: string): string | undefined {
  if (header === undefined) return undefined;
  const found = new Set<string>();
  for (const field of Array.isArray(header) ? header : [header]) {
    for (const link of parseLinkHeader(field)) {
      const rel = link.params.get('rel');
      if (rel === undefined || link.params.has('anchor')) continue;
      if (!rel.toLowerCase().split(/[ \t]+/).includes('canonical')) continue;
      try {
        found.add(resolve(link.target, base, { mode: 'html' }));
      } catch {
        // an unparsable target names nothing
      }
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/**
 * The canonical URL a page names, in its head or its `Link` header: one where both agree or one
 * names none; undefined where they disagree (conflicting claims say nothing).
 */
export function pageCanonical(inHead: string | undefined, header: HeaderValues[string], base: string): string | undefined {
  const inLink = linkHeaderCanonical(header, base);
  if (inHead === undefined) return inLink;
  if (inLink === undefined) return inHead;
  return inHead.replace(/#.*$/, '') === inLink.replace(/#.*$/, '') ? inHead : undefined;
}
