import type { BareMetalHost } from '../../api/index.ts';
import { GATED_OPERATIONS, bmhLogic, initialState } from '../../machines/bmh/index.ts';
import type { BmhEffect, BmhEvent, BmhState, OpResult } from '../../machines/bmh/index.ts';
import { StaleFence } from '../../ports/index.ts';
import type { KindEffect, Lane, MachineAdapter, MachineIO, MachineKind, Observation, Tick } from '../machine/index.ts';
import { callProvisioner } from './host-call.ts';
import type { HostDeps } from './host.ts';
import type { HostObserved, HostSnapshot, Transition } from './messages.ts';
import { StatusWriter } from './status-writer.ts';

const RECENT = 16;

type HostAdapter = MachineAdapter<BmhState, BmhEvent, BmhEffect, HostObserved, HostSnapshot | null>;

/** The BareMetalHost kind: bmhLogic, and the adapter that runs its calls, writes and events. */
export function hostKind(key: string, deps: HostDeps): MachineKind<BmhState, BmhEvent, BmhEffect, HostObserved, HostSnapshot | null> {
  return { actorKind: 'host', logic: bmhLogic, adapter: (io) => hostAdapter(key, deps, io) };
}

function hostAdapter(key: string, deps: HostDeps, io: MachineIO<BmhEvent>): HostAdapter {
  const { clock, observer, store, fence } = deps;
  const writer = new StatusWriter(key, store, deps.log, clock, fence);
  const recent: Transition[] = [];
  let stateSince = clock.now();

  // The machine frees the slot whenever a gated call finishes (done or failed; a property test
  // holds it to that), so hand it back now rather than after this host's turn comes: the next
  // waiter starts while this host is still queued, and this answer is read an iteration later.
  const gatedLane = (result: OpResult): Lane => {
    if (result.kind !== 'done' && result.kind !== 'failed') return 'mailbox';
    io.slot?.release();
    return 'nextIteration';
  };

  function first(host: BareMetalHost | undefined, wake: HostObserved | Tick | null): Observation<BmhState, BmhEvent> | null {
    if (!host) {
      observer.gone(key);
      return null;
    }
    const state = initialState(host, deps.config);
    observer.stateChanged(key, null, state.host.status.provisioning.state, state.host.status);
    return { state, event: wake };
  }

  function warn(message: string, err: unknown): void {
    const moved = err instanceof StaleFence;
    deps.log.warn({ host: key, ...(moved ? { epoch: fence?.epoch } : {}), err: err instanceof Error ? err.message : String(err) }, moved ? `${message}: shard moved` : message);
  }

  return {
    observe(current, wake) {
      if (current !== null) return wake === null ? null : { state: current, event: wake };
      // The first wake-up: the host comes with it, or is read from the store.
      if (wake?.type === 'observed') return first(wake.host, wake);
      return store.get(key).then((host) => first(host, wake));
    },
    perform(effect: KindEffect<BmhEffect>, state) {
      switch (effect.type) {
        case 'call': {
          const host = state.host;
          const { seq, args } = effect;
          io.run(
            () => callProvisioner(host, args, store, deps.provisioner, deps.config.missingCredentialsRetryMs, fence),
            (result): BmhEvent => ({ type: 'result', seq, result, jitter: deps.random() }),
            GATED_OPERATIONS.has(args.op) ? gatedLane : undefined,
          );
          return;
        }
        case 'writeStatus':
          writer.write(effect.status);
          observer.statusChanged(key, effect.status);
          return;
        // Fenced like status: once the shard has moved on, the new owner's view of the host stands.
        case 'removeAnnotation':
          store.removeAnnotation(key, effect.key, fence).catch((err: unknown) => warn(`removing annotation ${effect.key} failed`, err));
          return;
        case 'event': {
          recent.push({ at: clock.now(), severity: effect.severity, reason: effect.reason, message: effect.message });
          if (recent.length > RECENT) recent.shift();
          store.recordEvent?.(key, effect.severity, effect.reason, effect.message).catch((err: unknown) => warn(`recording event ${effect.reason} failed`, err));
          const line = { host: key, reason: effect.reason };
          if (effect.severity === 'Warning') {
            deps.log.warn(line, effect.message);
            observer.warning(key, effect.reason, effect.message);
          } else deps.log.info(line, effect.message);
        }
      }
    },
    slotClaim(state) {
      const host = state.host;
      return deps.provisioner.capacity({
        key, namespace: host.metadata.namespace, name: host.metadata.name,
        uid: host.metadata.uid ?? key, provisionerId: host.status.provisioning.ID, labels: host.metadata.labels ?? {},
        spec: host.spec, credentials: null,
      });
    },
    finalizer(change, finalizer) {
      const write = change === 'add' ? store.addFinalizer(key, finalizer, fence) : store.removeFinalizer(key, finalizer, fence);
      write.catch((err: unknown) => warn(change === 'add' ? 'adding the finalizer failed' : 'removing the finalizer failed', err));
    },
    stepped(before, after) {
      const from = before.host.status;
      const to = after.host.status;
      if (to !== from && to.provisioning.state !== from.provisioning.state) {
        stateSince = clock.now();
        observer.stateChanged(key, from.provisioning.state, to.provisioning.state, to);
      }
    },
    gone: () => observer.gone(key),
    snapshot: (m) => m === null ? null : {
      key,
      state: m.host.status.provisioning.state,
      status: m.host.status,
      inFlight: m.inFlight?.op ?? null,
      slot: m.slot,
      retryAt: m.retryAt,
      stateSince,
      recent: [...recent],
    },
    describe: (m) => ({ inFlight: m.inFlight?.op ?? null, slot: m.slot.phase }),
    whenIdle: () => writer.whenIdle(),
    close: () => writer.close(),
  };
}
