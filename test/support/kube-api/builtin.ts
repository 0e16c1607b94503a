// The built-in kinds served next to the CRDs: core/v1 Secrets, Events and Namespaces, and
// coordination.k8s.io/v1 Leases. Their schemas describe the Go types, for pruning and decoding.
// Besides them, the kinds a provider's install manifests hold (a clusterctl components file:
// ServiceAccount, Deployment, RBAC, webhook configurations…) are stored only: kubectl can apply
// and read them back, nothing runs them, and their bodies are kept as given below the top level.
import type { JsonSchema } from './schema.ts';
import type { BuiltinKind, ResourceDef, StoredOnlyKind } from './types.ts';

const string: JsonSchema = { type: 'string' };
const integer: JsonSchema = { type: 'integer' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: string };
const objectReference: JsonSchema = {
  type: 'object',
  properties: { kind: string, namespace: string, name: string, uid: string, apiVersion: string, resourceVersion: string, fieldPath: string },
};

const anyObject: JsonSchema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const objectList: JsonSchema = { type: 'array', items: anyObject };
const specStatus: Record<string, JsonSchema> = { spec: anyObject, status: anyObject };

/** Kind, group, version, scope, short names and the top-level fields of the Go type. */
const STORED_ONLY: ReadonlyArray<readonly [StoredOnlyKind, string, string, string, boolean, string[], Record<string, JsonSchema>]> = [
  ['serviceaccounts', '', 'v1', 'ServiceAccount', true, ['sa'], { secrets: objectList, imagePullSecrets: objectList, automountServiceAccountToken: { type: 'boolean' } }],
  ['configmaps', '', 'v1', 'ConfigMap', true, ['cm'], { immutable: { type: 'boolean' }, data: stringMap, binaryData: stringMap }],
  ['services', '', 'v1', 'Service', true, ['svc'], { spec: anyObject, status: anyObject }],
  ['deployments', 'apps', 'v1', 'Deployment', true, ['deploy'], { spec: anyObject, status: anyObject }],
  ['clusterroles', 'rbac.authorization.k8s.io', 'v1', 'ClusterRole', false, [], { rules: objectList, aggregationRule: anyObject }],
  ['clusterrolebindings', 'rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', false, [], { roleRef: anyObject, subjects: objectList }],
  ['poddisruptionbudgets', 'policy', 'v1', 'PodDisruptionBudget', true, ['pdb'], { spec: anyObject, status: anyObject }],
  ['validatingwebhookconfigurations', 'admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', false, [], { webhooks: objectList }],
  ['mutatingwebhookconfigurations', 'admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', false, [], { webhooks: objectList }],
  // kubectl apply --prune maps every kind of its default allowlist first; these are served for it.
  ['pods', '', 'v1', 'Pod', true, ['po'], specStatus],
  ['endpoints', '', 'v1', 'Endpoints', true, ['ep'], { subsets: objectList }],
  ['persistentvolumeclaims', '', 'v1', 'PersistentVolumeClaim', true, ['pvc'], specStatus],
  ['persistentvolumes', '', 'v1', 'PersistentVolume', false, ['pv'], specStatus],
  ['replicationcontrollers', '', 'v1', 'ReplicationController', true, ['rc'], specStatus],
  ['jobs', 'batch', 'v1', 'Job', true, [], specStatus],
  ['cronjobs', 'batch', 'v1', 'CronJob', true, ['cj'], specStatus],
  ['ingresses', 'networking.k8s.io', 'v1', 'Ingress', true, ['ing'], specStatus],
  // deploy/ holds one. A NetworkPolicy is a spec only: no status, no status subresource.
  ['networkpolicies', 'networking.k8s.io', 'v1', 'NetworkPolicy', true, ['netpol'], { spec: anyObject }],
  ['daemonsets', 'apps', 'v1', 'DaemonSet', true, ['ds'], specStatus],
  ['replicasets', 'apps', 'v1', 'ReplicaSet', true, ['rs'], specStatus],
  ['statefulsets', 'apps', 'v1', 'StatefulSet', true, ['sts'], specStatus],
  // `kubectl rollout history|undo` of StatefulSets and DaemonSets list them (their controllers write them).
  // The API server writes the `kubernetes` Service's (master-service.ts); `kubectl describe service` reads them.
  ['endpointslices', 'discovery.k8s.io', 'v1', 'EndpointSlice', true, [], { addressType: string, endpoints: objectList, ports: objectList }],
  ['controllerrevisions', 'apps', 'v1', 'ControllerRevision', true, [], { data: anyObject, revision: { type: 'integer', format: 'int64' } }],
];

// The REST storages' Categories(): `kubectl get all` lists the workloads and Services (not
// HorizontalPodAutoscalers, not served here), `kubectl get api-extensions` the webhook configurations and CRDs.
const CATEGORIES: Partial<Record<StoredOnlyKind, string[]>> = {
  pods: ['all'],
  replicationcontrollers: ['all'],
  services: ['all'],
  daemonsets: ['all'],
  deployments: ['all'],
  replicasets: ['all'],
  statefulsets: ['all'],
  cronjobs: ['all'],
  jobs: ['all'],
  validatingwebhookconfigurations: ['api-extensions'],
  mutatingwebhookconfigurations: ['api-extensions'],
};

const SCHEMAS: Record<BuiltinKind, JsonSchema> = {
  ...(Object.fromEntries(STORED_ONLY.map(([k, , , , , , fields]) => [k, { type: 'object', properties: fields }])) as Record<StoredOnlyKind, JsonSchema>),
  secrets: { type: 'object', properties: { immutable: { type: 'boolean' }, data: stringMap, stringData: stringMap, type: string } },
  events: {
    type: 'object',
    properties: {
      involvedObject: objectReference, reason: string, message: string,
      source: { type: 'object', properties: { component: string, host: string } },
      firstTimestamp: string, lastTimestamp: string, count: integer, type: string, eventTime: string,
      series: { type: 'object', properties: { count: integer, lastObservedTime: string } },
      action: string, related: objectReference, reportingComponent: string, reportingInstance: string,
    },
  },
  namespaces: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { finalizers: { type: 'array', items: string } } },
      status: { type: 'object', properties: { phase: string, conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
    },
  },
  customresourcedefinitions: {
    type: 'object',
    properties: {
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  leases: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          holderIdentity: string, leaseDurationSeconds: integer, acquireTime: string, renewTime: string,
          leaseTransitions: integer, strategy: string, preferredHolder: string,
        },
      },
    },
  },
};

// The kinds with a `/status` subresource (their REST storages' StatusREST).
const WITH_STATUS: ReadonlySet<BuiltinKind> = new Set<BuiltinKind>(['namespaces', 'customresourcedefinitions', 'deployments', 'statefulsets', 'services', 'poddisruptionbudgets']);

function builtin(builtinKind: BuiltinKind, group: string, version: string, kind: string, namespaced: boolean, shortNames: string[] = [], categories: string[] = []): ResourceDef {
  const status = WITH_STATUS.has(builtinKind);
  return {
    group, plural: builtinKind, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, namespaced, shortNames, categories,
    versions: [{ name: version, storage: true, schema: SCHEMAS[builtinKind], status, selectableFields: [] }],
    builtin: builtinKind,
  };
}

export const BUILTIN_RESOURCES: readonly ResourceDef[] = [
  builtin('secrets', '', 'v1', 'Secret', true),
  builtin('events', '', 'v1', 'Event', true, ['ev']),
  builtin('namespaces', '', 'v1', 'Namespace', false, ['ns']),
  builtin('leases', 'coordination.k8s.io', 'v1', 'Lease', true),
  builtin('customresourcedefinitions', 'apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', false, ['crd', 'crds'], ['api-extensions']),
  ...STORED_ONLY.map(([k, group, version, kind, namespaced, shortNames]) => builtin(k, group, version, kind, namespaced, shortNames, CATEGORIES[k])),
];

/** JSON key order of the Go types, for output (`''` is the object itself). */
const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];
const REF_ORDER = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

export const KEY_ORDER: Record<BuiltinKind, Record<string, readonly string[]>> = {
  ...(Object.fromEntries<Record<string, readonly string[]>>(STORED_ONLY.map(([k, , , , , , fields]) => [k, { '': ['kind', 'apiVersion', 'metadata', ...Object.keys(fields)], metadata: META_ORDER }])) as Record<StoredOnlyKind, Record<string, readonly string[]>>),
  secrets: { '': ['kind', 'apiVersion', 'metadata', 'immutable', 'data', 'type'], metadata: META_ORDER },
  events: {
    '': ['kind', 'apiVersion', 'metadata', 'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type',
      'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance'],
    metadata: META_ORDER, involvedObject: REF_ORDER, related: REF_ORDER, source: ['component', 'host'],
  },
  namespaces: { '': ['kind', 'apiVersion', 'metadata', 'spec', 'status'], metadata: META_ORDER },
  customresourcedefinitions: { '': ['kind', 'apiVersion', 'metadata', 'spec', 'status'], metadata: META_ORDER },
  leases: {
    '': ['kind', 'apiVersion', 'metadata', 'spec'], metadata: META_ORDER,
    spec: ['holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaseTransitions', 'strategy', 'preferredHolder'],
  },
};
