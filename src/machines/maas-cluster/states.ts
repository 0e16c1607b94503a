import { deleting } from './deleting.ts';
import { active } from './publish.ts';
import { pending } from './record.ts';
import type { Turn } from './turn.ts';
import type { MaasClusterPhase } from './types.ts';
import { vipActive, vipDeleting, vipOf, vipPending } from './vip.ts';

// One handler per phase, the VIP cluster's or the DNS cluster's; true after a transition so the
// next phase's handler runs in the same step.
export const HANDLERS: Record<MaasClusterPhase, (t: Turn) => boolean> = {
  pending: (t) => (vipOf(t) ? vipPending(t) : pending(t)),
  active: (t) => (vipOf(t) ? vipActive(t) : active(t)),
  deleting: (t) => (vipOf(t) || t.s.status.controlPlaneVIP ? vipDeleting(t) : deleting(t)),
  gone: () => false,
};
