import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { CRD_DIR } from '../../scripts/gen-crds.ts';
import { CUSTOM_RESOURCES } from '../../src/machines/kinds.ts';
import { KubeApiError, startKubeApi } from '../support/kube-api/index.ts';
import { JsonSchemaZ } from '../support/kube-api/schema.ts';
import type { JsonSchema } from '../support/kube-api/schema.ts';
import { applyDefaults } from '../support/kube-api/schema-default.ts';
import { pruneResource } from '../support/kube-api/schema-prune.ts';
import { validateSchema } from '../support/kube-api/schema-validate.ts';
import { REPO, filesUnder } from './kustomize.ts';
import { NOT_ACCEPTED, samples } from './upstream-sample-set.ts';
import { isObject } from './openapi.ts';

// The example and sample manifests baremetal-operator and CAPMAAS publish (test/deploy/upstream,
// see its README), run through our CRDs and through upstream's own the way the API server decodes
// a create with fieldValidation=Strict (kubectl's default): prune (an unknown field refuses the
// object), default, validate. Both must give the same verdict on every object, and on a few
// objects upstream refuses; zod, which metalfleet reads objects with, must agree.

type Obj = Record<string, unknown>;

const UPSTREAM = join(REPO, 'test/deploy/upstream');

async function crdSchemas(dir: string): Promise<Map<string, JsonSchema>> {
  const out = new Map<string, JsonSchema>();
  for (const file of await filesUnder(dir, '.yaml')) {
    for (const doc of parseAllDocuments(await readFile(join(REPO, file), 'utf8'))) {
      const crd: unknown = doc.toJS();
      if (!isObject(crd) || crd.kind !== 'CustomResourceDefinition' || !isObject(crd.spec)) continue;
      const spec = crd.spec as { group: string; names: { kind: string }; versions: { name: string; storage: boolean; schema: { openAPIV3Schema: unknown } }[] };
      for (const version of spec.versions) {
        out.set(`${spec.group}/${version.name}/${spec.names.kind}`, JsonSchemaZ.parse(version.schema.openAPIV3Schema));
      }
    }
  }
  return out;
}

async function bothCrds(): Promise<{ ours: Map<string, JsonSchema>; upstream: Map<string, JsonSchema> }> {
  return { ours: await crdSchemas(join(REPO, CRD_DIR)), upstream: await crdSchemas(UPSTREAM) };
}

interface Verdict {
  /** `spec.foo`: pruned as unknown; with fieldValidation=Strict each refuses the object. */
  readonly unknownFields: string[];
  /** `spec.online: Required`, as the API server's field errors name them. */
  readonly errors: string[];
  /** What the server stores (pruned and defaulted), without metadata, which it handles apart. */
  readonly stored: Obj;
}

function admit(schemas: Map<string, JsonSchema>, object: Obj): Verdict {
  const schema = schemas.get(`${String(object.apiVersion)}/${String(object.kind)}`);
  if (!schema) throw new Error(`no CRD serves ${String(object.apiVersion)} ${String(object.kind)}`);
  const copy = structuredClone(object);
  const unknownFields = pruneResource(copy, schema);
  applyDefaults(copy, schema);
  const { metadata: _metadata, ...body } = copy;
  const errors = validateSchema(body, schema).map((e) => `${e.field}: ${e.type}`);
  return { unknownFields, errors, stored: body };
}

const accepted = (v: Verdict): boolean => v.unknownFields.length === 0 && v.errors.length === 0;

function zodRead(object: Obj): { success: boolean; data?: unknown } {
  const resource = CUSTOM_RESOURCES.find((r) => r.apiVersion === object.apiVersion && r.kind === object.kind);
  if (!resource) throw new Error(`no resource for ${String(object.kind)}`);
  return resource.schema.safeParse(object);
}

test('upstream samples - every BMO and CAPMAAS sample gets the same verdict from our CRDs as from upstream\'s', async (t) => {
  const { ours, upstream } = await bothCrds();
  const all = await samples();
  for (const { id, object } of all) {
    const want = admit(upstream, object);
    const got = admit(ours, object);
    t.deepEqual(got.unknownFields, want.unknownFields, `${id}: unknown fields`);
    t.deepEqual(got.errors, want.errors, `${id}: field errors`);
    // The same defaults: what a cluster stores is the same with either CRD installed.
    if (got.errors.length === 0) t.deepEqual(got.stored, want.stored, `${id}: stored object`);
    const expected = NOT_ACCEPTED[id] ?? { unknownFields: [], errors: [] };
    t.deepEqual({ unknownFields: want.unknownFields, errors: want.errors }, expected, `${id}: upstream's verdict is not the one this test records`);
  }
  // Every object named above is still among the samples, and every kind is covered.
  const ids = new Set(all.map((s) => s.id));
  t.deepEqual(Object.keys(NOT_ACCEPTED).filter((id) => !ids.has(id)), []);
  for (const kind of ['BareMetalHost', 'MaasCluster', 'MaasMachineTemplate']) {
    t.true(all.some((s) => s.object.kind === kind && accepted(admit(ours, s.object))), `an accepted ${kind} sample`);
  }
});

test('upstream samples - metalfleet reads every stored sample, and a host without spec as BMO does', async (t) => {
  const { ours } = await bothCrds();
  for (const { id, object } of await samples()) {
    const verdict = admit(ours, object);
    if (verdict.errors.length > 0) {
      // zod refuses what the server refuses (the unknown fields aside, which zod drops).
      t.false(zodRead(object).success, `${id}: refused by the CRD, read by zod`);
      continue;
    }
    const read = zodRead({ ...verdict.stored, metadata: object.metadata });
    t.true(read.success, `${id}: stored, but zod cannot read it`);
  }
  // BMO's demo-hosts.yaml: a host with only a name. Go reads the zero spec: offline, UEFI.
  const bare = zodRead({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'demo-discovered' } });
  t.like(bare.data, { spec: { online: false, bootMode: 'UEFI', automatedCleaningMode: 'metadata' } });
});

test('upstream samples - the test API server takes the spec-less demo host from our CRDs', async (t) => {
  const api = await startKubeApi({ crdDir: join(REPO, CRD_DIR) });
  t.teardown(() => api.close());
  const host = api.create({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'demo-discovered', namespace: 'demo' } });
  t.is((host as Obj).spec, undefined, 'no spec is stored, as with BMO\'s CRD');
  const error = t.throws(() => api.create({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'bad-mac', namespace: 'demo' }, spec: { online: true, bootMACAddress: 'not-a-mac' } }));
  t.true(error instanceof KubeApiError && error.code === 422, String(error));
  t.regex(String(error?.message), /spec\.bootMACAddress/);
});

const host = (spec: Obj): Obj => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h', namespace: 'ns' }, spec: { online: true, ...spec } });
const machineSpec = { image: 'ubuntu/jammy', minCPU: 2, minMemory: 4096 };
const machine = (spec: Obj): Obj => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm', namespace: 'ns' }, spec: { ...machineSpec, ...spec } });
const cluster = (spec: Obj): Obj => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasCluster', metadata: { name: 'c', namespace: 'ns' }, spec: { dnsDomain: 'maas', ...spec } });

// Objects upstream's CRDs refuse, each for one reason: the field that fails, as the server names it.
const REFUSED: readonly { name: string; object: Obj; error: string }[] = [
  { name: 'a boot MAC that is not a MAC', object: host({ bootMACAddress: '00:c6:14:04:61' }), error: 'spec.bootMACAddress: Invalid' },
  { name: 'an interface MAC with trailing text', object: host({ networkInterfaces: [{ name: 'eno1', macAddress: '00:c6:14:04:61:b2:ff' }] }), error: 'spec.networkInterfaces[0].macAddress: Invalid' },
  { name: 'an interface name with a space', object: host({ networkInterfaces: [{ name: 'eno 1' }] }), error: 'spec.networkInterfaces[0].name: Invalid' },
  { name: 'a switch port without its port', object: host({ networkInterfaces: [{ switchPort: { switchID: '00:c6:14:04:61:b2' } }] }), error: 'spec.networkInterfaces[0].switchPort.portID: Required' },
  { name: 'a boot mode BMO does not know', object: host({ bootMode: 'bios' }), error: 'spec.bootMode: NotSupported' },
  { name: 'an empty image format', object: host({ image: { url: 'http://i/x.qcow2', format: '' } }), error: 'spec.image.format: NotSupported' },
  { name: 'an empty checksum type', object: host({ image: { url: 'http://i/x.qcow2', checksumType: '' } }), error: 'spec.image.checksumType: NotSupported' },
  { name: 'a cleaning mode BMO does not know', object: host({ automatedCleaningMode: 'full' }), error: 'spec.automatedCleaningMode: NotSupported' },
  { name: 'a software RAID volume on one disk', object: host({ raid: { softwareRAIDVolumes: [{ level: '1', physicalDisks: [{ deviceName: '/dev/sda' }] }] } }), error: 'spec.raid.softwareRAIDVolumes[0].physicalDisks: Invalid' },
  { name: 'a hardware RAID volume name over 64 characters', object: host({ raid: { hardwareRAIDVolumes: [{ level: '1', name: 'v'.repeat(65) }] } }), error: 'spec.raid.hardwareRAIDVolumes[0].name: TooLong' },
  { name: 'a taint without effect', object: host({ taints: [{ key: 'k' }] }), error: 'spec.taints[0].effect: Required' },
  { name: 'firmware settings as strings', object: host({ firmware: { sriovEnabled: 'yes' } }), error: 'spec.firmware.sriovEnabled: TypeInvalid' },
  { name: 'a host that does not say online', object: host({ online: undefined }), error: 'spec.online: Required' },
  { name: 'a machine with negative CPUs', object: machine({ minCPU: -1 }), error: 'spec.minCPU: Invalid' },
  { name: 'a machine with an empty image', object: machine({ image: '' }), error: 'spec.image: Invalid' },
  { name: 'a machine without minMemory', object: machine({ minMemory: undefined }), error: 'spec.minMemory: Required' },
  { name: 'an LXD VM disk size as a string', object: machine({ lxd: { enabled: true, vmConfig: { diskSize: '60' } } }), error: 'spec.lxd.vmConfig.diskSize: TypeInvalid' },
  { name: 'a cluster without dnsDomain', object: cluster({ dnsDomain: undefined }), error: 'spec.dnsDomain: Required' },
  { name: 'an LXD NIC type CAPMAAS does not know', object: cluster({ lxdConfig: { enabled: true, nicType: 'vlan' } }), error: 'spec.lxdConfig.nicType: NotSupported' },
];

test('upstream samples - what upstream\'s CRDs refuse, ours and zod refuse, on the same field', async (t) => {
  const { ours, upstream } = await bothCrds();
  for (const { name, object, error } of REFUSED) {
    const spec = JSON.parse(JSON.stringify(object.spec)) as Obj; // drops the `undefined` that removes a field
    const subject = { ...object, spec };
    // Upstream's CRD may say it twice (its firmware booleans also carry an enum of true, false).
    t.true(admit(upstream, subject).errors.includes(error), `${name}: upstream's CRD says ${JSON.stringify(admit(upstream, subject).errors)}`);
    t.deepEqual(admit(ours, subject).errors, [error], `${name}: our CRD`);
    t.false(zodRead(subject).success, `${name}: zod reads it`);
  }
});

test('upstream samples - unknown fields inside the LXD blocks are unknown to our CRDs too, not kept', async (t) => {
  const { ours, upstream } = await bothCrds();
  for (const object of [machine({ lxd: { enabled: true, vmConfig: { cpus: 4 } } }), cluster({ lxdConfig: { enabled: true, bridge: 'br0' } })]) {
    const want = admit(upstream, object).unknownFields;
    t.is(want.length, 1);
    t.deepEqual(admit(ours, object).unknownFields, want);
  }
});

test('upstream samples - every field of our CRDs has a description, for kubectl explain', async (t) => {
  const missing: string[] = [];
  const walk = (node: JsonSchema & { description?: string }, path: string): void => {
    // apiVersion, kind and metadata are the API server's; controller-gen leaves metadata bare.
    if (!['apiVersion', 'kind', 'metadata'].includes(path) && !node.description) missing.push(path || '(root)');
    for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, path ? `${path}.${name}` : name);
    if (node.items) walk(node.items, `${path}[]`);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties as JsonSchema, `${path}[*]`);
  };
  for (const file of await filesUnder(join(REPO, CRD_DIR), '.yaml')) {
    for (const doc of parseAllDocuments(await readFile(join(REPO, file), 'utf8'))) {
      const crd: unknown = doc.toJS();
      if (!isObject(crd) || crd.kind !== 'CustomResourceDefinition') continue;
      const versions = (crd.spec as { versions: { schema: { openAPIV3Schema: JsonSchema } }[] }).versions;
      for (const version of versions) walk(version.schema.openAPIV3Schema, '');
    }
  }
  t.deepEqual(missing, []);
});
