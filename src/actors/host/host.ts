import type { BareMetalHost, BareMetalHostStatus, ProvisioningState } from '../../api/index.ts';
import { GATED_OPERATIONS, initialState, step } from '../../machines/bmh/index.ts';
import type { BmhEffect, BmhState, MachineConfig, OpResult } from '../../machines/bmh/index.ts';
import type { Fence, HostStore, Logger, Provisioner } from '../../ports/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import { SlotLease } from '../capacity/index.ts';
import type { ActorContext, ActorRef, Behavior, Clock, TimerHandle } from '../runtime/index.ts';
import { tell, tellExpress, tellNextIteration } from '../runtime/index.ts';
import { resolveHostData } from './host-data.ts';
import { invoke, StaleFence } from '../../ports/index.ts';
import type { HostMsg, HostSnapshot, Transition } from './messages.ts';
import { StatusWriter } from './status-writer.ts';

export interface HostObserver {
  stateChanged(key: string, from: ProvisioningState | null, to: ProvisioningState, status: BareMetalHostStatus): void;
  statusChanged(key: string, status: BareMetalHostStatus): void;
  warning(key: string, reason: string, message: string): void;
  gone(key: string): void;
}

export interface HostDeps {
  readonly store: HostStore;
  readonly provisioner: Provisioner;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly config: MachineConfig;
  readonly log: Logger;
  readonly random: () => number;
  readonly grantTtlMs: number;
  readonly observer: HostObserver;
  /** The shard lease this host runs under (cluster mode): stamped on every write and call. */
  readonly fence?: Fence;
}

interface HostActorState {
  machine: BmhState | null;
  timer: TimerHandle | null;
  readonly slot: SlotLease;
  stateSince: number;
  recent: Transition[];
  readonly writer: StatusWriter;
  /** Calls issued and not yet answered. */
  calls: number;
  /** Set by drain: no new call starts; replies wait for the calls in flight. */
  draining: Array<(v: void) => void> | null;
}

const RECENT = 16;

// One actor per host: owns the machine state, runs its effects one step at a time and feeds the
// results back as messages, so the mailbox is the only way anything reaches the machine.
export function hostBehavior(key: string, deps: HostDeps): Behavior<HostActorState, HostMsg> {
  return {
    kind: 'host',
    init: (ctx) => {
      // A restart after a crash starts empty and re-reads the host from the store on the next
      // message; the zero-delay tick makes sure there is one.
      deps.clock.setTimeout(() => tell(ctx.self, { type: 'tick' }), 0);
      const slot = new SlotLease(deps.broker, key, deps.clock, deps.grantTtlMs, () => tell(ctx.self, { type: 'renewSlot' }));
      return {
        machine: null, timer: null, slot, stateSince: deps.clock.now(), recent: [],
        writer: new StatusWriter(key, deps.store, deps.log, deps.clock, deps.fence), calls: 0, draining: null,
      };
    },
    receive: async (s, msg, ctx) => {
      if (msg.type === 'snapshot') {
        msg.reply(s.machine ? snapshot(key, s) : null);
        return s;
      }
      if (msg.type === 'renewSlot') {
        s.slot.renew();
        return s;
      }
      if (msg.type === 'drain') {
        (s.draining ??= []).push(msg.reply);
        if (s.timer) deps.clock.clearTimeout(s.timer);
        s.timer = null;
        await settleDrain(s);
        return s;
      }
      // Draining: only the answers of calls already made still count; wake-ups wait for the new owner.
      if (s.draining !== null && msg.type !== 'result') return s;
      if (s.machine === null) {
        const host = msg.type === 'observed' ? msg.host : await deps.store.get(key);
        if (!host) {
          deps.observer.gone(key);
          return s;
        }
        s.machine = initialState(host, deps.config);
        deps.observer.stateChanged(key, null, s.machine.host.status.provisioning.state, s.machine.host.status);
      }
      const before = s.machine.host.status;
      const { state, effects } = step(s.machine, msg, deps.clock.now());
      s.machine = state;
      for (const effect of effects) runEffect(s, effect, ctx, deps, key);
      if (state.host.status !== before && state.host.status.provisioning.state !== before.provisioning.state) {
        s.stateSince = deps.clock.now();
        deps.observer.stateChanged(key, before.provisioning.state, state.host.status.provisioning.state, state.host.status);
      }
      if (state.gone) deps.observer.gone(key);
      if (s.draining !== null) await settleDrain(s);
      return s;
    },
    onStop: (s) => {
      if (s.timer) deps.clock.clearTimeout(s.timer);
      s.writer.close();
      s.slot.release();
    },
    describe: (s) => ({
      state: s.machine?.host.status.provisioning.state ?? null,
      inFlight: s.machine?.inFlight?.op ?? null,
      slot: s.machine?.slot.phase ?? 'none',
    }),
  };
}

function runEffect(s: HostActorState, effect: BmhEffect, ctx: ActorContext<HostMsg>, deps: HostDeps, key: string): void {
  const machine = s.machine;
  if (!machine) return;
  switch (effect.type) {
    case 'call': {
      // A draining host issues nothing new: the next owner re-reads status and makes the call.
      if (s.draining !== null) return;
      const host: BareMetalHost = machine.host;
      s.calls += 1;
      void perform(host, effect, deps).then((result) => {
        s.calls -= 1;
        // The machine frees the slot whenever a gated call finishes (done or failed; a property
        // test holds it to that), so hand it back now rather than after this host's turn comes:
        // the next waiter starts while this host is still queued.
        const answer: HostMsg = { type: 'result', seq: effect.seq, result, jitter: deps.random() };
        if (GATED_OPERATIONS.has(effect.args.op) && (result.kind === 'done' || result.kind === 'failed')) {
          s.slot.release();
          // The next waiter's grant runs first; this answer is read an iteration later.
          tellNextIteration(ctx.self, answer);
        } else {
          tell(ctx.self, answer);
        }
      });
      return;
    }
    case 'requestSlot': {
      const claim = deps.provisioner.capacity({
        key, namespace: machine.host.metadata.namespace, name: machine.host.metadata.name,
        uid: machine.host.metadata.uid ?? key, provisionerId: machine.host.status.provisioning.ID, labels: machine.host.metadata.labels ?? {},
        spec: machine.host.spec, credentials: null,
      });
      const self = ctx.self;
      s.slot.request(claim.pool, effect.op, claim.exempt, (n) => tellExpress(self, n));
      return;
    }
    case 'releaseSlot':
      s.slot.release();
      return;
    case 'writeStatus':
      s.writer.write(effect.status);
      deps.observer.statusChanged(key, effect.status);
      return;
    case 'requeue':
      if (s.draining !== null) return;
      if (s.timer) deps.clock.clearTimeout(s.timer);
      s.timer = deps.clock.setTimeout(() => {
        s.timer = null;
        tell(ctx.self, { type: 'tick' });
      }, effect.afterMs);
      return;
    // Fenced like status: once the shard has moved on, the new owner's view of the host stands.
    case 'addFinalizer':
      deps.store.addFinalizer(key, effect.finalizer, deps.fence).catch((err: unknown) => warn(deps, key, 'adding the finalizer failed', err));
      return;
    case 'removeFinalizer':
      deps.store.removeFinalizer(key, effect.finalizer, deps.fence).catch((err: unknown) => warn(deps, key, 'removing the finalizer failed', err));
      return;
    case 'removeAnnotation':
      deps.store.removeAnnotation(key, effect.key, deps.fence).catch((err: unknown) => warn(deps, key, `removing annotation ${effect.key} failed`, err));
      return;
    case 'event': {
      s.recent.push({ at: deps.clock.now(), severity: effect.severity, reason: effect.reason, message: effect.message });
      if (s.recent.length > RECENT) s.recent.shift();
      deps.store.recordEvent?.(key, effect.severity, effect.reason, effect.message).catch((err: unknown) => warn(deps, key, `recording event ${effect.reason} failed`, err));
      const line = { host: key, reason: effect.reason };
      if (effect.severity === 'Warning') {
        deps.log.warn(line, effect.message);
        deps.observer.warning(key, effect.reason, effect.message);
      }
      else deps.log.info(line, effect.message);
    }
  }
}

// Replies to drain once no call is in flight and the last status is written.
async function settleDrain(s: HostActorState): Promise<void> {
  if (s.calls > 0 || s.draining === null) return;
  await s.writer.whenIdle();
  const waiting = s.draining;
  s.draining = [];
  for (const reply of waiting) reply();
}

async function perform(host: BareMetalHost, effect: Extract<BmhEffect, { type: 'call' }>, deps: HostDeps): Promise<OpResult> {
  try {
    const resolved = await resolveHostData(host, effect.args, deps.store, deps.config.missingCredentialsRetryMs);
    if (!resolved.ok) return resolved.result;
    return await invoke(deps.provisioner, deps.fence ? { ...resolved.data, fence: deps.fence } : resolved.data, effect.args);
  } catch (err) {
    // A provisioner that throws broke its contract; treat it as transient and keep the reason.
    return { kind: 'transient', message: err instanceof Error ? err.message : String(err) };
  }
}

function warn(deps: HostDeps, key: string, message: string, err: unknown): void {
  const moved = err instanceof StaleFence;
  deps.log.warn({ host: key, ...(moved ? { epoch: deps.fence?.epoch } : {}), err: err instanceof Error ? err.message : String(err) }, moved ? `${message}: shard moved` : message);
}

function snapshot(key: string, s: HostActorState): HostSnapshot {
  const m = s.machine as BmhState;
  return {
    key,
    state: m.host.status.provisioning.state,
    status: m.host.status,
    inFlight: m.inFlight?.op ?? null,
    slot: m.slot,
    retryAt: m.retryAt,
    stateSince: s.stateSince,
    recent: [...s.recent],
  };
}
