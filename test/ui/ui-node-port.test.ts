// Every node serves the dashboard on its health/metrics port, at the same address, read-only.
import { request } from 'node:http';
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { FleetPicture } from '../../src/ui/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

/** The status of GET path on 127.0.0.1:port sent with this Host header (fetch cannot set Host). */
function statusFor(port: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const NODE_CONFIG = {
  shardCount: 16, healthPort: 0,
  machine: DEFAULT_MACHINE_CONFIG,
  capacity: { limits: {}, defaultLimit: Number.POSITIVE_INFINITY, ttlMs: 30_000 },
  supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
  askTimeoutMs: 2_000,
};

test('ui node port - a node with a health port serves the page, the picture and host pages beside /healthz; commands are refused', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const applied = await store.applyObjects([secret(), bmh('n0'), bmh('n1')], 'test');
  t.true(applied.ok);
  const node = await startLocalNode({ ...NODE_CONFIG, name: 'porty' }, { store: store.resources }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, {}, substrate);
  try {
    const base = node.health?.url ?? '';
    t.regex(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.is((await fetch(`${base}/healthz`)).status, 200, 'health still answers');
    t.is(await statusFor(new URL(base).port, '/api/config', 'metalfleet.example'), 421, 'on loopback a request for another name is refused');
    const page = await fetch(`${base}/`);
    t.is(page.status, 200);
    t.regex(await page.text(), /assets\/app\.js/);
    t.is((await fetch(`${base}/assets/app.js`)).status, 200);
    await waitUntil(async () => {
      const p = FleetPicture.parse(await (await fetch(`${base}/api/fleet`)).json());
      return p.hostsTotal === 2 && p.nodes.some((n) => n.node === 'porty');
    }, 30_000, 'the picture with both hosts');
    t.is((await fetch(`${base}/api/hosts/lab/n0`)).status, 200);
    const cmd = await fetch(`${base}/api/hosts/lab/n0/command`, { method: 'POST', headers: { 'x-metalfleet-ui-token': 'x' }, body: '{"action":"power-off"}' });
    t.is(cmd.status, 403);
    t.regex(await cmd.text(), /commands are off/);
  } finally {
    await node.stop();
  }
});

test('ui node port - with a command token the node takes commands from its page: only with that token, through the command path, and never shows the token', async (t) => {
  const token = 'node-ui-token-7c1e9a42f0b3d5';
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  t.true((await store.applyObjects([secret(), bmh('n0'), bmh('n1')], 'test')).ok);
  const provisioner = createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false });
  const node = await startLocalNode({ ...NODE_CONFIG, name: 'cmdy', uiCommands: { token } }, { store: store.resources }, { provisioner }, {}, substrate);
  try {
    const base = node.health?.url ?? '';
    await waitUntil(() => provisioner.node('lab/n0')?.provisionState === 'active' && provisioner.node('lab/n1')?.provisionState === 'active', 30_000, 'both hosts provisioned');
    // The config also lists each kind's commands (kind-actions.ts): only the flag is this test's.
    t.like(await (await fetch(`${base}/api/config`)).json(), { commands: true });
    const post = (tok: string | null) => fetch(`${base}/api/hosts/lab/n0/command`, { method: 'POST', headers: { 'content-type': 'application/json', ...(tok === null ? {} : { 'x-metalfleet-ui-token': tok }) }, body: '{"action":"power-off"}' });
    const none = await post(null);
    t.is(none.status, 403);
    t.regex(await none.text(), /no token/);
    const wrong = await post(`${token}x`);
    t.is(wrong.status, 403);
    t.regex(await wrong.text(), /wrong token/);
    t.is(provisioner.calls('lab/n0').powerOff, 0, 'nothing refused reached the backend');
    const ok = await post(token);
    t.is(ok.status, 200, await ok.clone().text());
    await waitUntil(() => provisioner.node('lab/n0')?.power === false, 20_000, 'n0 powered off');
    t.true(provisioner.node('lab/n1')?.power, 'n1 untouched');
    for (const path of ['/', '/api/config', '/api/fleet', '/api/hosts/lab/n0', '/metrics']) {
      t.false((await (await fetch(`${base}${path}`)).text()).includes(token), `the token is not served by ${path}`);
    }
  } finally {
    await node.stop();
  }
});

test('ui node port - --health-bind moves health, metrics and the page to that address together', async (t) => {
  const substrate = memorySubstrate();
  const store = await openLocalStore(substrate.transport);
  const node = await startLocalNode({ ...NODE_CONFIG, name: 'bound', healthBind: '0.0.0.0' }, { store: store.resources }, { provisioner: createFixtureProvisioner({ latencyMs: 1, demoBehaviours: false }) }, {}, substrate);
  try {
    const url = node.health?.url ?? '';
    t.regex(url, /^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(url).port;
    // Off loopback the page answers a request for any name (a Service or a pod IP), as health does.
    t.is(await statusFor(port, '/api/config', `metalfleet.example:${port}`), 200);
    t.is(await statusFor(port, '/metrics', `metalfleet.example:${port}`), 200);
    t.is((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  } finally {
    await node.stop();
  }
});
