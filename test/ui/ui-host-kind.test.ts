// The host page looks an object up by its kind, as commands do: a BareMetalHost and a MaasMachine
// of the same name each have their page (the URL carries the kind, the rows link with it), no kind
// is the BareMetalHost, and an unknown kind is refused naming it. The API first, then the page.
import test from 'ava';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { startServedMaasNode, maasMachineObject } from '../support/maas-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

test('ui host kind - a BareMetalHost and a MaasMachine of the same name each have their page', async (t) => {
  // The browser first: one that cannot start leaves nothing else running.
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const served = await startServedMaasNode('ui');
  const { it, client, source } = served;
  const ui = await startUiServer({ transport: client, gate: commandGate({ enabled: false }), shardCount: 8, nodes: ['embedded'], intervalMs: 200, port: 0, bind: '127.0.0.1' });
  try {
    t.true((await it.apply([secret('bmc', 'capi'), bmh('twin', { namespace: 'capi' }), maasMachineObject('twin')])).ok);
    await waitUntil(async () => (await source.hosts({})).filter((r) => r.key === 'capi/twin').length === 2, 10_000, 'both objects driven');

    const api = async (query: string): Promise<{ status: number; body: { kind?: string; key?: string; error?: string } }> => {
      const res = await fetch(`${ui.url}api/hosts/capi/twin${query}`);
      return { status: res.status, body: await res.json() as { kind?: string; error?: string } };
    };
    t.like(await api('?kind=MaasMachine'), { status: 200, body: { key: 'capi/twin', kind: 'MaasMachine' } });
    t.like(await api('?kind=BareMetalHost'), { status: 200, body: { key: 'capi/twin', kind: 'BareMetalHost' } });
    t.like(await api(''), { status: 200, body: { key: 'capi/twin', kind: 'BareMetalHost' } }, 'no kind: the BareMetalHost');
    t.deepEqual(await api('?kind=Pod'), { status: 400, body: { error: '/api/hosts/capi/twin: unknown kind "Pod": a host page shows one of BareMetalHost, MaasMachine' } });

    const page = await browser.context.newPage();
    await page.goto(ui.url);
    const rows = page.getByTestId('host-row');
    await waitUntil(async () => (await rows.count()) === 2, 20_000, 'both rows in the hosts table');
    const links = (await Promise.all((await rows.all()).map((r) => r.locator('a').getAttribute('href')))).sort();
    t.deepEqual(links, ['#/host/BareMetalHost/capi/twin', '#/host/MaasMachine/capi/twin']);

    const headline = async (): Promise<string> => (await page.locator('section.host p').first().textContent()) ?? '';
    for (const kind of ['MaasMachine', 'BareMetalHost']) {
      await page.locator(`a[href="#/host/${kind}/capi/twin"]`).first().click();
      await waitUntil(async () => (await page.getByTestId('host-key').count()) === 1 && (await headline()).startsWith(`${kind} on `), 20_000, `the ${kind} page`);
      t.is(await page.getByTestId('host-key').textContent(), 'capi/twin');
      await page.goto(`${ui.url}#/`);
      await waitUntil(async () => (await rows.count()) === 2, 20_000, 'back on the fleet');
    }
    // A URL without a kind (as links had it) is the BareMetalHost; an unknown kind says why not.
    await page.goto(`${ui.url}#/host/capi/twin`);
    await waitUntil(async () => (await page.getByTestId('host-key').count()) === 1 && (await headline()).startsWith('BareMetalHost on '), 20_000, 'the kindless page');
    await page.goto(`${ui.url}#/host/Pod/capi/twin`);
    await waitUntil(async () => (await page.getByTestId('host-error').count()) === 1, 20_000, 'the refusal');
    t.is(await page.getByTestId('host-error').textContent(), '/api/hosts/capi/twin: unknown kind "Pod": a host page shows one of BareMetalHost, MaasMachine');
    await page.close();
  } finally {
    await ui.close();
    await served.stop();
  }
});
