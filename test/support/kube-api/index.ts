// Kubernetes API test server: the public face of test/support/kube-api/.
export { startKubeApi } from './server.ts';
export type { KubeApiOptions, KubeApiServer } from './server.ts';
export type { KubeObject, ObjectRef, DirectListOptions } from './direct.ts';
export type { FaultHandle, FaultSpec, RequestFilter, RequestRecord, StatusWrites } from './hooks.ts';
export type { WatchFilter } from './watch.ts';
export type { PatchKind } from './patch-request.ts';
export { KubeApiError } from './errors.ts';
export type { StatusBody } from './errors.ts';
export { CrdLoadError } from './crd.ts';
export { kubeconfigYaml } from './kubeconfig.ts';
