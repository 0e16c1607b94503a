import type { HostCompanionKind } from '../../ports/index.ts';
import { HOST_COMPANION_KINDS } from '../../ports/index.ts';

// The Kubernetes resources the adapter reads and writes, with where they live in the API.
export type ResourceName = 'BareMetalHost' | 'MaasMachine' | 'MaasCluster' | 'Machine' | 'Cluster' | 'Secret' | HostCompanionKind;

export interface ResourceInfo {
  readonly name: ResourceName;
  readonly apiVersion: string;
  readonly kind: string;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

function resource(name: ResourceName, group: string, version: string, plural: string): ResourceInfo {
  return { name, apiVersion: group === '' ? version : `${group}/${version}`, kind: name, group, version, plural };
}

export const RESOURCES: Readonly<Record<ResourceName, ResourceInfo>> = {
  BareMetalHost: resource('BareMetalHost', 'metal3.io', 'v1alpha1', 'baremetalhosts'),
  MaasMachine: resource('MaasMachine', 'infrastructure.cluster.x-k8s.io', 'v1beta1', 'maasmachines'),
  MaasCluster: resource('MaasCluster', 'infrastructure.cluster.x-k8s.io', 'v1beta1', 'maasclusters'),
  Machine: resource('Machine', 'cluster.x-k8s.io', 'v1beta1', 'machines'),
  Cluster: resource('Cluster', 'cluster.x-k8s.io', 'v1beta1', 'clusters'),
  Secret: resource('Secret', '', 'v1', 'secrets'),
  // A host's companions (machines/companion.ts), BMO's plurals.
  HardwareData: resource('HardwareData', 'metal3.io', 'v1alpha1', 'hardwaredata'),
  FirmwareSchema: resource('FirmwareSchema', 'metal3.io', 'v1alpha1', 'firmwareschemas'),
  HostFirmwareSettings: resource('HostFirmwareSettings', 'metal3.io', 'v1alpha1', 'hostfirmwaresettings'),
  HostFirmwareComponents: resource('HostFirmwareComponents', 'metal3.io', 'v1alpha1', 'hostfirmwarecomponents'),
  HostUpdatePolicy: resource('HostUpdatePolicy', 'metal3.io', 'v1alpha1', 'hostupdatepolicies'),
};

/** What the host store watches, and what the MAAS object store adds. */
export const HOST_RESOURCES: readonly ResourceName[] = ['BareMetalHost', 'Secret', ...HOST_COMPANION_KINDS];
export const MAAS_RESOURCES: readonly ResourceName[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'];

/** The collection path an informer lists and watches: all namespaces, or one. */
export function collectionPath(r: ResourceInfo, namespace?: string): string {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}` : `${base}/${r.plural}`;
}

/** `plural.group` as the API server prints a resource in its messages (core: the bare plural). */
export function qualifiedName(r: ResourceInfo): string {
  return r.group === '' ? r.plural : `${r.plural}.${r.group}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: 'default', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
