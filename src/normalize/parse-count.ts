/**
 * How many times each URL parser ran in this process: the WHATWG parser (ours, `parseWhatwg`), the
 * RFC 3986 parser (`parseUriReference`), the single pass's scan where `identify` makes it (the
 * store's: `key` itself counts nothing), and Node's `URL` where the crawler uses it (`nodeUrl`).
 * The parser-count test reads these over a real crawl (docs/design.md, "One identity per URL").
 * An increment per call is all it costs; nothing else reads them.
 */
export const parseCount = { whatwg: 0, rfc: 0, scan: 0, node: 0 };

/** `nodeUrl(input)`, or undefined where it throws. */
export function tryNodeUrl(input: string): URL | undefined {
  try {
    return nodeUrl(input);
  } catch {
    return undefined;
  }
}

/** `new URL(input, base)`, counted. */
export function nodeUrl(input: string, base?: string | URL): URL {
  parseCount.node++;
  return new URL(input, base);
}
