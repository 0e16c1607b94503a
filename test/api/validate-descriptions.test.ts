import test from 'ava';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { BareMetalHostSpec, Image } from '../../src/api/bmh/schema.ts';
import { host } from '../support/admission-host.ts';

// The schema's descriptions become the CRD's (`kubectl explain`): they must say what admission
// does. BMO's webhook refuses spec.firmware but not spec.hardwareProfile (reference/bmo.md §2.3
// rule 2), and takes image URLs of http, https, ftp, gopher and oci only (rule 8).

test('validate - hardwareProfile is accepted, and its description does not say it is refused', (t) => {
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.hardwareProfile = 'libvirt'; })), []);
  t.notRegex(BareMetalHostSpec.shape.hardwareProfile.description ?? '', /refused/);
});

test('validate - a file:// image is refused, and the image URL description does not offer it', (t) => {
  const errors = validateBareMetalHost(host((h) => { h.spec.image = { url: 'file:///images/ubuntu.qcow2', checksum: 'abc' }; }));
  t.deepEqual(errors.map((e) => e.path), ['spec.image.url']);
  t.notRegex(Image.shape.url.description ?? '', /file:\/\//);
});
