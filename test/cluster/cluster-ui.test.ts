// `metalfleet ui --nats` against two `metalfleet node` processes on a real nats-server: the page
// sees both nodes and every host, no BMC password reaches it, and a power-off sent with the
// printed token goes through the same command path as `metalfleet host` and reaches the host.
import { spawn } from 'node:child_process';
import test from 'ava';
import { FleetPicture, TOKEN_HEADER } from '../../src/ui/index.ts';
import { ROOT } from '../cli/run.ts';
import { BMC_PASSWORD, withCluster } from '../support/cluster.ts';
import { waitUntil } from '../support/wait.ts';

test('ui cluster - metalfleet ui over NATS shows both nodes and all hosts, and a power-off with the token reaches the host', async (t) => {
  await withCluster(t, { shards: 8, fixture: { latencyMs: 2, demoBehaviours: false } }, async (c) => {
    await Promise.all([c.startNode('a'), c.startNode('b')]);
    const keys = await c.applyHosts(6);
    await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 90_000, 'hosts provisioned');
    const child = spawn(process.execPath, ['bin/metalfleet.js', 'ui', '--nats', c.nats.url, '--port', '0', '--ui-commands', '--shards', '8', '--interval', '300'], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => /#token=[A-Za-z0-9_-]+/.test(out), 30_000, 'the address with its token');
      const [, url, token] = /(http:\/\/127\.0\.0\.1:\d+\/)#token=([A-Za-z0-9_-]+)/.exec(out) ?? [];
      let picture: FleetPicture | null = null;
      await waitUntil(async () => {
        picture = FleetPicture.parse(await (await fetch(`${url}api/fleet`)).json());
        return picture.nodes.length === 2 && picture.hostsTotal === keys.length;
      }, 30_000, 'both nodes and every host on the page');
      const p = picture as unknown as FleetPicture;
      t.deepEqual(p.nodes.map((n) => n.node), ['a', 'b']);
      t.is(p.shards.length, 8, 'every shard in the grid');
      t.not(p.broker, null);
      const key = keys[0]!;
      const detail = await (await fetch(`${url}api/hosts/${key}`)).text();
      t.false(detail.includes(BMC_PASSWORD));
      t.false(JSON.stringify(p).includes(BMC_PASSWORD));

      const res = await fetch(`${url}api/hosts/${key}/command`, { method: 'POST', headers: { [TOKEN_HEADER]: token ?? '' }, body: JSON.stringify({ action: 'power-off' }) });
      t.is(res.status, 200, await res.clone().text());
      await waitUntil(async () => (await c.store.get(key))?.status?.poweredOn === false, 30_000, 'the host powered off');
      // The host page's command list comes from the audit: the power-off is there, taken.
      await waitUntil(async () => {
        const sent = await (await fetch(`${url}api/hosts/${key}/commands`)).json() as { ok: boolean; commands: Array<{ command: string; outcome: string }> };
        return sent.ok && sent.commands.some((c) => c.command === 'powerOff' && c.outcome === 'applied');
      }, 20_000, 'the power-off in the audit');
      child.kill('SIGINT');
      t.is(await exited, 0, out);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

test('ui cluster - metalfleet ui outlives a NATS outage longer than a one-shot client retries, and shows the fleet again', async (t) => {
  await withCluster(t, { shards: 8, fixture: { latencyMs: 2, demoBehaviours: false } }, async (c) => {
    await c.startNode('a');
    const keys = await c.applyHosts(2);
    const child = spawn(process.execPath, ['bin/metalfleet.js', 'ui', '--nats', c.nats.url, '--port', '0', '--shards', '8', '--interval', '300'], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const fleet = async (url: string): Promise<FleetPicture | null> => {
      const res = await fetch(`${url}api/fleet`).catch(() => null);
      return res?.ok === true ? FleetPicture.parse(await res.json()) : null;
    };
    try {
      await waitUntil(() => /metalfleet dashboard: http:\/\/127\.0\.0\.1:\d+\//.test(out), 30_000, 'the address');
      const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1] ?? '';
      await waitUntil(async () => (await fleet(url))?.hostsTotal === keys.length, 30_000, 'the fleet on the page');
      await c.nats.stop();
      await waitUntil(async () => (await fleet(url)) === null, 30_000, 'the page says the cluster is unreachable');
      // The outage itself is the condition under test: longer than the 3 tries a second apart a
      // one-shot client makes before it closes for good.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await c.nats.start();
      await waitUntil(async () => {
        const p = await fleet(url);
        return p !== null && p.nodes.length === 1 && p.hostsTotal === keys.length;
      }, 60_000, 'the node and its hosts on the page again');
      t.is(child.exitCode, null, 'the dashboard kept running');
      child.kill('SIGINT');
      t.is(await exited, 0, out);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
