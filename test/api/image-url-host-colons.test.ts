import test from 'ava';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { host } from '../support/admission-host.ts';

// Go 1.26's net/url (BMO's toolchain; go.dev/issue/75223, 78077) refuses an http or https URL
// with more than one colon outside brackets in its host, so BMO's webhook refuses such an image
// URL. Other schemes keep the old reading (the last colon starts the port).

function imageErrors(url: string) {
  return validateBareMetalHost(host((h) => { h.spec.image = { url, checksum: 'abc' }; })).map((e) => [e.path, e.reason]);
}

test('image url colons - two ports on an http or https host are refused', (t) => {
  t.deepEqual(imageErrors('http://images.example.com:80:80/ubuntu.qcow2'), [
    ['spec.image.url', 'image URL http://images.example.com:80:80/ubuntu.qcow2 is invalid: invalid port ":80:80" after host'],
  ]);
  t.deepEqual(imageErrors('https://::1/ubuntu.qcow2'), [
    ['spec.image.url', 'image URL https://::1/ubuntu.qcow2 is invalid: invalid port "::1" after host'],
  ]);
});

test('image url colons - one port, and bracketed IPv6 hosts, are still fine', (t) => {
  t.deepEqual(imageErrors('http://images.example.com:8080/ubuntu.qcow2'), []);
  t.deepEqual(imageErrors('https://[2001:db8::1]:8443/ubuntu.qcow2'), []);
  t.deepEqual(imageErrors('ftp://a:1:21/ubuntu.qcow2'), []);
});
