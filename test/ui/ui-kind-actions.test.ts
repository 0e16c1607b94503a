// The command buttons a host page offers are the commands its kind takes: a MaasMachine's page has
// power, pause and release, not reboot, detach, attach, inspect or service, which its node refuses
// ("capi/twin is a MaasMachine, which takes powerOn, powerOff, release, pause, unpause").
import test from 'ava';
import type { Page } from 'playwright-core';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { startServedMaasNode, maasMachineObject } from '../support/maas-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

const buttons = async (page: Page): Promise<string[]> => (await page.locator('.commands button').allTextContents()).sort();

test('ui kind actions - a MaasMachine page offers only the commands a MaasMachine takes, a BareMetalHost page all of its own', async (t) => {
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const served = await startServedMaasNode('ui');
  const { it, client, source } = served;
  const gate = commandGate({ enabled: true });
  const ui = await startUiServer({ transport: client, gate, shardCount: 8, nodes: ['embedded'], intervalMs: 200, port: 0, bind: '127.0.0.1' });
  try {
    t.true((await it.apply([secret('bmc', 'capi'), bmh('twin', { namespace: 'capi' }), maasMachineObject('twin')])).ok);
    await waitUntil(async () => (await source.hosts({})).filter((r) => r.key === 'capi/twin').length === 2, 10_000, 'both objects driven');

    const page = await browser.context.newPage();
    await page.goto(`${ui.url}#token=${gate.token ?? ''}`);
    await page.goto(`${ui.url}#/host/MaasMachine/capi/twin`);
    await waitUntil(async () => (await page.getByTestId('host-key').count()) === 1 && (await page.locator('.commands button').count()) > 0, 20_000, 'the MaasMachine page');
    t.deepEqual(await buttons(page), ['pause', 'power-off', 'power-on', 'release', 'unpause']);
    t.true(await page.getByTestId('cmd-power-off').isEnabled());

    await page.goto(`${ui.url}#/host/BareMetalHost/capi/twin`);
    await waitUntil(async () => /^BareMetalHost on /.test((await page.locator('section.host p').first().textContent()) ?? ''), 20_000, 'the BareMetalHost page');
    // No release: a BareMetalHost is given back by removing spec.image, and its node refuses release.
    t.deepEqual(await buttons(page), ['attach', 'detach', 'inspect', 'pause', 'power-off', 'power-on', 'reboot', 'service', 'unpause']);
    await page.close();
  } finally {
    await ui.close();
    await served.stop();
  }
});
