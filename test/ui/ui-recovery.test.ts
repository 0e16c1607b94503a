// The page when the server goes away or answers an error, in a real browser (Debian's chromium
// through playwright-core): a command sent into a dead server says it got no answer instead of
// "sending…" for ever, and the live picture comes back after an error answer on its stream.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Page } from 'playwright-core';
import { commandGate, createUiHandler } from '../../src/ui/index.ts';
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

const text = async (page: Page, testId: string): Promise<string> => (await page.getByTestId(testId).textContent({ timeout: 20_000 })) ?? '';
const banners = async (page: Page): Promise<string> => (await page.locator('main > p.bad').allTextContents()).join(' | ');

test.serial('ui recovery - a command sent after the server went away says it got no answer, and the buttons work again', async (t) => {
  const f = await startUiFleet({ hosts: 1, commands: true });
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${f.ui.url}#token=${f.token ?? ''}`);
    await page.getByRole('link', { name: 'lab/web-0' }).click({ timeout: 20_000 });
    await waitUntil(async () => (await text(page, 'host-key')) === 'lab/web-0', 20_000, 'the host page');
    // The node and its dashboard are gone; the page is still on the screen.
    await f.ui.close();
    await page.getByTestId('cmd-power-off').click();
    await waitUntil(async () => /no answer/.test(await text(page, 'command-result')), 20_000, 'the page says the command got no answer');
    const result = await text(page, 'command-result');
    t.notRegex(result, /sending/);
    t.regex(result, /^power-off: no answer from metalfleet/);
    t.regex(result, /check the host/);
    // Both are live regions a screen reader announces: the answer and the lost connection.
    t.is(await page.getByRole('status').textContent(), result);
    t.regex(await page.getByRole('alert').textContent() ?? '', /connection to metalfleet lost/);
    t.false(await page.getByTestId('cmd-power-off').isDisabled(), 'the buttons are usable again');
    // Its refresh failed too: the host as last read stays under the banner, not "Failed to fetch".
    t.is(await text(page, 'host-key'), 'lab/web-0');
    t.regex(await banners(page), /connection to metalfleet lost/);
    t.deepEqual(errors, [], 'no uncaught error in the page');
  } finally {
    await page.close();
    await f.stop();
  }
});

test.serial('ui recovery - after its stream was answered with an error, the page says so, retries, and draws the live picture again', async (t) => {
  const f = await startUiFleet({ hosts: 2 });
  // The dashboard behind something that answers an error for a while, as a proxy does while the
  // node behind it restarts: the browser's EventSource gives up on a non-stream answer for good.
  let failing = false;
  const answered: number[] = [];
  const handler = createUiHandler({ transport: f.node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, intervalMs: 200, bind: '127.0.0.1' });
  const server: Server = createServer((req, res) => {
    if (failing && req.url === '/api/events') {
      answered.push(503);
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<h1>503 Service Unavailable</h1>');
      return;
    }
    if (req.url === '/api/events') answered.push(200);
    if (!handler.handle(req, res)) {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const page = await browser.context.newPage();
  try {
    await page.goto(url);
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 2, 20_000, 'the host table');
    failing = true;
    server.closeAllConnections();
    await waitUntil(() => answered.includes(503), 20_000, 'the stream asked again and answered 503');
    await waitUntil(async () => /metalfleet/.test(await banners(page)), 20_000, 'the page says the picture stopped');
    t.log(`while failing: ${await banners(page)}`);
    const before = await text(page, 'updated');
    failing = false;
    const served = answered.filter((s) => s === 200).length;
    await waitUntil(() => answered.filter((s) => s === 200).length > served, 30_000, 'the page asked for the stream again');
    await waitUntil(async () => (await banners(page)) === '' && (await text(page, 'updated')) !== before, 30_000, 'the live picture is back and the problem gone');
    t.is(await page.getByTestId('host-row').count(), 2);
  } finally {
    await page.close();
    handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await f.stop();
  }
});
