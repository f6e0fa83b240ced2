/**
 * RFC 3986 §5.2.4: remove_dot_segments.
 *
 * The algorithm as the RFC writes it, with an index into the input buffer and the output buffer kept
 * as a stack of moved segments, so "remove the last segment of the output" is a pop: linear time
 * and memory even for a million `../`.
 */
const SLASH = 0x2f;
const DOT = 0x2e;

/** True when the path may hold a dot-segment; most paths don't, and skip the work. */
export function mayHaveDotSegments(path: string): boolean {
  return path.charCodeAt(0) === DOT || path.indexOf('/.') !== -1;
}

export function removeDotSegments(path: string): string {
  if (!mayHaveDotSegments(path)) return path;
  const n = path.length;
  const out: string[] = [];
  let i = 0;
  while (i < n) {
    const c0 = path.charCodeAt(i);
    const c1 = i + 1 < n ? path.charCodeAt(i + 1) : -1;
    const c2 = i + 2 < n ? path.charCodeAt(i + 2) : -1;
    const c3 = i + 3 < n ? path.charCodeAt(i + 3) : -1;
    // A. a prefix of "../" or "./" is removed
    if (c0 === DOT && c1 === DOT && c2 === SLASH) {
      i += 3;
    } else if (c0 === DOT && c1 === SLASH) {
      i += 2;
    }
    // B. a prefix of "/./" or "/." (a complete segment) is replaced by "/"
    else if (c0 === SLASH && c1 === DOT && c2 === SLASH) {
      i += 2;
    } else if (c0 === SLASH && c1 === DOT && i + 2 === n) {
      out.push('/');
      i = n;
    }
    // C. a prefix of "/../" or "/.." (a complete segment) is replaced by "/", and the last
    //    segment of the output buffer is removed with its preceding "/"
    else if (c0 === SLASH && c1 === DOT && c2 === DOT && c3 === SLASH) {
      i += 3;
      out.pop();
    } else if (c0 === SLASH && c1 === DOT && c2 === DOT && i + 3 === n) {
      out.pop();
      out.push('/');
      i = n;
    }
    // D. an input of exactly "." or ".." is removed
    else if ((c0 === DOT && i + 1 === n) || (c0 === DOT && c1 === DOT && i + 2 === n)) {
      i = n;
    }
    // E. the first segment, with its initial "/" if any, moves to the output
    else {
      let j = path.indexOf('/', c0 === SLASH ? i + 1 : i);
      if (j === -1) j = n;
      out.push(path.slice(i, j));
      i = j;
    }
  }
  return out.join('');
}

/** Number of segments of a path (`/a/b` has 2), for the `maxSegments` limit. */
export function countSegments(path: string): number {
  let count = path.length > 0 && path.charCodeAt(0) !== SLASH ? 1 : 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) count++;
  return count;
}
