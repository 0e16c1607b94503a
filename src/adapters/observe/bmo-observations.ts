import type { BareMetalHostStatus } from '../../api/index.ts';
import type { SlotOperation } from '../../machines/bmh/index.ts';

// What BMO would have counted, read off what the host actors report: the status each step writes
// and its Warning events (HostStatusObserver), and its state changes (the node's change stream). Pure: the previous look at a host
// and a new observation in, BMO counter increments and the new look out.

export const TIMED_OPERATIONS = ['register', 'inspect', 'provision', 'deprovision'] as const;
export type TimedOperation = (typeof TIMED_OPERATIONS)[number];

export const HOST_DATA_TYPES = ['userData', 'networkData', 'metaData'] as const;
export type HostDataType = (typeof HOST_DATA_TYPES)[number];

/** What one host looked like when last observed: what the next observation is compared with. */
export interface HostMemory {
  /** From state changes only: a status write comes before the state change it carries. */
  readonly state: string;
  readonly operationalStatus: BareMetalHostStatus['operationalStatus'];
  readonly errorCount: number;
  readonly poweredOn: boolean;
  /** `namespace/name@version` of status.triedCredentials, '' when none. */
  readonly triedCredentials: string;
  /** operationHistory end stamps already counted, per operation ('' when none). */
  readonly ended: Readonly<Record<TimedOperation, string>>;
  /** status.lastUpdated when operationalStatus became servicing ('' when it is not servicing). */
  readonly servicingSince: string;
}

export type HostObservation =
  /** A host actor (re)started and read the host: remembered, nothing counted (another node may have). */
  | { readonly type: 'loaded'; readonly status: BareMetalHostStatus }
  /** From the change stream, after the status write that carried it (counted there). */
  | { readonly type: 'stateChanged'; readonly from: string; readonly to: string }
  /** waitingFor: the slot the host waits for, as its actor knows it (absent: none, or not known). */
  | { readonly type: 'statusChanged'; readonly status: BareMetalHostStatus; readonly waitingFor?: SlotOperation }
  | { readonly type: 'warning'; readonly reason: string; readonly message: string };

export type CountOnly =
  | 'credentialsMissing' | 'credentialsInvalid' | 'credentialsUpdated' | 'hostUnmanaged'
  | 'registrationRequired' | 'deleteWithoutDeprovisioning' | 'deleteWithoutPoweringOff';

export type MetricIncrement =
  | { readonly metric: 'stateChange'; readonly prev: string; readonly next: string }
  | { readonly metric: 'operationDuration'; readonly operation: TimedOperation; readonly seconds: number }
  | { readonly metric: 'hostError'; readonly errorType: string }
  | { readonly metric: 'powerChange'; readonly onOff: 'on' | 'off' }
  | { readonly metric: 'delayed'; readonly phase: 'provisioning' | 'deprovisioning' }
  | { readonly metric: 'hostConfigDataError'; readonly dataType: HostDataType }
  /** metalfleet's own (BMO counts no servicing): a servicing began, and one ended after `seconds`. */
  | { readonly metric: 'servicing' }
  | { readonly metric: 'servicingDuration'; readonly seconds: number; readonly outcome: 'ok' | 'error' }
  | { readonly metric: CountOnly };

export interface Observed {
  readonly memory: HostMemory | undefined;
  readonly increments: readonly MetricIncrement[];
}

export function observeHost(memory: HostMemory | undefined, observation: HostObservation): Observed {
  switch (observation.type) {
    case 'loaded':
      return { memory: remember(observation.status, observation.status.provisioning.state), increments: [] };
    case 'warning':
      return { memory, increments: memory ? fromWarning(memory, observation.reason, observation.message) : [] };
    case 'statusChanged':
      if (!memory) return { memory, increments: [] };
      return { memory: remember(observation.status, memory.state, memory), increments: fromStatus(memory, observation.status, observation.waitingFor) };
    case 'stateChanged': {
      const { from, to } = observation;
      const increments: MetricIncrement[] = [{ metric: 'stateChange', prev: from, next: to }];
      if (to === 'unmanaged') increments.push({ metric: 'hostUnmanaged' });
      if (to === 'registering') increments.push({ metric: 'registrationRequired' });
      return { memory: memory ? { ...memory, state: to } : memory, increments };
    }
  }
}

function remember(status: BareMetalHostStatus, state: string, before?: HostMemory): HostMemory {
  const history = status.operationHistory;
  const servicing = status.operationalStatus === 'servicing';
  // A host found servicing (a restart, a new owner) is timed from its first write seen here.
  const servicingSince = !servicing ? '' : before?.operationalStatus === 'servicing' ? before.servicingSince : status.lastUpdated ?? '';
  return {
    servicingSince,
    state,
    operationalStatus: status.operationalStatus,
    errorCount: status.errorCount,
    poweredOn: status.poweredOn,
    triedCredentials: credentialsOf(status),
    ended: {
      register: history?.register?.end ?? '',
      inspect: history?.inspect?.end ?? '',
      provision: history?.provision?.end ?? '',
      deprovision: history?.deprovision?.end ?? '',
    },
  };
}

// Each status write is counted once, against the previous one.
function fromStatus(memory: HostMemory, status: BareMetalHostStatus, waitingFor: SlotOperation | undefined): MetricIncrement[] {
  const out: MetricIncrement[] = [];
  for (const operation of TIMED_OPERATIONS) {
    const seconds = newDuration(memory.ended[operation], status.operationHistory?.[operation]);
    if (seconds !== null) out.push({ metric: 'operationDuration', operation, seconds });
  }
  const failures = status.errorCount - memory.errorCount;
  if (failures > 0 && status.errorType) {
    const credentials = credentialsProblem(status.errorMessage);
    // BMO counts a credentials problem in its own counter, not in metal3_host_error_total.
    const increment: MetricIncrement = credentials ?? { metric: 'hostError', errorType: errorTypeLabel(status.errorType) };
    for (let i = 0; i < failures; i++) out.push(increment);
  }
  if (status.poweredOn !== memory.poweredOn) out.push({ metric: 'powerChange', onOff: status.poweredOn ? 'on' : 'off' });
  const tried = credentialsOf(status);
  if (tried !== '' && tried !== memory.triedCredentials) out.push({ metric: 'credentialsUpdated' });
  // 'delayed' with a message is a wait for a user/network/meta data Secret, not for capacity.
  const phase = delayPhase(status, waitingFor);
  if (status.operationalStatus === 'delayed' && memory.operationalStatus !== 'delayed' && status.errorMessage === '' && phase !== null) {
    out.push({ metric: 'delayed', phase });
  }
  out.push(...fromServicing(memory, status));
  return out;
}

// BMO counts a delay under the state the host is kept from (ensureCapacity for inspecting,
// provisioning or deprovisioning); servicing it does not gate. The host waits in the state
// before: a deleted or re-imaged provisioned host, or a failed provisioning, is still
// `provisioned` or `provisioning` while it waits to deprovision, so the slot asked for decides.
// Without it (an observer told no slot), the state does: a provisioned host is taken to wait
// for servicing.
function delayPhase(status: BareMetalHostStatus, waitingFor: SlotOperation | undefined): 'provisioning' | 'deprovisioning' | null {
  if (waitingFor === 'deprovision') return 'deprovisioning';
  if (waitingFor === 'inspect' || waitingFor === 'provision') return 'provisioning';
  if (waitingFor === 'service') return null;
  const state = status.provisioning.state;
  if (state === 'provisioned' || state === 'externally provisioned') return null;
  return state === 'deprovisioning' ? 'deprovisioning' : 'provisioning';
}

function fromServicing(memory: HostMemory, status: BareMetalHostStatus): MetricIncrement[] {
  const was = memory.operationalStatus === 'servicing';
  const is = status.operationalStatus === 'servicing';
  if (!was && is) return [{ metric: 'servicing' }];
  if (!was || is) return [];
  const seconds = (Date.parse(status.lastUpdated ?? '') - Date.parse(memory.servicingSince)) / 1000;
  if (!Number.isFinite(seconds) || seconds < 0) return [];
  return [{ metric: 'servicingDuration', seconds, outcome: status.errorType === 'servicing error' ? 'error' : 'ok' }];
}

function newDuration(counted: string, metric: { start?: string | null | undefined; end?: string | null | undefined } | undefined): number | null {
  const end = metric?.end ?? '';
  if (end === '' || end === counted || !metric?.start) return null;
  const seconds = (Date.parse(end) - Date.parse(metric.start)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

// Warnings the machine emits (src/machines/bmh): a deletion step given up after repeated
// failures, and a data Secret that lacks its key. The memory still holds the state before
// the step, since the event is performed before the state change is reported.
function fromWarning(memory: HostMemory, reason: string, message: string): MetricIncrement[] {
  if (reason === 'DeletionStepSkipped') {
    if (memory.state === 'deprovisioning') return [{ metric: 'deleteWithoutDeprovisioning' }];
    if (memory.state === 'powering off before delete') return [{ metric: 'deleteWithoutPoweringOff' }];
    return [];
  }
  if (reason === 'WaitingForSecret') {
    // BMO counts a Secret without the key (NoDataInSecretError), not a missing Secret.
    const m = /\(spec\.(userData|networkData|metaData)\), which has no key/.exec(message);
    const dataType = HOST_DATA_TYPES.find((t) => t === m?.[1]);
    return dataType ? [{ metric: 'hostConfigDataError', dataType }] : [];
  }
  return [];
}

// The messages src/actors/host/host-data.ts gives a register call whose BMC credentials cannot
// be used: BMO's ResolveBMCSecretRefError (missing) and EmptyBMCSecretError (invalid).
function credentialsProblem(message: string): MetricIncrement | null {
  if (/^BMC credentials Secret \S+ not found/.test(message)) return { metric: 'credentialsMissing' };
  if (/^BMC credentials Secret \S+: key "\w+" is missing or empty/.test(message) || message.startsWith('spec.bmc.credentialsName is empty')) {
    return { metric: 'credentialsInvalid' };
  }
  return null;
}

function credentialsOf(status: BareMetalHostStatus): string {
  const tried = status.triedCredentials;
  const ref = tried?.credentials;
  if (!ref?.name) return '';
  return `${ref.namespace ?? ''}/${ref.name}@${tried?.credentialsVersion ?? ''}`;
}

/** BMO's error_type label: the event reason of the error ('provisioning error' → 'ProvisioningError'). */
export function errorTypeLabel(errorType: string): string {
  return errorType.split(' ').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}
