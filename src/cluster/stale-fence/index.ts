// Issue 30: a shard whose fenced writes keep being refused as stale is given up and retaken above.
export { DEFAULT_STALE_FENCE_POLICY, claimAbove, initialStaleFence, stepStaleFence } from './decision.ts';
export type { RefusedBy, StaleFenceEffect, StaleFenceEvent, StaleFencePolicy, StaleFenceRetake, StaleFenceState, StaleFenceStep } from './decision.ts';
export { refusalTellingProvisioner, refusalTellingStore } from './taps.ts';
