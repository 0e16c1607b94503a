import { openKvObjectStoreOn, storedKindOf } from '../adapters/store/kv-object-store.ts';
import type { KvObjectStore } from '../adapters/store/kv-object-store.ts';
import { kvStore } from '../adapters/store/kv-store.ts';
import type { SecretSource } from '../adapters/store/nats-secrets.ts';
import { HostNotFound, openNatsStoreOn } from '../adapters/store/nats-store.ts';
import { validateMaasCluster, validateMaasMachine } from '../api/index.ts';
import type { KvNodeStores, NodeStoreRequests } from '../node/index.ts';
import type { Logger, Transport } from '../ports/index.ts';

// A NATS node's one store, opened here at the edge: the node runs on a ResourceStore and never
// learns that the KV keeps host records and object records apart; apply and delete over NATS,
// which the node serves, are handed the records they write.

export interface NodeKvStore {
  readonly stores: KvNodeStores;
  /** After the node stopped: closes the store and the object records apply opened. */
  close(): Promise<void>;
}

export interface NodeKvStoreOptions {
  readonly secrets?: SecretSource;
  readonly log: Logger;
  /** The cluster's KV replicas (1: the server's default). */
  readonly replicas: number;
  /** The node runs the MAAS kinds: their records open with the hosts'. */
  readonly maas: boolean;
}

export async function openNodeKvStore(transport: Pick<Transport, 'kv'>, o: NodeKvStoreOptions): Promise<NodeKvStore> {
  const kv = o.replicas > 1 ? { replicas: o.replicas } : {};
  const secrets = o.secrets ? { secrets: o.secrets } : {};
  const openObjects = (): Promise<KvObjectStore> => openKvObjectStoreOn(transport, { ...secrets, log: o.log, kv, validators: { MaasMachine: validateMaasMachine, MaasCluster: validateMaasCluster } });
  const hosts = await openNatsStoreOn(transport, { ...secrets, log: o.log, kv });
  const objects = o.maas ? await openObjects() : null;
  const store = kvStore(hosts, objects);
  // A node without a MAAS kind opens the object records on the first object applied.
  let applied: Promise<KvObjectStore> | null = null;
  const requests: NodeStoreRequests = {
    store: hosts,
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof HostNotFound,
    objects: () => (applied ??= objects ? Promise.resolve(objects) : openObjects()),
  };
  return {
    stores: { store, ...secrets, requests },
    async close() {
      await store.close();
      if (applied && !objects) await (await applied.catch(() => null))?.close();
    },
  };
}
