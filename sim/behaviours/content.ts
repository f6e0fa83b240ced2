/** Behaviours of content (written by a helper; see sim/model.ts). */
import type { BehaviourKind } from '../model.js';

export const contentBehaviours: BehaviourKind[] = [];
