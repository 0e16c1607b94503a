import { initialMaasMachineState, maasMachineLogic } from '../../machines/maas-machine/index.ts';
import type { DnsLookupResult, MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachineState, MaasResult } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ObjectStore, StoredObject } from '../../ports/index.ts';
import type { CapacityMsg, SlotNotice } from '../capacity/index.ts';
import { SlotLease } from '../capacity/index.ts';
import type { ActorContext, ActorRef, Behavior, Clock, Reply, TimerHandle } from '../runtime/index.ts';
import { tell, tellExpress } from '../runtime/index.ts';
import { bootstrapData, parseMaasMachine, resolveMachineWorld } from './context.ts';

export type MaasMachineMsg =
  | { type: 'observed'; object: StoredObject }
  | { type: 'tick' }
  | { type: 'result'; seq: number; result: MaasResult }
  | { type: 'dnsResult'; seq: number; result: DnsLookupResult }
  // The cluster changed its DNS record.
  | { type: 'dnsChanged' }
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
  /** The shard lease this machine runs under: stamped on every write, so a lost shard cannot write. */
  readonly fence?: Fence;
}

interface ActorState {
  machine: MaasMachineState | null;
  bootstrapSecret: string | null;
  timer: TimerHandle | null;
  readonly slot: SlotLease;
}

// One actor per MaasMachine, thin: on every wake-up it reads the MaasMachine and the Cluster API
// objects around it (owner Machine, Cluster, MaasCluster, bootstrap Secret) from the store, typed,
// steps the pure machine (maasMachineLogic) and performs its effects; results come back as messages.
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
      const event = await toEvent(s, msg);
      if (!event || !s.machine) return s;
      const { state, effects } = maasMachineLogic.step(s.machine, event, deps.clock.now());
      s.machine = state;
      for (const e of effects) perform(s, e, ctx);
      deps.onChange?.(key, state);
      return s;
    },
    onStop: (s) => {
      if (s.timer) deps.clock.clearTimeout(s.timer);
      s.slot.release();
    },
    describe: (s) => {
      const view = s.machine ? maasMachineLogic.view(s.machine) : null;
      return { state: view?.state ?? null, phase: s.machine?.phase ?? null, ready: s.machine?.status.ready ?? false, slot: s.machine?.slot.phase ?? 'none' };
    },
  };

  // A message is a wake-up: the object and its world are read as they are now. Results and slot
  // notices go in as they are; the first message of all also observes.
  async function toEvent(s: ActorState, msg: Exclude<MaasMachineMsg, { type: 'snapshot' } | { type: 'renewSlot' }>): Promise<MaasMachineEvent | null> {
    if (msg.type === 'observed' || msg.type === 'tick' || s.machine === null) {
      const stored = (await deps.store.get('MaasMachine', key)) ?? (msg.type === 'observed' ? msg.object : undefined);
      const object = stored ? parseMaasMachine(stored, deps.log) : null;
      if (!object) return null;
      const { world, bootstrapSecret } = await resolveMachineWorld(deps.store, object, deps.log);
      s.bootstrapSecret = bootstrapSecret;
      if (s.machine === null) s.machine = initialMaasMachineState(object, deps.config, world);
      if (msg.type === 'observed' || msg.type === 'tick') return { type: 'observed', object, world };
      // A result or notice that arrived first: observe, then apply it.
      s.machine = maasMachineLogic.step(s.machine, { type: 'observed', object, world }, deps.clock.now()).state;
    }
    switch (msg.type) {
      case 'slotGranted': return { type: 'slotGranted', grantId: msg.grantId };
      case 'slotQueued': return { type: 'slotQueued', position: msg.position };
      case 'slotLost': return { type: 'slotLost', grantId: msg.grantId, reason: msg.reason };
      case 'result': return { type: 'result', seq: msg.seq, result: msg.result };
      case 'dnsResult': return { type: 'dnsResult', seq: msg.seq, result: msg.result };
      case 'dnsChanged': return { type: 'dnsChanged' };
      default: return null;
    }
  }

  function perform(st: ActorState, e: MaasMachineEffect, ctx: ActorContext<MaasMachineMsg>): void {
    switch (e.type) {
      case 'call': {
        const userData = e.call.op === 'deploy' ? bootstrapData(deps.store, namespace, st.bootstrapSecret) : Promise.resolve(undefined);
        void userData
          .then((ud) => deps.driver.run(e.call, ud))
          .catch((err: unknown): MaasResult => ({ kind: 'transient', message: message(err) }))
          .then((result) => tell(ctx.self, { type: 'result', seq: e.seq, result }));
        return;
      }
      case 'dnsLookup':
        void deps.driver.findDns(e.fqdn)
          .then((record): DnsLookupResult => (record ? { kind: 'found', ips: record.ips } : { kind: 'none' }))
          .catch((err: unknown): DnsLookupResult => ({ kind: 'transient', message: message(err) }))
          .then((result) => tell(ctx.self, { type: 'dnsResult', seq: e.seq, result }));
        return;
      case 'requestSlot': {
        const self = ctx.self;
        st.slot.request(deps.driver.pool, e.op, false, (n) => tellExpress(self, n));
        return;
      }
      case 'releaseSlot':
        st.slot.release();
        return;
      case 'writeSpec':
        deps.store.patchSpec('MaasMachine', key, { ...e.patch }, deps.fence).catch((err: unknown) => warn('persisting providerID failed', err));
        return;
      case 'writeStatus':
        deps.store.writeStatus('MaasMachine', key, e.status as unknown as Record<string, unknown>, deps.fence).catch((err: unknown) => warn('status write failed', err));
        return;
      case 'requeue':
        if (st.timer) deps.clock.clearTimeout(st.timer);
        st.timer = deps.clock.setTimeout(() => {
          st.timer = null;
          tell(ctx.self, { type: 'tick' });
        }, e.afterMs);
        return;
      case 'addFinalizer':
        deps.store.addFinalizer('MaasMachine', key, e.finalizer, deps.fence).catch((err: unknown) => warn('adding the finalizer failed', err));
        return;
      case 'removeFinalizer':
        deps.store.removeFinalizer('MaasMachine', key, e.finalizer, deps.fence).catch((err: unknown) => warn('removing the finalizer failed', err));
        return;
      case 'event':
        if (e.severity === 'Warning') deps.log.warn({ maasMachine: key, reason: e.reason }, e.message);
        else deps.log.info({ maasMachine: key, reason: e.reason }, e.message);
    }
  }

  function warn(text: string, err: unknown): void {
    deps.log.warn({ maasMachine: key, err: message(err) }, text);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
