import { initialMaasMachineState, stepMaasMachine } from '../../machines/maas-machine/index.ts';
import type { MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachineState, MaasResult } from '../../machines/maas-machine/index.ts';
import type { Logger, MaasDriver, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { CapacityMsg, SlotNotice } from '../capacity/index.ts';
import { SlotLease } from '../capacity/index.ts';
import type { ActorRef, Behavior, Clock, Reply, TimerHandle } from '../runtime/index.ts';
import { tell, tellExpress } from '../runtime/index.ts';
import { bootstrapData, resolveContext } from './context.ts';

export type MaasMachineMsg =
  | { type: 'observed'; object: StoredObject }
  | { type: 'tick' }
  | { type: 'result'; seq: number; result: MaasResult }
  | SlotNotice
  | { type: 'renewSlot' }
  | { type: 'snapshot'; reply: Reply<MaasMachineState | null> };

export interface MaasMachineDeps {
  readonly store: ObjectStore;
  readonly driver: MaasDriver;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly config: MaasMachineConfig;
  readonly log: Logger;
  readonly grantTtlMs: number;
  readonly onChange?: (key: string, state: MaasMachineState) => void;
}

interface ActorState {
  machine: MaasMachineState | null;
  bootstrapSecret: string | null;
  timer: TimerHandle | null;
  readonly slot: SlotLease;
}

// One actor per MaasMachine: resolves what the machine needs from the store (owner Machine,
// bootstrap Secret), steps the pure machine, and performs its effects.
export function maasMachineBehavior(key: string, deps: MaasMachineDeps): Behavior<ActorState, MaasMachineMsg> {
  const [namespace = 'default'] = key.split('/');
  return {
    kind: 'maas-machine',
    init: (ctx) => {
      deps.clock.setTimeout(() => tell(ctx.self, { type: 'tick' }), 0);
      const slot = new SlotLease(deps.broker, key, deps.clock, deps.grantTtlMs, () => tell(ctx.self, { type: 'renewSlot' }));
      return { machine: null, bootstrapSecret: null, timer: null, slot };
    },
    receive: async (s, msg, ctx) => {
      if (msg.type === 'snapshot') {
        msg.reply(s.machine);
        return s;
      }
      if (msg.type === 'renewSlot') {
        s.slot.renew();
        return s;
      }
      let event: MaasMachineEvent = msg.type === 'slotGranted' ? { type: 'slotGranted', grantId: msg.grantId }
        : msg.type === 'slotQueued' ? { type: 'slotQueued', position: msg.position }
        : msg.type === 'slotLost' ? { type: 'slotLost', grantId: msg.grantId, reason: msg.reason }
        : msg.type === 'observed' ? { type: 'tick' }
        : msg;
      if (msg.type === 'observed' || s.machine === null) {
        // A message is a wake-up: read the object as it is now, not as it was when the event left.
        const object = (await deps.store.get('MaasMachine', key)) ?? (msg.type === 'observed' ? msg.object : undefined);
        if (!object) return s;
        const context = await resolveContext(deps.store, object);
        s.bootstrapSecret = context.bootstrapSecret;
        if (s.machine === null) s.machine = initialMaasMachineState(object as never, context, deps.config);
        event = msg.type === 'observed' ? { type: 'observed', object, context } : event;
      }
      const { state, effects } = stepMaasMachine(s.machine, event, deps.clock.now());
      s.machine = state;
      for (const e of effects) run(s, e);
      deps.onChange?.(key, state);
      return s;

      function run(st: ActorState, e: MaasMachineEffect): void {
        switch (e.type) {
          case 'call': {
            const userData = e.call.op === 'deploy' ? bootstrapData(deps.store, namespace, st.bootstrapSecret) : Promise.resolve(undefined);
            void userData
              .then((ud) => deps.driver.run(e.call, ud))
              .catch((err: unknown): MaasResult => ({ kind: 'transient', message: err instanceof Error ? err.message : String(err) }))
              .then((result) => tell(ctx.self, { type: 'result', seq: e.seq, result }));
            return;
          }
          case 'requestSlot': {
            const self = ctx.self;
            st.slot.request(deps.driver.pool, e.op, false, (n) => tellExpress(self, n));
            return;
          }
          case 'releaseSlot':
            st.slot.release();
            return;
          case 'writeSpec':
            deps.store.patchSpec('MaasMachine', key, e.patch).catch((err: unknown) => warn('persisting providerID failed', err));
            return;
          case 'writeStatus':
            deps.store.writeStatus('MaasMachine', key, e.status).catch((err: unknown) => warn('status write failed', err));
            return;
          case 'requeue':
            if (st.timer) deps.clock.clearTimeout(st.timer);
            st.timer = deps.clock.setTimeout(() => {
              st.timer = null;
              tell(ctx.self, { type: 'tick' });
            }, e.afterMs);
            return;
          case 'addFinalizer':
            deps.store.addFinalizer('MaasMachine', key, e.finalizer).catch((err: unknown) => warn('adding the finalizer failed', err));
            return;
          case 'removeFinalizer':
            deps.store.removeFinalizer('MaasMachine', key, e.finalizer).catch((err: unknown) => warn('removing the finalizer failed', err));
            return;
          case 'event':
            if (e.severity === 'Warning') deps.log.warn({ maasMachine: key, reason: e.reason }, e.message);
            else deps.log.info({ maasMachine: key, reason: e.reason }, e.message);
        }
      }
    },
    onStop: (s) => {
      if (s.timer) deps.clock.clearTimeout(s.timer);
      s.slot.release();
    },
    describe: (s) => ({ state: s.machine?.view?.statusName ?? null, ready: s.machine?.status.ready ?? false, slot: s.machine?.slot.phase ?? 'none' }),
  };

  function warn(message: string, err: unknown): void {
    deps.log.warn({ maasMachine: key, err: err instanceof Error ? err.message : String(err) }, message);
  }
}
