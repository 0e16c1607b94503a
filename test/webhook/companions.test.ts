// The admission webhook on BMO's companion kinds: BMO's samples (as its Go types read them) are
// admitted without the "not validated" warning, HostFirmwareComponents with a bad URL is denied
// with BMO's webhook message on create and update, and a schema error denies any of them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { ROOT } from '../cli/run.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';

type Obj = Record<string, unknown>;

const tls = fileTls();
const FIXTURES = join(ROOT, 'test/fixtures/bmo-companions');
const fixture = async (name: string): Promise<Obj> => {
  const object = parse(await readFile(join(FIXTURES, name), 'utf8')) as Obj;
  return { ...object, metadata: { ...(object.metadata as Obj), namespace: 'metal3' } };
};
const FILES = ['hardwaredata.yaml', 'firmwareschema.yaml', 'hostfirmwaresettings.yaml', 'hostfirmwarecomponents.yaml', 'hostupdatepolicy.yaml'];

test('webhook companions - BMO\'s samples are admitted and checked (no "does not validate" warning), on /validate and /mutate', async (t) => {
  const { server } = await serve(t, tls.files);
  for (const file of FILES) {
    const object = await fixture(file);
    for (const path of ['/validate', '/mutate']) {
      const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', object), path);
      t.true(response.allowed, `${file} ${path}`);
      t.is(response.warnings, undefined, `${file} ${path}: ${JSON.stringify(response.warnings)}`);
    }
  }
});

test('webhook companions - a HostFirmwareComponents update URL BMO\'s webhook refuses is denied on create and update, in its words', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = await fixture('hostfirmwarecomponents.yaml');
  const bad = { ...stored, spec: { updates: [{ component: 'bios', url: 'https://fw/bios.bin' }, { component: 'bmc', url: 'unix://example.com' }] } };
  const message = 'invalid URL "unix://example.com" in FirmwareUpdate in component "bmc": invalid scheme in URL, "unix" not allowed';
  for (const body of [admissionReview('CREATE', bad), admissionReview('UPDATE', bad, stored)]) {
    const { response } = await review(server.url, tls.pki.ca, body);
    t.false(response.allowed);
    t.is(response.status?.code, 422);
    t.is(response.status?.message, `HostFirmwareComponents.metal3.io "hostfirmwarecomponents-sample" is invalid: spec.updates[1].url: ${message}`);
    t.deepEqual(response.status?.details?.causes, [{ reason: 'FieldValueInvalid', message, field: 'spec.updates[1].url' }]);
  }
  // Deleting one is never refused.
  t.true((await review(server.url, tls.pki.ca, admissionReview('DELETE', null, bad))).response.allowed);
});

test('webhook companions - a schema error denies each kind, naming the field', async (t) => {
  const { server } = await serve(t, tls.files);
  const cases: [string, Obj, string][] = [
    ['hostupdatepolicy.yaml', { firmwareUpdates: 'now' }, 'spec.firmwareUpdates'],
    ['hostfirmwaresettings.yaml', { settings: { SRIOV: ['Enabled'] } }, 'spec.settings.SRIOV'],
    ['hostfirmwarecomponents.yaml', { updates: [{ url: 'http://fw/bios.bin' }] }, 'spec.updates[0].component'],
    ['firmwareschema.yaml', { schema: { SRIOV: { lower_bound: 'one' } } }, 'spec.schema.SRIOV.lower_bound'],
    ['hardwaredata.yaml', { hardware: { nics: 'eno1' } }, 'spec.hardware.nics'],
  ];
  for (const [file, spec, field] of cases) {
    const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', { ...(await fixture(file)), spec }));
    t.false(response.allowed, file);
    t.deepEqual(response.status?.details?.causes.map((c) => c.field), [field], file);
  }
});
