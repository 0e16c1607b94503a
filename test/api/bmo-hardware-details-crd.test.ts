import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { CANNED_HARDWARE } from '../../src/adapters/fixture/index.ts';
import { HardwareData, HardwareDetails } from '../../src/api/index.ts';
import { customResourceDefinitions } from '../../src/api/crd/index.ts';
import { CUSTOM_RESOURCES } from '../../src/machines/kinds.ts';
import { JsonSchemaZ } from '../support/kube-api/schema.ts';
import type { JsonSchema } from '../support/kube-api/schema.ts';
import { pruneResource } from '../support/kube-api/schema-prune.ts';
import { validateSchema } from '../support/kube-api/schema-validate.ts';

// BMO's HardwareDetails (apis/metal3.io/v1alpha1/hardwaredata_types.go, at the commit of
// test/deploy/upstream/bmo): every field typed as its Go type makes controller-gen type it (int,
// int64 Capacity, int32 VLANID 0..4094, float64 ClockSpeed, the DiskType enum, the NIC MAC
// pattern), and no x-kubernetes-preserve-unknown-fields, so the API server prunes what it does not
// know. The same struct is BareMetalHost status.hardware and HardwareData spec.hardware.

type Obj = Record<string, unknown>;
const REPO = join(import.meta.dirname, '../..');

/** The schema without descriptions: they are prose, the rest is what the API server acts on. */
function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'description').map(([k, v]) => [k, shape(v)]));
}

function at(schema: unknown, ...path: string[]): unknown {
  let node = schema as Obj | undefined;
  for (const name of path) node = (node?.properties as Obj | undefined)?.[name] as Obj | undefined;
  return node;
}

async function upstreamSchema(file: string): Promise<unknown> {
  const crd = parse(await readFile(join(REPO, 'test/deploy/upstream/bmo/crds', file), 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
  return crd.spec.versions[0]?.schema.openAPIV3Schema;
}

async function committedSchema(file: string): Promise<unknown> {
  const crd = parse(await readFile(join(REPO, 'deploy/crds', file), 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
  return crd.spec.versions[0]?.schema.openAPIV3Schema;
}

function generatedSchema(kind: string): unknown {
  const crd = customResourceDefinitions(CUSTOM_RESOURCES).find((c) => c.spec.names.kind === kind);
  return crd?.spec.versions[0]?.schema.openAPIV3Schema;
}

test('bmo hardware details crd - HardwareData spec.hardware is typed as BMO\'s CRD types it, field by field', async (t) => {
  const want = shape(at(await upstreamSchema('metal3.io_hardwaredata.yaml'), 'spec', 'hardware'));
  t.deepEqual(shape(at(generatedSchema('HardwareData'), 'spec', 'hardware')), want, 'generated');
  t.deepEqual(shape(at(await committedSchema('metal3.io_hardwaredata.yaml'), 'spec', 'hardware')), want, 'deploy/crds (npm run gen:crds)');
});

test('bmo hardware details crd - BareMetalHost status.hardware is the same HardwareDetails', async (t) => {
  const want = shape(at(await upstreamSchema('metal3.io_baremetalhosts.yaml'), 'status', 'hardware'));
  t.deepEqual(shape(at(generatedSchema('BareMetalHost'), 'status', 'hardware')), want, 'generated');
  t.deepEqual(shape(at(await committedSchema('metal3.io_baremetalhosts.yaml'), 'status', 'hardware')), want, 'deploy/crds (npm run gen:crds)');
});

test('bmo hardware details crd - zod drops unknown fields at every depth, as the API server prunes them', (t) => {
  const parsed = HardwareDetails.parse({
    hostname: 'h', extra: 1,
    nics: [{ name: 'eth0', speedGbps: 25, driver: 'ixgbe', lldp: { portID: 'p1', chassis: 'x' } }],
    storage: [{ name: '/dev/sda', sizeBytes: 480_000_000_000, bus: 'sata' }],
    cpu: { arch: 'x86_64', count: 8, threads: 16 },
    firmware: { bios: { vendor: 'v', release: 'r' }, bmc: {} },
    systemVendor: { manufacturer: 'm', sku: 's' },
  });
  t.deepEqual(parsed, {
    hostname: 'h',
    nics: [{ name: 'eth0', speedGbps: 25, lldp: { portID: 'p1' } }],
    storage: [{ name: '/dev/sda', sizeBytes: 480_000_000_000 }],
    cpu: { arch: 'x86_64', count: 8 },
    firmware: { bios: { vendor: 'v' } },
    systemVendor: { manufacturer: 'm' },
  });
});

test('bmo hardware details crd - zod refuses what the CRD refuses: a fraction in an integer field, a VLAN out of 0..4094, an unknown disk type', (t) => {
  const refused = (value: unknown): boolean => !HardwareDetails.safeParse(value).success;
  t.true(refused({ nics: [{ speedGbps: 2.5 }] }), 'speedGbps is a Go int');
  t.true(refused({ storage: [{ sizeBytes: 1.5 }] }), 'sizeBytes is an int64 Capacity');
  t.true(refused({ ramMebibytes: 1024.5 }));
  t.true(refused({ cpu: { count: 1.5 } }));
  t.true(refused({ nics: [{ vlanId: 4095 }] }));
  t.true(refused({ nics: [{ vlans: [{ id: -1 }] }] }));
  t.true(refused({ storage: [{ type: 'FLOPPY' }] }));
  t.true(refused({ nics: [{ mac: 'not a mac' }] }));
  t.false(refused({ nics: [{ speedGbps: 0, vlanId: 4094, vlans: [{ id: 0, name: 'native' }], mac: '52:54:00:aa:bb:cc' }], storage: [{ type: 'NVME', sizeBytes: 2 ** 40 }], cpu: { clockMegahertz: 2399.5 } }));
});

/** What the API server stores of `object` under metalfleet's committed CRD: the pruned paths and the refusals. */
async function admit(file: string, object: Obj): Promise<{ pruned: string[]; errors: string[] }> {
  const schema: JsonSchema = JsonSchemaZ.parse(await committedSchema(file));
  const copy = structuredClone(object);
  const pruned = pruneResource(copy, schema);
  const { metadata: _metadata, ...body } = copy;
  return { pruned, errors: validateSchema(body, schema).map((e) => `${e.field}: ${e.type}`) };
}

test('bmo hardware details crd - what the fixture backend\'s inspection writes is stored whole, in HardwareData and in the host\'s status', async (t) => {
  const hd = HardwareData.parse({ apiVersion: 'metal3.io/v1alpha1', kind: 'HardwareData', metadata: { name: 'h', namespace: 'ns' }, spec: { hardware: CANNED_HARDWARE } });
  t.deepEqual(hd.spec?.hardware, CANNED_HARDWARE, 'zod keeps every field');
  t.deepEqual(await admit('metal3.io_hardwaredata.yaml', hd as Obj), { pruned: [], errors: [] });
  const host = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h', namespace: 'ns' }, spec: { online: true }, status: { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state: 'available', ID: 'n' }, hardware: CANNED_HARDWARE } };
  t.deepEqual(await admit('metal3.io_baremetalhosts.yaml', host), { pruned: [], errors: [] });
});
