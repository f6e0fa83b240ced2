/** Merging sorted cursors (redis-kv.ts reads a space across its tags in key order). */

/** A min-heap (or max-heap) of cursors by their current key. */
export class CursorHeap<T extends { key: string }> {
  private readonly items: T[] = [];
  constructor(private readonly sign: 1 | -1) {}
  get size(): number {
    return this.items.length;
  }
  private less(a: T, b: T): boolean {
    return this.sign * (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) < 0;
  }
  push(x: T): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
