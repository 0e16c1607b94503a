// The dashboard as an operator uses it, in Debian's chromium: an address with broken
// percent-encoding, the host table from the keyboard, and the capacity figures of a pool with
// more slots in use than the broker lists.
import test from 'ava';
import type { Page } from 'playwright-core';
import { gather } from '../../src/cluster/introspect/index.ts';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
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

async function withPage(run: (page: Page, f: UiFleet, errors: string[]) => Promise<void>): Promise<void> {
  const f = await startUiFleet({ hosts: 6 });
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await run(page, f, errors);
  } finally {
    await page.close();
    await f.stop();
  }
}

const rowsText = async (page: Page): Promise<string[]> => page.getByTestId('host-row').allTextContents();

test.serial('introspect page - an address with broken percent-encoding says so; the page does not go blank', async (t) => {
  await withPage(async (page, f, errors) => {
    await page.goto(`${f.ui.url}#/host/lab/web-%E0%A4%A`);
    const error = page.getByTestId('host-error');
    await error.waitFor({ timeout: 20_000 });
    t.regex(await error.textContent() ?? '', /not a host address/);
    // Back to the fleet by the page's own link, then a broken address typed while it is open.
    await page.getByRole('link', { name: '← fleet' }).click();
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 6, 20_000, 'the fleet again');
    await page.evaluate("location.hash = '#/host/lab/%zz'");
    await error.waitFor({ timeout: 10_000 });
    t.regex(await page.locator('main').textContent() ?? '', /metalfleet/, 'the header is still drawn');
    t.deepEqual(errors, [], 'no uncaught error in the page');
  });
});

test.serial('introspect page - the host table sorts from the keyboard, and its headers say how it is sorted', async (t) => {
  await withPage(async (page, f) => {
    await page.goto(f.ui.url);
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 6, 20_000, 'six rows');
    const header = page.getByTestId('sort-key');
    t.is(await header.getAttribute('aria-sort'), 'ascending');
    t.is(await page.getByTestId('sort-state').getAttribute('aria-sort'), 'none');
    t.regex((await rowsText(page))[0] ?? '', /lab\/web-0/);
    // From the filter box, the next Tab stop is the first column's sort control.
    await page.getByTestId('host-filter').focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate("document.activeElement?.closest('th')?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? ''");
    t.is(focused, 'sort-key');
    await page.keyboard.press('Enter');
    await waitUntil(async () => /lab\/web-5/.test((await rowsText(page))[0] ?? ''), 10_000, 'sorted descending by Enter');
    t.is(await header.getAttribute('aria-sort'), 'descending');
    await page.keyboard.press('Space');
    await waitUntil(async () => /lab\/web-0/.test((await rowsText(page))[0] ?? ''), 10_000, 'ascending again by Space');
    t.is(await header.getAttribute('aria-sort'), 'ascending');
    t.is(await page.getByRole('searchbox', { name: 'filter hosts' }).count(), 1, 'the filter box has a name');
  });
});

test.serial('introspect page - a pool shows the slots in use the broker counts, past the 200 holders it lists', async (t) => {
  const HOSTS = 230;
  const hosts = Array.from({ length: HOSTS }, (_, i) => bmh(`big-${String(i).padStart(3, '0')}`, { credentialsName: 'bmc' }));
  // Inspection takes long: every host holds an inspect slot while the page is looked at.
  const node = await startTestNode({
    objects: [secret('bmc', 'lab', { username: 'u', password: 'p' }), ...hosts],
    fixture: { latencyMs: { inspect: 30_000 }, demoBehaviours: false },
    limit: 1_000,
  });
  const ui = await startUiServer({ transport: node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  const page = await browser.context.newPage();
  try {
    let inUse = 0;
    await waitUntil(async () => {
      const capacity = await gather(node.substrate.transport, 'capacity', {}, { timeoutMs: 2_000 });
      const pool = capacity.replies.flatMap((r) => r.value.pools)[0];
      inUse = pool?.inUseCount ?? 0;
      return inUse === HOSTS;
    }, 60_000, `all ${HOSTS} hosts holding a slot`);
    await page.goto(ui.url);
    // The pool's "in use" cell, second in its row.
    const cell = page.getByTestId('pools').locator('tbody tr').first().locator('td').nth(1);
    await cell.waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await cell.textContent()) === `${HOSTS}/1000`, 20_000, `the page showing ${HOSTS}/1000 in use`).catch(() => undefined);
    t.is(await cell.textContent(), `${HOSTS}/1000`, 'the broker\'s count, as `metalfleet capacity` shows it');
  } finally {
    await page.close();
    await ui.close();
    await node.node.stop();
  }
});

test.serial('introspect page - a host with a message but no error type shows the message in its row, as `metalfleet hosts` does', async (t) => {
  const waiting = bmh('ud-wait', { credentialsName: 'bmc' }) as { spec: Record<string, unknown> };
  waiting.spec['userData'] = { name: 'ud-missing' };
  const node = await startTestNode({ objects: [secret('bmc', 'lab', { username: 'u', password: 'p' }), waiting, bmh('fine', { credentialsName: 'bmc' })], fixture: { latencyMs: 1 } });
  const ui = await startUiServer({ transport: node.substrate.transport, gate: commandGate({ enabled: false }), shardCount: 16, intervalMs: 200, port: 0, bind: '127.0.0.1' });
  const page = await browser.context.newPage();
  try {
    await waitUntil(async () => (await node.store.get('lab/ud-wait'))?.status?.operationalStatus === 'delayed', 15_000, 'lab/ud-wait delayed');
    await page.goto(ui.url);
    const row = page.getByTestId('host-row').filter({ hasText: 'lab/ud-wait' });
    await row.waitFor({ timeout: 20_000 });
    const cell = row.locator('td').nth(6);
    await waitUntil(async () => /waiting for Secret/.test(await cell.textContent() ?? ''), 10_000, 'the wait in the error cell').catch(() => undefined);
    t.regex(await cell.textContent() ?? '', /^waiting for Secret lab\/ud-missing/);
    // The filter finds it by its message too.
    await page.getByTestId('host-filter').fill('ud-missing');
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 1, 10_000, 'one row by its message');
    t.regex(await page.getByTestId('host-row').first().textContent() ?? '', /lab\/ud-wait/);
  } finally {
    await page.close();
    await ui.close();
    await node.node.stop();
  }
});
