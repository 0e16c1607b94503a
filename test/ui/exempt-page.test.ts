// The dashboard's capacity and cluster sections, in Debian's chromium: a pool whose holders are
// mostly exempt from its limit (the page showed 8/3 in use), the longest wait of a pool nobody
// waits in, names for the shard squares and the meter column, and no /favicon.ico asked for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { gather } from '../../src/cluster/introspect/index.ts';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser, type Browser } from './browser.ts';
import { startUiFleet } from './fleet.ts';

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

/** A pass-through HTTP proxy in front of `target` that records every path asked (the browser's own requests too, which playwright does not report). */
async function recordingProxy(target: string): Promise<{ url: string; paths: string[]; close(): void }> {
  const to = new URL(target);
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${to.search}${to.hash}`,
    paths,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

test.serial('exempt page - a pool shows its bounded slots against the limit and the exempt ones beside it', async (t) => {
  const LIMIT = 3;
  const EXEMPT = 5;
  const plain = Array.from({ length: LIMIT + 2 }, (_, i) => bmh(`plain-${i}`, { credentialsName: 'bmc' }));
  const media = Array.from({ length: EXEMPT }, (_, i) => bmh(`media-${i}`, { credentialsName: 'bmc', address: `redfish-virtualmedia://10.0.1.${i + 1}/redfish/v1/Systems/1` }));
  // Inspection takes long: every host granted a slot holds it while the page is looked at.
  const node = await startTestNode({
    objects: [secret('bmc', 'lab', { username: 'u', password: 'p' }), ...plain, ...media],
    fixture: { latencyMs: { inspect: 30_000 }, demoBehaviours: false },
    limit: LIMIT,
  });
  const ui = await startUiServer({ transport: node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  const page = await browser.context.newPage();
  try {
    await waitUntil(async () => {
      const capacity = await gather(node.substrate.transport, 'capacity', {}, { timeoutMs: 2_000 });
      return capacity.replies.flatMap((r) => r.value.pools)[0]?.inUseCount === LIMIT + EXEMPT;
    }, 60_000, `${LIMIT + EXEMPT} slots in use`);
    await page.goto(ui.url);
    const cell = page.getByTestId('pool-in-use').first();
    const want = `${LIMIT}/${LIMIT} (+${EXEMPT} exempt)`;
    await cell.waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await cell.textContent()) === want, 20_000, `the page showing ${want}`).catch(() => undefined);
    t.is(await cell.textContent(), want, 'bounded/limit, as `metalfleet top` shows it');
    // The meter is the bounded share: full, not past full.
    const meter = page.getByTestId('pools').locator('tbody tr').first().locator('.meter > div');
    t.regex(await meter.getAttribute('style') ?? '', /width: 100%/);
  } finally {
    await page.close();
    await ui.close();
    await node.node.stop();
  }
});

test.serial('exempt page - no wait shows "-", shard squares and the meter column have names, and no /favicon.ico is asked for', async (t) => {
  const f = await startUiFleet({ hosts: 3 });
  const proxy = await recordingProxy(f.ui.url);
  const page = await browser.context.newPage();
  try {
    await page.goto(proxy.url);
    const row = page.getByTestId('pools').locator('tbody tr').first();
    await row.waitFor({ timeout: 20_000 });
    // Every host is provisioned: nobody waits, as `metalfleet capacity` says with '-'.
    t.is(await row.locator('td').nth(3).textContent(), '0');
    t.is(await row.locator('td').nth(4).textContent(), '-', 'the longest wait cell');

    // The meter's column has a name a screen reader reads, kept out of sight.
    const header = page.getByTestId('pools').locator('thead th').nth(2);
    t.not((await header.textContent())?.trim() ?? '', '', 'the meter column header is not empty');
    t.is(await page.getByTestId('pools').getByRole('columnheader', { name: 'share of the limit' }).count(), 1);
    const label = header.locator('span');
    // (In the page; this file is compiled without the DOM's types.)
    t.is(await label.evaluate((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { position: string } }).getComputedStyle(e).position), 'absolute');
    t.true((await label.boundingBox())!.width <= 1, 'the label is visually hidden');

    // Each shard square is named: its number, its owner, its hosts.
    const owned = await page.getByTestId('shards').locator('.shard').count();
    t.true(owned > 0);
    const names = await page.getByTestId('shards').getByRole('img').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    t.is(names.length, owned);
    for (const name of names) t.regex(name, /^shard \d+, owner test-node-\d+, \d+ hosts?$/);
    const hosts = names.reduce((n, name) => n + Number(/(\d+) hosts?$/.exec(name)?.[1] ?? 0), 0);
    t.is(hosts, 3, 'the named host counts add up to the fleet');

    t.regex(await page.evaluate<string>('document.querySelector(\'link[rel~="icon"]\')?.getAttribute("href") ?? ""'), /^data:/);
    // The browser asks for a favicon once the document has loaded, beside the page's first requests:
    // two more pictures after it drew, it would have asked.
    const updated = await page.getByTestId('updated').textContent();
    await waitUntil(async () => (await page.getByTestId('updated').textContent()) !== updated, 10_000, 'a later picture');
    t.true(proxy.paths.includes('/api/events'), 'the page went through the proxy');
    t.deepEqual(proxy.paths.filter((p) => p.startsWith('/favicon')), [], 'no favicon request');
  } finally {
    await page.close();
    proxy.close();
    await f.stop();
  }
});
