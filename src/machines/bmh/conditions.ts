import type { BareMetalHost, BareMetalHostStatus, Condition, ProvisioningState } from '../../api/index.ts';
import type { BackendHints } from './types.ts';
import { k8sTime } from './stamps.ts';

// status.conditions of a BareMetalHost as BMO's computeConditions sets them after each reconcile
// (baremetalhost_controller.go; types and reasons from baremetalhost_types.go).

export const BMH_CONDITION = {
  Manageable: 'Manageable',
  AvailableForProvisioning: 'AvailableForProvisioning',
  Provisioned: 'Provisioned',
  Ready: 'Ready',
  Progressing: 'Progressing',
  Healthy: 'Healthy',
} as const;
export type BmhConditionType = (typeof BMH_CONDITION)[keyof typeof BMH_CONDITION];

export const BMH_REASON = {
  Manageable: 'Manageable',
  NotManaged: 'NotManaged',
  Registering: 'Registering',
  RegistrationFailed: 'RegistrationFailed',
  PowerFailure: 'PowerFailure',
  Provisioned: 'Provisioned',
  NotProvisioned: 'NotProvisioned',
  Provisioning: 'Provisioning',
  Error: 'Error',
  Detached: 'Detached',
  Servicing: 'Servicing',
  Available: 'Available',
  NotAvailable: 'NotAvailable',
  Inspecting: 'Inspecting',
  Preparing: 'Preparing',
  Deprovisioning: 'Deprovisioning',
  PoweringOffBeforeDelete: 'PoweringOffBeforeDelete',
  Deleting: 'Deleting',
  NotProgressing: 'NotProgressing',
  Healthy: 'Healthy',
  UnknownHealth: 'Unknown',
  WarningHealth: 'Warning',
  CriticalHealth: 'CriticalError',
} as const;

type Status = Condition['status'];
type Value = readonly [Status, string];

// One value per reason, shared: a step's conditions are asked on every step (issue 30).
const TRUE = new Map<string, Value>();
const FALSE = new Map<string, Value>();
const T = (reason: string): Value => TRUE.get(reason) ?? TRUE.set(reason, ['True', reason]).get(reason) as Value;
const F = (reason: string): Value => FALSE.get(reason) ?? FALSE.set(reason, ['False', reason]).get(reason) as Value;

interface Five {
  Manageable: Value;
  AvailableForProvisioning: Value;
  Provisioned: Value;
  Ready: Value;
  Progressing: Value;
}

const R = BMH_REASON;

function progressing(reason: string): Five {
  return { Manageable: T(R.Manageable), AvailableForProvisioning: F(R.NotAvailable), Provisioned: F(R.NotProvisioned), Ready: F(R.NotProvisioned), Progressing: T(reason) };
}

function byState(state: ProvisioningState, operationalStatus: BareMetalHostStatus['operationalStatus']): Five {
  switch (state) {
    case '':
    case 'unmanaged':
      return { Manageable: F(R.NotManaged), AvailableForProvisioning: F(R.NotAvailable), Provisioned: F(R.NotProvisioned), Ready: F(R.NotProvisioned), Progressing: F(R.NotProgressing) };
    case 'registering':
      return { ...progressing(R.Registering), Manageable: F(operationalStatus === 'error' ? R.RegistrationFailed : R.Registering) };
    case 'preparing':
      return progressing(R.Preparing);
    case 'ready':
    case 'available':
      return { Manageable: T(R.Manageable), AvailableForProvisioning: T(R.Available), Provisioned: F(R.NotProvisioned), Ready: F(R.NotProvisioned), Progressing: F(R.NotProgressing) };
    case 'provisioning':
      return progressing(R.Provisioning);
    case 'provisioned':
    case 'externally provisioned':
      return { Manageable: T(R.Manageable), AvailableForProvisioning: F(R.NotAvailable), Provisioned: T(R.Provisioned), Ready: T(R.Provisioned), Progressing: F(R.NotProgressing) };
    case 'deprovisioning':
      return progressing(R.Deprovisioning);
    case 'inspecting':
    case 'match profile':
      return progressing(R.Inspecting);
    case 'powering off before delete':
      return progressing(R.PoweringOffBeforeDelete);
    case 'deleting':
      return progressing(R.Deleting);
  }
}

// BMO skips the power-failure check where the node is not (or no longer) managed by the backend.
const NO_POWER_CHECK: ReadonlySet<ProvisioningState> = new Set<ProvisioningState>(['', 'unmanaged', 'registering', 'deleting']);

function healthValue(health: string): Value {
  switch (health) {
    case 'OK': return T(R.Healthy);
    case 'Warning': return F(R.WarningHealth);
    case 'Critical': return F(R.CriticalHealth);
    default: return ['Unknown', R.UnknownHealth];
  }
}

/** The six values BMO would leave on the host; Healthy is null when it keeps what is there. */
function bmhConditionValues(status: BareMetalHostStatus, hints: BackendHints, hasHealthy: boolean): Record<BmhConditionType, Value | null> {
  const op = status.operationalStatus;
  const v = byState(status.provisioning.state, op);
  if (op === 'error') v.Ready = F(R.Error);
  else if (op === 'servicing') v.Ready = F(R.Servicing);
  else if (op === 'detached') {
    v.Ready = F(R.Detached);
    v.Progressing = F(R.Detached);
  }
  if (hints.powerFailure && op !== 'detached' && !NO_POWER_CHECK.has(status.provisioning.state)) v.Manageable = F(R.PowerFailure);
  // Ironic without a health field: keep whatever Healthy says (BMO does the same for "").
  const healthy = hints.health === '' && hasHealthy ? null : healthValue(hints.health);
  return { ...v, Healthy: healthy };
}


// Cluster API's default condition order: Available and Ready first, Paused and Deleting last,
// everything else by type.
function rank(type: string): number {
  if (type === 'Available') return 0;
  if (type === 'Ready') return 1;
  if (type === 'Paused') return 3;
  if (type === 'Deleting') return 4;
  return 2;
}

function byOrder(a: Condition, b: Condition): number {
  return rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
}

/**
 * The host's conditions after this step, set the way Cluster API's conditions.Set sets them:
 * observedGeneration is metadata.generation, lastTransitionTime moves only when the status does,
 * message is empty, and the list is re-sorted only when something changed. Conditions of other
 * types are kept as they are. Returns the same array when nothing changed, so the caller writes
 * status only then (BMO saves when conditions changed).
 *
 * One deliberate difference: BMO sets Ready (or Manageable) twice when an override applies, and
 * the intermediate flip gives it a new lastTransitionTime (and a status write) on every reconcile
 * of, say, a provisioned host in error. We set each type once, to its final value.
 */
export function computeConditions(host: BareMetalHost & { status: BareMetalHostStatus }, now: number, hints: BackendHints): Condition[] {
  const status = host.status;
  const current = status.conditions ?? [];
  const values = bmhConditionValues(status, hints, firstOf(current, BMH_CONDITION.Healthy) !== undefined);
  // Every step asks, and most change none of what the conditions follow (a slot granted, a result
  // that leaves the state): the list is then kept as it is, without building a new one.
  if (status.conditions !== undefined && settled(current, values, host.metadata.generation)) return current;
  return computed(host, current, values, now);
}

const TYPES: readonly BmhConditionType[] = ['Manageable', 'AvailableForProvisioning', 'Provisioned', 'Ready', 'Progressing', 'Healthy'];

// Whether `prev` already says `value` for this generation (then it is left as it is).
function says(prev: Condition | undefined, value: Value, generation: number | undefined): boolean {
  return prev !== undefined && prev.status === value[0] && prev.reason === value[1] && (prev.message ?? '') === '' && prev.observedGeneration === generation;
}

function firstOf(list: readonly Condition[], type: string): Condition | undefined {
  for (const c of list) if (c.type === type) return c;
  return undefined;
}

function settled(current: readonly Condition[], values: Record<BmhConditionType, Value | null>, generation: number | undefined): boolean {
  for (const type of TYPES) {
    const value = values[type];
    if (value !== null && !says(firstOf(current, type), value, generation)) return false;
  }
  return true;
}

let lists = 0;

/** How many condition lists were built, rather than the step's list kept as it was (for tests and benches). */
export function conditionsComputed(): number {
  return lists;
}

function computed(host: BareMetalHost & { status: BareMetalHostStatus }, current: Condition[], values: Record<BmhConditionType, Value | null>, now: number): Condition[] {
  lists += 1;
  const generation = host.metadata.generation;
  const next = [...current];
  let changed = host.status.conditions === undefined;
  for (const [type, value] of Object.entries(values)) {
    if (value === null) continue;
    const [status, reason] = value;
    const i = next.findIndex((c) => c.type === type);
    const prev = i === -1 ? undefined : next[i];
    if (says(prev, value, generation)) continue;
    const lastTransitionTime = prev !== undefined && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : k8sTime(now);
    const condition: Condition = { type, status, ...(generation !== undefined ? { observedGeneration: generation } : {}), lastTransitionTime, reason, message: '' };
    if (prev === undefined) next.push(condition);
    else next[i] = condition;
    changed = true;
  }
  if (!changed) return current;
  return next.sort(byOrder);
}
