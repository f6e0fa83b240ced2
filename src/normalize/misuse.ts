/**
 * Programmer misuse at the public entry points: a plain `TypeError` (no `code`) whose message names
 * the function and the argument. Entry points check an argument's type with one `typeof` and call
 * in here only when it fails, so the hot path pays for nothing more.
 */

/** How a value reads in a misuse message: `undefined`, `null`, `a number (3)`, `an object (Array)`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  const type = typeof value;
  if (type === 'undefined') return 'undefined';
  if (type === 'object' || type === 'function') {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return `${type === 'object' ? 'an object' : 'a function'}${typeof name === 'string' && name !== '' ? ` (${name})` : ''}`;
  }
  const shown = type === 'string' ? JSON.stringify(value) : String(value);
  return `a ${type} (${shown.length > 40 ? shown.slice(0, 40) + '…' : shown})`;
}

/**
 * A URL argument that is not a string: a WHATWG `URL` object gives its `href`; anything else is
 * misuse. Call only after `typeof value !== 'string'`.
 */
export function urlArgument(fn: string, name: string, value: unknown): string {
  if (value instanceof URL) return value.href;
  throw new TypeError(`${fn}: ${name} must be a URL string or a URL object, not ${describeValue(value)}`);
}

/** A string argument that is not one (`fingerprint(key)`). Call only after `typeof value !== 'string'`. */
export function stringArgument(fn: string, name: string, value: unknown): never {
  throw new TypeError(`${fn}: ${name} must be a string, not ${describeValue(value)}`);
}

/** The option names an entry point knows, as `{ name: true }` (checked against the type with `satisfies`). */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Options must be an object (or `undefined`) with known names only: a misspelt option would
 * otherwise be ignored in silence. The message names the unknown option and lists the known ones.
 * `path` is how the caller wrote it (`options`, `options.scope`).
 */
export function checkOptionNames(fn: string, options: unknown, known: Readonly<Record<string, true>>, path = 'options'): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${fn}: ${path} must be an object, not ${describeValue(options)}`);
  }
  for (const name in options) {
    if (!Object.hasOwn(known, name)) {
      throw new TypeError(`${fn}: unknown option ${JSON.stringify(name)}${path === 'options' ? '' : ` in ${path}`} (known: ${Object.keys(known).join(', ')})`);
    }
  }
}
