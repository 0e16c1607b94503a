// The page's `service` button on an Ironic host, in a real browser (Debian's chromium through
// playwright-core): the click goes through the host command path to a node that drives Ironic's
// API test server (test/support/ironic-api; the installed Ironic 21.4 serves API 1.82, servicing
// needs 1.87). At 1.87 the provisioned host is serviced in place: the BIOS setting its
// HostUpdatePolicy allows changes on the server, one `service` verb, never a second deploy. At 1.82
// the host ends in `servicing error` naming the version it needs, shown on the page, and Ironic is
// sent no service verb. A recorder between node and server shows what Ironic received. (The host
// page could not show a host waiting on such an error until the inspect reply said so: its
// unscheduled retry went out as Infinity, which the reply's schema refuses.)
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import type { UiServer } from '../../src/ui/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import type { IronicTestNode } from '../support/ironic-node.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';
import type { Browser } from './browser.ts';

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

interface Rig { readonly n: IronicTestNode; readonly s: IronicApiServer; readonly recorder: Recorder; readonly ui: UiServer; readonly page: Page; readonly token: string }

/** The API test server at `maxVersion`, a node driving it through a recorder, the page with commands on. */
async function rig(t: ExecutionContext, maxVersion: string): Promise<Rig> {
  const s = await startIronicApiServer({ maxVersion, phaseDelayMs: 5 });
  t.teardown(() => s.close());
  const recorder = await startRecorder(s.url);
  t.teardown(() => recorder.stop());
  const n = await startIronicNode({ url: recorder.url, name: `ui-service-${maxVersion.replace('.', '-')}`, driverOverride: { hardwareType: 'fake-hardware', firmwareInterface: 'fake' } });
  t.teardown(async () => {
    await n.stop();
    n.client.close();
  });
  const gate = commandGate({ enabled: true });
  const ui = await startUiServer({ transport: n.substrate.transport, gate, shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  t.teardown(() => ui.close());
  const page = await browser.context.newPage();
  t.teardown(() => page.close());
  await apply(n, [bmcSecret()]);
  return { n, s, recorder, ui, page, token: gate.token ?? '' };
}

async function apply(n: IronicTestNode, objects: unknown[]): Promise<void> {
  const applied = await n.store.applyObjects(objects);
  if (!applied.ok) throw new Error(`refused: ${JSON.stringify(applied.issues)}`);
}

const meta = (name: string) => ({ name, namespace: 'lab' });
const policy = (name: string) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostUpdatePolicy', metadata: meta(name), spec: { firmwareSettings: 'onReboot', firmwareUpdates: 'onReboot' } });
const settings = (name: string, s: Record<string, string>) => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', metadata: meta(name), spec: { settings: s } });

/** A provisioned host whose BIOS settings were read, with a change its policy allows on reboot. */
async function provisionedWithChange(r: Rig, name: string): Promise<string> {
  const key = `lab/${name}`;
  await apply(r.n, [ironicHost(name)]);
  const stats = () => r.n.node.stats.hosts.get(key);
  await waitUntil(() => stats()?.state === 'provisioned' && stats()?.operationalStatus === 'OK', 30_000, `${name} provisioned`);
  const read = async () => ((await r.n.store.resources.get('HostFirmwareSettings', key))?.status as { settings?: Record<string, string> } | undefined)?.settings;
  await waitUntil(async () => (await read())?.['LogicalProc'] === 'Enabled', 10_000, 'settings read');
  await apply(r.n, [policy(name), settings(name, { LogicalProc: 'Disabled' })]);
  return key;
}

async function openHost(r: Rig, key: string): Promise<void> {
  await r.page.goto(`${r.ui.url}#token=${r.token}`);
  await r.page.getByRole('link', { name: key, exact: true }).click({ timeout: 20_000 });
  await waitUntil(async () => (await r.page.getByTestId('host-key').textContent({ timeout: 20_000 })) === key, 20_000, `the page of ${key}`);
}

async function clickService(r: Rig): Promise<string> {
  await r.page.getByTestId('cmd-service').click({ timeout: 20_000 });
  const result = async () => (await r.page.getByTestId('command-result').textContent()) ?? '';
  await waitUntil(async () => (await result()).startsWith('service') && !/sending/.test(await result()), 20_000, 'the service click answered');
  return result();
}

const timeline = (page: Page) => page.getByTestId('timeline-row').allTextContents();
/** The provision verbs Ironic accepted for the host's node, in order. */
const verbs = (r: Rig, name: string) => r.recorder.calls
  .filter((c) => c.route === 'PUT /v1/nodes/{node}/states/provision' && c.status === 202 && c.node === `lab~${name}`)
  .map((c) => String((c.body as { target?: unknown }).target));

test.serial('ui service on Ironic API 1.87 - the click services the provisioned host in place: the BIOS setting changes on Ironic, one service verb, deployed once', async (t) => {
  const r = await rig(t, '1.87');
  const key = await provisionedWithChange(r, 'svc-page');
  await openHost(r, key);
  t.regex(await clickService(r), /^service: lab\/svc-page will be serviced/);
  await waitUntil(async () => (await timeline(r.page)).some((row) => row.includes('ServicingComplete')), 30_000, 'ServicingComplete on the page');
  t.true((await timeline(r.page)).some((row) => row.includes('ServicingStarted')));
  t.is(r.s.node('lab~svc-page')?.bios['LogicalProc'], 'Disabled', 'Ironic applied the setting');
  t.is(r.s.node('lab~svc-page')?.provisionState, 'active');
  const sent = verbs(r, 'svc-page');
  t.is(sent.filter((v) => v === 'service').length, 1, sent.join(','));
  t.is(sent.filter((v) => v === 'active' || v === 'rebuild').length, 1, `never deployed again: ${sent.join(',')}`);
  await waitUntil(async () => /changes no/.test(await r.page.locator('[data-testid="host-companions"] tr', { hasText: 'HostFirmwareSettings' }).textContent() ?? ''), 20_000, 'no change left on the page');
  t.is(await r.page.getByTestId('host-state').textContent(), 'provisioned');
});

test.serial('ui service on Ironic API 1.82 - the click ends in servicing error naming API 1.87, shown on the page; Ironic is sent no service verb', async (t) => {
  const r = await rig(t, '1.82');
  const key = await provisionedWithChange(r, 'svc-old');
  await openHost(r, key);
  t.regex(await clickService(r), /^service: lab\/svc-old will be serviced/);
  const refusal = /servicing needs Ironic API 1\.87 or later; this Ironic offers up to 1\.82/;
  const shown = async () => (await r.page.locator('body').textContent()) ?? '';
  try {
    await waitUntil(async () => refusal.test(await shown()), 30_000, 'the refusal on the page');
  } catch (err) {
    throw new Error(`${(err as Error).message}; the page: ${(await shown()).slice(0, 3000)}`);
  }
  const status = (await r.n.store.get(key))?.status;
  t.is(status?.errorType, 'servicing error');
  t.regex(status?.errorMessage ?? '', refusal);
  t.is(await r.page.getByTestId('host-state').textContent(), 'provisioned', 'the workload stays');
  // No timer: the next attempt waits for the user's change (BMO: errors that need a spec fix).
  t.regex(await shown(), /backoff: none until the host or its Secret changes/);
  t.false(verbs(r, 'svc-old').includes('service'), 'no service verb sent');
  t.is(r.s.node('lab~svc-old')?.bios['LogicalProc'], 'Enabled', 'nothing applied');
});
