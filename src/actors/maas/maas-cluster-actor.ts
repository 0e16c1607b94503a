import { MAAS_CLUSTER_FINALIZER, MaasCluster, MetalfleetError, errorMessage } from '../../api/index.ts';
import type { MaasClusterStatus } from '../../api/index.ts';
import { DEFAULT_MAAS_CLUSTER_CONFIG, maasClusterLogicFor } from '../../machines/maas-cluster/index.ts';
import type { DnsCall, DnsCallResult, IpCall, IpCallResult, MaasClusterEffect, MaasClusterEvent, MaasClusterState, MaasClusterWorld } from '../../machines/maas-cluster/index.ts';
import type { Fence, Logger, MaasDriver, ResourceStore } from '../../ports/index.ts';
import type { BackendCalls } from '../calls/index.ts';
import type { ChangeSink, KindEffect, MachineBehavior, MachineKind, MachineMsg } from '../machine/index.ts';
import { StatusWriter, machineBehavior } from '../machine/index.ts';
import type { Clock } from '../runtime/index.ts';
import { markInvalidSpec, objectProblems, parseMaasCluster, resolveClusterWorld, domainNotFound } from './context.ts';

export { MAAS_CLUSTER_FINALIZER };

/** The record as the actor holds it, and its whole state (null before the first look) for introspection. */
export type MaasClusterSnapshot = { dnsName: string | null; ips: readonly string[]; state: MaasClusterState | null };

/** A MaasCluster is woken by ticks only: it reads everything it needs on each. */
export type MaasClusterMsg = MachineMsg<never, MaasClusterEvent, MaasClusterSnapshot>;

export interface MaasClusterDeps {
  readonly store: ResourceStore;
  readonly driver: MaasDriver;
  readonly clock: Clock;
  readonly log: Logger;
  readonly resyncMs: number;
  /** The DNS record changed: wake the cluster's machines (a deleting control plane waits on it). */
  readonly onDnsChanged?: () => void;
  /** The shard lease this cluster runs under: stamped on every write. */
  readonly fence?: Fence;
  /** The node's per-backend bound on calls that hold no slot; without it every call leaves at once. */
  readonly calls?: BackendCalls;
  /** Where the actor reports each change of its view (the node's change stream, for its shard). */
  readonly changes?: ChangeSink;
}

type Kind = MachineKind<MaasClusterState, MaasClusterEvent, MaasClusterEffect, never, MaasClusterSnapshot, MaasCluster, MaasClusterWorld>;

// One actor per MaasCluster: the generic machine actor running the MaasCluster kind. On every
// wake-up the adapter reads the MaasCluster, its Cluster and the cluster's MaasMachines from the
// store, typed. Wake-ups come from machine status changes and its own requeues.
export function maasClusterBehavior(key: string, deps: MaasClusterDeps): MachineBehavior<MaasClusterState, MaasClusterEvent, MaasClusterEffect, never, MaasClusterSnapshot> {
  return machineBehavior(key, maasClusterKind(key, deps), { clock: deps.clock, ...(deps.changes ? { changes: deps.changes } : {}) });
}

export function maasClusterKind(key: string, deps: MaasClusterDeps): Kind {
  const logic = maasClusterLogicFor({ ...DEFAULT_MAAS_CLUSTER_CONFIG, resyncMs: deps.resyncMs });
  return { actorKind: 'maas-cluster', logic, adapter: () => maasClusterAdapter(key, deps) };
}

function maasClusterAdapter(key: string, deps: MaasClusterDeps): ReturnType<Kind['adapter']> {
  // A step's DNS calls and writes run within the turn (their answers are stepped at once): a few
  // short calls, and a snapshot asked after a wake-up then sees the record as that wake-up left
  // it (the mailbox is FIFO).
  // A cluster holds no capacity slot: its DNS and address calls wait for one of MAAS's places
  // behind the node's per-backend bound, as a MaasMachine's unslotted calls do (issue 30), or a
  // thousand clusters resyncing at once would send a thousand writes to one MAAS.
  // It waits in the order actors started, drawing its start number at its first call as a
  // MaasMachine does (they share MAAS's bound, and one start sequence): a new cluster's endpoint
  // record is made about when its first machines allocate, and a cluster's resync goes before
  // newer machines' calls; clusters are few and their calls short, and aging (actors/calls) keeps
  // them from starving anyone. Not first of all: a thousand clusters resyncing at once would then
  // stall every machine's start-up.
  let callOrder: number | undefined;
  const bounded = <T>(call: () => Promise<T>): Promise<T> => {
    const calls = deps.calls;
    return calls ? calls.run(deps.driver.pool, call, (callOrder ??= calls.startNumber())) : call();
  };

  async function dns(call: DnsCall): Promise<DnsCallResult> {
    const d = deps.driver;
    try {
      switch (call.op) {
        case 'find': {
          const record = await bounded(() => d.findDns(call.fqdn));
          return record ? { kind: 'record', record } : { kind: 'none' };
        }
        case 'create':
          return { kind: 'record', record: await bounded(() => d.createDns(call.fqdn, call.ttl, call.ips)) };
        case 'update': {
          const record = await bounded(() => d.updateDns(call.id, call.ips));
          deps.log.info({ maasCluster: key, ips: record.ips }, 'control-plane DNS updated');
          return { kind: 'record', record };
        }
        case 'delete':
          await bounded(() => d.deleteDns(call.id));
          return { kind: 'none' };
      }
    } catch (err) {
      // The state machine decides what a missing domain means (done when deleting).
      const domain = domainNotFound(err);
      if (domain !== null) {
        deps.log.info({ maasCluster: key, op: call.op, domain }, `MAAS has no DNS domain ${domain}`);
        return { kind: 'failed', reason: 'domainNotFound', message: errorMessage(err) };
      }
      return { kind: 'failed', message: errorMessage(err) };
    }
  }

  // The VIP's reservation and the control-plane machines' interfaces. A driver without these
  // calls (a plugin's) cannot serve a VIP cluster: said once, as a failure that is retried.
  async function ip(call: IpCall): Promise<IpCallResult> {
    const d = deps.driver;
    const missing = (what: string): IpCallResult => ({ kind: 'failed', retryable: false, message: `the MAAS driver of ${d.endpoint} cannot ${what}` });
    try {
      switch (call.op) {
        case 'findVip': {
          if (!d.findReservedIp) return missing('look up reserved addresses (ipaddresses/)');
          const find = d.findReservedIp.bind(d);
          const address = await bounded(() => find({ fqdn: call.fqdn, subnet: call.subnet, address: call.address }));
          return address ? { kind: 'vip', address } : { kind: 'none' };
        }
        case 'reserveVip': {
          if (!d.reserveIp) return missing('reserve addresses (ipaddresses/ op=reserve)');
          const reserve = d.reserveIp.bind(d);
          const address = await bounded(() => reserve({ subnet: call.subnet, address: call.address, hostname: call.hostname }));
          deps.log.info({ maasCluster: key, vip: address }, 'control-plane VIP reserved');
          return { kind: 'vip', address };
        }
        case 'releaseVip': {
          if (!d.releaseIp) return missing('release addresses (ipaddresses/ op=release)');
          const release = d.releaseIp.bind(d);
          const released = await bounded(() => release(call.address));
          deps.log.info({ maasCluster: key, vip: call.address, released }, released ? 'control-plane VIP released' : 'control-plane VIP was already released');
          return { kind: 'none' };
        }
        case 'interfaces': {
          if (!d.machineInterfaces) return missing('read machine interfaces');
          const interfaces = d.machineInterfaces.bind(d);
          return { kind: 'interfaces', nics: await bounded(() => interfaces(call.systemId)) };
        }
      }
    } catch (err) {
      return ipFailure(err);
    }
  }

  // Status goes through the writer every kind uses: once per turn, retried until it lands.
  const writer = new StatusWriter<MaasClusterStatus>({
    key, logField: 'maasCluster', log: deps.log, clock: deps.clock, ...(deps.fence ? { epoch: deps.fence.epoch } : {}),
    write: (status) => deps.store.writeStatus('MaasCluster', key, status as unknown as Record<string, unknown>, deps.fence),
  });

  async function write(effect: string, work: () => Promise<unknown> | void): Promise<void> {
    try {
      await work();
    } catch (err) {
      deps.log.warn({ maasCluster: key, effect, err: errorMessage(err) }, 'a MaasCluster write failed');
    }
  }

  return {
    async observe() {
      const stored = await deps.store.get('MaasCluster', key);
      if (!stored) return null;
      const object = parseMaasCluster(stored, deps.log);
      if (!object) {
        // Nothing acts on it; the user sees why on the object, as CAPMAAS's webhook would have said.
        const problems = objectProblems(MaasCluster, stored);
        if (problems !== null) await write('markInvalidSpec', () => markInvalidSpec(deps.store, 'MaasCluster', stored, problems, deps.clock.now(), deps.fence));
        return null;
      }
      writer.storedIs(object.status);
      const world = await resolveClusterWorld(deps.store, object, deps.log);
      return { seen: { object, world }, events: [{ type: 'observed', object, world }] };
    },
    perform(e: KindEffect<MaasClusterEffect>) {
      switch (e.type) {
        case 'dns':
          return dns(e.call).then((result): MaasClusterEvent => ({ type: 'dnsResult', seq: e.seq, result }));
        case 'ip':
          return ip(e.call).then((result): MaasClusterEvent => ({ type: 'ipResult', seq: e.seq, result }));
        case 'writeStatus':
          writer.stage(e.status);
          return;
        case 'writeSpec':
          return write(e.type, () => deps.store.patchSpec('MaasCluster', key, { ...e.patch }, deps.fence));
        case 'notifyMembers':
          deps.onDnsChanged?.();
          return;
        case 'event':
          if (e.severity === 'Warning') deps.log.warn({ maasCluster: key, reason: e.reason }, e.message);
          else deps.log.info({ maasCluster: key, reason: e.reason }, e.message);
      }
    },
    finalizer: (change, finalizer) => write(change === 'add' ? 'addFinalizer' : 'removeFinalizer', () => (change === 'add'
      ? deps.store.addFinalizer('MaasCluster', key, finalizer, deps.fence)
      : deps.store.removeFinalizer('MaasCluster', key, finalizer, deps.fence))),
    turnEnded: () => writer.endTurn(),
    whenIdle: () => writer.whenIdle(),
    close: () => writer.close(),
    snapshot: (s) => ({ dnsName: s?.record?.fqdn ?? null, ips: s?.record?.ips ?? [], state: s }),
    describe: (s) => ({ dnsName: s.record?.fqdn ?? null, ips: s.record?.ips.length ?? 0, phase: s.phase, ...(s.status.controlPlaneVIP ? { vip: s.status.controlPlaneVIP.address } : {}) }),
  };
}

/** A driver's failure as the cluster's machine takes it: a machine another MAAS user holds is a state of that member, not an error to retry. */
export function ipFailure(err: unknown): Extract<IpCallResult, { kind: 'failed' }> {
  const held = err instanceof MetalfleetError && err.code === 'heldByAnotherUser';
  return { kind: 'failed', message: errorMessage(err), retryable: !(err instanceof MetalfleetError) || err.retryable, ...(held ? { reason: 'heldByAnotherUser' as const } : {}) };
}
