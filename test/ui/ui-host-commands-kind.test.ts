// The host page's Commands section of a BareMetalHost and of a MaasMachine that share a name: each
// lists only the commands sent to its own object (read from the audit on a real nats-server), and
// both the command recorded before the audit kept a kind, which cannot be told apart. The host's
// own detail is answered by the test (no node serves introspection here): what is under test is
// the section, which asks the dashboard for the commands of the page's kind.
import test from 'ava';
import type { Page } from 'playwright-core';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { KEY, SHARDS, twins } from '../security/audit-twins.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';

if (!natsServerInstalled()) test('ui host commands kind - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

function detail(kind: string): unknown {
  return {
    key: KEY, kind, backend: kind === 'MaasMachine' ? 'maas' : 'fixture', state: 'provisioned', stateSinceMs: 1_000, node: 'node-a',
    spec: {}, status: {}, timeline: [], inFlight: null, slot: { phase: 'none' }, retryAt: null, nextAttemptInMs: null, shard: 0, epoch: 1,
  };
}

test('ui host commands kind - the Commands section of each of two same-named objects shows only its own commands', async (t) => {
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const { client } = await twins(t);
  const ui = await startUiServer({ transport: client, gate: commandGate({ enabled: false }), shardCount: SHARDS, nodes: ['node-a'], intervalMs: 60_000, port: 0, bind: '127.0.0.1' });
  t.teardown(() => ui.close());
  const page: Page = await browser.context.newPage();
  await page.route((url) => url.pathname === '/api/hosts/capi/twin', (route) => {
    const kind = new URL(route.request().url()).searchParams.get('kind') ?? 'BareMetalHost';
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(detail(kind)) });
  });
  const rows = page.getByTestId('command-row');
  const shown = async (): Promise<string[]> => Promise.all((await rows.all()).map(async (r) => (await r.locator('td').nth(1).textContent()) ?? ''));
  const expected: Record<string, string[]> = { MaasMachine: ['release', 'pause', 'reboot'], BareMetalHost: ['powerOff', 'reboot'] };
  for (const kind of ['MaasMachine', 'BareMetalHost']) {
    await page.goto(`${ui.url}#/host/${kind}/capi/twin`);
    await waitUntil(async () => (await rows.count()) > 0 || (await page.getByTestId('commands-note').count()) > 0, 20_000, `the ${kind} page's commands`);
    t.deepEqual(await shown(), expected[kind], kind);
  }
  await page.close();
});
