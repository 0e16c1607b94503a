import { storedKindOf } from '../adapters/store/kv-layouts.ts';
import { openKvStoreOn, type KvStore } from '../adapters/store/kv-store.ts';
import type { SecretSource } from '../adapters/store/nats-secrets.ts';
import { openNatsStoreOn, ResourceNotFound } from '../adapters/store/nats-store.ts';
import { MAAS_VALIDATORS } from '../adapters/store/object-apply.ts';
import type { KvNodeStores, NodeStoreRequests } from '../node/index.ts';
import type { Logger, Transport } from '../ports/index.ts';

// A NATS node's one store, opened here at the edge: the node runs on a ResourceStore; apply and
// delete over NATS, which the node serves, are handed the records they write.

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
  const hosts = await openNatsStoreOn(transport, { ...secrets, log: o.log, kv, maas: o.maas, validators: MAAS_VALIDATORS });
  const store = hosts.resources;
  // A node without a MAAS kind opens their records (the same store, those kinds only, and the
  // hosts' companions apply writes too) on the first object applied through it, so a hosts-only
  // cluster creates no buckets it never uses.
  let applied: Promise<KvStore> | null = null;
  const requests: NodeStoreRequests = {
    store: hosts,
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof ResourceNotFound,
    objects: () => (applied ??= o.maas ? Promise.resolve(store) : openKvStoreOn(transport, { ...secrets, log: o.log, kv, hosts: false, companions: true, maas: true, validators: MAAS_VALIDATORS })),
  };
  return {
    stores: { store, ...secrets, requests },
    async close() {
      await store.close();
      if (applied && !o.maas) await (await applied.catch(() => null))?.close();
    },
  };
}
