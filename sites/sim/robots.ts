/**
 * robots.txt matching for the ground truth (RFC 9309 §2.2.2): the longest matching rule wins,
 * `Allow` on a tie; `*` matches any run of characters and `$` anchors the end.
 */
export interface RobotsRule {
  readonly allow: boolean;
  readonly pattern: string;
}

export function parseRobots(text: string): RobotsRule[] {
  const out: RobotsRule[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^(allow|disallow)\s*:\s*(.*)$/i.exec(line);
    if (m === null || m[2] === '') continue;
    out.push({ allow: m[1]!.toLowerCase() === 'allow', pattern: m[2]! });
  }
  return out;
}

function matches(pattern: string, target: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const re = new RegExp('^' + body.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + (anchored ? '$' : ''));
  return re.test(target);
}

/** May a crawler fetch `target` (path and query)? */
export function allowed(rules: readonly RobotsRule[], target: string): boolean {
  let best: RobotsRule | undefined;
  for (const r of rules) {
    if (!matches(r.pattern, target)) continue;
    if (best === undefined || r.pattern.length > best.pattern.length || (r.pattern.length === best.pattern.length && r.allow)) best = r;
  }
  return best === undefined || best.allow;
}
