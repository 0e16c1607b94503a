// The status of a kind with a status subresource is the controller's: on CREATE the API server drops
// it before the validating webhooks run, and on an UPDATE of the main resource it puts the stored
// status back in place of whatever the request sent (reference/kube-api.md §5). So what a review
// carries under `status` is never what the user asked for, and cannot be changed by the request: a
// denial for it blocks every edit of the object (and the controller's own finalizer and
// annotation writes) for good. The API server itself checks a stored status only with ratcheting
// (§8), so a status written when the CRD was looser (a metalfleet before 0.1's HardwareDetails
// types, where speedGbps was a number) stays updatable. BMO's webhook never reads status but for
// its update rules; neither does this one.
import test from 'ava';
import { host, withStatus, type Host } from '../support/admission-host.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';

type Obj = Record<string, unknown>;

const tls = fileTls();

/** A provisioned host whose stored status the current schema would refuse. */
function storedHost(patch: (h: Host) => void = () => {}): Host {
  const h = withStatus(host(patch), 'provisioned');
  (h.status as Obj).hardware = { nics: [{ name: 'eno1', mac: '52:54:00:aa:bb:cc', speedGbps: 2.5 }], cpu: { arch: 'x86_64', count: 8 } };
  return h;
}

test('webhook status - an UPDATE is not denied for the stored status the request cannot change', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = storedHost();
  // The user powers the host off; the controller adds its finalizer, removes a reboot annotation.
  const powered = storedHost((h) => { h.spec.online = false; });
  const finalized = storedHost((h) => { (h.metadata as Obj).finalizers = ['baremetalhost.metal3.io']; });
  for (const object of [powered, finalized, structuredClone(stored)]) {
    const body = admissionReview('UPDATE', object, stored);
    t.deepEqual((await review(server.url, tls.pki.ca, body)).response, { uid: (body.request as { uid: string }).uid, allowed: true });
  }
});

test('webhook status - the spec is still checked, and the update rules still read the status', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = storedHost();
  // A spec error is denied, naming only the spec.
  const bad = await review(server.url, tls.pki.ca, admissionReview('UPDATE', storedHost((h) => { h.spec.rootDeviceHints = { deviceName: 'sda' }; }), stored));
  t.false(bad.response.allowed);
  t.is(bad.response.status?.message, 'BareMetalHost.metal3.io "worker-0" is invalid: spec.rootDeviceHints.deviceName: device name of root device hint must be a /dev/ path, not "sda"');
  // Rule 15 reads status.provisioning.state: enabling externallyProvisioned while provisioned.
  const ext = await review(server.url, tls.pki.ca, admissionReview('UPDATE', storedHost((h) => { h.spec.externallyProvisioned = true; }), stored));
  t.deepEqual(ext.response.status?.details?.causes.map((c) => c.message), ['externallyProvisioned can only be enabled when in Available state, currently in provisioned']);
});

test('webhook status - a CREATE is judged without the status the API server drops', async (t) => {
  const { server } = await serve(t, tls.files);
  const withBadStatus = host();
  withBadStatus.status = { operationalStatus: 'bogus' };
  const body = admissionReview('CREATE', withBadStatus);
  t.deepEqual((await review(server.url, tls.pki.ca, body)).response, { uid: (body.request as { uid: string }).uid, allowed: true });
});

test('webhook status - a kind without a status subresource still has its status checked (it is an ordinary field)', async (t) => {
  const { server } = await serve(t, tls.files);
  // HostUpdatePolicy's status is written with the object: what a write carries is what is stored.
  const policy = (status: unknown) => ({
    apiVersion: 'metal3.io/v1alpha1', kind: 'HostUpdatePolicy', metadata: { name: 'worker-0', namespace: 'metal3' },
    spec: { firmwareSettings: 'onReboot' }, status,
  });
  for (const body of [admissionReview('CREATE', policy('ready')), admissionReview('UPDATE', policy('ready'), policy({}))]) {
    const { response } = await review(server.url, tls.pki.ca, body);
    t.false(response.allowed);
    t.deepEqual(response.status?.details?.causes.map((c) => c.field), ['status']);
  }
});
