/**
 * The policy rung: named, opt-in presets for what RFC 3986 does not license.
 *
 * RFC 3986 §6.1: a normalization that makes two URIs equal when they name different resources is
 * a false positive. The syntax (§6.2.2) and scheme (§6.2.3) rungs never make one. Every preset
 * here may: each assumes something about servers that the syntax does not say. So each preset is
 * off by default, named for its effect, and lists exactly what it removes or changes
 * (docs/presets.md has the full lists).
 *
 * Input: a record in the normal form of the rungs below (lowercase scheme and host, uppercase
 * percent-encoding, unreserved characters decoded, no dot-segments, no default port, `/` for an
 * empty http(s) path). Every preset keeps that form: it only removes components, fields, labels
 * or segments, or reorders query fields. None decodes a percent-encoding or turns `+` into `%20`.
 * Each is idempotent, and so is any set of them applied by `applyPolicy`.
 */
import type { UriRecord } from '../uri-record.js';
import { collapseSlashesPreset } from '../presets/collapse-slashes.js';
import { removeEmptyParams, removeEmptyQuery, removeQuery } from '../presets/query-delimiters.js';
import { removeEmptyHostLabels } from '../presets/remove-empty-host-labels.js';
import { removeIndexDocument } from '../presets/remove-index-document.js';
import { removeTrailingSlashPreset } from '../presets/remove-trailing-slash.js';
import { removeUserinfo } from '../presets/remove-userinfo.js';
import { sessionIds } from '../presets/session-ids.js';
import { sortQueryPreset } from '../presets/sort-query.js';
import { tracking } from '../presets/tracking.js';
import { www } from '../presets/www.js';

/**
 * Every preset, in the fixed order `applyPolicy` applies them: authority, then path, then query.
 * The order makes any set of presets idempotent: a later preset never re-creates what an earlier
 * one removes (session ids before `collapse-slashes`, which cleans the `//` they can leave;
 * `remove-index-document` before `remove-trailing-slash`; removals before `sort-query`).
 */
export const presetOrder = [
  'remove-userinfo',
  'remove-empty-host-labels',
  'www',
  'session-ids',
  'collapse-slashes',
  'remove-index-document',
  'remove-trailing-slash',
  'tracking',
  'remove-empty-params',
  'sort-query',
  'remove-empty-query',
  'remove-query',
] as const;

/** The name of a policy preset. */
export type PresetName = (typeof presetOrder)[number];

/** One opt-in transform beyond RFC 3986 equivalence. */
export interface Preset {
  readonly name: PresetName;
  /** One sentence for `--help`. */
  readonly summary: string;
  /** Exact list of what it removes or changes, for the README and `--help`. */
  readonly removes: readonly string[];
  /** Pure and idempotent; returns the same object when nothing changes. */
  apply(rec: UriRecord): UriRecord;
}

/** Every preset by name. */
export const presets: Readonly<Record<PresetName, Preset>> = Object.freeze({
  'remove-userinfo': removeUserinfo,
  'remove-empty-host-labels': removeEmptyHostLabels,
  www,
  'session-ids': sessionIds,
  'collapse-slashes': collapseSlashesPreset,
  'remove-index-document': removeIndexDocument,
  'remove-trailing-slash': removeTrailingSlashPreset,
  tracking,
  'remove-empty-params': removeEmptyParams,
  'sort-query': sortQueryPreset,
  'remove-empty-query': removeEmptyQuery,
  'remove-query': removeQuery,
});

/** True when `s` names a preset. */
export function isPresetName(s: string): s is PresetName {
  return Object.prototype.hasOwnProperty.call(presets, s);
}

/**
 * Apply the named presets in the canonical order of `presetOrder`, whatever order they are given
 * in (duplicates count once). `applied` lists, in that order, the presets that changed something.
 * An unknown name is a `TypeError` (programmer misuse; the CLI checks names with `isPresetName`).
 */
export function applyPolicy(
  rec: UriRecord,
  names: readonly PresetName[],
): { record: UriRecord; applied: PresetName[] } {
  const applied: PresetName[] = [];
  if (names.length === 0) return { record: rec, applied };
  for (const name of names) {
    if (!isPresetName(name)) throw new TypeError(`applyPolicy: unknown preset ${JSON.stringify(name)}`);
  }
  let record = rec;
  for (const name of presetOrder) {
    if (!names.includes(name)) continue;
    const next = presets[name].apply(record);
    if (next !== record) {
      applied.push(name);
      record = next;
    }
  }
  return { record, applied };
}
