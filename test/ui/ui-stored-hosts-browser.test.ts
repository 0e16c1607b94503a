// The dashboard in a real browser (Debian's chromium through playwright-core) right after a node
// of a two-node cluster was killed with -9: its shard leases stand until their TTL, so no node
// drives its hosts for a while. The fleet list still shows every host, the killed node's with
// node `-` and a line saying they are shown as the survivor's store last had them; the host page
// of one of them says no node drives it now, whose store it is read from and how old the status
// is, for a BareMetalHost ("status written") and a MaasMachine ("its newest condition changed"),
// and shows no credential.
import test, { type ExecutionContext } from 'ava';
import type { Locator, Page } from 'playwright-core';
import { commandGate, startUiServer, type UiServer } from '../../src/ui/index.ts';
import { samplePicture } from '../../src/ui/picture.ts';
import { BMC_PASSWORD, withCluster, type Cluster } from '../support/cluster.ts';
import { maasKilledNodeFleet } from '../support/maas-killed-node-fleet.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';
import { launchBrowser, type Browser } from './browser.ts';

if (!natsServerInstalled()) test('ui stored hosts browser - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

let browser: Browser;
test.before(async () => {
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
});

/** The page served against the cluster's NATS (its live members), open in chromium; nothing asked of another origin. */
async function withPage(c: Cluster, run: (page: Page, ui: UiServer) => Promise<void>): Promise<void> {
  const ui = await startUiServer({ transport: c.transport, gate: commandGate({ enabled: false }), shardCount: c.options.shards, intervalMs: 300, port: 0, bind: '127.0.0.1' });
  const page = await browser.context.newPage();
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(ui.url)) foreign.push(r.url());
  });
  try {
    await run(page, ui);
    if (foreign.length > 0) throw new Error(`the page asked other origins: ${foreign.join(', ')}`);
  } finally {
    await page.close();
    await ui.close();
  }
}

/** Each row of the fleet list: its host's name, kind and node column. */
async function fleetRows(page: Page): Promise<Array<{ key: string; kind: string; node: string }>> {
  return Promise.all((await page.getByTestId('host-row').all()).map(async (row) => {
    const cells = await row.locator('td').allTextContents();
    return { key: cells[0] ?? '', kind: cells[1] ?? '', node: cells[5] ?? '' };
  }));
}

/** The hosts of `kind` each node drives, as one sample of every node has them. */
async function drivenBy(c: Cluster, kind: string, ready: (h: { state: string }) => boolean): Promise<{ total: number; byNode: Map<string, string[]> }> {
  const picture = await samplePicture(c.transport, { timeoutMs: 2_000 });
  const byNode = new Map<string, string[]>();
  for (const h of picture.hosts) if (h.kind === kind && ready(h)) byNode.set(h.node, [...(byNode.get(h.node) ?? []), h.key].sort());
  return { total: picture.hostsTotal, byNode };
}

/**
 * The fleet list once the killed node's hosts are stored ones: every host has a row, the killed
 * node's with node `-` (and no other), and the line about the store is on the page.
 */
async function assertFleet(t: ExecutionContext, page: Page, ui: UiServer, o: { total: number; kind: string; stored: readonly string[]; survivor: string }): Promise<void> {
  await page.goto(ui.url);
  const line = page.getByText(`${o.stored.length} host(s) on shards no answering node holds are shown as ${o.survivor}'s store last had them`);
  await waitUntil(async () => (await page.getByTestId('host-row').count()) === o.total && (await line.count()) === 1, 20_000, 'every host and the line about the store on the page', 100);
  t.true(await line.isVisible(), 'the line about the store is visible');
  t.regex(await line.textContent() ?? '', /\(node -\), not as driven now/);
  t.is((await page.getByTestId('hosts-total').textContent()), String(o.total));
  const rows = await fleetRows(page);
  t.is(new Set(rows.map((r) => `${r.kind}/${r.key}`)).size, o.total, 'a row for every host');
  t.deepEqual(rows.filter((r) => r.node === '-').map((r) => r.key).sort(), [...o.stored], 'the killed node\'s hosts, with node -');
  t.true(rows.filter((r) => r.kind === o.kind && !o.stored.includes(r.key)).every((r) => r.node === o.survivor), 'the others driven by the survivor');
}

/** Opens the host page from its link in the fleet list (the host table's) and waits for it. */
async function openHost(page: Page, key: string, kind: string): Promise<void> {
  await page.getByTestId('host-table').locator(`a[href="#/host/${[kind, ...key.split('/')].map(encodeURIComponent).join('/')}"]`).click({ timeout: 20_000 });
  await waitUntil(async () => (await page.getByTestId('host-key').count()) === 1 && (await page.getByTestId('host-key').textContent()) === key, 20_000, `the host page of ${key}`, 100);
}

/** Opens the host page and waits for its stored line; that it is visible is asserted, and it is logged. */
async function storedLine(t: ExecutionContext, page: Page, key: string, kind: string, killedAt: number): Promise<{ stored: Locator; said: string }> {
  await openHost(page, key, kind);
  const stored = page.getByTestId('host-stored');
  await waitUntil(async () => (await stored.count()) === 1, 20_000, 'the stored line on the host page', 100);
  t.true(await stored.isVisible());
  const said = await stored.textContent() ?? '';
  t.log(said, `read ${Date.now() - killedAt} ms after the kill`);
  return { stored, said };
}

test.serial('ui stored hosts browser - a BareMetalHost of a node killed a moment ago: the fleet list shows it with node -, its page says no node drives it and whose store it is', async (t) => {
  // A lease long enough that the page is looked at well inside it.
  await withCluster(t, { shards: 32, leaseTtlMs: 30_000 }, async (c) => {
    const keys = await c.applyHosts(16);
    await c.startNode('a');
    await c.startNode('b');
    await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 60_000, 'every host provisioned', 200);
    let before = { total: 0, byNode: new Map<string, string[]>() };
    await waitUntil(async () => {
      before = await drivenBy(c, 'BareMetalHost', () => true);
      const [a, b] = [before.byNode.get('a') ?? [], before.byNode.get('b') ?? []];
      return a.length > 0 && b.length > 0 && a.length + b.length === keys.length;
    }, 30_000, 'both nodes drive hosts', 200);
    const ofB = before.byNode.get('b') ?? [];

    await c.killNode('b');
    const killedAt = Date.now();
    await withPage(c, async (page, ui) => {
      await assertFleet(t, page, ui, { total: keys.length, kind: 'BareMetalHost', stored: ofB, survivor: 'a' });

      const one = ofB[0]!;
      const { stored, said } = await storedLine(t, page, one, 'BareMetalHost', killedAt);
      t.regex(said, /^BareMetalHost on \S+ · provisioned · no node drives it now \(shard \d+\): shown as node a's store last had it, status written \S+ ago$/, said);
      t.is(await stored.getByTestId('host-state').textContent(), 'provisioned');
      t.is(await page.getByTestId('host-state').textContent(), 'provisioned');
      t.regex(await page.getByTestId('host-spec').textContent() ?? '', /"bmc"/, 'the spec is shown');
      const html = await page.content();
      t.false(html.includes(BMC_PASSWORD), 'the BMC password on the page');
      t.notRegex(await page.locator('body').innerText(), /password/i, 'no credential on the page');
      // What the page showed was seen inside the killed node's lease, as it must be.
      t.true(Date.now() - killedAt < c.options.leaseTtlMs, `looked at ${Date.now() - killedAt} ms after the kill`);
    });
  }, 120_000);
});

test.serial('ui stored hosts browser - a MaasMachine of a node killed a moment ago: listed with node -, its page says its newest condition changed', async (t) => {
  const fleet = maasKilledNodeFleet();
  await withCluster(t, fleet.options, async (c) => {
    await c.startNode('a');
    await c.startNode('b');
    t.true((await c.objects.apply(fleet.objects)).ok);
    let before = { total: 0, byNode: new Map<string, string[]>() };
    const deployed = (node: string): string[] => before.byNode.get(node) ?? [];
    await waitUntil(async () => {
      before = await drivenBy(c, 'MaasMachine', (h) => h.state === 'Deployed');
      return deployed('a').length + deployed('b').length === 8;
    }, 60_000, 'all eight MaasMachines Deployed', 200);
    // The node driving more of them is killed (each drives whole clusters, or one drives them all).
    const victim = deployed('a').length >= deployed('b').length ? 'a' : 'b';
    const survivor = victim === 'a' ? 'b' : 'a';
    const ofVictim = deployed(victim);
    const clustersBefore = (await samplePicture(c.transport, { timeoutMs: 2_000 })).clusters;
    t.is(clustersBefore.length, 4, 'four MaasClusters driven before');
    const victimClusters = clustersBefore.filter((x) => x.node === victim).map((x) => x.key).sort();

    await c.killNode(victim);
    const killedAt = Date.now();
    await withPage(c, async (page, ui) => {
      await assertFleet(t, page, ui, { total: before.total, kind: 'MaasMachine', stored: ofVictim, survivor });

      // The MAAS clusters section keeps the killed node's clusters, from the survivor's store.
      const sections = page.getByTestId('maas-cluster');
      await waitUntil(async () => (await sections.count()) === 4, 20_000, 'all four MaasClusters on the page', 100);
      const storedSections: string[] = [];
      for (const section of await sections.all()) {
        const text = await section.innerText();
        if (/node - · shard \d+/.test(text)) {
          storedSections.push((await section.getAttribute('data-key')) ?? '');
          t.regex(text, /no node drives it now/);
          t.is(await section.getByTestId('maas-cluster-machine').count(), 2, 'its machines from the store');
        }
      }
      t.deepEqual(storedSections.sort(), victimClusters, 'the killed node\'s clusters, with node -');
      const one = ofVictim[0]!;
      const { said } = await storedLine(t, page, one, 'MaasMachine', killedAt);
      t.regex(said, new RegExp(`^MaasMachine on \\S+ · Deployed · no node drives it now \\(shard \\d+\\): shown as node ${survivor}'s store last had it, its newest condition changed \\S+ ago$`), said);
      t.is(await page.getByTestId('host-state').textContent(), 'Deployed');
      t.regex(await page.getByTestId('host-spec').textContent() ?? '', /"imageUrl": "ubuntu\//, 'the spec is shown');
      const html = await page.content();
      for (const key of [c.maas!.adminKey]) {
        for (const part of key.split(':')) t.false(html.includes(part), 'a MAAS API key part on the page');
      }
      t.false(html.includes('#cloud-config'), 'the bootstrap data on the page');
      t.notRegex(await page.locator('body').innerText(), /password/i, 'no credential on the page');
      t.true(Date.now() - killedAt < c.options.leaseTtlMs, `looked at ${Date.now() - killedAt} ms after the kill`);
    });
  }, 120_000);
});
