// The API server validates an UPDATE against the CRD schema before it calls the validating
// webhooks, and it ratchets: a value the schema refuses but that the update leaves as stored is
// let through (reference/kube-api.md §8). So a webhook that re-checks the schema without ratcheting
// can only ever deny what the API server chose to keep: an object stored under a looser CRD (an
// older metalfleet accepted checksumType "" and a one-disk software RAID volume) could then no
// longer be labelled, powered off or have the controller's finalizer removed. BMO's own webhook
// rules are not ratcheted (BMO re-runs them on every update), and neither is a schema error in a
// value the update changes.
import test from 'ava';
import { host, withStatus, type Host } from '../support/admission-host.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';

type Obj = Record<string, unknown>;

const tls = fileTls();

/** A provisioned host as an older, looser CRD let it be stored. */
function storedHost(patch: (h: Host) => void = () => {}): Host {
  return withStatus(host((h) => {
    const image = h.spec.image as Obj;
    image.checksumType = '';
    image.format = '';
    delete h.spec.rootDeviceHints;
    h.spec.raid = { softwareRAIDVolumes: [{ level: '1', physicalDisks: [{ deviceName: '/dev/sda' }] }] };
    patch(h);
  }), 'provisioned');
}

function maasMachine(spec: Obj = {}, metadata: Obj = {}): Obj {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'MaasMachine',
    metadata: { name: 'cp-0', namespace: 'lab', ...metadata },
    spec: { image: 'ubuntu/jammy', minCPU: 4, minMemory: 8192, minDiskSize: -1, ...spec },
  };
}

const fields = (response: { status?: { details?: { causes: Array<{ field: string }> } } }): string[] =>
  response.status?.details?.causes.map((c) => c.field) ?? [];

test('webhook ratchet - an update that leaves a value the schema now refuses unchanged is allowed', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = storedHost();
  const edits: Array<[string, Host]> = [
    ['the controller adds its finalizer', storedHost((h) => { (h.metadata as Obj).finalizers = ['baremetalhost.metal3.io']; })],
    ['a user labels the host', storedHost((h) => { (h.metadata as Obj).labels = { rack: 'r1' }; })],
    ['a user powers the host off', storedHost((h) => { h.spec.online = false; })],
    ['a no-op update', storedHost()],
  ];
  for (const [what, object] of edits) {
    const body = admissionReview('UPDATE', object, stored);
    const { response } = await review(server.url, tls.pki.ca, body);
    t.deepEqual(response, { uid: (body.request as { uid: string }).uid, allowed: true }, `${what}: ${response.status?.message ?? ''}`);
  }
});

test('webhook ratchet - a schema error in a value the update changes is still denied, naming only that field', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = storedHost();
  // checksumType "" stays as stored; format is newly set to a value the schema refuses.
  const reformatted = await review(server.url, tls.pki.ca, admissionReview('UPDATE', storedHost((h) => { (h.spec.image as Obj).format = 'iso'; }), stored));
  t.false(reformatted.response.allowed);
  t.deepEqual(fields(reformatted.response), ['spec.image.format']);
  // A value the stored object had right may not be made wrong.
  const valid = withStatus(host(), 'provisioned');
  const broken = await review(server.url, tls.pki.ca, admissionReview('UPDATE', withStatus(host((h) => { (h.spec.image as Obj).checksumType = ''; }), 'provisioned'), valid));
  t.false(broken.response.allowed);
  t.deepEqual(fields(broken.response), ['spec.image.checksumType']);
  // A list is one value: adding a volume changes it, so the one-disk volume in it is judged again.
  const added = await review(server.url, tls.pki.ca, admissionReview('UPDATE', storedHost((h) => {
    h.spec.raid = { softwareRAIDVolumes: [{ level: '1', physicalDisks: [{ deviceName: '/dev/sda' }] }, { level: '0' }] };
  }), stored));
  t.false(added.response.allowed);
  t.deepEqual(fields(added.response), ['spec.raid.softwareRAIDVolumes[0].physicalDisks']);
  // A CREATE is never ratcheted.
  const created = await review(server.url, tls.pki.ca, admissionReview('CREATE', storedHost()));
  t.deepEqual(fields(created.response), ['spec.image.checksumType', 'spec.image.format', 'spec.raid.softwareRAIDVolumes[0].physicalDisks']);
});

test('webhook ratchet - BMO\'s own rules are not ratcheted: its webhook re-runs them on every update', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = withStatus(host((h) => { h.spec.rootDeviceHints = { deviceName: 'sda' }; }), 'provisioned');
  const labelled = structuredClone(stored);
  (labelled.metadata as Obj).labels = { rack: 'r1' };
  const { response } = await review(server.url, tls.pki.ca, admissionReview('UPDATE', labelled, stored));
  t.false(response.allowed);
  t.deepEqual(fields(response), ['spec.rootDeviceHints.deviceName']);
});

test('webhook ratchet - a MAAS kind stored under a looser schema stays editable; a changed bad value is denied', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = maasMachine();
  const finalized = await review(server.url, tls.pki.ca, admissionReview('UPDATE', maasMachine({}, { finalizers: ['maasmachine.infrastructure.cluster.x-k8s.io'] }), stored));
  t.true(finalized.response.allowed, finalized.response.status?.message);
  const changed = await review(server.url, tls.pki.ca, admissionReview('UPDATE', maasMachine({ minDiskSize: -2 }), stored));
  t.false(changed.response.allowed);
  t.deepEqual(fields(changed.response), ['spec.minDiskSize']);
});
