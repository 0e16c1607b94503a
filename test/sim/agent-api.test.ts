// The simulated agent's REST API against IPA's (api/app.py, extensions/base.py, errors.py): how a
// command name that is malformed or unknown is refused, GET /v1/commands/{id}?wait=true, and the
// heartbeat a finished command forces even when it finishes while a heartbeat is in flight.
import http from 'node:http';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { deferred, waitFor } from '../support/wait.ts';
import { SimDisk, startAgent } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent } from '../../src/sim/agent/index.ts';

type Answer = CommandResult & { faultstring?: string; faultcode?: string };

interface FakeIronic { url: string; beats: number[]; onBeat: ((n: number) => Promise<void>) | null }

async function fakeIronic(t: ExecutionContext): Promise<FakeIronic> {
  const it: FakeIronic = { url: '', beats: [], onBeat: null };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, v: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
      if (path === '/') return json(200, { default_version: { version: '1.82' } });
      if (path === '/v1/lookup') return json(200, { node: { uuid: 'node-1' }, config: { agent_token: 'tok', heartbeat_timeout: 300 } });
      if (path === '/v1/heartbeat/node-1') {
        it.beats.push(Date.now());
        // As a conductor does: the heartbeat's work (commands to the agent) may run before the answer.
        await it.onBeat?.(it.beats.length);
        return json(202, null);
      }
      json(404, {});
    })());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  it.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return it;
}

async function booted(t: ExecutionContext, o: { workMs?: number; minGapMs?: number } = {}): Promise<{ agent: SimAgent; ironic: FakeIronic }> {
  const ironic = await fakeIronic(t);
  const agent = await startAgent({ ironicUrl: ironic.url, macs: ['52:54:00:00:00:01'], disk: new SimDisk(), heartbeatIntervalMs: 60_000, minHeartbeatGapMs: o.minGapMs ?? 0, workMs: o.workMs ?? 0 });
  t.teardown(() => agent.stop());
  await waitFor(() => ironic.beats.length > 0, 5_000, 'first heartbeat');
  return { agent, ironic };
}

async function post(agent: SimAgent, name: string, params: unknown, wait = false): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=${String(wait)}&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, params }) });
  return { status: res.status, body: (await res.json()) as Answer };
}

test('agent api - a malformed or unknown command name is refused as IPA refuses it', async (t) => {
  const { agent } = await booted(t);
  const noDot = await post(agent, 'get_clean_steps', {});
  t.is(noDot.status, 400);
  t.is(noDot.body.faultstring, 'Invalid command: Command name must be of the form <extension>.<name>');
  const unknownCommand = await post(agent, 'standby.nope', {});
  t.is(unknownCommand.status, 400);
  t.is(unknownCommand.body.faultstring, 'Invalid command: Unknown command: nope');
  t.is(unknownCommand.body.faultcode, 'Client');
  const unknownExtension = await post(agent, 'nope.do', {});
  t.is(unknownExtension.status, 404);
  t.is(unknownExtension.body.faultstring, 'Not found: Extension with id nope not found.');
  const missing = await fetch(`${agent.url}/v1/commands/no-such-id`);
  t.is(missing.status, 404);
  t.is(((await missing.json()) as Answer).faultstring, 'Not found: Command Result with id no-such-id not found.');
  t.deepEqual(agent.commands, [], 'no refused command leaves a result');
});

test('agent api - while a command runs, even an unknown command is answered busy (IPA checks busy first)', async (t) => {
  const { agent } = await booted(t, { workMs: 400 });
  const running = await post(agent, 'clean.execute_clean_step', { step: { interface: 'deploy', step: 'erase_devices_metadata' }, node: {}, ports: [] });
  t.is(running.body.command_status, 'RUNNING');
  const busy = await post(agent, 'standby.nope', {});
  t.is(busy.status, 409);
  t.is(busy.body.faultstring, 'Agent is busy: executing command execute_clean_step');
});

test('agent api - GET /v1/commands/{id}?wait=true answers when the command has finished', async (t) => {
  const { agent } = await booted(t, { workMs: 300 });
  const running = await post(agent, 'clean.execute_clean_step', { step: { interface: 'deploy', step: 'erase_devices_metadata' }, node: {}, ports: [] });
  t.is(running.body.command_status, 'RUNNING');
  const now = await fetch(`${agent.url}/v1/commands/${running.body.id}`);
  t.is(((await now.json()) as Answer).command_status, 'RUNNING');
  const waited = await fetch(`${agent.url}/v1/commands/${running.body.id}?wait=true`);
  t.is(waited.status, 200);
  const body = (await waited.json()) as Answer;
  t.is(body.command_status, 'SUCCEEDED');
  t.deepEqual(body.command_result, { clean_result: null, clean_step: { interface: 'deploy', step: 'erase_devices_metadata' } });
});

test('agent heartbeat - a command that ends while a heartbeat is in flight still brings the next heartbeat soon, not a period later', async (t) => {
  const { agent, ironic } = await booted(t, { minGapMs: 50 });
  const commandDone = deferred();
  // Ironic answers the second heartbeat only after it ran a command to its end on the agent.
  ironic.onBeat = async (n) => {
    if (n !== 2) return;
    const started = await post(agent, 'clean.execute_clean_step', { step: { interface: 'deploy', step: 'erase_devices_metadata' }, node: {}, ports: [] });
    t.is(started.status, 200);
    await waitFor(() => agent.commands.at(-1)?.command_status === 'SUCCEEDED', 5_000, 'command finished');
    commandDone.resolve();
  };
  // The second heartbeat: forced by a command that ends at once.
  await post(agent, 'clean.execute_clean_step', { step: { interface: 'deploy', step: 'erase_devices' }, node: {}, ports: [] });
  await commandDone.promise;
  // The period is a minute: a third heartbeat within seconds can only be the forced one.
  await waitFor(() => ironic.beats.length >= 3, 5_000, 'a heartbeat after the command that ended mid-heartbeat');
  t.pass();
});
