/** The library of server behaviours the simulator composes. */
import type { BehaviourKind } from '../model.js';
import { contentBehaviours } from './content.js';
import { paramBehaviours } from './params.js';
import { pathBehaviours } from './paths.js';
import { structureBehaviours } from './structure.js';

export const BEHAVIOURS: readonly BehaviourKind[] = [...pathBehaviours, ...paramBehaviours, ...contentBehaviours, ...structureBehaviours];

/**
 * Behaviours added after the first library of 39, in the order they were added (a new one goes
 * last: the draw reads them in this order). A site draws them from a random stream of their own
 * (site.ts `drawBehaviours`), so that a seed that draws none of them builds the very site it
 * built before they were added: the regression cases and the figures in the docs stay what they
 * were measured on.
 */
export const LATER_BEHAVIOURS: ReadonlySet<string> = new Set(['session-segment', 'language-fallback', 'staging-host', 'not-found-to-home', 'random-posts', 'soft-404-suggest', 'slash-either', 'merge-slashes', 'rate-limit', 'language-prefix-fallback', 'relative-links', 'spelling-redirect', 'slash-redirect-drops-query', 'stale-index', 'lowercase-redirect', 'canonical-link-header', 'relative-location', 'meta-refresh-moved']);
