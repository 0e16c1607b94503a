import { MAAS_KNOWN_STATES, MAAS_RUNNING_STATES } from '../../api/index.ts';
import type { MaasMachinePhase, MaasView } from './types.ts';

// CAPMAAS's state sets (reference/capmaas.md §2.3).
export const KNOWN: ReadonlySet<string> = MAAS_KNOWN_STATES;
export const RUNNING: ReadonlySet<string> = MAAS_RUNNING_STATES;
// MAAS took the machine back: it is being released, erased, or is new again.
export const TERMINATED: ReadonlySet<string> = new Set(['Disk erasing', 'Releasing', 'New']);

/** What a fresh look at MAAS means for a machine that is ours: the phase it is in, or why it failed. */
export type Verdict =
  | { readonly phase: 'allocated' | 'deploying' | 'deployed' }
  | { readonly phase: 'failed'; readonly why: 'terminated' | 'undefined' };

// CAPMAAS's state switch, in its order (§2.3 step 8), as phases. One departure: a machine that is
// Ready after it deployed was released behind our back, so it is terminated, not deployed again.
export function verdictOf(view: MaasView, phase: MaasMachinePhase): Verdict {
  const s = view.statusName;
  if (s === 'Allocated') return { phase: 'allocated' };
  if (s === 'Ready') return phase === 'pending' || phase === 'allocated' ? { phase: 'allocated' } : { phase: 'failed', why: 'terminated' };
  if (TERMINATED.has(s)) return { phase: 'failed', why: 'terminated' };
  if (s === 'Deploying') return { phase: 'deploying' };
  if (s === 'Deployed') return { phase: 'deployed' };
  return { phase: 'failed', why: 'undefined' };
}
