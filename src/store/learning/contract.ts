/**
 * The learner's contract with the engine (learner.ts): what it reads (`LearnerReads`), the
 * options that shape it (`LearningPolicy`), and what one call hands back (`RuleChanges`: rules
 * that gained or lost scopes, URLs to evaluate again, and the URLs it asks the crawler to fetch).
 */
import type { UriRecord } from '../../normalize/index.js';
import type { Kv } from '../backends/kv.js';
import type { LiveRules } from './rule-book.js';
import type { NotFoundCache } from './not-found.js';
import type { PathDocuments } from './path-documents.js';

/** A URL as the learner sees it: its record and identity key. */
export interface LearnedUrl {
  readonly rec: UriRecord;
  readonly key: string;
}

/** What the learner reads. */
export interface LearnerReads {
  readonly kv: Pick<Kv, 'get' | 'entries' | 'range'>;
  readonly rules: LiveRules;
  /** The not-found entries as read, kept while no written batch changes them (the engine's). */
  readonly notFound?: NotFoundCache;
  /** The documents fetched under each path (the engine's); without it, each fetch reads its path's. */
  readonly pathDocuments?: PathDocuments;
}

/** The options that shape learning (the store's `ResolvedOptions` has them). */
export interface LearningPolicy {
  /** Distinct documents a scope needs. */
  readonly ruleThreshold: number;
  /** Supporting observations kept per rule. */
  readonly maxEvidencePerRule: number;
  readonly defaultDocuments: readonly string[];
  /** Fetch a URL that cannot exist per host (and directory) to learn its not-found answer. */
  readonly probeNotFound: boolean;
  /** Learn `mirror:<host>` rules (store option `learnMirrors`). */
  readonly learnMirrors?: boolean;
  /** A fleet partition's host tag (options.ts): only redirects within it are evidence. */
  readonly partition?: { readonly tag: string } | undefined;
}

/** A URL the learner asks the crawler to fetch. */
export interface CheckRequest {
  /**
   * `probe`: a URL that cannot exist (not-found.ts); `recheck`: a fetched URL, fetched again;
   * `original`: a URL a rule pruned onto a rewrite that failed, fetched as itself, whose answer
   * settles the failure (failure-agreement.ts).
   */
  readonly kind: 'probe' | 'recheck' | 'original';
  readonly key: string;
  readonly rec: UriRecord;
}

/** What one call changed, as rule ids, and what it asks to fetch. */
export interface RuleChanges {
  /** Rules that gained scopes: the frontier of their host is pruned after the commit. */
  readonly activated: string[];
  /** Rules that lost every scope. */
  readonly withdrawn: string[];
  /** Rules that lost scopes while active: what they pruned is evaluated again after the commit. */
  readonly givesBack: string[];
  /**
   * Pruned URLs a chain of rules sent to a URL that answered no document, blamed on a later step
   * than the rule they were pruned under: each is evaluated again after the commit.
   */
  readonly reconsider: string[];
  readonly checks: CheckRequest[];
}

export function noRuleChanges(): RuleChanges {
  return { activated: [], withdrawn: [], givesBack: [], reconsider: [], checks: [] };
}
