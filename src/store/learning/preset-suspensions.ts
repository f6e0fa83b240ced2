/**
 * Where presets are off: a preset a host's own redirect contradicts (it sends a URL to the very
 * form the preset removes, `/a/b` → 302 → `/a/b;jsessionid=…`; evidence.ts) is off in the directory
 * of that redirect's source and below it, on that host, for good. The evidence lies there, and the
 * rest of the host keeps the preset the user asked for: a servlet application mounted under `/app/`
 * that redirects to its session form says nothing of the static pages beside it, whose links carry
 * the same parameter. Each directory where the server contradicts the preset suspends it there in
 * turn (a fetch of the preset's output is a fetch of exactly the URL the server redirects), and
 * what the preset pruned there comes back. A URL is looked up by the preset's output path
 * (canonicalize.ts `presetOff`): a segment the preset removes may lead the path, `/(S(id))/a/b`.
 *
 * A suspension recorded before directories were kept (a store key without one) is host-wide: `/`.
 */
export class PresetSuspensions {
  /** host → preset name → the directories it is off in (none below another). */
  private readonly byHost = new Map<string, Map<string, string[]>>();

  get size(): number {
    return this.byHost.size;
  }

  clear(): void {
    this.byHost.clear();
  }

  /** Preset `name` off on `host` in `dir` and below; false when it already was. */
  add(host: string, name: string, dir: string): boolean {
    let names = this.byHost.get(host);
    if (names === undefined) this.byHost.set(host, (names = new Map()));
    const dirs = names.get(name) ?? [];
    if (dirs.some((d) => dir.startsWith(d))) return false;
    names.set(name, [...dirs.filter((d) => !d.startsWith(dir)), dir]);
    return true;
  }

  /** True when preset `name` is off on `host` for `path`; without a path, off on the whole host. */
  isOff(host: string, name: string, path = '/'): boolean {
    const dirs = this.byHost.get(host)?.get(name);
    return dirs !== undefined && dirs.some((d) => path.startsWith(d));
  }

  /** True when preset `name` is off somewhere on `host`. */
  anywhere(host: string, name: string): boolean {
    return (this.byHost.get(host)?.get(name)?.length ?? 0) > 0;
  }
}
