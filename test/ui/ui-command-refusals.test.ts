// A command the node refuses comes back from the dashboard with the HTTP status of its refusal:
// a host nobody drives is a 404, a command that does not fit the host's state a 409. Before, every
// refusal the node gave was a 409, so a script behind the dashboard could not tell "no such host"
// (a typo) from "not now" (send it again later).
import test from 'ava';
import { TOKEN_HEADER } from '../../src/ui/index.ts';
import { bmh } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { startUiFleet } from './fleet.ts';

function post(url: string, body: unknown, token: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token }, body: JSON.stringify(body) });
}

test('ui command refusals - no such host is a 404 naming it, a command out of turn a 409 saying why, and neither reaches the backend', async (t) => {
  const f = await startUiFleet({ hosts: 1, commands: true });
  try {
    const token = f.token ?? '';
    const missing = await post(`${f.ui.url}api/hosts/lab/web-9/command`, { action: 'power-off' }, token);
    const missingBody = (await missing.json()) as { error: string; retryable: boolean };
    t.is(missing.status, 404, missingBody.error);
    t.regex(missingBody.error, /lab\/web-9/);
    t.false(missingBody.retryable);

    const maas = await post(`${f.ui.url}api/hosts/lab/web-0/command`, { action: 'power-off', kind: 'MaasMachine' }, token);
    t.is(maas.status, 404, 'a BareMetalHost of that name is not a MaasMachine');

    // web-0 is provisioned: hosts are re-inspected only from available.
    const inspectedBefore = f.node.fixture.calls('lab/web-0').inspect;
    const outOfTurn = await post(`${f.ui.url}api/hosts/lab/web-0/command`, { action: 'inspect' }, token);
    const outOfTurnBody = (await outOfTurn.json()) as { error: string; retryable: boolean };
    t.is(outOfTurn.status, 409, outOfTurnBody.error);
    t.regex(outOfTurnBody.error, /re-inspected only from available/);
    t.is(f.node.fixture.calls('lab/web-0').inspect, inspectedBefore, 'nothing refused reached the backend');
  } finally {
    await f.stop();
  }
});

test('ui command refusals - a command the host never takes is a 422 saying what to change', async (t) => {
  const f = await startUiFleet({ hosts: 1, commands: true });
  try {
    const host = bmh('keep-on', { credentialsName: 'bmc-creds' }) as { spec: Record<string, unknown> };
    const applied = await f.node.store.applyObjects([{ ...host, spec: { ...host.spec, disablePowerOff: true } }], 'test');
    t.true(applied.ok);
    await waitUntil(() => f.node.node.stats.hosts.get('lab/keep-on') !== undefined, 20_000, 'the node drives the host');
    const res = await post(`${f.ui.url}api/hosts/lab/keep-on/command`, { action: 'power-off' }, f.token ?? '');
    const body = (await res.json()) as { error: string; retryable: boolean };
    t.is(res.status, 422, body.error);
    t.regex(body.error, /disablePowerOff/);
    t.false(body.retryable);
    t.is(f.node.fixture.calls('lab/keep-on').powerOff, 0);
  } finally {
    await f.stop();
  }
});
