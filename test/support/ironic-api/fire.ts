import { CONDUCTOR_HOST } from './conductor.ts';
import type { NodeRecord } from './node.ts';
import type { ProvisionState } from './state-machine.ts';
import { STABLE, targetAfter, transition } from './state-machine.ts';

// One state machine event applied to a node, as ironic/conductor/task_manager.py process_event
// does: provision_state moves, target_provision_state follows the new state (fsm.py), and
// provision_updated_at is stamped (objects/node.py). The lock is shown as `reservation` while a
// worker holds the node; the wait states release it (the conductor waits for a callback).

const WAITS: ReadonlySet<ProvisionState> = new Set(['wait call-back', 'clean wait', 'inspect wait', 'rescue wait', 'service wait', 'clean hold', 'deploy hold', 'service hold']);

// The conductor passes a manual clean's target (manageable) to each of its later events
// (cleaning.py: process_event('wait'|'fail'|..., target_state=MANAGEABLE)), so for these events
// the running target is kept; for the others it equals the new state's declared target anyway.
const TARGETLESS_KEEP: ReadonlySet<string> = new Set(['wait', 'resume', 'hold', 'unhold', 'fail', 'abort']);

export function fire(node: NodeRecord, event: string, serverMax: number, now: string, explicitTarget?: ProvisionState | null): void {
  const from = node.fields.provision_state;
  const to = transition(from, event, serverMax);
  // A bug in a plan, not a client error: the API checked the event before the plan started.
  if (to === null) throw new Error(`ironic-api: no transition from "${from}" on "${event}"`);
  const keep = explicitTarget === undefined && !STABLE.has(to) && TARGETLESS_KEEP.has(event) ? node.fields.target_provision_state : undefined;
  node.fields.provision_state = to;
  node.fields.target_provision_state = targetAfter(to, explicitTarget ?? keep ?? null);
  node.fields.provision_updated_at = now;
  node.fields.updated_at = now;
  node.fields.reservation = STABLE.has(to) || WAITS.has(to) || to.endsWith('failed') ? null : CONDUCTOR_HOST;
}
