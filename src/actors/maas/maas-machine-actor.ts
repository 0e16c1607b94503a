import { addKubeVip, kubeVipFor, maasMachineLogicFor } from '../../machines/maas-machine/index.ts';
import type { DnsLookupResult, MaasMachineConfig, MaasMachineEffect, MaasMachineEvent, MaasMachineObject, MaasMachineState, MaasMachineWorld, MaasResult } from '../../machines/maas-machine/index.ts';
import type { Fence, Logger, MaasDriver, ResourceStore, StoredObject } from '../../ports/index.ts';
import type { BackendCalls } from '../calls/index.ts';
import type { CapacityMsg } from '../capacity/index.ts';
import type { ChangeSink, KindEffect, MachineBehavior, MachineIO, MachineKind, MachineMsg, Observation, Tick } from '../machine/index.ts';
import { StatusWriter, machineBehavior } from '../machine/index.ts';
import type { ActorRef, Clock } from '../runtime/index.ts';
import { bootstrapData, markInvalidSpec, objectProblems, parseMaasMachine, resolveMachineWorld, domainNotFound } from './context.ts';
import { errorMessage, MaasMachine, MetalfleetError } from '../../api/index.ts';
import type { MaasMachineStatus } from '../../api/index.ts';

/** Wake-ups of a MaasMachine: its object changed (read again anyway), or its cluster's DNS record did. */
export type MaasMachineWake = { readonly type: 'observed'; readonly object: StoredObject } | { readonly type: 'dnsChanged' };

export type MaasMachineMsg = MachineMsg<MaasMachineWake, MaasMachineEvent, MaasMachineState | null>;

export interface MaasMachineDeps {
  readonly store: ResourceStore;
  readonly driver: MaasDriver;
  readonly broker: ActorRef<CapacityMsg>;
  readonly clock: Clock;
  readonly config: MaasMachineConfig;
  readonly log: Logger;
  readonly grantTtlMs: number;
  /** Where the actor reports each change of its view (the node's change stream, for its shard). */
  readonly changes?: ChangeSink;
  /** The shard lease this machine runs under: stamped on every write, so a lost shard cannot write. */
  readonly fence?: Fence;
  /** The node's per-backend bound on calls that hold no slot; without it every call leaves at once. */
  readonly calls?: BackendCalls;
}

type Kind = MachineKind<MaasMachineState, MaasMachineEvent, MaasMachineEffect, MaasMachineWake, MaasMachineState | null, MaasMachineObject, MaasMachineWorld>;
type MaasMachineObservation = Observation<MaasMachineEvent, MaasMachineObject, MaasMachineWorld>;

// One actor per MaasMachine: the generic machine actor running the MaasMachine kind. On every
// wake-up the adapter reads the MaasMachine and the Cluster API objects around it (owner Machine,
// Cluster, MaasCluster, bootstrap Secret) from the store, typed; results come back as messages.
export function maasMachineBehavior(key: string, deps: MaasMachineDeps): MachineBehavior<MaasMachineState, MaasMachineEvent, MaasMachineEffect, MaasMachineWake, MaasMachineState | null> {
  return machineBehavior(key, maasMachineKind(key, deps), { clock: deps.clock, slots: { broker: deps.broker, ttlMs: deps.grantTtlMs }, ...(deps.changes ? { changes: deps.changes } : {}) });
}

export function maasMachineKind(key: string, deps: MaasMachineDeps): Kind {
  return {
    actorKind: 'maas-machine',
    logic: maasMachineLogicFor(deps.config),
    slotHolder: maasMachineHolder,
    adapter: (io) => maasMachineAdapter(key, deps, io),
  };
}

/** A MaasMachine's grants are held as `MaasMachine:<ns>/<name>`: never a host's name (no Kubernetes name has a colon). */
export function maasMachineHolder(key: string): string {
  return `MaasMachine:${key}`;
}

function maasMachineAdapter(key: string, deps: MaasMachineDeps, io: MachineIO<MaasMachineEvent>): ReturnType<Kind['adapter']> {
  const [namespace = 'default'] = key.split('/');
  let bootstrapSecret: string | null = null;
  // A control-plane machine of a VIP cluster deploys with the kube-vip static pod in its user data.
  let kubeVip: ReturnType<typeof kubeVipFor> = null;
  // Status goes through the writer every kind uses: once per turn, retried until it lands.
  const writer = new StatusWriter<MaasMachineStatus>({
    key, logField: 'maasMachine', log: deps.log, clock: deps.clock, ...(deps.fence ? { epoch: deps.fence.epoch } : {}),
    write: (status) => deps.store.writeStatus('MaasMachine', key, status as unknown as Record<string, unknown>, deps.fence),
  });

  // A wake-up reads the object and its world as they are now; the actor builds the first state
  // from them. A DNS change, or an answer or notice that arrived first (wake null), with no state
  // yet has the object observed first: that step's effects are performed like any other's.
  async function read(wake: MaasMachineWake | Tick | null): Promise<MaasMachineObservation | null> {
    const held = await deps.store.get('MaasMachine', key);
    const stored = held ?? (wake?.type === 'observed' ? wake.object : undefined);
    const object = stored ? parseMaasMachine(stored, deps.log) : null;
    if (!object) {
      // Nothing acts on it; the user sees why on the object (only one the store holds).
      const problems = held ? objectProblems(MaasMachine, held) : null;
      if (held && problems !== null) await markInvalidSpec(deps.store, 'MaasMachine', held, problems, deps.clock.now(), deps.fence).catch((err: unknown) => warn('could not mark the MaasMachine invalid', err));
      return null;
    }
    writer.storedIs(object.status);
    const { world, bootstrapSecret: secret } = await resolveMachineWorld(deps.store, object, deps.log);
    bootstrapSecret = secret;
    kubeVip = kubeVipFor(object, world);
    const observed: MaasMachineEvent = { type: 'observed', object, world };
    return { seen: { object, world }, events: wake?.type === 'dnsChanged' ? [observed, wake] : [observed] };
  }

  // Where a call waits its turn at MAAS: a machine holding a slot (deploying, releasing) never
  // waits behind the calls that hold none, as a host's does (actors/host/host-kind.ts).
  // Its calls without a slot go in the order machines started, as a host's do: the machine's start
  // number is drawn at its first call and kept, so a machine that has allocated goes on to deploy
  // before the next one allocates.
  let callOrder: number | undefined;
  function bounded<T>(state: MaasMachineState, call: () => Promise<T>): Promise<T> {
    const calls = deps.calls;
    if (calls === undefined) return call();
    if (state.slot.phase === 'held') return calls.runHoldingSlot(deps.driver.pool, call);
    return calls.run(deps.driver.pool, call, (callOrder ??= calls.startNumber()));
  }

  function warn(text: string, err: unknown): void {
    deps.log.warn({ maasMachine: key, err: message(err) }, text);
  }

  return {
    observe(current, wake) {
      if (current !== null && wake?.type === 'dnsChanged') return { events: [wake] };
      return read(wake);
    },
    perform(e: KindEffect<MaasMachineEffect>, state: MaasMachineState) {
      switch (e.type) {
        case 'call': {
          const { seq, call } = e;
          const secret = bootstrapSecret;
          const vip = kubeVip;
          io.run(
            () => bounded(state, () => (call.op === 'deploy' ? userDataFor(deps.store, namespace, secret).then((data) => withKubeVip(data, vip)) : Promise.resolve(undefined))
              .then((userData) => deps.driver.run(call, userData)))
              // User data kube-vip cannot join (Ignition) fails the deploy; anything else is retried.
              .catch((err: unknown): MaasResult => (err instanceof MetalfleetError && !err.retryable ? { kind: 'failed', message: message(err) } : { kind: 'transient', message: message(err) })),
            (result): MaasMachineEvent => ({ type: 'result', seq, result }),
          );
          return;
        }
        case 'dnsLookup': {
          const { seq, fqdn } = e;
          io.run(
            () => bounded(state, () => deps.driver.findDns(fqdn))
              .then((record): DnsLookupResult => (record ? { kind: 'found', ips: record.ips } : { kind: 'none' }))
              .catch((err: unknown): DnsLookupResult => {
                // A domain MAAS no longer has holds no record: this machine's address is in none.
                const domain = domainNotFound(err);
                if (domain === null) return { kind: 'transient', message: message(err) };
                deps.log.info({ maasMachine: key, fqdn, domain }, `MAAS has no DNS domain ${domain}: no DNS record ${fqdn} to be in`);
                return { kind: 'none' };
              }),
            (result): MaasMachineEvent => ({ type: 'dnsResult', seq, result }),
          );
          return;
        }
        case 'writeSpec':
          deps.store.patchSpec('MaasMachine', key, { ...e.patch }, deps.fence).catch((err: unknown) => warn('persisting providerID failed', err));
          return;
        case 'writeStatus':
          writer.stage(e.status);
          return;
        case 'event':
          if (e.severity === 'Warning') deps.log.warn({ maasMachine: key, reason: e.reason }, e.message);
          else deps.log.info({ maasMachine: key, reason: e.reason }, e.message);
      }
    },
    slotClaim: () => ({ pool: deps.driver.pool, exempt: false }),
    finalizer(change, finalizer) {
      const write = change === 'add' ? deps.store.addFinalizer('MaasMachine', key, finalizer, deps.fence) : deps.store.removeFinalizer('MaasMachine', key, finalizer, deps.fence);
      write.catch((err: unknown) => warn(change === 'add' ? 'adding the finalizer failed' : 'removing the finalizer failed', err));
    },
    turnEnded: () => writer.endTurn(),
    whenIdle: () => writer.whenIdle(),
    close: () => writer.close(),
    snapshot: (state) => state,
    describe: (s) => ({ phase: s.phase, ready: s.status.ready ?? false, slot: s.slot.phase }),
  };
}

/**
 * The deploy's user data: the bootstrap Secret's value, read just before the deploy. A machine
 * deployed without it never joins its cluster, and nothing later can hand it the data, so a
 * Secret gone (or without its value) since the bootstrap gate read it stops the deploy: failed,
 * naming the Secret; the gate reads the Secret again before the next try.
 */
async function userDataFor(store: MaasMachineDeps['store'], namespace: string, secret: string | null): Promise<string> {
  const data = await bootstrapData(store, namespace, secret);
  if (data !== undefined) return data;
  throw new MetalfleetError('bootstrapDataMissing', secret
    ? `bootstrap Secret ${namespace}/${secret} has no value (key "value"): not deploying without the machine's bootstrap data`
    : 'the Machine names no bootstrap data Secret (spec.bootstrap.dataSecretName): not deploying without the machine\'s bootstrap data', false);
}

function withKubeVip(userData: string | undefined, vip: ReturnType<typeof kubeVipFor>): string | undefined {
  if (vip === null) return userData;
  if (vip instanceof Error) throw vip;
  return addKubeVip(userData, vip);
}

function message(err: unknown): string {
  return errorMessage(err);
}
