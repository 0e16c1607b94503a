// An agent stand-in booted against a stub of Ironic's lookup and heartbeat, for tests of the
// agent's own API: the stub answers lookup with node-1 (token `tok`) and counts heartbeats, and the
// agent is ready once the first one arrived.
import http from 'node:http';
import type { ExecutionContext } from 'ava';
import { startAgent } from '../../src/sim/agent/index.ts';
import type { CommandResult, SimAgent, SimDisk, StartAgentOptions } from '../../src/sim/agent/index.ts';
import { waitFor } from './wait.ts';

/** An HTTP server on a free loopback port, closed at the test's end; its base URL. */
export async function listenOn(t: ExecutionContext, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }));
  const addr = server.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

export interface BootOptions {
  /** Fields of the node lookup answers with besides its uuid (default: empty properties and instance_info). */
  readonly lookupNode?: Record<string, unknown>;
  /** More of the agent's options (download retry pause, ...). */
  readonly agent?: Partial<StartAgentOptions>;
}

export async function bootedAgent(t: ExecutionContext, disk: SimDisk, options: BootOptions = {}): Promise<SimAgent> {
  let beats = 0;
  const lookupNode = options.lookupNode ?? { properties: {}, instance_info: {} };
  const ironic = await listenOn(t, (req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const json = (status: number, v: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
      if (path === '/') return json(200, { default_version: { version: '1.82' } });
      if (path === '/v1/lookup') return json(200, { node: { uuid: 'node-1', ...lookupNode }, config: { agent_token: 'tok', heartbeat_timeout: 300 } });
      if (path === '/v1/heartbeat/node-1') return (beats++, json(202, null));
      json(404, {});
    });
  });
  const agent = await startAgent({ ironicUrl: ironic, macs: ['52:54:00:00:00:01'], disk, heartbeatIntervalMs: 60_000, minHeartbeatGapMs: 0, ...options.agent });
  t.teardown(() => agent.stop());
  await waitFor(() => beats > 0, 5_000, 'first heartbeat');
  return agent;
}

/** One command, waited for (`?wait=true`); its record, or an error naming any answer but 200. */
export async function agentCommand(agent: SimAgent, name: string, params: Record<string, unknown>): Promise<CommandResult> {
  const res = await fetch(`${agent.url}/v1/commands/?wait=true&agent_token=tok`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name, params }) });
  if (res.status !== 200) throw new Error(`POST /v1/commands answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CommandResult;
}
