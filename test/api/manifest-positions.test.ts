// Where a field is, for error messages: the line and column of its key (or item) in the file,
// the object's start when it is not written there.
import test from 'ava';
import { readManifests } from '../../src/api/manifest.ts';
import { pathSegments } from '../../src/api/manifest-positions.ts';
import { manifestError } from '../../src/api/manifest-where.ts';

const HOST = `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata:
  name: h1
  namespace: lab
  annotations:
    reboot.metal3.io/phase1: ""
spec:
  raid:
    softwareRAIDVolumes:
      - level: "1"
      - level: "7"
  bmc:
    address: ilo4://192.0.2.1
`;

test('manifest positions - paths as field errors write them split into keys and indices', (t) => {
  t.deepEqual(pathSegments('spec.raid.softwareRAIDVolumes[1].level'), ['spec', 'raid', 'softwareRAIDVolumes', '1', 'level']);
  t.deepEqual(pathSegments('metadata.annotations[reboot.metal3.io/phase1]'), ['metadata', 'annotations', 'reboot.metal3.io/phase1']);
  t.deepEqual(pathSegments(''), []);
});

test('manifest positions - a key, a sequence item, a bracketed annotation, and an absent field', (t) => {
  const [doc] = readManifests(`# hosts\n---\n${HOST}`, 'h.yaml');
  t.deepEqual(doc?.positionOf?.('spec.bmc.address'), { line: 16, column: 5 });
  t.deepEqual(doc?.positionOf?.('spec.raid.softwareRAIDVolumes[1].level'), { line: 14, column: 9 });
  t.deepEqual(doc?.positionOf?.('spec.raid.softwareRAIDVolumes[1]'), { line: 14, column: 9 });
  t.deepEqual(doc?.positionOf?.('metadata.annotations[reboot.metal3.io/phase1]'), { line: 9, column: 5 });
  // Absent (or past the end of a list): the object's start.
  t.deepEqual(doc?.positionOf?.('spec.image.checksum'), { line: 3, column: 1 });
  t.deepEqual(doc?.positionOf?.('spec.raid.softwareRAIDVolumes[5].level'), { line: 3, column: 1 });
  t.is(manifestError(doc!, 'spec.bmc.address', 'bad'), 'h.yaml:16:5: BareMetalHost lab/h1: spec.bmc.address: bad');
  t.is(manifestError(doc!, '', 'too big'), 'h.yaml:3:1: BareMetalHost lab/h1: too big');
});

test('manifest positions - columns after a byte order mark and lines of CRLF files are as an editor shows them', (t) => {
  const [bom] = readManifests(`\uFEFF${HOST}`, 'bom.yaml');
  t.deepEqual(bom?.positionOf?.('apiVersion'), { line: 1, column: 1 });
  t.deepEqual(bom?.positionOf?.('spec.bmc.address'), { line: 14, column: 5 });
  const [crlf] = readManifests(HOST.replaceAll('\n', '\r\n'), 'crlf.yaml');
  t.deepEqual(crlf?.positionOf?.('spec.bmc.address'), { line: 14, column: 5 });
});

test('manifest positions - a key kubectl reads as "true" (on) is found by that name; an alias stops at its field', (t) => {
  const [doc] = readManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: &l\n    on: a\ndata: *l\n', 'c.yaml');
  t.deepEqual(doc?.positionOf?.('metadata.labels[true]'), { line: 6, column: 5 });
  t.deepEqual(doc?.positionOf?.('data.true'), { line: 7, column: 1 });
});

test('manifest positions - a List item\'s fields are found inside the List; JSON too', (t) => {
  const [item] = readManifests('apiVersion: v1\nkind: List\nitems:\n- kind: BareMetalHost\n  metadata: {name: w}\n  spec: {online: "x"}\n', 'l.yaml');
  t.deepEqual(item?.positionOf?.('spec.online'), { line: 6, column: 10 });
  t.deepEqual(item?.positionOf?.('spec.missing'), { line: 4, column: 3 });
  const [json] = readManifests('{"kind": "BareMetalHost",\n "metadata": {"name": "j"},\n "spec": {"online": "x"}}\n', 'j.json');
  t.deepEqual(json?.positionOf?.('spec.online'), { line: 3, column: 11 });
});
