/**
 * `urldedup/whatwg`: the WHATWG URL Standard's parser and serializer (src/normalize/whatwg/), as
 * `resolve(ref, base, { mode: 'html' })` uses them, on URL records rather than strings.
 */
export { parseWhatwg, resolveHtml, serializeWhatwg, isSpecialScheme, defaultPort, type WhatwgUrl, type WhatwgParseOptions } from '../normalize/resolve-html.js';
