/**
 * Rules' rewrites that answered a page under the title of their directory's not-found page
 * (learning/not-found.ts `originalsToCheck`): a not-found page that suggests the pages sharing
 * words with the path has another shape for every path and passes for a document, so a URL a
 * rule rewrites onto one is not pruned but queued as a check (`k: 'v'`), fetched as itself and
 * compared with the image, as a sampled rewrite is.
 */
import { evidenceKeys, type UrlEntry } from '../keys.js';
import { TITLED } from '../learning/not-found.js';
import { getEvidence, getUrl, type Txn } from './batch.js';
import type { EngineParts } from './parts.js';

const TITLE_KEY = evidenceKeys.imageTitle('');

/** What `titledImages` reads of a batch of admitted items (admit.ts `Items`). */
export interface TitledItems {
  readonly canonicalKey: readonly string[];
  readonly mapped: ReadonlyMap<number, { readonly via?: string | undefined }> | undefined;
  titled: Set<string> | undefined;
}

/**
 * `entry` (of a URL rule `via` rewrites onto `key`) made a check (`v`: fetched as itself and
 * compared with the image, as a sampled rewrite is) where `key` answered a page under the title
 * of its directory's not-found page (learning/not-found.ts `originalsToCheck`); else undefined.
 */
export async function checkOfTitledImage(s: Pick<EngineParts, 'kv'>, txn: Txn, key: string, via: string, entry: Pick<UrlEntry, 'd' | 't' | 'src'>): Promise<UrlEntry | undefined> {
  if (!via.startsWith('rule:') || (await getUrl(s.kv, txn, key))?.s !== 'fetched') return undefined;
  if ((await getEvidence(s.kv, txn, evidenceKeys.imageTitle(key)))?.startsWith(TITLED) !== true) return undefined;
  return { ...entry, s: 'queued', k: 'v', by: via, to: key };
}

/**
 * Phase 3b: the rules' rewrites among the present keys that answered a page under the title of
 * their directory's not-found page (learning/not-found.ts `originalsToCheck`), one read for the
 * batch (`present`: the item's rewrite has an entry): a URL rewritten onto one is queued as a
 * check, not pruned (admit.ts `decide`).
 */
export async function titledImages(s: Pick<EngineParts, 'kv' | 'o'>, items: TitledItems, present: (j: number) => boolean): Promise<void> {
  if (!s.o.learnRules || items.mapped === undefined) return;
  const keys: string[] = [];
  for (const [j, m] of items.mapped) {
    if (m.via?.startsWith('rule:') === true && present(j)) keys.push(evidenceKeys.imageTitle(items.canonicalKey[j]!));
  }
  if (keys.length === 0) return;
  const values = await s.kv.getMany('evidence', keys);
  for (let i = 0; i < keys.length; i++) if (values[i]?.startsWith(TITLED) === true) (items.titled ??= new Set()).add(keys[i]!.slice(TITLE_KEY.length));
}
