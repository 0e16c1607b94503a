import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

// CAPMAAS deploys with the bootstrap Secret's `value` as it is, standard base64 (capmaas.md §2.3
// step 6): user data goes to the machine verbatim, as a BareMetalHost's does. A cloud-config's
// final newline, or the indentation of a script's first line, is part of it.

const userDataOf = async (it: Awaited<ReturnType<typeof startMaasNode>>, name: string): Promise<string | null> => {
  const id = ((await it.store.get('MaasMachine', `capi/${name}`))?.spec as { systemID?: string } | undefined)?.systemID;
  if (!id) return null;
  const m = it.sim.machine(id) as { status_name?: string; user_data?: string | null } | undefined;
  return m?.status_name === 'Deployed' ? (m.user_data ?? '') : null;
};

test('maas user data - the bootstrap value is deployed byte for byte, from stringData and from data', async (t) => {
  const it = await startMaasNode();
  try {
    const text = '#cloud-config\nhostname: demo-worker-0\nruncmd:\n  - echo hi\n';
    const script = '  #!/bin/sh\necho from data\n\n';
    const objects = generateMaasCluster({ controlPlane: 0, workers: 2 }) as Array<{ kind: string; metadata: { name: string }; stringData?: Record<string, string>; data?: Record<string, string> }>;
    for (const o of objects) {
      if (o.kind !== 'Secret') continue;
      if (o.metadata.name === 'demo-worker-0-bootstrap') o.stringData = { value: text, format: 'cloud-config' };
      if (o.metadata.name === 'demo-worker-1-bootstrap') {
        delete o.stringData;
        o.data = { value: Buffer.from(script).toString('base64'), format: Buffer.from('cloud-config').toString('base64') };
      }
    }
    t.true((await it.apply(objects)).ok);
    await waitUntil(async () => (await userDataOf(it, 'demo-worker-0')) !== null && (await userDataOf(it, 'demo-worker-1')) !== null, 20_000, 'both deployed');
    t.is(await userDataOf(it, 'demo-worker-0'), text);
    t.is(await userDataOf(it, 'demo-worker-1'), script);
  } finally {
    await it.stop();
  }
});
