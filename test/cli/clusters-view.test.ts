// `metalfleet clusters` in-process: a node answering the clusters verb over the memory bus, the
// command function called with its transport, its table and JSON checked.
import test from 'ava';
import type { ClusterRow } from '../../src/bus/messages/introspect.ts';
import { clustersView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';

const DEMO: ClusterRow = {
  key: 'capi/demo', cluster: 'demo', shard: 5, phase: 'active', ready: true, failureDomains: ['az1', 'az2'],
  dnsName: 'demo-3f9a2b.maas', addresses: ['10.0.0.11', '10.0.0.12'], addressesSeenMs: 4_000,
  machines: [
    { key: 'capi/demo-cp-0', machineState: 'Deployed', controlPlane: true, address: '10.0.0.11', dnsAttached: true },
    { key: 'capi/demo-cp-1', machineState: 'Deployed', controlPlane: true, address: '10.0.0.12', dnsAttached: true },
    { key: 'capi/demo-worker-0', machineState: 'Deploying', controlPlane: false, dnsAttached: false },
  ],
  conditions: [{ type: 'Ready', status: 'True', reason: '' }, { type: 'APIServerAvailable', status: 'False', reason: 'APIServerNotReady' }],
  lastError: null, waiting: null,
};
const PENDING: ClusterRow = {
  key: 'capi/new', cluster: 'new', shard: 2, phase: 'pending', ready: false, failureDomains: [], dnsName: null, addresses: [],
  addressesSeenMs: null, machines: [], conditions: [], lastError: 'MAAS said 503 creating new-1a2b3c.maas', waiting: null,
};

async function withNode(clusters: ClusterRow[], run: (client: Transport, base: ViewOptions) => Promise<void>): Promise<void> {
  const served = serveEmbedded({ clusters: async () => clusters, close: () => undefined } as unknown as IntrospectionSource, 'a');
  try {
    await run(served.client, { format: 'table', width: 160, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['a'] });
  } finally {
    await served.close();
  }
}

test('clusters view - one line per MaasCluster with its DNS name and the record\'s addresses, then its machines with MAAS state and DNS membership', async (t) => {
  await withNode([DEMO, PENDING], async (client, base) => {
    const out = await clustersView(client, base);
    t.is(out.exitCode, 0);
    t.deepEqual(out.stderr, []);
    const lines = out.stdout.split('\n');
    t.log(out.stdout);
    t.regex(lines[0]!, /^CLUSTER +PHASE +READY +DNS NAME +ADDRESSES +SEEN +MACHINES +SHARD +NODE +ERROR$/);
    t.regex(lines[1]!, /^capi\/demo +active +yes +demo-3f9a2b\.maas +10\.0\.0\.11,10\.0\.0\.12 +4s +3 \(2 in DNS\) +5 +a +-$/);
    t.regex(lines[2]!, /^capi\/new +pending +no +- +- +- +0 \(0 in DNS\) +2 +a +MAAS said 503 creating new-1a2b3c\.maas$/);
    const at = lines.indexOf('capi/demo:');
    t.true(at > 0);
    t.regex(lines[at + 1]!, /^ {2}conditions: +Ready=True, APIServerAvailable=False \(APIServerNotReady\)$/);
    t.regex(lines[at + 2]!, /^ {2}failure domains: +az1, az2$/);
    t.regex(lines[at + 3]!, /^ {2}MACHINE +ROLE +MAAS STATE +ADDRESS +IN DNS$/);
    t.regex(lines[at + 4]!, /^ {2}capi\/demo-cp-0 +control-plane +Deployed +10\.0\.0\.11 +yes$/);
    t.regex(lines[at + 6]!, /^ {2}capi\/demo-worker-0 +worker +Deploying +- +no$/);
    t.regex(lines[lines.indexOf('capi/new:') + 2]!, /^ {2}no machines$/);
  });
});

test('clusters view - -o json is the gathered replies, rows as the verb gives them', async (t) => {
  await withNode([DEMO], async (client, base) => {
    const out = await clustersView(client, { ...base, format: 'json' });
    const data = JSON.parse(out.stdout) as { replies: Array<{ node: string; value: { clusters: ClusterRow[] } }>; missing: string[] };
    t.deepEqual(data.missing, []);
    t.is(data.replies[0]!.node, 'a');
    t.deepEqual(data.replies[0]!.value.clusters, [DEMO]);
  });
});

test('clusters view - a node with no MaasCluster prints "no MaasClusters"', async (t) => {
  await withNode([], async (client, base) => {
    t.is((await clustersView(client, base)).stdout, 'no MaasClusters\n');
  });
});
