/** Command-line values shared by the store commands: whole numbers and preset names. */
import { isPresetName, type PresetName } from '../normalize/index.js';
import { UsageError } from './errors.js';

export function integer(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} needs a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * The presets named by `--preset` (repeatable or comma-separated); `undefined` when none was
 * given: the store's own are then used (a store's presets are its own).
 */
export function presetsFrom(values: readonly string[] | undefined): PresetName[] | undefined {
  if (values === undefined) return undefined;
  const out: PresetName[] = [];
  for (const p of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '')) {
    if (!isPresetName(p)) throw new UsageError(`unknown preset ${JSON.stringify(p)}`);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}
