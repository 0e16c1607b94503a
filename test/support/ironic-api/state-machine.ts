// Ironic's provision state machine as data: the states, the target each unstable state heads
// for, and every transition with the release (as its maximum API minor) that first had it.
// Follows ironic/common/states.py of 21.4.0 and 23.0.0 (the machine moved to
// ironic/common/state_machine.py later; 29.0.0 adds SERVICEFAIL --delete-->). A server whose
// maximum is 1.82 therefore has no service states at all, as Ironic 21.4 had none.

export type ProvisionState =
  | 'enroll' | 'verifying' | 'manageable' | 'available' | 'active' | 'error' | 'rescue'
  | 'deploying' | 'wait call-back' | 'deploy failed' | 'deploy hold'
  | 'deleting' | 'cleaning' | 'clean wait' | 'clean failed' | 'clean hold'
  | 'inspecting' | 'inspect wait' | 'inspect failed'
  | 'adopting' | 'adopt failed'
  | 'rescuing' | 'rescue wait' | 'rescue failed' | 'unrescuing' | 'unrescue failed'
  | 'servicing' | 'service wait' | 'service failed' | 'service hold';

// STABLE_STATES: entering one clears target_provision_state (conductor/task_manager.py process_event).
export const STABLE: ReadonlySet<ProvisionState> = new Set(['enroll', 'manageable', 'available', 'active', 'error', 'rescue']);

// machine.add_state(<state>, target=<target>): the target an unstable state heads for.
export const TARGET: Partial<Record<ProvisionState, ProvisionState>> = {
  verifying: 'manageable',
  deploying: 'active', 'wait call-back': 'active', 'deploy failed': 'active', 'deploy hold': 'active',
  cleaning: 'available', 'clean wait': 'available', 'clean failed': 'available', 'clean hold': 'available', deleting: 'available',
  inspecting: 'manageable', 'inspect wait': 'manageable', 'inspect failed': 'manageable',
  adopting: 'active', 'adopt failed': 'active',
  rescuing: 'rescue', 'rescue wait': 'rescue', 'rescue failed': 'rescue', unrescuing: 'active', 'unrescue failed': 'active',
  servicing: 'active', 'service wait': 'active', 'service failed': 'active', 'service hold': 'active',
};

type Row = readonly [from: ProvisionState, event: string, to: ProvisionState, since?: number];

// Rows without `since` are in 21.4.0 (API 1.82); 86: 22.1.0 (hold states); 87: 23.0.0
// (servicing); 96: 29.0.0.
const ROWS: readonly Row[] = [
  ['available', 'deploy', 'deploying'],
  ['deploying', 'fail', 'deploy failed'], ['deploy failed', 'rebuild', 'deploying'], ['deploy failed', 'deploy', 'deploying'],
  ['deploying', 'wait', 'wait call-back'], ['wait call-back', 'resume', 'deploying'], ['wait call-back', 'fail', 'deploy failed'],
  ['deploying', 'hold', 'deploy hold', 86], ['wait call-back', 'hold', 'deploy hold', 86],
  ['deploy hold', 'unhold', 'wait call-back', 86], ['deploy hold', 'abort', 'deploy failed', 86],
  ['deploying', 'done', 'active'], ['active', 'rebuild', 'deploying'],
  ['active', 'delete', 'deleting'], ['wait call-back', 'delete', 'deleting'], ['deploy failed', 'delete', 'deleting'],
  ['deleting', 'fail', 'error'], ['deleting', 'clean', 'cleaning'],
  ['cleaning', 'done', 'available'], ['cleaning', 'fail', 'clean failed'], ['clean wait', 'fail', 'clean failed'], ['clean wait', 'abort', 'clean failed'],
  ['cleaning', 'wait', 'clean wait'], ['clean wait', 'resume', 'cleaning'],
  ['cleaning', 'hold', 'clean hold', 86], ['clean wait', 'hold', 'clean hold', 86],
  ['clean hold', 'abort', 'clean failed', 86], ['clean hold', 'unhold', 'clean wait', 86],
  ['clean failed', 'manage', 'manageable'], ['manageable', 'provide', 'cleaning'], ['manageable', 'clean', 'cleaning'],
  ['cleaning', 'manage', 'manageable'], ['available', 'manage', 'manageable'],
  ['error', 'rebuild', 'deploying'], ['error', 'delete', 'deleting'],
  ['manageable', 'inspect', 'inspecting'], ['inspecting', 'done', 'manageable'], ['inspecting', 'fail', 'inspect failed'],
  ['inspecting', 'wait', 'inspect wait'], ['inspect wait', 'done', 'manageable'], ['inspect wait', 'fail', 'inspect failed'],
  ['inspect wait', 'abort', 'inspect failed'], ['inspect wait', 'resume', 'inspecting', 84],
  ['inspect failed', 'manage', 'manageable'], ['inspect failed', 'inspect', 'inspecting'],
  ['active', 'rescue', 'rescuing'], ['rescuing', 'done', 'rescue'], ['rescuing', 'wait', 'rescue wait'], ['rescue wait', 'resume', 'rescuing'],
  ['rescue', 'rescue', 'rescuing'], ['rescue', 'delete', 'deleting'], ['rescue wait', 'fail', 'rescue failed'], ['rescuing', 'fail', 'rescue failed'],
  ['rescue wait', 'abort', 'rescue failed'], ['rescue failed', 'rescue', 'rescuing'], ['rescue failed', 'unrescue', 'unrescuing'],
  ['rescue failed', 'delete', 'deleting'], ['rescue wait', 'delete', 'deleting'], ['rescue', 'unrescue', 'unrescuing'],
  ['unrescuing', 'done', 'active'], ['unrescuing', 'fail', 'unrescue failed'], ['unrescue failed', 'rescue', 'rescuing'],
  ['unrescue failed', 'unrescue', 'unrescuing'], ['unrescue failed', 'delete', 'deleting'],
  ['enroll', 'manage', 'verifying'], ['verifying', 'done', 'manageable'], ['verifying', 'fail', 'enroll'],
  ['manageable', 'adopt', 'adopting'], ['adopting', 'done', 'active'], ['adopting', 'fail', 'adopt failed'],
  ['adopt failed', 'adopt', 'adopting'], ['adopt failed', 'manage', 'manageable'],
  ['servicing', 'done', 'active', 87], ['active', 'service', 'servicing', 87], ['servicing', 'fail', 'service failed', 87],
  ['servicing', 'wait', 'service wait', 87], ['servicing', 'hold', 'service hold', 87], ['service wait', 'hold', 'service hold', 87],
  ['service hold', 'service', 'servicing', 87], ['service hold', 'unhold', 'service wait', 87], ['service wait', 'resume', 'servicing', 87],
  ['service wait', 'fail', 'service failed', 87], ['service wait', 'abort', 'service failed', 87], ['service hold', 'abort', 'service failed', 87],
  ['service failed', 'service', 'servicing', 87], ['service failed', 'rescue', 'rescuing', 87],
  ['service failed', 'delete', 'deleting', 96],
];

// The API verbs and the event each fires (states.py VERBS; 'service' from 23.0.0, 'unhold' 22.1.0).
const VERBS: Readonly<Record<string, readonly [event: string, since?: number]>> = {
  active: ['deploy'], deploy: ['deploy'], deleted: ['delete'], undeploy: ['delete'], manage: ['manage'], provide: ['provide'],
  inspect: ['inspect'], abort: ['abort'], clean: ['clean'], adopt: ['adopt'], rescue: ['rescue'], unrescue: ['unrescue'],
  rebuild: ['rebuild'], unhold: ['unhold', 85], service: ['service', 87],
};

/** The event an API target fires on a server of maximum minor `serverMax` (VERBS.get(target, target)). */
export function eventOf(target: string, serverMax: number): string {
  const verb = VERBS[target];
  return verb !== undefined && (verb[1] ?? 0) <= serverMax ? verb[0] : target;
}

/** The state `event` leads to from `from`, or null when the machine refuses it (fsm.py is_actionable_event). */
export function transition(from: ProvisionState, event: string, serverMax: number): ProvisionState | null {
  const row = ROWS.find(([f, e, , since]) => f === from && e === event && (since ?? 0) <= serverMax);
  return row ? row[2] : null;
}

/**
 * The target_provision_state after entering `to`: none for a stable state; else the explicit
 * target (a manual clean heads for manageable) or the state's own (fsm.py _post_process_event).
 */
export function targetAfter(to: ProvisionState, explicit?: ProvisionState | null): ProvisionState | null {
  if (STABLE.has(to)) return null;
  return explicit ?? TARGET[to] ?? null;
}
