// The dashboard shows a MaasMachine's status as its kind's view has it (paused, waiting, ...), the
// way it shows a BareMetalHost's: the picture's rows are the hosts verb's, which come from each
// kind's view. The picture is checked as the page gets it, then the page in a real browser.
import test from 'ava';
import { commandGate, FleetPicture, startUiServer } from '../../src/ui/index.ts';
import { startServedMaasNode, maasMachineObject } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

test('ui maas status - a paused and a waiting MaasMachine are paused and waiting in the picture and on the page', async (t) => {
  // The browser first: one that cannot start leaves nothing else running.
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const served = await startServedMaasNode('ui');
  const { it, client } = served;
  const ui = await startUiServer({ transport: client, gate: commandGate({ enabled: false }), shardCount: 8, nodes: ['embedded'], intervalMs: 200, port: 0, bind: '127.0.0.1' });
  try {
    t.true((await it.apply([maasMachineObject('held', { 'cluster.x-k8s.io/paused': '' }), maasMachineObject('alone')])).ok);
    const statusOf = (picture: FleetPicture): Record<string, string> => Object.fromEntries(picture.hosts.map((h) => [h.key, h.operationalStatus]));
    let picture: FleetPicture | null = null;
    await waitUntil(async () => {
      picture = FleetPicture.parse(await (await fetch(`${ui.url}api/fleet`)).json());
      const s = statusOf(picture);
      return s['capi/held'] === 'paused' && s['capi/alone'] === 'waiting';
    }, 10_000, 'the picture lists both machines with their status');
    t.deepEqual(picture!.hosts.map((h) => [h.key, h.kind, h.state]).sort(), [['capi/alone', 'MaasMachine', 'Pending'], ['capi/held', 'MaasMachine', 'Pending']]);

    const page = await browser.context.newPage();
    await page.goto(ui.url);
    const rows = page.getByTestId('maas-machine');
    await waitUntil(async () => (await rows.count()) === 2, 20_000, 'both machines in the MAAS section');
    const cells = async (): Promise<string[]> => (await rows.allTextContents()).sort();
    const shown = await cells();
    t.regex(shown[0] ?? '', /^capi\/alone.*Pending.*waiting/);
    t.regex(shown[1] ?? '', /^capi\/held.*Pending.*paused/);
    t.deepEqual((await page.getByTestId('maas-machine-status').allTextContents()).sort(), ['paused', 'waiting']);
    // Which node drives each machine, as the picture says (the summary is whole: no "first 50" line).
    const nodes = picture!.hosts.map((h) => h.node);
    t.true(nodes.every((n) => n.length > 0));
    t.deepEqual(await page.getByTestId('maas-machine-node').allTextContents(), nodes);
    t.is(await page.getByTestId('maas-more').count(), 0);
    // The hosts table shows the same status for every kind.
    t.deepEqual((await page.getByTestId('host-status').allTextContents()).sort(), ['paused', 'waiting']);
    await page.close();
  } finally {
    await ui.close();
    await served.stop();
  }
});
