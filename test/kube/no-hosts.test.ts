// A MAAS-only node (`node --no-hosts`, the clusterctl provider's manager): no informer on
// BareMetalHosts or their companions, so it syncs on an API server that has only the MAAS and
// Cluster API CRDs — where a node watching hosts never syncs (its host informers get 404).
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { metalfleet } from '../cli/run.ts';
import { startKubeApi } from '../support/kube-api/index.ts';
import type { KubeApiServer } from '../support/kube-api/index.ts';
import { waitUntil } from '../support/wait.ts';
import { applyFile, startApi, startKubeNode } from './support/kube-node.ts';
import { SECRET_ENVIRONMENT_LABEL, SECRET_ENVIRONMENT_VALUE, SECRET_FINALIZER } from '../../src/adapters/kube/secret-claim.ts';
import { bmh } from '../support/node.ts';
import type { KubeObject } from '../support/kube-api/index.ts';

const CRDS = fileURLToPath(new URL('../../deploy/crds', import.meta.url));
const CAPI = fileURLToPath(new URL('./fixtures/crds/capi.yaml', import.meta.url));

/** The API server as clusterctl leaves it: Cluster API's CRDs and the provider's, no metal3.io. */
async function withoutMetal3(): Promise<KubeApiServer> {
  const infra = [];
  for (const name of await readdir(CRDS)) {
    if (name.startsWith('infrastructure.cluster.x-k8s.io_')) infra.push(parse(await readFile(join(CRDS, name), 'utf8')) as object);
  }
  const capi = parseAllDocuments(await readFile(CAPI, 'utf8')).map((d) => d.toJS() as object);
  return startKubeApi({ crds: [...infra, ...capi], watchTimeoutSeconds: 5 });
}

test('kube no-hosts - without Metal3\'s CRDs a MAAS-only node syncs and brings the CAPMAAS example\'s MaasMachine to ready', async (t) => {
  const api = await withoutMetal3();
  t.teardown(() => api.close());
  const it = await startKubeNode(api, { maas: true, adapter: { hosts: false } });
  t.teardown(() => it.stop());
  t.deepEqual(it.adapter.informers().map((i) => i.resource).sort(), ['Cluster', 'MaasCluster', 'MaasMachine', 'Machine', 'Secret']);
  await applyFile(api, 'capmaas-example.yaml');
  await waitUntil(() => (api.get({ resource: 'maasmachines', namespace: 'capmaas', name: 'c1-control-plane-x7k2p' }) as { status?: { ready?: boolean } } | undefined)?.status?.ready === true, 30_000, 'the MaasMachine is ready');
  t.false(api.requests({}).some((r) => r.path.includes('metal3.io')), 'nothing asked of metal3.io');
});

test('kube no-hosts - a BMO beside a MAAS-only node keeps its claim on its BMC Secrets: kubectl delete secret still waits for BMO', async (t) => {
  // Metal3's CRDs installed and a BMO using them: its host names a Secret it claimed. The MAAS-only
  // node watches Secrets (bootstrap data) but no hosts, so it cannot tell which Secret is in use.
  const api = await startApi();
  t.teardown(() => api.close());
  const ref = { resource: 'secrets', namespace: 'lab', name: 'bmo-bmc' };
  api.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: ref.name, namespace: ref.namespace, labels: { [SECRET_ENVIRONMENT_LABEL]: SECRET_ENVIRONMENT_VALUE }, finalizers: [SECRET_FINALIZER] }, stringData: { username: 'a', password: 'b' } } as KubeObject);
  api.create(bmh('bmo-host', { credentialsName: 'bmo-bmc' }) as KubeObject);
  const it = await startKubeNode(api, { maas: true, adapter: { hosts: false } });
  t.teardown(() => it.stop());
  // kubectl delete secret: BMO's finalizer holds it until BMO lets go.
  api.delete(ref);
  const patched = await api.waitForRequests({ method: 'PATCH', resource: 'secrets' }, 1, 2_000).then(() => true, () => false);
  t.false(patched, 'the node patched a Secret it does not claim');
  const meta = (api.get(ref) as { metadata: { finalizers?: string[]; deletionTimestamp?: string } } | undefined)?.metadata;
  t.truthy(meta?.deletionTimestamp, 'still there, terminating');
  t.deepEqual(meta?.finalizers, [SECRET_FINALIZER]);
});

test('node cli - --no-hosts needs Kubernetes and a MAAS', async (t) => {
  const alone = await metalfleet('node', '--no-hosts', '--nats', 'nats://127.0.0.1:9');
  t.is(alone.code, 2);
  t.regex(alone.stderr, /--no-hosts applies to --kubeconfig or --in-cluster/);
  const noMaas = await metalfleet('node', '--no-hosts', '--kubeconfig', CAPI);
  t.is(noMaas.code, 2);
  t.regex(noMaas.stderr, /--no-hosts: without BareMetalHosts a node drives only MAAS; give --maas or MAAS_ENDPOINT/);
});
