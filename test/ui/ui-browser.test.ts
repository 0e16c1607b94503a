// The dashboard in a real browser (Debian's chromium through playwright-core) against an
// embedded node: the counts on the page are the introspection API's, a host page shows its
// timeline, a power-off clicked on the page reaches the host, the filter narrows the table, and
// a screenshot is kept as an artefact (.tmp/ui-artifacts/dashboard.png).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { gather } from '../../src/cluster/introspect/index.ts';
import { ROOT } from '../cli/run.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser, type Browser } from './browser.ts';
import { SECRETS, startUiFleet, type UiFleet } from './fleet.ts';

export const ARTIFACTS = join(ROOT, '.tmp', 'ui-artifacts');

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

async function withPage(o: { hosts?: number; commands?: boolean }, run: (page: Page, f: UiFleet) => Promise<void>): Promise<void> {
  const f = await startUiFleet(o);
  const page = await browser.context.newPage();
  // Anything the page asks of another origin is a failure: it must work with no internet.
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(f.ui.url)) foreign.push(r.url());
  });
  try {
    await run(page, f);
    if (foreign.length > 0) throw new Error(`the page asked other origins: ${foreign.join(', ')}`);
  } finally {
    await page.close();
    await f.stop();
  }
}

const text = async (page: Page, testId: string): Promise<string> => (await page.getByTestId(testId).textContent({ timeout: 20_000 })) ?? '';

test.serial('ui browser - the counts on the page are the introspection API\'s, and a screenshot is kept', async (t) => {
  await withPage({ hosts: 8 }, async (page, f) => {
    await page.goto(f.ui.url);
    const hosts = await gather(f.node.substrate.transport, 'hosts', {}, { timeoutMs: 2_000 });
    const rows = hosts.replies.flatMap((r) => r.value.hosts);
    await waitUntil(async () => (await text(page, 'hosts-total')) === String(rows.length), 20_000, 'the host count on the page');
    t.is(await text(page, 'state-provisioned'), String(rows.filter((h) => h.state === 'provisioned').length));
    t.is(await text(page, 'errors'), String(rows.filter((h) => h.errorType !== '').length));
    t.is(await page.getByTestId('host-row').count(), rows.length);
    t.true(await page.locator('[data-testid="state-chart"] canvas').count() > 0, 'uPlot drew the chart');
    t.true(await page.locator('.shard').count() > 0, 'the shard grid is drawn');
    // Each pool shows how long it stalled (a free slot beside a waiter, nothing granted): 0s here.
    const stalled = await page.getByTestId('pool-stalled').allTextContents();
    t.true(stalled.length > 0, 'the capacity table has a stalled column');
    t.true(stalled.every((s) => s === '0s'), `stalled: ${stalled.join(', ')}`);
    const html = await page.content();
    for (const s of SECRETS) t.false(html.includes(s), s);
    await mkdir(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, 'dashboard.png');
    await page.screenshot({ path: file, fullPage: true });
    t.log(`screenshot: ${file}`);
  });
});

test.serial('ui browser - in a phone-wide window the page does not scroll sideways: wide tables scroll inside their panel', async (t) => {
  await withPage({ hosts: 4 }, async (page, f) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(f.ui.url);
    await waitUntil(async () => (await text(page, 'hosts-total')) === '4', 20_000, 'the page drawn');
    // Every panel had at least 420 px: the capacity and cluster columns were off-screen at 375.
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    t.true(width <= 375, `the page is ${width} px wide in a 375 px window`);
  });
});

test.serial('ui browser - the filter narrows the host table and a column header sorts it', async (t) => {
  await withPage({ hosts: 6 }, async (page, f) => {
    await page.goto(f.ui.url);
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 6, 20_000, 'six rows');
    await page.getByTestId('host-filter').fill('web-3');
    await waitUntil(async () => (await page.getByTestId('host-row').count()) === 1, 10_000, 'one row left');
    t.regex(await page.getByTestId('host-row').first().textContent() ?? '', /lab\/web-3/);
    await page.getByTestId('host-filter').fill('');
    await page.getByTestId('sort-key').click();
    await waitUntil(async () => /web-5/.test(await page.getByTestId('host-row').first().textContent() ?? ''), 10_000, 'sorted descending');
    t.regex(await page.getByTestId('host-row').first().textContent() ?? '', /lab\/web-5/, 'sorted descending: the last name first');
    t.is(await page.getByTestId('host-row').count(), 6, 'the cleared filter shows every host again');
  });
});

test.serial('ui browser - a host page shows its timeline, with the transitions the API has', async (t) => {
  await withPage({ hosts: 3 }, async (page, f) => {
    await page.goto(f.ui.url);
    await page.getByRole('link', { name: 'lab/web-1' }).click({ timeout: 20_000 });
    await waitUntil(async () => (await text(page, 'host-key')) === 'lab/web-1', 20_000, 'the host page');
    const api = await (await fetch(`${f.ui.url}api/hosts/lab/web-1`)).json() as { timeline: Array<{ reason: string }> };
    t.true(api.timeline.length >= 2);
    await waitUntil(async () => (await page.getByTestId('timeline-row').count()) >= api.timeline.length, 20_000, 'the timeline rows');
    const rows = await page.getByTestId('timeline-row').allTextContents();
    for (const step of api.timeline) t.true(rows.some((r) => r.includes(step.reason)), step.reason);
    t.is(await text(page, 'host-state'), 'provisioned');
    // BMO's conditions for a provisioned host, as the status the API serves has them.
    await waitUntil(async () => (await page.getByTestId('condition-row').count()) >= 6, 20_000, 'the conditions table');
    const ready = page.locator('[data-testid="condition-row"][data-type="Ready"]');
    t.is(await ready.getAttribute('data-status'), 'True');
    t.regex(await ready.innerText(), /Provisioned/);
    t.is(await page.locator('[data-testid="condition-row"][data-type="Progressing"]').getAttribute('data-status'), 'False');
    t.true(await page.getByTestId('cmd-power-off').isDisabled(), 'read-only without --ui-commands');
    t.true(await page.getByTestId('cmd-attach').isDisabled(), 'attach is a button too, read-only here');
  });
});

test.serial('ui browser - a power-off clicked on the host page reaches the host', async (t) => {
  await withPage({ hosts: 2, commands: true }, async (page, f) => {
    await page.goto(`${f.ui.url}#token=${f.token ?? ''}`);
    await page.getByRole('link', { name: 'lab/web-0' }).click({ timeout: 20_000 });
    await page.getByTestId('cmd-power-off').click({ timeout: 20_000 });
    await waitUntil(async () => /power-off: /.test(await text(page, 'command-result')) && !/sending/.test(await text(page, 'command-result')), 20_000, 'the command answered');
    t.notRegex(await text(page, 'command-result'), /refused/);
    await waitUntil(() => f.node.fixture.node('lab/web-0')?.power === false, 20_000, 'the host powered off');
    t.true(f.node.fixture.node('lab/web-1')?.power, 'the other host is untouched');
    t.notRegex(page.url(), /token=/, 'the token left the address bar');
  });
});
