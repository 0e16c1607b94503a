// The dashboard's HTTP side against an embedded node: the picture matches the introspection API,
// no secret leaves by any endpoint or the event stream, and host commands pass only the gate.
import { request } from 'node:http';
import test from 'ava';
import { gather } from '../../src/cluster/introspect/index.ts';
import { FleetPicture, TOKEN_HEADER } from '../../src/ui/index.ts';
import { waitUntil } from '../support/wait.ts';
import { SECRETS, startUiFleet } from './fleet.ts';

async function get(url: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The first `frames` pictures of the event stream, as raw text. */
async function readStream(url: string, frames: number): Promise<string> {
  const ac = new AbortController();
  const res = await fetch(url, { signal: ac.signal });
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + 20_000;
  while ((text.match(/^event: picture$/gm) ?? []).length < frames) {
    if (Date.now() > deadline) throw new Error(`stream: ${frames} frames not seen in 20 s; got ${text.slice(0, 200)}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  ac.abort();
  return text;
}

function post(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token !== undefined ? { [TOKEN_HEADER]: token } : {}) }, body: JSON.stringify(body) });
}

test('ui - the fleet picture counts what the introspection API lists, and the page and its bundle come from metalfleet', async (t) => {
  const f = await startUiFleet();
  try {
    const picture = FleetPicture.parse(JSON.parse((await get(`${f.ui.url}api/fleet`)).text));
    const hosts = await gather(f.node.substrate.transport, 'hosts', {}, { timeoutMs: 2_000 });
    const listed = hosts.replies.flatMap((r) => r.value.hosts);
    t.is(picture.hostsTotal, listed.length);
    t.is(picture.hostsTotal, f.keys.length);
    t.deepEqual(Object.fromEntries(picture.states), { provisioned: f.keys.length });
    t.deepEqual(picture.hosts.map((h) => h.key).sort(), listed.map((h) => h.key).sort());
    t.is(picture.nodes.length, 1);
    t.is(picture.broker, picture.nodes[0]?.node ?? 'no node');
    t.true(picture.shards.length > 0, 'the shard grid has cells');
    t.true(picture.pools.length > 0, 'the pools are there');

    const page = await get(f.ui.url);
    t.is(page.status, 200);
    t.regex(page.text, /<script src="\/assets\/app\.js">/);
    t.notRegex(page.text, /https?:\/\//, 'the page loads nothing from elsewhere');
    const js = await get(`${f.ui.url}assets/app.js`);
    t.is(js.status, 200);
    t.regex(js.type, /javascript/);
    t.true(js.text.length > 10_000, `bundle of ${js.text.length} bytes`);
    t.is((await get(`${f.ui.url}assets/app.css`)).status, 200);
    t.is((await get(`${f.ui.url}nowhere`)).status, 404);
  } finally {
    await f.stop();
  }
});

test('ui - a host page has the spec without secrets, the status and the timeline with durations', async (t) => {
  const f = await startUiFleet();
  try {
    const res = await get(`${f.ui.url}api/hosts/lab/web-1`);
    t.is(res.status, 200, res.text);
    const host = JSON.parse(res.text) as { key: string; state: string; spec: { credentialsName?: string }; timeline: Array<{ reason: string; durationMs: number }> };
    t.is(host.key, 'lab/web-1');
    t.is(host.state, 'provisioned');
    t.is(host.spec.credentialsName, 'bmc-creds');
    t.true(host.timeline.length >= 2, `${host.timeline.length} transitions`);
    t.true(host.timeline.every((s) => s.durationMs >= 0));
    const sent = JSON.parse((await get(`${f.ui.url}api/hosts/lab/web-1/commands`)).text) as { ok: boolean; reason: string };
    t.false(sent.ok);
    t.regex(sent.reason, /embedded mode keeps none/);
    t.is((await get(`${f.ui.url}api/hosts/lab/%E0%A4%A`)).status, 400, 'a malformed escape is the caller\'s mistake');
    const missing = await get(`${f.ui.url}api/hosts/lab/nobody`);
    t.is(missing.status, 404);
    t.regex(missing.text, /lab\/nobody not found/);
  } finally {
    await f.stop();
  }
});

test('ui - no BMC password, user name or user data reaches any endpoint or the event stream', async (t) => {
  const f = await startUiFleet({ commands: true });
  try {
    const bodies = [
      (await get(f.ui.url)).text,
      (await get(`${f.ui.url}api/fleet`)).text,
      (await get(`${f.ui.url}api/config`)).text,
      ...await Promise.all(f.keys.map(async (k) => (await get(`${f.ui.url}api/hosts/${k}`)).text)),
      (await get(`${f.ui.url}api/hosts/lab/web-0/commands`)).text,
      await readStream(`${f.ui.url}api/events`, 2),
      await (await post(`${f.ui.url}api/hosts/lab/web-0/command`, { action: 'reboot' }, f.token ?? '')).text(),
      await (await post(`${f.ui.url}api/hosts/lab/web-0/command`, { action: 'nope' }, f.token ?? '')).text(),
    ];
    t.true(bodies[3]!.includes('lab/web-0'), 'the host pages were answered');
    for (const body of bodies) for (const s of SECRETS) t.false(body.includes(s), `${s} in ${body.slice(0, 120)}`);
  } finally {
    await f.stop();
  }
});

test('ui - commands are refused without --ui-commands, without the token and with a wrong one; with both a power-off reaches the host', async (t) => {
  const off = await startUiFleet({ hosts: 2 });
  try {
    const res = await post(`${off.ui.url}api/hosts/lab/web-0/command`, { action: 'power-off' }, 'anything');
    t.is(res.status, 403);
    t.regex(((await res.json()) as { error: string }).error, /--ui-commands/);
    t.is(off.node.fixture.calls('lab/web-0').powerOff, 0);
  } finally {
    await off.stop();
  }
  const on = await startUiFleet({ hosts: 2, commands: true });
  try {
    const url = `${on.ui.url}api/hosts/lab/web-0/command`;
    const none = await post(url, { action: 'power-off' });
    t.is(none.status, 403);
    t.regex(((await none.json()) as { error: string }).error, /no token/);
    const wrong = await post(url, { action: 'power-off' }, `${on.token ?? ''}x`);
    t.is(wrong.status, 403);
    t.regex(((await wrong.json()) as { error: string }).error, /wrong token/);
    const bad = await post(url, { action: 'format-disk' }, on.token ?? '');
    t.is(bad.status, 400);
    t.regex(((await bad.json()) as { error: string }).error, /command action/);
    t.is(on.node.fixture.calls('lab/web-0').powerOff, 0, 'nothing refused reached the backend');

    const ok = await post(url, { action: 'power-off' }, on.token ?? '');
    t.is(ok.status, 200, await ok.clone().text());
    await waitUntil(() => on.node.fixture.node('lab/web-0')?.power === false, 20_000, 'the host powered off');
    t.true(on.node.fixture.calls('lab/web-0').powerOff >= 1);
    t.true(on.node.fixture.node('lab/web-1')?.power, 'the other host is untouched');
  } finally {
    await on.stop();
  }
});

test('ui - detach and attach from the page take the command path: the host leaves the backend and is adopted back without deprovisioning', async (t) => {
  const f = await startUiFleet({ hosts: 1, commands: true });
  try {
    const url = `${f.ui.url}api/hosts/lab/web-0/command`;
    const detached = await post(url, { action: 'detach' }, f.token ?? '');
    t.is(detached.status, 200, await detached.clone().text());
    await waitUntil(() => f.node.fixture.calls('lab/web-0').detach >= 1 && f.node.fixture.node('lab/web-0') === undefined, 20_000, 'the host left the backend');
    const attached = await post(url, { action: 'attach' }, f.token ?? '');
    t.is(attached.status, 200, await attached.clone().text());
    t.regex(((await attached.json()) as { message: string }).message, /attached: baremetalhost\.metal3\.io\/detached removed/);
    await waitUntil(() => f.node.fixture.node('lab/web-0')?.provisionState === 'active', 20_000, 'the host is back in the backend, adopted');
    await waitUntil(() => f.node.node.stats.hosts.get('lab/web-0')?.operationalStatus === 'OK', 20_000, 'the host is no longer detached');
    t.is(f.node.fixture.calls('lab/web-0').deprovision, 0, 'never deprovisioned');
    t.is(f.node.fixture.calls('lab/web-0').adopt, 1);
    t.is(f.node.node.stats.hosts.get('lab/web-0')?.state, 'provisioned');
  } finally {
    await f.stop();
  }
});

test('ui - a request addressed to another name (DNS rebinding) is refused on loopback', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  try {
    const status = (host: string): Promise<number> => new Promise((resolve, reject) => {
      const req = request(`${f.ui.url}api/fleet`, { headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    t.is(await status(`attacker.example:${f.ui.port}`), 421);
    t.is(await status(`localhost:${f.ui.port}`), 200);
  } finally {
    await f.stop();
  }
});

test('ui - when the cluster cannot be asked, the event stream says so instead of going quiet', async (t) => {
  const f = await startUiFleet({ hosts: 1 });
  try {
    const ac = new AbortController();
    const res = await fetch(`${f.ui.url}api/events`, { signal: ac.signal });
    const reader = res.body!.getReader();
    let text = '';
    const next = async (): Promise<void> => {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    };
    while (!/event: picture/.test(text)) await next();
    await f.node.node.stop();
    const deadline = Date.now() + 20_000;
    while (!/event: problem/.test(text) && Date.now() < deadline) await next();
    ac.abort();
    t.regex(text, /event: problem\ndata: \{"message":"refresh failed: [^"]+"\}/);
  } finally {
    await f.ui.close();
  }
});
