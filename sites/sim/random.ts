/**
 * A seeded random stream for the simulator: the same seed gives the same site on every machine
 * (mulberry32, Tommy Ettinger's public-domain 32-bit generator).
 */
export class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }

  /** A value in [0, 1). */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `n` distinct items (fewer when there are fewer), in a random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }

  /** A hex string of `n` digits. */
  hex(n: number): string {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }
}

/** A stable 32-bit hash of a text (FNV-1a): per-link choices that do not depend on visiting order. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'si', 'pe', 'da', 'fu', 'go', 'hi', 'ju', 'be', 'zo', 'ri', 'mu', 'xa', 'wen', 'tor', 'quil', 'em', 'os'];

/** Names drawn from a seed, never twice in one site, never a word any code of urldedup knows. */
export class Names {
  private readonly used = new Set<string>(['www', 'index', 'api', 'app', 'login', 'sid', 'page', 'sort', 'lang', 'id', 'utm', 'ref', 'print', 'amp', 'en', 'de', 'fr']);
  constructor(private readonly rng: Rng) {}

  word(): string {
    for (;;) {
      const n = 2 + Math.floor(this.rng.next() * 2);
      let w = '';
      for (let i = 0; i < n; i++) w += this.rng.pick(SYLLABLES);
      if (!this.used.has(w)) {
        this.used.add(w);
        return w;
      }
    }
  }
}
