// The SeenStore conformance suite: one set of tests, run on every backend by conformance.test.ts
// (memory, LevelDB), redis-conformance.test.ts and partition-conformance.test.ts (Redis Cluster).
// The tests live in suite/, one file per concept; the shared types and helpers in suite/context.ts.
// Each backend declares what its factory gives beyond the store (`Supports`); a test that needs
// what a backend lacks is reported skipped there.
import { describe } from 'vitest';
import { suiteContext, type Factory, type Supports } from './suite/context.js';
import { admitTests } from './suite/admit.js';
import { redirectTests } from './suite/redirects.js';
import { hostRuleLearningTests } from './suite/host-rules-learning.js';
import { hostRuleImageTests } from './suite/host-rules-images.js';
import { hostRuleChainTests } from './suite/host-rules-chains.js';
import { presetPruneRequeueTests } from './suite/presets-prune-requeue.js';
import { frontierTests } from './suite/frontier.js';
import { queryTests } from './suite/queries.js';
import { storedDataTests } from './suite/stored-data.js';
import { durabilityTests } from './suite/durability.js';

export type { Backend, Capability, Factory, RawOp, Supports } from './suite/context.js';

export function seenStoreSuite(name: string, factory: Factory, supports: Supports): void {
  describe(`SeenStore conformance: ${name}`, () => {
    const ctx = suiteContext(factory, supports);
    admitTests(ctx);
    redirectTests(ctx);
    describe('host rules', () => {
      hostRuleLearningTests(ctx);
      hostRuleImageTests(ctx);
      hostRuleChainTests(ctx);
    });
    presetPruneRequeueTests(ctx);
    frontierTests(ctx);
    queryTests(ctx);
    storedDataTests(ctx);
    durabilityTests(ctx);
  });
}
