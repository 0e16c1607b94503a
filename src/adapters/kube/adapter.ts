import type { KubeConfig } from '@kubernetes/client-node';
import type { ActorRef, ActorSystem, Clock } from '../../actors/runtime/index.ts';
import { spawn, stop, systemClock } from '../../actors/runtime/index.ts';
import type { Logger, ResourceKind } from '../../ports/index.ts';
import { HOST_COMPANION_KINDS, silentLogger } from '../../ports/index.ts';
import type { AdapterMsg, InformerStatus } from './adapter-actor.ts';
import { adapterBehavior } from './adapter-actor.ts';
import { EventRecorder } from './event-recorder.ts';
import type { InformerFactory } from './informer.ts';
import { clientInformerFactory } from './informer.ts';
import { KubeCalls } from './kube-calls.ts';
import { KubeClient } from './kube-client.ts';
import { KubeStore } from './kube-store.ts';
import { ObjectWriter } from './object-writer.ts';
import { ResourceCache } from './resource-cache.ts';
import { kubeSecretSource } from './secret-source.ts';
import { startSecretClaimer, type SecretClaimer } from './secret-claimer.ts';
import type { SecretSource } from '../store/nats-secrets.ts';
import type { ResourceName } from './resources.ts';
import { HOST_RESOURCES, MAAS_RESOURCES, RESOURCES } from './resources.ts';
import { WriteLanes } from './write-lanes.ts';

export interface KubeAdapterOptions {
  readonly kubeConfig: KubeConfig;
  /** Watch one namespace instead of all. */
  readonly namespace?: string;
  /** Also watch and write the MAAS side (MaasMachine, MaasCluster, Machine, Cluster). */
  readonly maas?: boolean;
  /**
   * Watch BareMetalHosts and their companions (default true). false for a MAAS-only controller
   * (the clusterctl infrastructure provider): Metal3's CRDs need not exist, and a BMO beside it
   * keeps its hosts to itself. Their caches stay, empty, so the stores read nothing.
   */
  readonly hosts?: boolean;
  readonly log?: Logger;
  /** Events' reporting instance: the node's name. */
  readonly nodeName?: string;
  /** Objects per page of an informer's list (limit/continue). Default 500. */
  readonly listPageSize?: number;
  /** API requests in flight at once (watches aside). Default 32. */
  readonly maxInFlight?: number;
  readonly clock?: Clock;
  readonly random?: () => number;
  /** Tests replace client-node's informers. */
  readonly informers?: InformerFactory;
}

export interface KubeAdapter {
  /** Every kind this node reads (BareMetalHosts and Secrets; with `maas`, the MAAS side too). */
  readonly store: KubeStore;
  /** Whether `store` serves the MAAS side too (the `maas` option). */
  readonly maas: boolean;
  /** The Secrets the informer holds, announced as they appear, change or go (hosts waiting for one). */
  readonly secrets: SecretSource;
  /** Permissions used so far ("verb group/resource"). */
  readonly calls: KubeCalls;
  readonly events: EventRecorder;
  /** Spawns the adapter actor in the node's actor system and resolves once every informer listed. */
  start(system: ActorSystem): Promise<void>;
  synced(): Promise<void>;
  readonly isSynced: boolean;
  informers(): InformerStatus[];
  /** Stops the informers (the actor) and the stores' subscriptions. */
  close(): Promise<void>;
}

export const ADAPTER_ACTOR = 'kube-adapter';

/**
 * The Kubernetes adapter of one node: informers owned by an actor, a cache per resource, the
 * one ResourceStore of every kind it reads over them.
 */
export function createKubeAdapter(options: KubeAdapterOptions): KubeAdapter {
  const log = (options.log ?? silentLogger).child({ component: 'kube' });
  const calls = new KubeCalls({ ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}) });
  const client = new KubeClient(options.kubeConfig, calls, { ...(options.listPageSize !== undefined ? { listPageSize: options.listPageSize } : {}) });
  const resources = [...new Set<ResourceName>([...HOST_RESOURCES, ...(options.maas ? MAAS_RESOURCES : [])])];
  const caches: Partial<Record<ResourceName, ResourceCache>> = {};
  for (const name of resources) caches[name] = new ResourceCache(RESOURCES[name], log);
  // An informer on a kind whose CRD is missing never lists, and the node never syncs.
  const watched = options.hosts === false ? resources.filter((n) => n === 'Secret' || !HOST_RESOURCES.includes(n)) : resources;
  const cache = (name: ResourceName): ResourceCache => caches[name]!;
  const lanes = new WriteLanes();
  const writer = (name: ResourceName): ObjectWriter => new ObjectWriter(RESOURCES[name], { client, cache: cache(name), lanes, log, ...(options.namespace ? { namespace: options.namespace } : {}), ...(options.random ? { random: options.random } : {}) });
  const events = new EventRecorder({ client, log, component: 'metalfleet', ...(options.nodeName ? { instance: options.nodeName } : {}) });
  // The hosts' companions are their actors' to write (machines/companion.ts); HostUpdatePolicy only a user's.
  const written: ResourceName[] = ['BareMetalHost', ...HOST_COMPANION_KINDS.filter((k) => k !== 'HostUpdatePolicy'), ...(options.maas ? ['MaasMachine', 'MaasCluster'] as const : [])];
  const store = new KubeStore({
    caches: { ...(Object.fromEntries(resources.map((n) => [n, cache(n)])) as Partial<Record<ResourceKind, ResourceCache>>), Secret: cache('Secret') },
    writers: Object.fromEntries(written.map((n) => [n, writer(n)])),
    events,
    log,
  });

  const status = new Map<ResourceName, InformerStatus>();
  let resolveSynced!: () => void;
  const syncedPromise = new Promise<void>((resolve) => (resolveSynced = resolve));
  // A close before the informers synced ends the wait in start() (the node gives up starting).
  let rejectClosed!: (error: Error) => void;
  const closedPromise = new Promise<never>((_, reject) => (rejectClosed = reject));
  closedPromise.catch(() => undefined);
  let isSynced = false;
  let actor: ActorRef<AdapterMsg> | null = null;
  let claimer: SecretClaimer | null = null;
  let closed = false;

  return {
    store,
    maas: options.maas === true,
    secrets: kubeSecretSource(cache('Secret'), log),
    calls,
    events,
    get isSynced() {
      return isSynced;
    },
    async start(system) {
      if (actor) throw new Error('the Kubernetes adapter is started once');
      actor = spawn(system, ADAPTER_ACTOR, adapterBehavior({
        resources: watched,
        caches,
        informers: options.informers ?? clientInformerFactory(client, options.namespace),
        clock: options.clock ?? systemClock,
        random: options.random ?? Math.random,
        log,
        status,
        onSynced: () => {
          isSynced = true;
          // From complete caches only: a Secret listed before its hosts would lose its finalizer.
          // Without host informers every Secret looks unused: a BMO beside a MAAS-only node
          // would lose its claims (and `kubectl delete secret` its wait), so none is kept.
          if (!closed && claimer === null && options.hosts !== false) claimer = startSecretClaimer({ hosts: cache('BareMetalHost'), secrets: cache('Secret'), client, clock: options.clock ?? systemClock, log });
          resolveSynced();
        },
      }), { mailbox: { capacity: 1_000_000 } });
      await Promise.race([syncedPromise, closedPromise]);
    },
    synced: () => syncedPromise,
    informers: () => [...status.values()],
    async close() {
      if (closed) return;
      closed = true;
      rejectClosed(new Error('the Kubernetes adapter was closed before its informers synced'));
      claimer?.close();
      if (actor) stop(actor);
      await store.close();
    },
  };
}
