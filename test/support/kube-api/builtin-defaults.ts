// The defaulting functions of the stored-only kinds kubectl users look at: Services
// (pkg/apis/core/v1 SetDefaults_Service), Deployments and StatefulSets (pkg/apis/apps/v1
// SetDefaults_Deployment, _StatefulSet; a StatefulSet's volumeClaimTemplates get
// SetDefaults_PersistentVolumeClaim and _PersistentVolumeClaimSpec) with their pod template (SetDefaults_PodSpec, _Container, _Probe, _HTTPGetAction, _Volume and
// the volume sources, _ObjectFieldSelector), and webhook configurations' webhooks
// (pkg/apis/admissionregistration/v1). Like the generated defaulters they only fill what is
// missing, and they run on every decoded request body. A container's `resources` is a Go struct
// that encoding/json always writes, so it reads back as `{}`.
import { isObj } from './types.ts';
import type { Obj } from './types.ts';

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function fill(obj: Obj, defaults: Obj): void {
  for (const [k, v] of Object.entries(defaults)) if (obj[k] === undefined || obj[k] === '') obj[k] = v;
}

export function defaultService(obj: Obj): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  fill(spec, { sessionAffinity: 'None', type: 'ClusterIP' });
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  for (const p of objects(spec.ports)) {
    fill(p, { protocol: 'TCP' });
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const type = spec.type;
  const externallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (externallyAccessible) fill(spec, { externalTrafficPolicy: 'Cluster' });
  if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') fill(spec, { internalTrafficPolicy: 'Cluster' });
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true;
}

export function defaultDeployment(obj: Obj): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  if (spec.replicas === undefined) spec.replicas = 1;
  const strategy = isObj(spec.strategy) ? spec.strategy : (spec.strategy = {});
  fill(strategy, { type: 'RollingUpdate' });
  if (strategy.type === 'RollingUpdate') {
    const rolling = isObj(strategy.rollingUpdate) ? strategy.rollingUpdate : (strategy.rollingUpdate = {});
    fill(rolling, { maxUnavailable: '25%', maxSurge: '25%' });
  }
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined) spec.progressDeadlineSeconds = 600;
  const template = isObj(spec.template) ? spec.template : (spec.template = {});
  defaultPodSpec(isObj(template.spec) ? template.spec : (template.spec = {}));
}

export function defaultStatefulSet(obj: Obj): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  fill(spec, { podManagementPolicy: 'OrderedReady' });
  const strategy = isObj(spec.updateStrategy) ? spec.updateStrategy : (spec.updateStrategy = {});
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  // Only a rollingUpdate that is there gets its partition (a RollingUpdate sent without one stays so).
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate) && strategy.rollingUpdate.partition === undefined) strategy.rollingUpdate.partition = 0;
  // StatefulSetAutoDeletePVC is GA (1.32): the policy is always filled.
  const retention = isObj(spec.persistentVolumeClaimRetentionPolicy) ? spec.persistentVolumeClaimRetentionPolicy : (spec.persistentVolumeClaimRetentionPolicy = {});
  fill(retention, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;
  const template = isObj(spec.template) ? spec.template : (spec.template = {});
  defaultPodSpec(isObj(template.spec) ? template.spec : (template.spec = {}));
  for (const claim of objects(spec.volumeClaimTemplates)) {
    // Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec writes them as a pre-1.17 server did (issue 87583).
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    const claimSpec = isObj(claim.spec) ? claim.spec : (claim.spec = {});
    fill(claimSpec, { volumeMode: 'Filesystem' });
    const status = isObj(claim.status) ? claim.status : (claim.status = {});
    fill(status, { phase: 'Pending' });
  }
}

function defaultPodSpec(spec: Obj): void {
  fill(spec, { dnsPolicy: 'ClusterFirst', restartPolicy: 'Always' });
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined) spec.terminationGracePeriodSeconds = 30;
  fill(spec, { schedulerName: 'default-scheduler' });
  for (const c of [...objects(spec.initContainers), ...objects(spec.containers)]) defaultContainer(c);
  for (const v of objects(spec.volumes)) defaultVolume(v);
}

function defaultContainer(c: Obj): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = tagOf(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  fill(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
  if (!isObj(c.resources)) c.resources = {};
  for (const p of objects(c.ports)) fill(p, { protocol: 'TCP' });
  for (const e of objects(c.env)) {
    const fieldRef = isObj(e.valueFrom) && isObj(e.valueFrom.fieldRef) ? e.valueFrom.fieldRef : undefined;
    if (fieldRef) fill(fieldRef, { apiVersion: 'v1' });
  }
  for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (isObj(c[k])) defaultProbe(c[k] as Obj);
}

// parsers.ParseImageName: the tag after the last `:` past the last `/`; none and no digest → latest.
function tagOf(image: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const colon = name.lastIndexOf(':');
  const tag = colon > name.lastIndexOf('/') ? name.slice(colon + 1) : '';
  return tag === '' && at < 0 && image !== '' ? 'latest' : tag;
}

function defaultProbe(p: Obj): void {
  for (const [k, v] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) {
    if (p[k] === undefined || p[k] === 0) p[k] = v;
  }
  if (isObj(p.httpGet)) fill(p.httpGet, { path: '/', scheme: 'HTTP' });
}

function defaultVolume(v: Obj): void {
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const source = v[k];
    if (isObj(source) && source.defaultMode === undefined) source.defaultMode = 420;
  }
  if (isObj(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = '';
}

/** SetDefaults_ValidatingWebhook / _MutatingWebhook, _Rule and _ServiceReference. */
export function defaultWebhooks(obj: Obj, mutating: boolean): void {
  for (const w of objects(obj.webhooks)) {
    fill(w, { failurePolicy: 'Fail', matchPolicy: 'Equivalent' });
    if (!isObj(w.namespaceSelector)) w.namespaceSelector = {};
    if (!isObj(w.objectSelector)) w.objectSelector = {};
    if (w.timeoutSeconds === undefined) w.timeoutSeconds = 10;
    if (mutating) fill(w, { reinvocationPolicy: 'Never' });
    for (const r of objects(w.rules)) fill(r, { scope: '*' });
    const service = isObj(w.clientConfig) && isObj(w.clientConfig.service) ? w.clientConfig.service : undefined;
    if (service && service.port === undefined) service.port = 443;
  }
}

// The strategies' PrepareForCreate reset status to the Go zero value, which encoding/json writes
// with its non-omitempty fields (a PDB's counts, a Service's loadBalancer).
const ZERO_STATUS: Readonly<Record<string, Obj>> = {
  deployments: {},
  // StatefulSetStatus: replicas and availableReplicas have no omitempty.
  statefulsets: { replicas: 0, availableReplicas: 0 },
  services: { loadBalancer: {} },
  poddisruptionbudgets: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
};

export function resetStatusOnCreate(builtin: string | undefined, obj: Obj): void {
  const zero = builtin ? ZERO_STATUS[builtin] : undefined;
  if (zero) obj.status = structuredClone(zero);
}
