import type { BareMetalHost, BareMetalHostStatus, ErrorType, OperationHistory, ProvisioningState, RootDeviceHints } from '../../api/index.ts';
import { atLeastMinimumMs, errorBackoffMs, transientBackoffMs } from './backoff.ts';
import { startedEvent } from './bmo-events.ts';
import { isoStamp } from './stamps.ts';
import { MachineTurn } from '../turn.ts';
import type { BmhEffect, BmhState, CallArgs, SlotOperation, SlotState } from './types.ts';
import { GATED_OPERATIONS } from './types.ts';

type HostWithStatus = BareMetalHost & { status: BareMetalHostStatus };

const HISTORY_OF: Partial<Record<ProvisioningState, keyof OperationHistory>> = {
  registering: 'register',
  inspecting: 'inspect',
  provisioning: 'provision',
  deprovisioning: 'deprovision',
};
// BMO saves status.provisioning.bootMode on entering these states.
const RECORDS_BOOT_MODE: ReadonlySet<ProvisioningState> = new Set(['registering', 'inspecting', 'provisioning']);

// A BareMetalHost step's scratchpad (see ../turn.ts). Status is copied on first write, so an
// unchanged step costs no allocation and no comparison.
export class Turn extends MachineTurn<BmhState, BmhEffect, BareMetalHostStatus> {
  protected statusOf(state: BmhState): BareMetalHostStatus {
    return state.host.status;
  }

  // BMO stamps lastUpdated on every status it saves.
  protected override written(): BareMetalHostStatus {
    this.patchStatus({ lastUpdated: isoStamp(this.now) });
    return this.status;
  }

  get host(): HostWithStatus {
    return this.s.host;
  }

  get status(): BareMetalHostStatus {
    return this.s.host.status;
  }

  get state(): ProvisioningState {
    return this.s.host.status.provisioning.state;
  }

  // The status this step copied on its first patch: nothing outside the step holds it yet (the
  // state it started from keeps its own), so later patches write into it rather than copying the
  // host and its status again on every one (issue 30: the copies were 1.7% of a fleet's CPU).
  private ownStatus: BareMetalHostStatus | null = null;

  patchStatus(patch: Partial<BareMetalHostStatus>): void {
    const host = this.s.host;
    if (host.status === this.ownStatus) {
      Object.assign(host.status, patch);
      return;
    }
    const status = { ...host.status, ...patch };
    this.ownStatus = status;
    this.s.host = { ...host, status };
  }

  patchProvisioning(patch: Partial<BareMetalHostStatus['provisioning']>): void {
    this.patchStatus({ provisioning: { ...this.status.provisioning, ...patch } });
  }

  // Moves to another provisioning state, keeping operation history and boot mode as BMO does.
  transition(next: ProvisioningState, reason: string): void {
    const prev = this.state;
    if (prev === next) return;
    // An operation this actor starts is new work: it queues from now.
    this.s.resumed = false;
    const stamp = isoStamp(this.now);
    let history = this.status.operationHistory;
    const ended = HISTORY_OF[prev];
    if (ended) {
      // Two literals rather than a spread of the old entry: V8 gave every spread copy of this
      // one-field object a map of its own once the copies' shape was in use (issue 29: three maps
      // per host, each with its own descriptors).
      const start = history?.[ended]?.start;
      history = { ...history, [ended]: start === undefined ? { end: stamp } : { start, end: stamp } };
    }
    const started = HISTORY_OF[next];
    if (started) history = { ...history, [started]: { start: stamp } };
    const provisioning = RECORDS_BOOT_MODE.has(next) ? { ...this.status.provisioning, state: next, bootMode: this.host.spec.bootMode } : { ...this.status.provisioning, state: next };
    this.patchStatus({ operationHistory: history, provisioning });
    this.s.transientCount = 0;
    this.s.announced = null;
    // An inspection aborted for a forced reboot is restarted only where it was aborted.
    if (this.s.inspectionAborted) this.s.inspectionAborted = false;
    this.event('Normal', 'StateChanged', `${prev || 'none'} -> ${next}: ${reason}`);
  }

  call(args: CallArgs): void {
    if (GATED_OPERATIONS.has(args.op) && this.s.slot.phase !== 'held') {
      // A guard, not a path: handlers request a slot before a gated call.
      throw new Error(`bmh machine: ${args.op} without a capacity slot`);
    }
    const seq = this.s.seq + 1;
    this.s.seq = seq;
    this.s.inFlight = args.op === 'powerOff' && args.mode === 'soft'
      ? { op: args.op, seq, soft: true }
      // What a preparing or servicing sends, recorded as applied when it is done.
      : (args.op === 'prepare' || args.op === 'service') && args.firmware ? { op: args.op, seq, firmware: args.firmware }
      : (args.op === 'inspect' || args.op === 'provision') && args.forceReboot ? { op: args.op, seq, forceReboot: true } : { op: args.op, seq };
    this.effects.push({ type: 'call', seq, args });
    // BMO's provisioner announces the work it starts once, not on every poll of it.
    const started = this.s.announced === args.op ? null : startedEvent(args);
    if (started) {
      this.s.announced = args.op;
      this.event(started.severity, started.reason, started.message);
    }
  }

  // True when the slot for op is held; otherwise asks for one (once) and returns false.
  ensureSlot(op: SlotOperation): boolean {
    const slot: SlotState = this.s.slot;
    if (slot.phase === 'held') return true;
    if (slot.phase === 'none') {
      this.s.slot = { phase: 'waiting', op, since: this.now };
      const since = this.s.resumed ? this.operationStart() : null;
      this.s.resumed = false;
      // The acquire adopts a live grant an earlier incarnation left in this host's name.
      this.s.grantInherited = false;
      this.effects.push(since !== null && since < this.now ? { type: 'requestSlot', op, since } : { type: 'requestSlot', op });
    }
    return false;
  }

  /** When the current state's operation began (status.operationHistory), if it is recorded. */
  private operationStart(): number | null {
    const kind = HISTORY_OF[this.state];
    const start = kind ? Date.parse(this.status.operationHistory?.[kind]?.start ?? '') : Number.NaN;
    return Number.isFinite(start) ? start : null;
  }

  /** Registers (again) with the backend: after a registration error it asks for a fresh attempt. */
  register(): void {
    const restartOnFailure = this.status.errorType === 'registration error';
    // BMO's ensureRegistered: past registering, retrying a registration that failed is a new
    // registration in the host's history (recordStateBegin).
    if (restartOnFailure && this.state !== 'registering' && this.state !== 'match profile') this.stampOperationStart('register');
    this.call({ op: 'register', restartOnFailure, credentialsChanged: false });
  }

  /**
   * BMO's recordStateBegin, for an operation begun without entering its state (a registration
   * again): a new start, unless one is recorded and not yet ended (the same one, still going).
   */
  stampOperationStart(kind: keyof OperationHistory): void {
    const entry = this.status.operationHistory?.[kind];
    if (entry?.start && !entry.end) return;
    this.patchStatus({ operationHistory: { ...this.status.operationHistory, [kind]: { start: isoStamp(this.now) } } });
  }

  /** BMO's recordStateEnd, for such an operation: the end of one recorded as started and not ended. */
  stampOperationEnd(kind: keyof OperationHistory): void {
    const entry = this.status.operationHistory?.[kind];
    if (!entry?.start || entry.end) return;
    this.patchStatus({ operationHistory: { ...this.status.operationHistory, [kind]: { start: entry.start, end: isoStamp(this.now) } } });
  }

  /** Records the root device hints a deploy uses, when they differ from status's. */
  recordRootDeviceHints(hints: RootDeviceHints | undefined): void {
    if (JSON.stringify(hints ?? null) !== JSON.stringify(this.status.provisioning.rootDeviceHints ?? null)) this.patchProvisioning({ rootDeviceHints: hints });
  }

  releaseSlot(): void {
    if (this.s.slot.phase === 'none') return;
    this.s.slot = { phase: 'none' };
    this.effects.push({ type: 'releaseSlot' });
    if (this.status.operationalStatus === 'delayed') this.patchStatus({ operationalStatus: this.okOrError() });
  }

  recordError(errorType: ErrorType, message: string, jitter: number, retryAfterMs?: number | null): void {
    const errorCount = this.status.errorCount + 1;
    this.patchStatus({ operationalStatus: 'error', errorType, errorMessage: message, errorCount });
    if (retryAfterMs === null) {
      // Nothing to retry until the object changes (bad address, empty credentials).
      this.s.retryAt = Number.POSITIVE_INFINITY;
    } else {
      // A delay the backend names is held to the minimum too: a zero would retry at once.
      const delay = retryAfterMs === undefined ? errorBackoffMs(errorCount, jitter, this.s.config) : atLeastMinimumMs(retryAfterMs, this.s.config);
      this.s.retryAt = this.now + delay;
      this.requeue(delay);
    }
    this.event('Warning', errorReason(errorType), message);
  }

  clearError(): void {
    this.s.retryAt = null;
    // A wait for a Secret leaves a message without an errorType: it goes too.
    if (this.status.errorCount === 0 && !this.status.errorType && this.status.operationalStatus !== 'error' && this.status.errorMessage === '') return;
    this.patchStatus({ errorType: '', errorMessage: '', errorCount: 0, operationalStatus: 'OK' });
  }

  transient(): void {
    const delay = transientBackoffMs(this.s.transientCount, this.s.config);
    this.s.transientCount += 1;
    this.s.retryAt = this.now + delay;
    this.requeue(delay);
  }

  // BMO requeues a detached host on a slow poll, 10 min (reference/bmo.md §0, §1.7); one kept
  // by deleteAction delay too, since its delayed deletion still runs checkDetachedHost (§1.2).
  pollDetached(): void {
    this.requeue(this.s.config.detachedPollMs);
  }

  okOrError(): 'OK' | 'error' {
    return this.status.errorType ? 'error' : 'OK';
  }

  removeAnnotation(key: string): void {
    const annotations = this.host.metadata.annotations;
    if (!annotations || !(key in annotations)) return;
    const { [key]: _removed, ...rest } = annotations;
    this.s.host = { ...this.s.host, metadata: { ...this.s.host.metadata, annotations: rest } };
    this.effects.push({ type: 'removeAnnotation', key });
  }
}

function errorReason(errorType: ErrorType): string {
  return errorType
    .split(' ')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
