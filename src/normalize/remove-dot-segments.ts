/**
 * RFC 3986 §5.2.4: remove_dot_segments.
 *
 * The algorithm as the RFC writes it, with an index into the input buffer. The output buffer holds
 * no text of its own: every character it receives is a character of the input (a moved segment, or
 * the "/" of a final "/." or "/.."), so it is kept as a stack of ranges of the input, a segment
 * appended right after the range before it only widening that range. "Remove the last segment of
 * the output" shortens the last range back to its last "/". Each output character is moved and
 * removed at most once: linear time and memory even for a million `../`, and a path with one or two
 * dot-segments comes out as two or three slices of the input, with no array of segments to join.
 * The plain segments between two dot-segments move in one step (rule E, repeated), found by one
 * search for the next "/." rather than one per "/".
 */
const SLASH = 0x2f;
const DOT = 0x2e;

/** True when the path may hold a dot-segment; most paths don't, and skip the work. */
export function mayHaveDotSegments(path: string): boolean {
  return path.charCodeAt(0) === DOT || path.indexOf('/.') !== -1;
}

/** The output buffer: [start, end) ranges of the input, in order (grown when a path needs more). */
let ranges = new Int32Array(64);
let top = 0; // entries in use (two per range)

/** The output buffer receives input[from, to). */
function append(from: number, to: number): void {
  if (top > 0 && ranges[top - 1] === from) {
    ranges[top - 1] = to;
    return;
  }
  if (top === ranges.length) {
    const grown = new Int32Array(ranges.length * 2);
    grown.set(ranges);
    ranges = grown;
  }
  ranges[top++] = from;
  ranges[top++] = to;
}

/** The last segment of the output buffer, and its preceding "/" if any, is removed (§5.2.4 C). */
function removeLastSegment(path: string): void {
  if (top === 0) return;
  const start = ranges[top - 2]!;
  const slash = path.lastIndexOf('/', ranges[top - 1]! - 1);
  if (slash > start) ranges[top - 1] = slash;
  else top -= 2; // the range was that one segment
}

/** The output buffer as a string. */
function output(path: string): string {
  if (top === 2) return path.slice(ranges[0]!, ranges[1]!);
  if (top <= 16) {
    let out = '';
    for (let k = 0; k < top; k += 2) out += path.slice(ranges[k]!, ranges[k + 1]!);
    return out;
  }
  const parts: string[] = [];
  for (let k = 0; k < top; k += 2) parts.push(path.slice(ranges[k]!, ranges[k + 1]!));
  return parts.join('');
}

export function removeDotSegments(path: string): string {
  if (!mayHaveDotSegments(path)) return path;
  return removeDotSegmentsBetween(path, 0, path.length);
}

/**
 * `removeDotSegments` on the path `path.slice(start, end)`, read in place: the normalizer's single pass
 * gives it the input URL and the bounds of its path. The result is shorter than `end - start`
 * exactly when the path held a dot-segment. `from`: where a "/" starts the first segment that may
 * be a dot-segment; the segments before it move to the output as they are (rule E), in one step.
 * `last`: no "/." starts after it (the caller saw them all), so from there on rule E moves the rest
 * without a search.
 */
export function removeDotSegmentsBetween(path: string, start: number, end: number, from = start, last = end): string {
  const n = end;
  top = 0;
  if (from > start) append(start, from);
  let i = from;
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
      append(i, i + 1);
      i = n;
    }
    // C. a prefix of "/../" or "/.." (a complete segment) is replaced by "/", and the last
    //    segment of the output buffer is removed with its preceding "/"
    else if (c0 === SLASH && c1 === DOT && c2 === DOT && c3 === SLASH) {
      i += 3;
      removeLastSegment(path);
    } else if (c0 === SLASH && c1 === DOT && c2 === DOT && i + 3 === n) {
      removeLastSegment(path);
      append(i, i + 1);
      i = n;
    }
    // D. an input of exactly "." or ".." is removed
    else if ((c0 === DOT && i + 1 === n) || (c0 === DOT && c1 === DOT && i + 2 === n)) {
      i = n;
    }
    // E. the first segment, with its initial "/" if any, moves to the output — and so do the
    //    segments after it up to the next "/.": none of them is a dot-segment (one is "." or ".."
    //    after a "/", or at the very start, where A and D looked), so E would move each in turn
    else {
      let j = i >= last ? -1 : path.indexOf('/.', c0 === SLASH ? i + 1 : i);
      if (j === -1 || j > n) j = n;
      append(i, j);
      i = j;
    }
  }
  return top === 0 ? '' : output(path);
}

/** Number of segments of a path (`/a/b` has 2), for the `maxSegments` limit. */
export function countSegments(path: string): number {
  let count = path.length > 0 && path.charCodeAt(0) !== SLASH ? 1 : 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) count++;
  return count;
}
