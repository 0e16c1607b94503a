import type { ObjectKind, ResourceEvent, ResourceStore, StoredObject } from './resource-store.ts';

// The Cluster API side (MaasMachines, MaasClusters and the Machines, Clusters and Secrets they
// read) is served by the one store port (issue 29.1); these names say which kinds a caller reads.
export type ObjectStore = ResourceStore;
export type ObjectEvent = ResourceEvent<ObjectKind>;

export function objectKey(o: Pick<StoredObject, 'metadata'>): string {
  return `${o.metadata.namespace}/${o.metadata.name}`;
}
