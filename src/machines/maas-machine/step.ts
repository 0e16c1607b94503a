import { formatProviderId, parseProviderId } from '../../api/index.ts';
import { DEAD_END, KNOWN, TERMINATED } from './state-table.ts';
import type { MaasMachineObject } from './object.ts';
import { MAAS_MACHINE_FINALIZER } from './object.ts';
import type { MaasMachineStatus } from './status.ts';
import { addressesOf, withDeployed } from './status.ts';
import type { MaasCall, MaasContext, MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasResult, MaasView, SlotState } from './types.ts';


export interface MaasMachineState {
  readonly config: MaasMachineConfig;
  readonly object: MaasMachineObject;
  readonly context: MaasContext;
  readonly status: MaasMachineStatus;
  readonly systemId: string | null;
  readonly view: MaasView | null;
  // The view is current; when false the next look at MAAS is due at nextPollAt.
  readonly fresh: boolean;
  readonly nextPollAt: number;
  readonly swapped: boolean;
  // A machine to give back before anything else (failed deploy, dead-end state), and why.
  readonly pendingRelease: string | null;
  readonly inFlight: { op: MaasCall['op']; seq: number } | null;
  readonly seq: number;
  readonly slot: SlotState;
  readonly retryAt: number | null;
  readonly attempts: number;
  readonly gone: boolean;
}

export interface MaasMachineStep {
  readonly state: MaasMachineState;
  readonly effects: readonly MaasMachineEffect[];
}

export function initialMaasMachineState(object: MaasMachineObject, context: MaasContext, config: MaasMachineConfig): MaasMachineState {
  return {
    config, object, context,
    status: { ready: false, ...(object.status as Partial<MaasMachineStatus> | undefined) },
    systemId: object.spec.systemID || idFromProviderId(object.spec.providerID),
    view: null, fresh: false, nextPollAt: 0, swapped: false, pendingRelease: null,
    inFlight: null, seq: 0, slot: { phase: 'none' }, retryAt: null, attempts: 0, gone: false,
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// CAPMAAS's MaasMachine reconcile (reference/capmaas.md §2.3–§2.5) as a pure step: allocate,
// persist the providerID at once, swap off, deploy, watch the state table, release on delete.
// Deploy and release hold a MAAS capacity slot.
export function stepMaasMachine(state: MaasMachineState, input: MaasMachineEvent, now: number): MaasMachineStep {
  if (state.gone) return { state, effects: [] };
  const s: Mutable<MaasMachineState> = { ...state };
  const effects: MaasMachineEffect[] = [];
  let requeueMs: number | null = null;
  const requeue = (ms: number): void => {
    requeueMs = requeueMs === null ? Math.max(0, ms) : Math.min(requeueMs, Math.max(0, ms));
  };
  const setStatus = (patch: Partial<MaasMachineStatus>): void => {
    s.status = { ...s.status, ...patch };
  };
  const deployed = (status: 'True' | 'False' | 'Unknown', reason: string, message?: string): void => {
    const cur = s.status.conditions?.find((c) => c.type === 'MachineDeployed');
    if (cur?.status === status && cur.reason === reason && (cur.message ?? '') === (message ?? '')) return;
    s.status = withDeployed(s.status, { status, reason, ...(message ? { message } : {}) }, now);
  };
  const emit = (severity: 'Normal' | 'Warning', reason: string, message: string): void => {
    effects.push({ type: 'event', severity, reason, message });
  };
  const call = (c: MaasCall): void => {
    s.seq += 1;
    s.inFlight = { op: c.op, seq: s.seq };
    effects.push({ type: 'call', seq: s.seq, call: c });
  };
  const ensureSlot = (op: 'deploy' | 'release'): boolean => {
    if (s.slot.phase === 'held') return true;
    if (s.slot.phase === 'none') {
      s.slot = { phase: 'waiting', op: op === 'deploy' ? 'provision' : 'deprovision', since: now };
      effects.push({ type: 'requestSlot', op });
    }
    return false;
  };
  const releaseSlot = (): void => {
    if (s.slot.phase === 'none') return;
    s.slot = { phase: 'none' };
    effects.push({ type: 'releaseSlot' });
  };
  const backoff = (): void => {
    s.attempts += 1;
    const ms = Math.min(s.config.backoffBaseMs * 2 ** (s.attempts - 1), s.config.backoffMaxMs);
    s.retryAt = now + ms;
    requeue(ms);
  };
  const clearIds = (why: string): void => {
    s.systemId = null;
    s.view = null;
    s.fresh = false;
    s.swapped = false;
    s.pendingRelease = null;
    effects.push({ type: 'writeSpec', patch: { providerID: null, systemID: null } });
    emit('Normal', 'MachineReleased', why);
  };
  const seeView = (view: MaasView | undefined): void => {
    if (!view) return;
    s.view = view;
    s.fresh = true;
  };
  const wait = (ms: number): void => {
    s.fresh = false;
    s.nextPollAt = now + ms;
    requeue(ms);
  };

  // Apply the event.
  switch (input.type) {
    case 'observed': {
      s.object = input.object as MaasMachineObject;
      s.context = input.context;
      // IDs set elsewhere (a restore, a move) are followed. An object without IDs does not undo
      // an allocation of ours: our own write of them may simply not have landed yet.
      const id = s.object.spec.systemID || idFromProviderId(s.object.spec.providerID);
      if (id && id !== s.systemId && s.inFlight?.op !== 'allocate') {
        s.systemId = id;
        s.view = null;
        s.fresh = false;
      }
      break;
    }
    case 'result': {
      if (!s.inFlight || s.inFlight.seq !== input.seq) return { state, effects: [] };
      const op = s.inFlight.op;
      s.inFlight = null;
      applyResult(op, input.result);
      break;
    }
    case 'slotGranted':
      if (s.slot.phase === 'waiting') s.slot = { phase: 'held', op: s.slot.op, grantId: input.grantId };
      break;
    case 'slotLost':
      if (s.slot.phase === 'held' && s.slot.grantId === input.grantId) s.slot = { phase: 'none' };
      break;
    default:
      break;
  }

  drive();
  if (s.status !== state.status) effects.push({ type: 'writeStatus', status: s.status as unknown as Record<string, unknown> });
  if (requeueMs !== null) effects.push({ type: 'requeue', afterMs: requeueMs });
  return { state: s, effects };

  function applyResult(op: MaasCall['op'], r: MaasResult): void {
    if (r.kind === 'transient') {
      backoff();
      return;
    }
    if (r.kind === 'notFound') {
      if (deleting()) {
        finishDeletion('the MAAS machine is already gone');
        return;
      }
      clearIds(`machine ${s.systemId ?? ''} no longer exists in MAAS; allocating another`);
      return;
    }
    if (r.kind === 'failed') {
      const message = `${op} failed: ${r.message}`;
      emit('Warning', 'MachineDeployFailed', message);
      if (op === 'release' && deleting()) {
        backoff();
        return;
      }
      if (op === 'allocate' || op === 'release') {
        releaseSlot();
        deployed('False', 'MachineDeployFailed', message);
        backoff();
        return;
      }
      if (op === 'powerOn' || op === 'get') {
        backoff();
        return;
      }
      // swapOff or deploy: give the machine back and clear the IDs so the next pass allocates
      // another (CAPMAAS's release defer).
      s.pendingRelease = message;
      deployed('False', 'MachineDeployFailed', message);
      backoff();
      return;
    }
    s.attempts = 0;
    switch (op) {
      case 'allocate':
        if (r.machine) {
          s.systemId = r.machine.systemId;
          s.swapped = false;
          seeView(r.machine);
          // Persisted at once: a crash now must not leak an allocated machine.
          effects.push({ type: 'writeSpec', patch: { providerID: providerId(r.machine.zone, r.machine.systemId), systemID: r.machine.systemId, failureDomain: r.machine.zone } });
          emit('Normal', 'MachineAllocated', `allocated ${r.machine.hostname} (${r.machine.systemId}) in zone ${r.machine.zone}`);
        }
        return;
      case 'swapOff':
        s.swapped = true;
        seeView(r.machine);
        return;
      case 'deploy':
        seeView(r.machine);
        deployed('False', 'MachineDeploying');
        return;
      case 'release':
        if (deleting()) {
          finishDeletion(`released ${s.systemId ?? ''}`);
          return;
        }
        releaseSlot();
        clearIds(`released ${s.systemId ?? ''}: ${s.pendingRelease ?? 'not deployable'}`);
        return;
      case 'powerOn':
        seeView(r.machine);
        wait(s.config.powerOnRequeueMs);
        return;
      case 'get':
        seeView(r.machine);
    }
  }

  function finishDeletion(why: string): void {
    releaseSlot();
    s.gone = true;
    deployed('False', 'Deleted');
    effects.push({ type: 'removeFinalizer', finalizer: MAAS_MACHINE_FINALIZER });
    emit('Normal', 'SuccessfulRelease', why);
  }

  function deleting(): boolean {
    return Boolean(s.object.metadata.deletionTimestamp);
  }

  function drive(): void {
    if (s.gone || s.inFlight) return;
    if (s.retryAt !== null && now < s.retryAt) {
      requeue(s.retryAt - now);
      return;
    }
    s.retryAt = null;
    const finalizers = s.object.metadata.finalizers ?? [];
    if (deleting()) {
      if (!finalizers.includes(MAAS_MACHINE_FINALIZER) || !s.systemId) {
        if (finalizers.includes(MAAS_MACHINE_FINALIZER)) finishDeletion('no MAAS machine to release');
        else s.gone = true;
        return;
      }
      if (!ensureSlot('release')) return;
      call({ op: 'release', systemId: s.systemId });
      return;
    }
    if (!finalizers.includes(MAAS_MACHINE_FINALIZER)) {
      effects.push({ type: 'addFinalizer', finalizer: MAAS_MACHINE_FINALIZER });
      s.object = { ...s.object, metadata: { ...s.object.metadata, finalizers: [...finalizers, MAAS_MACHINE_FINALIZER] } };
    }
    if (!s.context.bootstrapReady) {
      setStatus({ ready: false });
      deployed('False', 'WaitingForBootstrapData');
      return;
    }
    if (s.pendingRelease && s.systemId) {
      if (!ensureSlot('release')) return;
      call({ op: 'release', systemId: s.systemId });
      return;
    }
    if (!s.systemId) {
      if (!ensureSlot('deploy')) return;
      deployed('False', 'MachineDeployStarted');
      const spec = s.object.spec;
      const zone = spec.failureDomain ?? s.context.failureDomain ?? undefined;
      call({
        op: 'allocate', cpuCount: spec.minCPU, memMb: spec.minMemory,
        ...(zone ? { zone } : {}), ...(spec.resourcePool ? { pool: spec.resourcePool } : {}), ...(spec.tags?.length ? { tags: spec.tags } : {}),
      });
      return;
    }
    if (!s.fresh || !s.view) {
      if (s.view && now < s.nextPollAt) {
        requeue(s.nextPollAt - now);
        return;
      }
      call({ op: 'get', systemId: s.systemId });
      return;
    }
    evaluate(s.view, s.systemId);
  }

  // The state switch of reference/capmaas.md §2.3 step 8, in its order.
  function evaluate(view: MaasView, systemId: string): void {
    const powered = view.powerState === 'on';
    setStatus({ machineState: view.statusName, machinePowered: powered, hostname: view.hostname, ...(KNOWN.has(view.statusName) ? { addresses: addressesOf(view) } : {}) });
    if (view.statusName === 'Ready' || view.statusName === 'Allocated') {
      setStatus({ ready: false });
      deployed('False', 'MachineDeploying');
      if (!ensureSlot('deploy')) return;
      if (!s.swapped && !s.config.skipSwap) {
        call({ op: 'swapOff', systemId });
        return;
      }
      call({ op: 'deploy', systemId, image: s.object.spec.image, ephemeral: s.object.spec.deployInMemory ?? false });
      return;
    }
    if (TERMINATED.has(view.statusName)) {
      setStatus({ ready: false, failureReason: 'UpdateError', failureMessage: `machine ${systemId} is ${view.statusName}` });
      deployed('False', 'MachineTerminated', `machine ${systemId} is ${view.statusName}`);
      emit('Warning', 'MachineUnexpectedTermination', `machine ${systemId} is ${view.statusName}; allocating another`);
      releaseSlot();
      clearIds(`machine ${systemId} was taken back (${view.statusName})`);
      return;
    }
    if (DEAD_END.has(view.statusName)) {
      setStatus({ ready: false, failureReason: 'UpdateError', failureMessage: `machine ${systemId} is ${view.statusName}` });
      deployed('False', 'MachineDeployFailed', `machine ${systemId} is ${view.statusName}`);
      s.pendingRelease = `machine ${systemId} is ${view.statusName}`;
      if (!ensureSlot('release')) return;
      call({ op: 'release', systemId });
      return;
    }
    if (KNOWN.has(view.statusName) && !powered) {
      if (view.statusName === 'Deployed') {
        emit('Normal', 'PoweringOn', `machine ${systemId} is Deployed but off: powering it on`);
        call({ op: 'powerOn', systemId });
        return;
      }
    }
    if (view.statusName === 'Deploying') {
      setStatus({ ready: false });
      deployed('False', 'MachineDeploying');
      // Counted against the MAAS limit for as long as MAAS is deploying it.
      ensureSlot('deploy');
      wait(s.config.deployingPollMs);
      return;
    }
    if (view.statusName === 'Deployed' && powered) {
      if (!s.status.ready) emit('Normal', 'MachineReady', `machine ${systemId} deployed and running`);
      setStatus({ ready: true, initialization: { provisioned: true }, failureReason: undefined, failureMessage: undefined });
      deployed('True', 'MachineDeployed');
      releaseSlot();
      wait(s.config.steadyPollMs);
      return;
    }
    setStatus({ ready: false, failureReason: 'UpdateError', failureMessage: `unhandled MAAS state ${view.statusName}` });
    deployed('Unknown', 'MachineStateUndefined', `unhandled MAAS state ${view.statusName}`);
    emit('Warning', 'MachineUnhandledState', `machine ${systemId} is ${view.statusName}`);
    wait(s.config.steadyPollMs);
  }
}

export const providerId = formatProviderId;

function idFromProviderId(providerID: string | undefined): string | null {
  if (!providerID) return null;
  const parsed = parseProviderId(providerID);
  return parsed.ok ? parsed.systemId : null;
}
