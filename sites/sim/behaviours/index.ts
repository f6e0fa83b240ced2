/** The library of server behaviours the simulator composes. */
import type { BehaviourKind } from '../model.js';
import { contentBehaviours } from './content.js';
import { paramBehaviours } from './params.js';
import { pathBehaviours } from './paths.js';
import { structureBehaviours } from './structure.js';

export const BEHAVIOURS: readonly BehaviourKind[] = [...pathBehaviours, ...paramBehaviours, ...contentBehaviours, ...structureBehaviours];
