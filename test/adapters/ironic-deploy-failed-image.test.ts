import test from 'ava';
import { provisionArgs, provisionerOnNode as withNode, stubHost as host } from '../support/ironic-node-stub.ts';

// reference/bmo.md §5.2 Provision: "`deploy failed` same image → provisioning error, new image →
// redeploy" (BMO's ironicHasSameImage compares instance_info with the spec's image). A host whose
// image was corrected after a failed deployment is deployed again with the new image, instead of
// failing on the old image's error until someone deprovisions it.

const sameInfo = { image_source: 'http://images/x.qcow2', image_os_hash_algo: 'sha256', image_os_hash_value: 'a'.repeat(64) };

test('ironic deploy failed - a new image is deployed again from deploy failed', async (t) => {
  const { p, writes } = withNode({ provision_state: 'deploy failed', last_error: 'image x-old is corrupt', instance_info: { image_source: 'http://images/x-old.qcow2', image_checksum: 'b'.repeat(32) } });
  const r = await p.provision(host(), provisionArgs);
  t.is(r.kind, 'continuing');
  t.is(writes.length, 2);
  t.regex(writes[0] ?? '', /^patchNode .*"image_source":"http:\/\/images\/x\.qcow2"/);
  t.regex(writes[1] ?? '', /^setProvisionState \["active"/);
});

test('ironic deploy failed - a changed checksum of the same URL is a new image too', async (t) => {
  const { p, writes } = withNode({ provision_state: 'deploy failed', last_error: 'checksum mismatch', instance_info: { ...sameInfo, image_os_hash_value: 'c'.repeat(64) } });
  t.is((await p.provision(host(), provisionArgs)).kind, 'continuing');
  t.regex(writes.at(-1) ?? '', /^setProvisionState \["active"/);
});

test('ironic deploy failed - the image Ironic failed with is a provisioning error, nothing sent', async (t) => {
  const { p, writes } = withNode({ provision_state: 'deploy failed', last_error: 'Agent returned error for deploy step', instance_info: sameInfo });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'failed', message: 'deployment failed: Agent returned error for deploy step' });
  t.deepEqual(writes, []);
});

test('ironic deploy failed - no last_error yet is waited for, not reported as a failure without a reason', async (t) => {
  const { p, writes } = withNode({ provision_state: 'deploy failed', last_error: null, instance_info: sameInfo });
  t.deepEqual(await p.provision(host(), provisionArgs), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, []);
});
