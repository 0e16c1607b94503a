import { deleting } from './deleting.ts';
import { active } from './publish.ts';
import { pending } from './record.ts';
import type { Turn } from './turn.ts';
import type { MaasClusterPhase } from './types.ts';

// One handler per phase; true after a transition so the next phase's handler runs in the same step.
export const HANDLERS: Record<MaasClusterPhase, (t: Turn) => boolean> = {
  pending,
  active,
  deleting,
  gone: () => false,
};
