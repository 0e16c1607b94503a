// The dashboard's "MAAS clusters" section in a real browser (Debian's chromium through
// playwright-core) against the embedded node driving the MAAS simulator: the DNS name and the
// addresses it shows are the clusters verb's, each machine is listed with its MAAS state, and no
// MAAS API key reaches the page or the picture behind it. The section's screenshot is kept as an
// artefact (.tmp/ui-artifacts/maas-clusters.png).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { gather } from '../../src/cluster/introspect/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { maasReady, startServedMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';
import { ROOT } from '../cli/run.ts';

const ARTIFACTS = join(ROOT, '.tmp', 'ui-artifacts');

test('ui maas clusters - the section shows each cluster\'s DNS name and addresses as the clusters verb gives them, its machines with their MAAS state, and no API key', async (t) => {
  const served = await startServedMaasNode('ui');
  const { it, client } = served;
  const ui = await startUiServer({ transport: client, gate: commandGate({ enabled: false }), shardCount: 8, nodes: ['embedded'], intervalMs: 200, port: 0, bind: '127.0.0.1' });
  const browser = await launchBrowser();
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 2, workers: 1 }))).ok);
    const keys = (await it.store.list('MaasMachine')).map((m) => `${m.metadata.namespace}/${m.metadata.name}`).sort();
    await waitUntil(async () => (await Promise.all(keys.map((k) => maasReady(it.store, k)))).every(Boolean), 20_000, 'machines ready');
    const verb = async () => (await gather(client, 'clusters', {}, { timeoutMs: 2_000, nodes: ['embedded'] })).replies[0]?.value.clusters[0];
    await waitUntil(async () => (await verb())?.addresses.length === 2, 10_000, 'both control planes in the record');
    const cluster = (await verb())!;

    const page = await browser.context.newPage();
    await page.goto(ui.url);
    const section = page.getByTestId('maas-cluster');
    await waitUntil(async () => (await section.count()) === 1 && (await page.getByTestId('maas-cluster-address').count()) === 2, 20_000, 'the cluster and its two addresses on the page');
    t.is(await page.getByTestId('maas-cluster-dns').textContent(), cluster.dnsName);
    t.deepEqual((await page.getByTestId('maas-cluster-address').allTextContents()).sort(), [...cluster.addresses].sort());
    const machines = await page.getByTestId('maas-cluster-machine').allTextContents();
    t.is(machines.length, keys.length);
    for (const m of cluster.machines) t.true(machines.some((row) => row.includes(m.key) && row.includes(m.machineState)), `${m.key} ${m.machineState}`);
    t.regex(await section.textContent() ?? '', /ready/);

    const html = await page.content();
    const picture = await (await fetch(`${ui.url}api/fleet`)).text();
    for (const key of [it.sim.adminKey, it.sim.userKey]) {
      for (const part of key.split(':')) {
        t.false(html.includes(part), 'a MAAS API key part on the page');
        t.false(picture.includes(part), 'a MAAS API key part in /api/fleet');
      }
    }
    await mkdir(ARTIFACTS, { recursive: true });
    await section.screenshot({ path: join(ARTIFACTS, 'maas-clusters.png') });
    await page.close();
  } finally {
    await browser.close();
    await ui.close();
    await served.stop();
  }
});
