import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { Image } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { untilDone } from '../support/provisioner-steps.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import type { LogLine } from '../support/recording-logger.ts';

// reference/bmo.md §5.2 Provision: instance_info carries `image_pull_secret` for an oci:// image
// whose spec.image.ociAuthSecretName names a pull secret (BMO's ProvisionData.ImagePullSecret,
// base64 "username:password" for the image's registry). OCI images came with Ironic 29.0 (API 1.96):
// an older Ironic would take oci:// for a plain URL and fail deep in the deployment.

const PULL_SECRET = 'robot:oci-pull-secret-never-shown';
const OCI: Image = { url: 'oci://registry.example/os/ubuntu:24.04', ociAuthSecretName: 'pull' };
const QCOW: Image = { url: 'http://images.example/os.qcow2', checksum: 'http://images.example/os.qcow2.sha256sum' };

function host(image: Image, imagePullSecret?: string): HostData {
  return {
    key: 'lab/oci1', namespace: 'lab', name: 'oci1', uid: 'uid-oci1', provisionerId: '',
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled',
      bmc: { address: 'redfish-virtualmedia://192.168.111.1:8000/redfish/v1/Systems/oci1', credentialsName: 'bmc' },
      bootMACAddress: '52:54:00:aa:dd:21',
      image,
    } as HostData['spec'],
    credentials: { username: 'admin', password: 'oci-test-bmc-password' },
    ...(imagePullSecret !== undefined ? { imagePullSecret } : {}),
  };
}

async function registered(t: { teardown: (fn: () => Promise<void>) => void }, maxVersion: string) {
  const s = await startIronicApiServer({ maxVersion, phaseDelayMs: 2 });
  const client = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    client.close();
    await s.close();
  });
  const lines: LogLine[] = [];
  const p = createIronicProvisioner({ client, polls: { shortMs: 10, longMs: 20 }, imageCheck: { enabled: false }, log: recordingLogger(lines) });
  const id = (await untilDone(p, { op: 'register', restartOnFailure: false, credentialsChanged: false }, host(QCOW))).provisionerId ?? '';
  return { s, p, id, lines };
}

const provisionArgs = (image: Image) => ({ op: 'provision', image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const);

test('ironic oci - an oci:// image goes to Ironic 29.0 with its pull secret in instance_info', async (t) => {
  const { s, p, id, lines } = await registered(t, '1.96');
  await untilDone(p, provisionArgs(OCI), { ...host(OCI, PULL_SECRET), provisionerId: id });
  const info = (s.node(id)?.fields.instance_info ?? {}) as Record<string, unknown>;
  t.is(s.node(id)?.provisionState, 'active');
  t.is(info['image_source'], OCI.url);
  t.is(info['image_pull_secret'], PULL_SECRET);
  t.false('image_checksum' in info, 'an OCI image carries its own checksums');
  t.false('image_os_hash_value' in info);
  t.false(JSON.stringify(lines).includes(PULL_SECRET));
});

test('ironic oci - an oci:// image without a pull secret is sent without one', async (t) => {
  const { s, p, id } = await registered(t, '1.96');
  const image: Image = { url: OCI.url };
  await untilDone(p, provisionArgs(image), { ...host(image), provisionerId: id });
  const info = (s.node(id)?.fields.instance_info ?? {}) as Record<string, unknown>;
  t.is(info['image_source'], OCI.url);
  t.false('image_pull_secret' in info);
});

test('ironic oci - an Ironic older than 29.0 is refused an oci:// image before anything is sent', async (t) => {
  const { s, p, id, lines } = await registered(t, '1.87');
  const r = await p.provision({ ...host(OCI, PULL_SECRET), provisionerId: id }, provisionArgs(OCI));
  t.is(r.kind, 'failed');
  const message = r.kind === 'failed' ? r.message : '';
  t.regex(message, /oci:\/\/ image \(spec\.image\.url\) needs Ironic API 1\.96 or later; this Ironic offers up to 1\.87/);
  t.is(r.kind === 'failed' ? r.retryAfterMs : undefined, null, 'retrying cannot help until Ironic or the spec changes');
  t.false(message.includes(PULL_SECRET));
  t.false(JSON.stringify(lines).includes(PULL_SECRET));
  t.is(s.node(id)?.provisionState, 'manageable');
  t.false('image_source' in ((s.node(id)?.fields.instance_info ?? {}) as Record<string, unknown>));
});

test('ironic oci - a checksum on an oci:// image is refused with BMO\'s words, not sent', async (t) => {
  const { s, p, id } = await registered(t, '1.96');
  const image: Image = { url: OCI.url, checksum: 'a'.repeat(64), checksumType: 'sha256' };
  const r = await p.provision({ ...host(image), provisionerId: id }, provisionArgs(image));
  t.deepEqual(r, { kind: 'failed', message: 'spec.image.checksum must be empty for OCI images (oci:// images have embedded checksums)' });
  t.false('image_source' in ((s.node(id)?.fields.instance_info ?? {}) as Record<string, unknown>));
});

test('ironic oci - a named pull secret whose credentials were not resolved is not deployed without them', async (t) => {
  const { s, p, id } = await registered(t, '1.96');
  const r = await p.provision({ ...host(OCI), provisionerId: id }, provisionArgs(OCI));
  t.is(r.kind, 'failed');
  t.regex(r.kind === 'failed' ? r.message : '', /spec\.image\.ociAuthSecretName "pull"/);
  t.false('image_source' in ((s.node(id)?.fields.instance_info ?? {}) as Record<string, unknown>));
});
