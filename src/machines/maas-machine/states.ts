import { deleting } from './deleting.ts';
import { pending } from './pending.ts';
import { allocated, deployed, deploying } from './provisioned.ts';
import type { Turn } from './turn.ts';
import type { MaasMachinePhase } from './types.ts';

// One handler per phase, as BMO's host_state_machine.go has it. A handler issues at most one
// backend call, asks for a slot, or transitions; it returns true after a transition so the next
// phase's handler runs in the same step.
type Handler = (t: Turn) => boolean;

export const HANDLERS: Record<MaasMachinePhase, Handler> = {
  pending,
  allocated,
  deploying,
  deployed,
  // Terminal until deleted: nothing is asked of MAAS, no capacity is held.
  failed: (t) => {
    t.releaseSlot();
    return false;
  },
  deleting,
  gone: () => false,
};
