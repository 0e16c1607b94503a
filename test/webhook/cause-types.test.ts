// A denial's causes carry field.ErrorType's own cause for a wrong type and for a value over its
// length or item bound (FieldValueTypeInvalid, FieldValueTooLong, FieldValueTooMany), as the API
// server's do: clients such as kubectl and controller-runtime match on them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../cli/run.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';

type Obj = Record<string, unknown>;
const tls = fileTls();

async function maasMachine(): Promise<Obj> {
  const docs = parseAllDocuments(await readFile(join(ROOT, 'test/fixtures/maas/valid.yaml'), 'utf8')).map((d) => d.toJS() as Obj);
  const machine = docs.find((d) => d['kind'] === 'MaasMachine');
  if (!machine) throw new Error('test/fixtures/maas/valid.yaml has no MaasMachine');
  return machine;
}

test('webhook causes - a wrong type is FieldValueTypeInvalid on a MaasMachine, in the API server\'s words', async (t) => {
  const { server } = await serve(t, tls.files);
  const machine = await maasMachine();
  const spec = machine['spec'] as Obj;
  const bad = { ...machine, spec: { ...spec, minCPU: 'four' } };
  const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', bad));
  t.false(response.allowed);
  const causes = response.status?.details?.causes ?? [];
  t.like(causes.find((c) => c.field === 'spec.minCPU'), { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "four": must be of type integer' });
  t.deepEqual(causes.map((c) => c.reason).filter((r) => r === 'FieldValueInvalid'), [], JSON.stringify(causes));
});

test('webhook causes - a BareMetalHost with three software RAID volumes is FieldValueTooMany, a volume name over 64 characters FieldValueTooLong, a wrong type FieldValueTypeInvalid', async (t) => {
  const { server } = await serve(t, tls.files);
  const volume = { level: '1' };
  const host = {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab' },
    spec: { online: 'yes', bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'h1-bmc' }, raid: { hardwareRAIDVolumes: [{ level: '1', name: 'v'.repeat(65) }], softwareRAIDVolumes: [volume, volume, volume] } },
  };
  const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', host));
  t.false(response.allowed);
  const causes = response.status?.details?.causes ?? [];
  t.like(causes.find((c) => c.field === 'spec.online'), { reason: 'FieldValueTypeInvalid' });
  t.like(causes.find((c) => c.field === 'spec.raid.softwareRAIDVolumes'), { reason: 'FieldValueTooMany' });
  t.like(causes.find((c) => c.field === 'spec.raid.hardwareRAIDVolumes[0].name'), { reason: 'FieldValueTooLong' });
});
