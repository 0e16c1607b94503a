// The host table draws 300 rows at a time: past them, pages. Before, a fleet of more than 300 hosts
// showed "first 300 shown" and the rest could be reached only by filtering for them.
import test from 'ava';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser } from './browser.ts';
import { startUiFleet } from './fleet.ts';

test('ui host pages - a fleet of more than 300 hosts is paged: next, previous, and a filter back to the first page', async (t) => {
  const browser = await launchBrowser();
  t.teardown(() => browser.close());
  const f = await startUiFleet({ hosts: 305 });
  const page = await browser.context.newPage();
  try {
    await page.goto(f.ui.url);
    const rows = page.getByTestId('host-row');
    const count = async (): Promise<string> => (await page.getByTestId('host-count').textContent()) ?? '';
    await waitUntil(async () => /305 of 305/.test(await count()), 30_000, 'every host in the table');
    t.is(await rows.count(), 300);
    t.regex(await count(), /1–300 shown/);
    t.true(await page.getByTestId('page-previous').isDisabled());
    // From the keyboard: the pager's buttons are reached and pressed as any button.
    await page.getByTestId('page-next').focus();
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await rows.count()) === 5, 10_000, 'the second page');
    t.regex(await count(), /301–305 shown/);
    t.is(await page.getByTestId('page-at').textContent(), ' page 2 of 2 ');
    // Sorted by name (localeCompare): the last five of the 305 names.
    const names = f.keys.slice().sort((a, b) => a.localeCompare(b));
    t.deepEqual((await rows.locator('td:first-child').allTextContents()), names.slice(300));
    t.true(await page.getByTestId('page-next').isDisabled());
    // A filter starts again at the first page.
    await page.getByTestId('host-filter').fill('web-1');
    await waitUntil(async () => /of 305$/.test((await count()).trim()), 10_000, 'the filtered count');
    t.is(await page.getByTestId('page-next').count(), 0, 'one page: no pager');
    t.true(await rows.count() > 0);
    await page.getByTestId('host-filter').fill('');
    await waitUntil(async () => (await rows.count()) === 300, 10_000, 'the first page again');
    await page.getByTestId('page-next').click();
    await waitUntil(async () => (await rows.count()) === 5, 10_000, 'the second page again');
    await page.getByTestId('page-previous').click();
    await waitUntil(async () => (await rows.count()) === 300, 10_000, 'back to the first page');
  } finally {
    await page.close();
    await f.stop();
  }
});
