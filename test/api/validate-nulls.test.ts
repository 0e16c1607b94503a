import test from 'ava';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { validateDocuments } from '../../src/adapters/store/validate.ts';
import { host } from '../support/admission-host.ts';

// The API server prunes a `null` from a field its CRD does not mark nullable before it validates
// (reference/kube-api.md §8), so BMO admits `image:` or `firmware:` left without a value: they mean
// "not set". Only the RAID volume lists and the operation history times are nullable in BMO's CRD.

function withNulls() {
  return host((h) => {
    (h.metadata as Record<string, unknown>).annotations = null;
    (h.metadata as Record<string, unknown>).labels = null;
    Object.assign(h.spec, {
      image: null, userData: null, networkData: null, metaData: null, firmware: null, description: null,
      bootMode: null, automatedCleaningMode: null, rootDeviceHints: null, customDeploy: null, taints: null,
      raid: { hardwareRAIDVolumes: null, softwareRAIDVolumes: null },
    });
    (h.spec.bmc as Record<string, unknown>).disableCertificateVerification = null;
  });
}

test('validate - a null on a field that is not nullable is pruned, as the API server does', (t) => {
  t.deepEqual(validateBareMetalHost(withNulls()), []);
});

test('validate - a pruned null still leaves the rules to speak: a null image is no image, a null MAC no MAC', (t) => {
  const h = host((x) => {
    x.spec.bmc.address = 'libvirt://192.0.2.10';
    Object.assign(x.spec, { bootMACAddress: null, image: null });
  });
  t.deepEqual(validateBareMetalHost(h).map((e) => `${e.path}: ${e.reason}`), ['spec.bootMACAddress: BMC driver libvirt requires a BootMACAddress value']);
});

test('validate - a null array item is not pruned and is still refused', (t) => {
  const h = host((x) => { x.spec.networkInterfaces = [null]; });
  t.true(validateBareMetalHost(h).some((e) => e.path === 'spec.networkInterfaces[0]'));
});

test('store - applying a host with nulls stores it as the API server would, without them', (t) => {
  const { valid, issues } = validateDocuments([{ file: 'hosts.yaml', index: 0, object: withNulls() }]);
  t.deepEqual(issues, []);
  const [doc] = valid;
  t.is(doc?.type, 'host');
  if (doc?.type !== 'host') return;
  t.false('image' in doc.host.spec);
  t.false('firmware' in doc.host.spec);
  t.is(doc.host.spec.bootMode, 'UEFI');
  t.is(doc.host.spec.automatedCleaningMode, 'metadata');
  // Nullable in BMO's CRD: the API server keeps the null (it means what absent means).
  t.is(doc.host.spec.raid?.hardwareRAIDVolumes, null);
});
