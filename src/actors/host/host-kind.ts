import type { BareMetalHost } from '../../api/index.ts';
import { GATED_OPERATIONS, bmhLogicFor, stateEnteredStamp } from '../../machines/bmh/index.ts';
import type { BmhEffect, BmhEvent, BmhLogic, BmhState, Operation, OpResult } from '../../machines/bmh/index.ts';
import { enteredBefore } from '../../machines/logic.ts';
import { StaleFence } from '../../ports/index.ts';
import type { TimerHandle } from '../runtime/index.ts';
import type { KindEffect, Lane, MachineAdapter, MachineIO, MachineKind, Observation, Tick } from '../machine/index.ts';
import { callBackend } from './host-call.ts';
import type { CallLane } from './host-call.ts';
import type { HostDeps } from './host.ts';
import type { HostSnapshot, HostWake, Transition } from './messages.ts';
import { HostCompanions } from './companions.ts';
import { StatusWriter } from './status-writer.ts';
import { SLOT_ANSWER_HOLD_MS, SlotAnswerHold } from './slot-answer-hold.ts';
import { sharedText } from './shared-text.ts';
import { errorMessage } from '../../api/index.ts';

const RECENT = 16;
// States before the backend knows the host: BMO creates its HostFirmwareSettings once it registered.
const UNREGISTERED: ReadonlySet<string> = new Set(['', 'unmanaged', 'registering', 'deleting']);
const NONE_WATCHED: ReadonlyArray<{ readonly key: string; readonly stop: () => void }> = [];

type HostKind = MachineKind<BmhState, BmhEvent, BmhEffect, HostWake, HostSnapshot | null, BareMetalHost, null>;
type HostObservation = Observation<BmhEvent, BareMetalHost, null>;

// One logic per machine configuration: the nodes' hosts share it, as they share the adapter's methods.
const logics = new WeakMap<HostDeps['config'], BmhLogic>();

/** The BareMetalHost kind: its logic under the node's configuration, and the adapter that runs its calls, writes and events. */
export function hostKind(key: string, deps: HostDeps): HostKind {
  let logic = logics.get(deps.config);
  if (logic === undefined) logics.set(deps.config, (logic = bmhLogicFor(deps.config)));
  return new HostKindOf(key, deps, logic);
}

// One small object per host, its adapter built by a shared method rather than a closure per host.
class HostKindOf implements HostKind {
  readonly actorKind = 'host';

  constructor(private readonly key: string, private readonly deps: HostDeps, readonly logic: BmhLogic) {}

  adapter(io: MachineIO<BmhEvent>): HostAdapter {
    return new HostAdapter(this.key, this.deps, io);
  }
}

// A class, not closures: ten thousand hosts share its methods, each keeps only its own data.
class HostAdapter implements MachineAdapter<BmhState, BmhEvent, BmhEffect, HostWake, HostSnapshot | null, BareMetalHost, null> {
  private readonly writer: StatusWriter;
  private readonly companions: HostCompanions;
  private readonly recent: Transition[] = [];
  private stateSince: number;
  // The Secrets this host hears of: the one it waits for, and its BMC credentials (a new version
  // is registered again, as BMO re-registers on every reconcile), each with how to stop hearing.
  // At most two entries: a small array costs a host less than a Map's table (issue 29).
  private watched: ReadonlyArray<{ readonly key: string; readonly stop: () => void }> = NONE_WATCHED;
  private watchingFor: string | null = null;
  private watchingCredentials: string | null = null;
  private readonly hold = new SlotAnswerHold();
  // A status left for the slot's answer is written by this timer if the answer is slow.
  private holdTimer: TimerHandle | null = null;
  // This host's start number at the call bound, drawn at its first call and kept: its later calls
  // go before the first calls of hosts that started after it (actors/calls).
  private callOrder: number | undefined;

  constructor(private readonly key: string, private readonly deps: HostDeps, private readonly io: MachineIO<BmhEvent>) {
    this.writer = new StatusWriter(key, deps.store, deps.log, deps.clock, deps.fence);
    this.companions = new HostCompanions(key, deps.store, deps.log, deps.clock, deps.fence);
    this.stateSince = deps.clock.now();
  }

  observe(current: BmhState | null, wake: HostWake | Tick | null): HostObservation | null | Promise<HostObservation | null> {
    // Its companions changed: the machine hears what they ask now.
    if (wake?.type === 'companionsChanged') void this.companions.settingsChanged();
    if (wake?.type === 'companionsChanged') return this.companions.intent().then((intent) => (current === null ? this.observe(null, null) : { events: intent ? [{ type: 'firmwareIntent', intent }] : [] }));
    if (current !== null) return wake === null ? null : { events: [wake] };
    // The first wake-up: the host comes with it, or is read from the store.
    if (wake?.type === 'observed') return this.first(wake.host, wake);
    return this.deps.store.get('BareMetalHost', this.key).then((host) => this.first(host, wake));
  }

  began(state: BmhState): void {
    this.deps.observer.statusRead(this.key, state.host.status);
    // A host registered before (an earlier owner, a restart) has its HostFirmwareSettings too.
    if (!UNREGISTERED.has(state.host.status.provisioning.state) && !state.gone) this.companionsRegistered(state);
  }

  perform(effect: KindEffect<BmhEffect>, state: BmhState): void {
    const { key, deps } = this;
    switch (effect.type) {
      case 'call': {
        this.hold.waits();
        const host = state.host;
        const { seq, args } = effect;
        this.io.run(
          () => callBackend(host, args, deps.store, deps.provisioner, deps.config.missingCredentialsRetryMs, deps.fence, deps.leaseHeld, this.laneFor(state, args.op)),
          ({ result, credentials }): BmhEvent => {
            // A firmware read's answer is kept in the companions; the machine then hears what they ask.
            if (result.kind === 'done' && result.firmware) void this.companions.firmwareRead(host, result.firmware).then(() => this.tellIntent());
            // A preparing or servicing that flashed firmware finished: its HostFirmwareComponents record what it flashed.
            if (result.kind === 'done' && (args.op === 'prepare' || args.op === 'service') && args.firmware) void this.companions.updatesApplied(args.firmware.updates);
            return { type: 'result', seq, result, jitter: deps.random(), ...(credentials ? { credentials } : {}) };
          },
          GATED_OPERATIONS.has(args.op) ? (answered) => gatedLane(this.io, answered.result) : undefined,
        );
        return;
      }
      case 'writeStatus':
        this.writer.stage(effect.status);
        deps.observer.statusChanged(key, effect.status, state.slot.phase === 'waiting' ? state.slot.op : undefined);
        return;
      // Fenced like status: once the shard has moved on, the new owner's view of the host stands.
      case 'removeAnnotation':
        deps.store.patchAnnotations('BareMetalHost', key, { [effect.key]: null }, deps.fence).catch((err: unknown) => this.warn(`removing annotation ${effect.key} failed`, err));
        return;
      case 'event': {
        this.recent.push({ at: deps.clock.now(), severity: effect.severity, reason: effect.reason, message: sharedText(effect.message) });
        if (this.recent.length > RECENT) this.recent.shift();
        deps.store.recordEvent?.('BareMetalHost', key, effect.severity, effect.reason, effect.message).catch((err: unknown) => this.warn(`recording event ${effect.reason} failed`, err));
        const line = { host: key, reason: effect.reason };
        if (effect.severity === 'Warning') {
          deps.log.warn(line, effect.message);
          deps.observer.warning(key, effect.reason, effect.message);
        } else deps.log.info(line, effect.message);
      }
    }
  }

  // Where the call waits its turn at its backend (named as its capacity pool). A host holding a
  // slot, or a gated call (which only a slot holder makes), never waits behind the calls that
  // hold none: its slot is bounded already, and would sit idle while others wait for it.
  private laneFor(state: BmhState, op: Operation): CallLane | undefined {
    const calls = this.deps.calls;
    if (calls === undefined) return undefined;
    const backend = this.slotClaim(state).pool;
    if (GATED_OPERATIONS.has(op) || state.slot.phase === 'held') return (call) => calls.runHoldingSlot(backend, call);
    const order = (this.callOrder ??= calls.startNumber());
    return (call) => calls.run(backend, call, order);
  }

  slotClaim(state: BmhState): { pool: string; exempt: boolean } {
    const host = state.host;
    const key = this.key;
    return this.deps.provisioner.capacity({
      key, namespace: host.metadata.namespace, name: host.metadata.name,
      uid: host.metadata.uid ?? key, provisionerId: host.status.provisioning.ID, labels: host.metadata.labels ?? {},
      spec: host.spec, credentials: null,
    });
  }

  finalizer(change: 'add' | 'remove', finalizer: string): void {
    const { key, deps } = this;
    const write = change === 'add' ? deps.store.addFinalizer('BareMetalHost', key, finalizer, deps.fence) : deps.store.removeFinalizer('BareMetalHost', key, finalizer, deps.fence);
    write.catch((err: unknown) => this.warn(change === 'add' ? 'adding the finalizer failed' : 'removing the finalizer failed', err));
  }

  stepped(before: BmhState, after: BmhState): void {
    this.hold.stepped(before, after);
    this.watchSecrets(after);
    const from = before.host.status;
    const to = after.host.status;
    if (from.provisioning.state === 'registering' && !UNREGISTERED.has(to.provisioning.state) && !after.gone) this.companionsRegistered(after);
    // Inspection found (new) hardware: HardwareData holds it too, as BMO's inspection writes it.
    if (to.hardware !== undefined && to.hardware !== from.hardware && !after.gone) void this.companions.hardwareFound(after.host, to.hardware);
    if (to !== from && to.provisioning.state !== from.provisioning.state) this.stateSince = this.deps.clock.now();
  }

  gone(): void {
    // The host's deletion finished: its HardwareData goes with it, then the shard may forget it.
    void this.companions.hostGone();
    this.deps.ended?.(this.key);
  }

  snapshot(m: BmhState | null): HostSnapshot | null {
    if (m === null) return null;
    return {
      key: this.key,
      state: m.host.status.provisioning.state,
      status: m.host.status,
      inFlight: m.inFlight?.op ?? null,
      slot: m.slot,
      retryAt: m.retryAt,
      stateSince: this.stateSince,
      recent: [...this.recent],
    };
  }

  describe(m: BmhState): Record<string, unknown> {
    return { inFlight: m.inFlight?.op ?? null, slot: m.slot.phase };
  }

  turnEnded(): void {
    if (this.hold.turnEnded() && this.writer.staged) {
      // The staged status stays held (StatusWriter.stage) until the answer's turn ends.
      this.holdTimer ??= this.deps.clock.setTimeout(() => {
        this.holdTimer = null;
        this.writer.endTurn();
      }, SLOT_ANSWER_HOLD_MS);
      return;
    }
    this.endHold();
    this.writer.endTurn();
  }

  whenIdle(): Promise<void> {
    // A drain waits for the status, not for the slot's answer.
    if (this.holdTimer !== null) {
      this.endHold();
      this.writer.endTurn();
    }
    return Promise.all([this.writer.whenIdle(), this.companions.settled()]).then(() => undefined);
  }

  close(): void {
    this.endHold();
    for (const { stop } of this.watched) stop();
    this.watched = NONE_WATCHED;
    this.writer.close();
  }

  private endHold(): void {
    if (this.holdTimer === null) return;
    this.deps.clock.clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }

  private watchSecrets(state: BmhState): void {
    const secrets = this.deps.secrets;
    if (!secrets) return;
    const waiting = state.waitingForSecret?.key ?? null;
    const name = state.host.spec.bmc?.credentialsName;
    // Mostly one Secret for many hosts: kept as one string (the key of its subscription too).
    const credentials = name && !state.gone ? sharedText(`${state.host.metadata.namespace}/${name}`) : null;
    // Every step passes here: nothing to do unless one of the two keys changed.
    if (waiting === this.watchingFor && credentials === this.watchingCredentials) return;
    this.watchingFor = waiting;
    this.watchingCredentials = credentials;
    const wanted = waiting === null || waiting === credentials ? [credentials] : [waiting, credentials];
    const kept = [];
    for (const entry of this.watched) {
      if (wanted.includes(entry.key)) kept.push(entry);
      else entry.stop();
    }
    for (const key of wanted) {
      if (key === null || kept.some((e) => e.key === key)) continue;
      kept.push({ key, stop: secrets.subscribe(key, (change) => this.io.tell({ type: 'secretChanged', key, change })) });
    }
    this.watched = kept.length === 0 ? NONE_WATCHED : kept;
  }

  // The actor builds the state from the host read (logic.initial); what its companions ask and
  // the wake-up are stepped on it.
  private async first(host: BareMetalHost | undefined, wake: HostWake | Tick | null): Promise<HostObservation | null> {
    if (!host) {
      this.deps.ended?.(this.key);
      return null;
    }
    // In its state since its status says, not since this actor first read it (a moved shard, a
    // restart): what `inspect` and the host page show.
    if (host.status) this.stateSince = enteredBefore(stateEnteredStamp(host.status), this.stateSince);
    const intent = await this.companions.intent();
    const events: BmhEvent[] = intent ? [{ type: 'firmwareIntent', intent }] : [];
    if (wake !== null && wake.type !== 'companionsChanged') events.push(wake);
    return { seen: { object: host, world: null }, events };
  }

  private companionsRegistered(state: BmhState): void {
    // Only a new HostFirmwareSettings changes what the machine was told when it started.
    void this.companions.registered(state.host).then((created) => {
      if (created) this.tellIntent();
    });
  }

  private tellIntent(): void {
    void this.companions.intent().then((intent) => {
      if (intent) this.io.tell({ type: 'firmwareIntent', intent });
    });
  }

  private warn(message: string, err: unknown): void {
    const moved = err instanceof StaleFence;
    const epoch = this.deps.fence?.epoch;
    this.deps.log.warn({ host: this.key, ...(moved ? { epoch } : {}), err: errorMessage(err) }, moved ? `${message}: shard moved` : message);
  }
}

// The machine frees the slot whenever a gated call finishes (done or failed; a property test
// holds it to that), so hand it back now rather than after this host's turn comes: the next
// waiter starts while this host is still queued, and this answer is read an iteration later.
// Built per gated call (and dropped with it), not kept per host.
function gatedLane(io: MachineIO<BmhEvent>, result: OpResult): Lane {
  if (result.kind !== 'done' && result.kind !== 'failed' && result.kind !== 'waitForSecret') return 'mailbox';
  io.slot?.release();
  return 'nextIteration';
}
