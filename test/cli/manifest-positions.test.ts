// Errors about an object in a manifest name where it is as a compiler would: file:line:column of
// the offending field (of the object when the field is absent), the object as Kind namespace/name,
// and the field path. validate, apply (which validates first) and demo -f say it the same way.
import { join } from 'node:path';
import test from 'ava';
import { lines, metalfleet } from './run.ts';
import { LAB_BMC_SECRET, withFiles } from './manifest-files.ts';

const SECRET = LAB_BMC_SECRET;

// Line 14, column 5 is spec.bmc.address (the key); spec.image.checksum is absent, so the host's
// start (line 10, column 1) is where it is named.
const HOSTS = `${SECRET}---
apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: h1
  namespace: lab
spec:
  bmc:
    address: ilo4://192.0.2.1
    credentialsName: bmc
  online: true
  image:
    url: http://example.test/image.qcow2
`;

const LIST = `apiVersion: v1
kind: List
items:
  - apiVersion: metal3.io/v1alpha1
    kind: BareMetalHost
    metadata:
      name: h2
    spec:
      online: "yes please"
`;

test('manifest positions - validate names file:line:column, Kind namespace/name and the field', async (t) => {
  await withFiles({ 'hosts.yaml': HOSTS, 'list.yaml': LIST }, async (dir) => {
    const r = await metalfleet('validate', join(dir, 'hosts.yaml'), join(dir, 'list.yaml'));
    t.is(r.code, 1, r.stderr);
    const out = lines(r.stdout);
    t.true(out.some((l) => l.startsWith(`${dir}/hosts.yaml:17:5: BareMetalHost lab/h1: spec.bmc.address: Unknown BMC type 'ilo4'`)), out.join('\n'));
    t.true(out.includes(`${dir}/hosts.yaml:10:1: BareMetalHost lab/h1: spec.image.checksum: checksum is required for normal images`), out.join('\n'));
    // A List's item: its field's line and column inside the List.
    t.true(out.some((l) => l.startsWith(`${dir}/list.yaml:9:7: BareMetalHost default/h2: spec.online: `)), out.join('\n'));
    t.false(r.stdout.includes('never-echo-me') || r.stderr.includes('never-echo-me'));
  });
});

test('manifest positions - apply reports the same lines before connecting to anything', async (t) => {
  await withFiles({ 'hosts.yaml': HOSTS }, async (dir) => {
    const r = await metalfleet('apply', '-f', join(dir, 'hosts.yaml'), '--nats', 'nats://127.0.0.1:1');
    t.is(r.code, 1, r.stderr);
    t.true(lines(r.stderr).some((l) => l.startsWith(`${dir}/hosts.yaml:17:5: BareMetalHost lab/h1: spec.bmc.address: Unknown BMC type 'ilo4'`)), r.stderr);
    t.notRegex(r.stderr, /cannot connect/);
  });
});

test('manifest positions - demo -f names the field the same way', async (t) => {
  await withFiles({ 'hosts.yaml': HOSTS, 'list.yaml': LIST }, async (dir) => {
    const r = await metalfleet('demo', '-f', join(dir, 'hosts.yaml'), '-f', join(dir, 'list.yaml'), '--json', '--timeout', '5');
    t.is(r.code, 1, r.stderr);
    const err = lines(r.stderr);
    t.true(err.includes(`${dir}/hosts.yaml:10:1: BareMetalHost lab/h1: spec.image.checksum: checksum is required for normal images`), r.stderr);
    t.true(err.some((l) => l.startsWith(`${dir}/list.yaml:9:7: BareMetalHost default/h2: spec.online: `)), r.stderr);
    t.false(r.stderr.includes('never-echo-me'));
  });
});
