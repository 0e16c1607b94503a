// The host page as one host's, in a real browser (Debian's chromium through playwright-core): going
// from one host's page to another's shows nothing of the first (its data, the answer to a command
// sent to it), and the commands a host was sent are read again once the server is back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import type { Page } from 'playwright-core';
import { commandGate, createUiHandler, type UiHandler } from '../../src/ui/index.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser, type Browser } from './browser.ts';
import { startUiFleet, type UiFleet } from './fleet.ts';

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

/** The dashboard behind a server the test steers: requests held until released, or dropped as a dead server drops them. */
interface Steered {
  readonly url: string;
  readonly token: string | null;
  /** Requests whose path starts with this are held until `release()`. */
  hold(prefix: string | null): void;
  release(): void;
  readonly held: string[];
  /** While down, every request's connection is dropped unanswered. */
  down: boolean;
  close(): Promise<void>;
}

async function steered(f: UiFleet, commands: boolean): Promise<Steered> {
  const gate = commandGate({ enabled: commands });
  const handler: UiHandler = createUiHandler({ transport: f.node.substrate.transport, gate, shardCount: 16, intervalMs: 200, bind: '127.0.0.1' });
  let prefix: string | null = null;
  let waiting: Array<() => void> = [];
  const held: string[] = [];
  const s = {
    down: false,
  };
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    if (!handler.handle(req, res)) {
      res.writeHead(404);
      res.end();
    }
  };
  const server: Server = createServer((req, res) => {
    if (s.down) {
      req.socket.destroy();
      return;
    }
    if (prefix !== null && req.url?.startsWith(prefix)) {
      held.push(req.url);
      waiting.push(() => answer(req, res));
      return;
    }
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = (): void => {
    prefix = null;
    const now = waiting;
    waiting = [];
    for (const go of now) go();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    token: gate.token,
    hold(p) { prefix = p; },
    release,
    held,
    get down() { return s.down; },
    set down(v: boolean) {
      s.down = v;
      if (v) server.closeAllConnections();
    },
    async close() {
      release();
      handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const text = async (page: Page, testId: string): Promise<string> => (await page.getByTestId(testId).first().textContent({ timeout: 20_000 })) ?? '';
const shown = async (page: Page, testId: string): Promise<string | null> => ((await page.getByTestId(testId).count()) === 0 ? null : text(page, testId));

test.serial('host page hunt - another host\'s page shows nothing of the host before it, not its data nor its command\'s answer', async (t) => {
  const f = await startUiFleet({ hosts: 2 });
  const s = await steered(f, true);
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(`${s.url}#token=${s.token ?? ''}`);
    await page.getByRole('link', { name: 'lab/web-0' }).click({ timeout: 20_000 });
    await waitUntil(async () => (await shown(page, 'host-key')) === 'lab/web-0', 20_000, 'the page of lab/web-0');
    await page.getByTestId('cmd-power-off').click();
    await waitUntil(async () => /^power-off: (?!sending)/.test(await text(page, 'command-result')), 20_000, 'the answer to the power-off');
    t.log(`web-0: ${await text(page, 'command-result')}`);

    // To lab/web-1's page (an address typed, or back and forward); its host is on its way.
    s.hold('/api/hosts/lab/web-1?');
    await page.evaluate("location.hash = '#/host/BareMetalHost/lab/web-1'");
    await waitUntil(() => s.held.length > 0, 20_000, 'the page asked for lab/web-1');
    // It was lab/web-0's data under lab/web-1's address, with buttons sending to lab/web-1, and
    // the power-off's answer as if lab/web-1 had been powered off.
    t.not(await shown(page, 'host-key'), 'lab/web-0', 'no data of lab/web-0 on lab/web-1\'s page');
    t.notRegex(await page.locator('main').textContent() ?? '', /power-off: /, 'no answer to lab/web-0\'s command');
    s.release();
    await waitUntil(async () => (await shown(page, 'host-key')) === 'lab/web-1', 20_000, 'the page of lab/web-1');
    t.is(await text(page, 'command-result'), '', 'nothing was sent to lab/web-1');
    t.deepEqual(errors, []);
  } finally {
    await page.close();
    await s.close();
    await f.stop();
  }
});

test.serial('host page hunt - a host page opened while the server was away reads the host\'s commands once it is back', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  const s = await steered(f, false);
  const page = await browser.context.newPage();
  try {
    await page.goto(s.url);
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 1, 20_000, 'the host table');
    s.down = true;
    // The fleet as last drawn stays on the screen: its host's link is still there to click.
    await page.getByRole('link', { name: 'lab/web-0' }).click({ timeout: 20_000 });
    await waitUntil(async () => /cannot reach metalfleet/.test((await shown(page, 'host-error')) ?? ''), 20_000, 'the page says it cannot reach metalfleet');
    s.down = false;
    await waitUntil(async () => (await shown(page, 'host-key')) === 'lab/web-0', 30_000, 'the host page once the server is back');
    // The audit read failed while the server was away; it was never asked again, and the page
    // said "reading the audit…" for good.
    await waitUntil(async () => (await shown(page, 'commands-note')) !== null, 20_000, 'the commands section read again');
    t.regex(await text(page, 'commands-note'), /no command audit here/);
    t.notRegex(await page.locator('section.host').textContent() ?? '', /reading the audit/);
  } finally {
    await page.close();
    await s.close();
    await f.stop();
  }
});
