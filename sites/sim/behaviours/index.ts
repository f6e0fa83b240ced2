/** The library of server behaviours the simulator composes. */
import type { BehaviourKind } from '../model.js';
import { contentBehaviours } from './content.js';
import { paramBehaviours } from './params.js';
import { pathBehaviours } from './paths.js';
import { structureBehaviours } from './structure.js';

export const BEHAVIOURS: readonly BehaviourKind[] = [...pathBehaviours, ...paramBehaviours, ...contentBehaviours, ...structureBehaviours];

/**
 * Behaviours added after the first library of 39, in the order they were added. A site draws
 * them from a random stream of their own (site.ts `drawBehaviours`), so that a seed that draws
 * none of them builds the very site it built before they were added: the regression cases and
 * the figures in the docs stay what they were measured on.
 */
export const LATER_BEHAVIOURS: ReadonlySet<string> = new Set(['session-segment', 'language-fallback']);

/**
 * Behaviours in the library that sites do not draw at random: run by name only (regression cases,
 * `--behaviours`), because the learner is known not to be safe on them yet and a failing seed in
 * the suite would hide every other. `language-fallback`: a `?lang=` value the pages fetched first
 * show to change nothing is learned and prunes translations not fetched yet (seeds 27, 40 and 134
 * of 1–200 lose 5–11 documents; docs/simulator.md).
 */
export const UNDRAWN_BEHAVIOURS: ReadonlySet<string> = new Set(['language-fallback']);
