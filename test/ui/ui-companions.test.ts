// What issue 31 added to the host page, in a real browser (Debian's chromium through
// playwright-core) against an embedded node on the fixture backend: a BareMetalHost's companions
// table once it has been inspected and its firmware read, and the `service` button — disabled
// while the dashboard is read-only (the command gate), enabled with --ui-commands, refused on a
// host that is not provisioned (the decision is the host command's, src/machines/bmh/command-intent.ts),
// and on a provisioned host it sends the service command: with firmware changes its
// HostUpdatePolicy allows onReboot the host is serviced, with none the machine removes the request
// with a ServiceRefused event (src/machines/bmh/servicing.ts).
import test from 'ava';
import type { Page } from 'playwright-core';
import { SERVICE_ANNOTATION } from '../../src/api/index.ts';
import { commandGate, startUiServer, type UiServer } from '../../src/ui/index.ts';
import { bmh, secret, startTestNode, type TestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser, type Browser } from './browser.ts';

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

const PROVISIONED = 'lab/prov';
const AVAILABLE = 'lab/avail';

interface Rig { readonly node: TestNode; readonly ui: UiServer; readonly page: Page; readonly token: string | null }

/** One provisioned host and one available host (no image), their firmware read; the page open. */
async function rig(commands: boolean, run: (r: Rig) => Promise<void>): Promise<void> {
  const node = await startTestNode({ objects: [secret(), bmh('prov'), bmh('avail', { image: false })], fixture: { latencyMs: 2, demoBehaviours: false } });
  let ui: UiServer | undefined;
  let page: Page | undefined;
  try {
    const state = (key: string) => node.node.stats.hosts.get(key)?.state;
    await waitUntil(() => state(PROVISIONED) === 'provisioned' && state(AVAILABLE) === 'available', 60_000, 'one host provisioned, one available');
    // Both inspected: HardwareData there, firmware settings and components read.
    for (const key of [PROVISIONED, AVAILABLE]) {
      await waitUntil(async () => (await node.store.resources.get('HardwareData', key)) !== undefined
        && (await node.store.resources.get('HostFirmwareSettings', key))?.status?.['schema'] !== undefined
        && Array.isArray((await node.store.resources.get('HostFirmwareComponents', key))?.status?.['components']), 20_000, `${key} companions`);
    }
    const gate = commandGate({ enabled: commands });
    ui = await startUiServer({ transport: node.substrate.transport, gate, shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
    page = await browser.context.newPage();
    await run({ node, ui, page, token: gate.token });
  } finally {
    await page?.close();
    await ui?.close();
    await node.node.stop();
  }
}

async function openHost(r: Rig, key: string): Promise<void> {
  await r.page.goto(`${r.ui.url}${r.token ? `#token=${r.token}` : ''}`);
  await r.page.getByRole('link', { name: key, exact: true }).click({ timeout: 20_000 });
  await waitUntil(async () => (await r.page.getByTestId('host-key').textContent({ timeout: 20_000 })) === key, 20_000, `the page of ${key}`);
}

/** The companions table's row for one kind, as the page shows it. */
async function companionRow(page: Page, kind: string): Promise<string> {
  return (await page.locator('[data-testid="host-companions"] tr', { has: page.locator('th', { hasText: kind }) }).locator('td').textContent({ timeout: 20_000 })) ?? '';
}

const result = async (page: Page): Promise<string> => (await page.getByTestId('command-result').textContent()) ?? '';
const answered = async (page: Page, action: string): Promise<boolean> => {
  const text = await result(page);
  return text.startsWith(`${action}`) && !/sending/.test(text);
};
const timelineHas = async (page: Page, reason: string): Promise<boolean> => (await page.getByTestId('timeline-row').allTextContents()).some((row) => row.includes(reason));

test.serial('ui companions - an inspected host\'s page shows its HardwareData, firmware settings (valid, changes, schema) and components, as the store has them', async (t) => {
  await rig(false, async (r) => {
    await openHost(r, PROVISIONED);
    await r.page.getByTestId('host-companions').waitFor({ timeout: 20_000 });
    const resources = r.node.store.resources;
    const hfs = await resources.get('HostFirmwareSettings', PROVISIONED);
    const reported = Object.keys(hfs?.status?.['settings'] as Record<string, string>).length;
    const schema = (hfs?.status?.['schema'] as { name: string }).name;
    t.true(reported > 0, 'the fixture BIOS reports settings');
    t.regex(schema, /^schema-[0-9a-f]{8}$/);
    t.is(await companionRow(r.page, 'HardwareData'), 'present');
    // Nothing asked: valid, no change detected (BMO's conditions), and the shared schema's name.
    t.is(await companionRow(r.page, 'HostFirmwareSettings'), `${reported} reported, 0 asked; valid yes, changes no; schema ${schema}`);
    const listed = (await resources.get('HostFirmwareComponents', PROVISIONED))?.status?.['components'] as Array<{ component: string; currentVersion?: string; initialVersion?: string }>;
    t.deepEqual(listed.map((c) => c.component), ['bios', 'bmc']);
    t.is(await companionRow(r.page, 'HostFirmwareComponents'), `${listed.map((c) => `${c.component} ${c.currentVersion ?? c.initialVersion ?? ''}`).join(', ')}; 0 update(s) asked`);
    t.is(await companionRow(r.page, 'HostUpdatePolicy'), 'none');

    // A user's ask shows as asked (the spec); ChangeDetected is judged at the next firmware read.
    await resources.applyIntent('HostFirmwareSettings', PROVISIONED, { spec: { settings: { ProcTurboMode: 'Disabled' } } });
    await waitUntil(async () => (await companionRow(r.page, 'HostFirmwareSettings')).startsWith(`${reported} reported, 1 asked; valid yes`), 20_000, 'the ask on the page');
    t.is(await r.page.getByTestId('cmd-service').isDisabled(), true, 'read-only: the gate is closed, so service is disabled');
  });
});

test.serial('ui companions - with --ui-commands the service button is enabled; on a host that is not provisioned the click is refused, on a provisioned host with nothing to apply the request is removed with ServiceRefused', async (t) => {
  await rig(true, async (r) => {
    // Not provisioned: the gate lets the button be pressed; the host command refuses, and says why.
    await openHost(r, AVAILABLE);
    t.false(await r.page.getByTestId('cmd-service').isDisabled(), 'the gate decides the button: open');
    await r.page.getByTestId('cmd-service').click();
    await waitUntil(() => answered(r.page, 'service'), 20_000, 'the service click answered');
    t.regex(await result(r.page), /^service refused: lab\/avail: conflict: lab\/avail is available; only a provisioned host is serviced/);
    t.is((await r.node.store.get(AVAILABLE))?.metadata.annotations?.[SERVICE_ANNOTATION], undefined, 'nothing recorded on the host');

    // Provisioned, online, no firmware changes its policy allows: the request is recorded, then the
    // machine removes it with a Warning that says so, and the host is never powered off for it.
    await openHost(r, PROVISIONED);
    t.false(await r.page.getByTestId('cmd-service').isDisabled());
    const seen: string[] = [];
    const stopWatching = r.node.node.stats.onChange(() => {
      const op = r.node.node.stats.hosts.get(PROVISIONED)?.operationalStatus;
      if (op) seen.push(op);
    });
    await r.page.getByTestId('cmd-service').click();
    await waitUntil(() => answered(r.page, 'service'), 20_000, 'the service click answered');
    t.regex(await result(r.page), new RegExp(`^service: lab/prov will be serviced: ${SERVICE_ANNOTATION} set.*\\(state provisioned\\)$`));
    await waitUntil(() => timelineHas(r.page, 'ServiceRefused'), 20_000, 'ServiceRefused in the page\'s timeline');
    const refused = (await r.page.getByTestId('timeline-row').allTextContents()).find((row) => row.includes('ServiceRefused')) ?? '';
    t.regex(refused, /no pending firmware changes/);
    t.is(await r.page.locator('[data-testid="timeline-row"].bad', { hasText: 'ServiceRefused' }).count(), 1, 'shown as a warning');
    await waitUntil(async () => (await r.node.store.get(PROVISIONED))?.metadata.annotations?.[SERVICE_ANNOTATION] === undefined, 10_000, 'the request removed');
    stopWatching();
    t.false(seen.includes('servicing'), 'not serviced');
    t.is(r.node.fixture.node(PROVISIONED)?.power, true, 'still on');
    t.is(await r.page.getByTestId('host-state').textContent(), 'provisioned');
  });
});

test.serial('ui companions - service clicked on a provisioned host whose HostUpdatePolicy allows a settings change onReboot services it, and the page shows the change applied', async (t) => {
  await rig(true, async (r) => {
    const resources = r.node.store.resources;
    const applied = await r.node.store.applyObjects([{ apiVersion: 'metal3.io/v1alpha1', kind: 'HostUpdatePolicy', metadata: { name: 'prov', namespace: 'lab' }, spec: { firmwareSettings: 'onReboot', firmwareUpdates: 'onReboot' } }]);
    t.true(applied.ok, JSON.stringify(applied));
    await resources.applyIntent('HostFirmwareSettings', PROVISIONED, { spec: { settings: { ProcTurboMode: 'Disabled' } } });
    await openHost(r, PROVISIONED);
    await waitUntil(async () => /1 asked/.test(await companionRow(r.page, 'HostFirmwareSettings')), 20_000, 'the ask on the page');
    t.is(await companionRow(r.page, 'HostUpdatePolicy'), 'firmwareSettings onReboot, firmwareUpdates onReboot');

    const bios = async () => ((await resources.get('HostFirmwareSettings', PROVISIONED))?.status?.['settings'] as Record<string, string>)['ProcTurboMode'];
    t.is(await bios(), 'Enabled', 'not applied before the click: a provisioned host waits for servicing');
    await r.page.getByTestId('cmd-service').click({ timeout: 20_000 });
    await waitUntil(() => answered(r.page, 'service'), 20_000, 'the service click answered');
    t.regex(await result(r.page), /^service: lab\/prov will be serviced/);
    await waitUntil(() => timelineHas(r.page, 'ServicingComplete'), 30_000, 'ServicingComplete in the page\'s timeline');
    t.true(await timelineHas(r.page, 'ServicingStarted'));
    t.false(await timelineHas(r.page, 'ServiceRefused'));
    // Read back after servicing: the BIOS has the setting, nothing is left to change.
    await waitUntil(async () => /1 asked; valid yes, changes no/.test(await companionRow(r.page, 'HostFirmwareSettings')), 20_000, 'no change left on the page');
    t.is(await bios(), 'Disabled');
    t.is((await r.node.store.get(PROVISIONED))?.metadata.annotations?.[SERVICE_ANNOTATION], undefined, 'the request is served');
    await waitUntil(() => r.node.fixture.node(PROVISIONED)?.power === true, 20_000, 'powered on again');
    t.is(await r.page.getByTestId('host-state').textContent(), 'provisioned', 'serviced in place, never deprovisioned');
  });
});
