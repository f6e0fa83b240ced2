/** Behaviours of structure (written by a helper; see sim/model.ts). */
import type { BehaviourKind } from '../model.js';

export const structureBehaviours: BehaviourKind[] = [];
