// A MaasMachine's page offers release (its kind takes it; a BareMetalHost's does not) and asks
// before sending it: dismissed, nothing is sent; accepted, the command takes the node's path and
// the MaasMachine is failed as CAPMAAS fails a machine it lost, its MAAS machine back in MAAS.
// In Debian's chromium through playwright-core, against the embedded node driving the MAAS simulator.
import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { maasReady, startMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

test('ui maas release - the page asks first; dismissed nothing is sent, accepted the machine is released and its MaasMachine failed', async (t) => {
  const it = await startMaasNode();
  const gate = commandGate({ enabled: true });
  const ui = await startUiServer({ transport: it.transport, gate, shardCount: 8, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  const browser = await launchBrowser();
  try {
    t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 1 }))).ok);
    const keys = (await it.store.list('MaasMachine')).map((m) => `${m.metadata.namespace}/${m.metadata.name}`).sort();
    await waitUntil(async () => (await Promise.all(keys.map((k) => maasReady(it.store, k)))).every(Boolean), 20_000, 'machines ready');
    const key = keys[0]!;
    const systemID = ((await it.store.get('MaasMachine', key))?.spec as { systemID?: string } | undefined)?.systemID;
    t.truthy(systemID, 'the MaasMachine names its MAAS machine');
    t.is(it.sim.machine(systemID!)?.status_name, 'Deployed');
    const status = async () => (await it.store.get('MaasMachine', key))?.status as { failureReason?: string; failureMessage?: string; systemID?: string } | undefined;
    const annotations = async () => (await it.store.get('MaasMachine', key))?.metadata.annotations ?? {};

    const page = await browser.context.newPage();
    await page.goto(`${ui.url}#token=${gate.token ?? ''}`);
    await page.goto(`${ui.url}#/host/MaasMachine/${key}`);
    const release = page.getByTestId('cmd-release');
    await waitUntil(async () => (await release.count()) === 1 && await release.isEnabled(), 20_000, 'the release button');

    const asked: string[] = [];
    page.once('dialog', (d) => { asked.push(d.message()); void d.dismiss(); });
    await release.click();
    await waitUntil(async () => /release: not sent/.test(await page.getByTestId('command-result').textContent() ?? ''), 10_000, 'the dismissed release');
    t.is(asked.length, 1);
    t.regex(asked[0]!, new RegExp(`${key}: Release this machine back to MAAS`));
    t.false('metalfleet.io/release' in await annotations(), 'a dismissed release is not sent');
    t.is((await status())?.failureReason, undefined);

    page.once('dialog', (d) => { void d.accept(); });
    await release.click();
    await waitUntil(async () => /release: .*will be released/.test(await page.getByTestId('command-result').textContent() ?? ''), 10_000, 'the node took the release');
    await waitUntil(async () => (await status())?.failureReason === 'UpdateError', 20_000, 'the MaasMachine failed as CAPMAAS fails a lost machine');
    t.regex((await status())?.failureMessage ?? '', /was released by command/);
    await waitUntil(() => it.sim.machine(systemID!)?.status_name === 'Ready', 20_000, 'the MAAS machine back in MAAS');

    // A BareMetalHost page never offers it: its node refuses release.
    const config = (await (await fetch(`${ui.url}api/config`)).json()) as { actions?: Record<string, string[]> };
    t.true(config.actions?.['MaasMachine']?.includes('release'));
    t.false(config.actions?.['BareMetalHost']?.includes('release'));
  } finally {
    await browser.close();
    await ui.close();
    await it.stop();
  }
});
