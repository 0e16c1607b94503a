// Each kind declares its CRDs, buckets, commands and logic in its folder's kind.ts; these tests
// hold the rest of the system to those declarations.
import test from 'ava';
import { BareMetalHost, HOST_COMMAND_TYPES, MaasMachine, initialStatus } from '../../src/api/index.ts';
import { customResourceDefinitions } from '../../src/api/crd/index.ts';
import { NATS_HOSTS_BUCKET, NATS_STATUS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { OBJECT_STATUS_BUCKET, OBJECTS_BUCKET } from '../../src/machines/buckets.ts';
import { HostCommand, HostCommandType } from '../../src/bus/messages/index.ts';
import { intentFor, maasIntentFor } from '../../src/cluster/commands/index.ts';
import { defineKind } from '../../src/machines/kind.ts';
import { CUSTOM_RESOURCES, KINDS, kindBuckets, kindNamed } from '../../src/machines/kinds.ts';
import { BMH_KIND_DEFINITION } from '../../src/machines/bmh/kind.ts';
import { MAAS_MACHINE_KIND_DEFINITION } from '../../src/machines/maas-machine/kind.ts';
import { generatedFiles } from '../../scripts/gen-crds.ts';
import { bmh } from '../support/node.ts';

test('kinds - every kind lists its own CRD first, its logic is its own, and no CRD is claimed twice', (t) => {
  t.deepEqual(KINDS.map((k) => k.kind), ['BareMetalHost', 'MaasMachine', 'MaasCluster']);
  for (const k of KINDS) {
    t.is(k.resources[0].kind, k.kind);
    t.is(k.logic.kind, k.kind);
    t.is(kindNamed(k.kind), k);
  }
  const names = CUSTOM_RESOURCES.map((r) => `${r.apiVersion}/${r.kind}`);
  t.is(new Set(names).size, names.length);
  t.deepEqual(CUSTOM_RESOURCES.map((r) => r.kind), ['BareMetalHost', 'HardwareData', 'FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy', 'MaasMachine', 'MaasMachineTemplate', 'MaasCluster']);
  t.is(kindNamed('Machine'), undefined);
});

test('kinds - the generated CRD files are exactly the kinds\' declared resources', (t) => {
  const crdFiles = [...generatedFiles().keys()].filter((p) => p.startsWith('deploy/crds/') && !p.endsWith('kustomization.yaml'));
  const declared = customResourceDefinitions(CUSTOM_RESOURCES).map((c) => `deploy/crds/${c.spec.group}_${c.spec.names.plural}.yaml`);
  t.deepEqual(crdFiles.sort(), declared.sort());
});

test('kinds - the stores open the buckets their kinds declare, and --persist keeps all of them', (t) => {
  t.deepEqual(BMH_KIND_DEFINITION.buckets, { spec: NATS_HOSTS_BUCKET, status: NATS_STATUS_BUCKET });
  t.deepEqual(MAAS_MACHINE_KIND_DEFINITION.buckets, { spec: OBJECTS_BUCKET, status: OBJECT_STATUS_BUCKET });
  t.deepEqual([...kindBuckets()].sort(), ['mf-firmware', 'mf-firmware-status', 'mf-hosts', 'mf-object-status', 'mf-objects', 'mf-status']);
});

test('kinds - every declared command is a wire command, and a kind refuses exactly the ones it does not declare', (t) => {
  for (const k of KINDS) for (const c of k.commands) t.true(HostCommandType.safeParse(c).success, `${k.kind}: ${c}`);
  const parsed = BareMetalHost.parse(bmh('h1', { namespace: 'lab' }));
  const status = initialStatus();
  const host = { ...parsed, status: { ...status, provisioning: { ...status.provisioning, state: 'provisioned' as const, ID: 'n1' }, poweredOn: true } };
  const mm = MaasMachine.parse({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { name: 'w0', namespace: 'capi', labels: { 'cluster.x-k8s.io/cluster-name': 'demo' } },
    spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy', providerID: 'maas:///az1/abc', systemID: 'abc' },
    status: { ready: true, machineState: 'Deployed', machinePowered: true },
  });
  const cases = [
    { kind: BMH_KIND_DEFINITION, decide: (type: string) => intentFor(host, HostCommand.parse({ host: 'lab/h1', type })) },
    { kind: MAAS_MACHINE_KIND_DEFINITION, decide: (type: string) => maasIntentFor(mm, HostCommand.parse({ host: 'capi/w0', type })) },
  ];
  for (const { kind, decide } of cases) {
    for (const type of HOST_COMMAND_TYPES) {
      const d = decide(type);
      if ((kind.commands as readonly string[]).includes(type)) {
        t.false(!d.ok && /applies to|which takes/.test(d.message), `${kind.kind} declares ${type} but refused it as not its own: ${d.ok ? '' : d.message}`);
      } else {
        t.true(!d.ok && d.code === 'invalid', `${kind.kind} does not declare ${type} but took it`);
      }
    }
  }
});

test('kinds - defineKind refuses a kind whose first resource or logic is another kind\'s', (t) => {
  const other = MAAS_MACHINE_KIND_DEFINITION.resources[0];
  t.throws(() => defineKind({ ...BMH_KIND_DEFINITION, resources: [other] }), { message: /first resource is MaasMachine/ });
  t.throws(() => defineKind({ ...BMH_KIND_DEFINITION, kind: 'MaasMachine', resources: [other] }), { message: /logic is BareMetalHost's/ });
});
