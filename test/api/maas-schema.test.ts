import test from 'ava';
import {
  CapiCluster, CapiMachine, MAAS_KNOWN_STATES, MAAS_OPERATIONAL_STATES, MAAS_RUNNING_STATES, MACHINE_DEPLOYED_REASONS,
  MaasCluster, MaasMachine, MaasMachineTemplate, apiServerPortOf, isCapiPaused, isClusterInfrastructureProvisioned,
  isControlPlaneMachine, splitImage,
} from '../../src/api/maas/index.ts';

// The MAAS kinds as CAPMAAS's docs write them parse, with the CRD defaults applied
// (reference/capmaas.md §1).

const API = 'infrastructure.cluster.x-k8s.io/v1beta1';

test('maas schema - a MaasCluster with dnsDomain and failureDomains', (t) => {
  const cluster = MaasCluster.parse({
    apiVersion: API, kind: 'MaasCluster',
    metadata: { name: 'c1' },
    spec: { dnsDomain: 'maas', failureDomains: ['az1', 'az2'] },
  });
  t.deepEqual(cluster, {
    apiVersion: API, kind: 'MaasCluster',
    metadata: { name: 'c1', namespace: 'default' },
    spec: { dnsDomain: 'maas', failureDomains: ['az1', 'az2'] },
  });
});

test('maas schema - a MaasCluster status as the controller writes it; ready defaults to false', (t) => {
  const base = { apiVersion: API, kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'lab' }, spec: { dnsDomain: 'maas', controlPlaneEndpoint: { host: 'c1-3f9a2b.maas', port: 6443 } } };
  t.deepEqual(MaasCluster.parse({ ...base, status: {} }).status, { ready: false });
  const status = {
    ready: true,
    initialization: { provisioned: true },
    network: { dnsName: 'c1-3f9a2b.maas' },
    failureDomains: [{ name: 'az1', controlPlane: true }],
    conditions: [{ type: 'LoadBalancerReady', status: 'True', lastTransitionTime: '2026-07-01T10:00:00Z' }],
  };
  const parsed = MaasCluster.parse({ ...base, status });
  t.deepEqual(parsed.status, status);
  t.deepEqual(parsed.spec.controlPlaneEndpoint, { host: 'c1-3f9a2b.maas', port: 6443 });
});

test('maas schema - lxdConfig takes its CRD defaults and drops unknown fields, as CAPMAAS\'s CRD prunes them', (t) => {
  const cluster = MaasCluster.parse({
    apiVersion: API, kind: 'MaasCluster', metadata: { name: 'hcp' },
    spec: { dnsDomain: 'maas', lxdConfig: { nicType: 'bridge', futureKnob: 1 } },
  });
  t.deepEqual(cluster.spec.lxdConfig, { enabled: false, storageBackend: 'zfs', storageSize: '50', skipNetworkUpdate: true, nicType: 'bridge' });
});

test('maas schema - the README MaasMachineTemplate', (t) => {
  const template = MaasMachineTemplate.parse({
    apiVersion: API, kind: 'MaasMachineTemplate',
    metadata: { name: 'c1-control-plane', namespace: 'lab' },
    spec: { template: { spec: { image: 'custom/u-2204-0-k-1243-0', minCPU: 4, minMemory: 8192, tags: ['control-plane', 'ssd'] } } },
  });
  t.deepEqual(template.spec.template.spec, {
    image: 'custom/u-2204-0-k-1243-0', minCPU: 4, minMemory: 8192, tags: ['control-plane', 'ssd'], deployInMemory: false,
  });
});

test('maas schema - a MaasMachine with every spec field and a status', (t) => {
  const spec = {
    failureDomain: 'az1', systemID: '4y3h7n', providerID: 'maas:///az1/4y3h7n', resourcePool: 'default',
    minCPU: 4, minMemory: 8192, minDiskSize: 100, tags: ['ssd'], image: 'ubuntu/jammy', deployInMemory: true,
  };
  const status = {
    ready: true,
    initialization: { provisioned: true },
    machineState: 'Deployed',
    machinePowered: true,
    hostname: 'cp-0',
    dnsAttached: true,
    addresses: [{ type: 'ExternalDNS', address: 'cp-0.maas' }, { type: 'ExternalIP', address: '10.0.0.5' }],
    conditions: [{ type: 'MachineDeployed', status: 'True', reason: 'MachineDeployed' }],
  };
  const machine = MaasMachine.parse({ apiVersion: API, kind: 'MaasMachine', metadata: { name: 'cp-0', namespace: 'lab' }, spec, status });
  t.deepEqual(machine.spec, spec);
  t.deepEqual(machine.status, status);
});

test('maas schema - a minimal MaasMachine gets deployInMemory false; a bare status ready false', (t) => {
  const machine = MaasMachine.parse({
    apiVersion: API, kind: 'MaasMachine', metadata: { name: 'w-0' },
    spec: { image: 'u-2204-0-k-1243-0', minCPU: 0, minMemory: 0 }, status: {},
  });
  t.is(machine.spec.deployInMemory, false);
  t.deepEqual(machine.status, { ready: false });
});

test('maas schema - spec.lxd takes its CRD defaults', (t) => {
  const base = { apiVersion: API, kind: 'MaasMachine', metadata: { name: 'vm-0' } };
  const lxd = (value: unknown) => MaasMachine.parse({ ...base, spec: { image: 'ubuntu/jammy', minCPU: 2, minMemory: 4096, lxd: value } }).spec.lxd;
  t.deepEqual(lxd({}), { enabled: false });
  t.deepEqual(lxd({ enabled: true, vmConfig: { storagePool: 'default', interfaceLinkModes: { eth0: 'static' } } }), {
    enabled: true, vmConfig: { diskSize: 60, autoStart: true, storagePool: 'default', interfaceLinkModes: { eth0: 'static' } },
  });
});

test('maas schema - nulls are "not set", as the API server prunes them', (t) => {
  const machine = MaasMachine.parse({
    apiVersion: API, kind: 'MaasMachine', metadata: { name: 'w-0', annotations: null },
    spec: { image: 'ubuntu/jammy', minCPU: 2, minMemory: 4096, providerID: null, deployInMemory: null },
    status: { ready: null },
  });
  t.false('annotations' in machine.metadata);
  t.false('providerID' in machine.spec);
  t.is(machine.spec.deployInMemory, false);
  t.deepEqual(machine.status, { ready: false });
});

test('maas schema - unknown fields are dropped, as the API server prunes them', (t) => {
  const cluster = MaasCluster.parse({
    apiVersion: API, kind: 'MaasCluster', metadata: { name: 'c1' },
    spec: { dnsDomain: 'maas', lxdControlPlaneCluster: true },
  });
  t.deepEqual(cluster.spec, { dnsDomain: 'maas' });
});

test('maas schema - the Cluster API objects a MaasMachine reads', (t) => {
  const machine = CapiMachine.parse({
    apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine',
    metadata: { name: 'cp-0', namespace: 'lab', labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/control-plane': '' } },
    spec: {
      clusterName: 'c1', version: 'v1.33.5', failureDomain: 'az1',
      bootstrap: { dataSecretName: 'cp-0', configRef: { kind: 'KubeadmConfig', name: 'cp-0' } },
      infrastructureRef: { apiVersion: API, kind: 'MaasMachine', name: 'cp-0', namespace: 'lab' },
    },
  });
  t.is(machine.spec.bootstrap.dataSecretName, 'cp-0');
  t.is(machine.spec.version, 'v1.33.5');
  t.true(isControlPlaneMachine(machine));
  t.false(isControlPlaneMachine({ metadata: { labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } } }));

  const v1beta2 = CapiCluster.parse({
    apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'c1', namespace: 'lab' },
    spec: { clusterNetwork: { apiServerPort: 8443 }, infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'MaasCluster', name: 'c1' } },
    status: { initialization: { infrastructureProvisioned: true } },
  });
  t.true(isClusterInfrastructureProvisioned(v1beta2));
  t.is(apiServerPortOf(v1beta2), 8443);
  t.false(isCapiPaused(v1beta2));
  t.true(isCapiPaused(v1beta2, { metadata: { annotations: { 'cluster.x-k8s.io/paused': '' } } }));

  const v1beta1 = CapiCluster.parse({
    apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c1' },
    spec: { paused: true, controlPlaneEndpoint: { host: 'c1.maas', port: 6443 } },
    status: { infrastructureReady: false },
  });
  t.false(isClusterInfrastructureProvisioned(v1beta1));
  t.is(apiServerPortOf(v1beta1), 6443);
  t.true(isCapiPaused(v1beta1));
  t.false(isClusterInfrastructureProvisioned(CapiCluster.parse({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c1' } })));
});

test('maas schema - a Machine without bootstrap or infrastructureRef does not parse', (t) => {
  const result = CapiMachine.safeParse({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm' }, spec: { clusterName: 'c1' } });
  t.false(result.success);
  t.deepEqual(result.error?.issues.map((i) => i.path.join('.')), ['spec.bootstrap', 'spec.infrastructureRef']);
});

test('maas schema - state sets and reason strings are CAPMAAS\'s', (t) => {
  t.deepEqual([...MAAS_RUNNING_STATES].sort(), ['Deployed', 'Deploying']);
  t.deepEqual([...MAAS_OPERATIONAL_STATES].sort(), ['Allocated', 'Deployed', 'Deploying']);
  t.deepEqual([...MAAS_KNOWN_STATES].sort(), ['Allocated', 'Deployed', 'Deploying', 'Disk erasing', 'New', 'Ready', 'Releasing']);
  t.false(MAAS_KNOWN_STATES.has('Failed deployment'));
  // Two of CAPMAAS's reasons carry a "Reason" suffix on the wire.
  t.is(MACHINE_DEPLOYED_REASONS.MachineDeployStarted, 'MachineDeployStartedReason');
  t.is(MACHINE_DEPLOYED_REASONS.MachineTerminated, 'MachineTerminatedReason');
  t.is(MACHINE_DEPLOYED_REASONS.MachinePoweredOff, 'MachinePoweredOff');
});

test('maas schema - an image splits at the first slash; without one it is custom', (t) => {
  t.deepEqual(splitImage('custom/u-2204-0-k-1243-0'), { osystem: 'custom', distroSeries: 'u-2204-0-k-1243-0' });
  t.deepEqual(splitImage('rhel/rocky-92'), { osystem: 'rhel', distroSeries: 'rocky-92' });
  t.deepEqual(splitImage('u-2004-0-k-1243-0'), { osystem: 'custom', distroSeries: 'u-2004-0-k-1243-0' });
  t.deepEqual(splitImage('a/b/c'), { osystem: 'a', distroSeries: 'b/c' });
});
