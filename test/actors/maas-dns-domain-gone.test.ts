// The MAAS actors over the real driver and the simulator, for a DNS name whose domain MAAS no
// longer has (capmaas.md §3.2, DNS list: 404 "No Domain matches the given query."): the cluster's
// find answers a typed failure the state machine finishes a deletion on, logged at info with the
// domain; a control-plane machine's read of the record finds none (a missing domain holds no
// record). Any other failure stays what it was.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { BackendCalls } from '../../src/actors/calls/index.ts';
import { maasClusterKind } from '../../src/actors/maas/maas-cluster-actor.ts';
import type { MachineIO } from '../../src/actors/machine/index.ts';
import { systemClock } from '../../src/actors/runtime/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import type { MaasClusterEvent, MaasClusterState } from '../../src/machines/maas-cluster/index.ts';
import type { MaasMachineState } from '../../src/machines/maas-machine/index.ts';
import type { Logger, MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { maasMachineCalls } from '../support/maas-machine-calls.ts';
import { waitFor } from '../support/wait.ts';

type Line = { level: string; fields: Record<string, unknown>; message: string };
function recordingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  const log = { ...silentLogger, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as Logger;
  return { ...log, child: () => log } as Logger;
}

async function simDriver(t: ExecutionContext): Promise<MaasDriver> {
  const sim = await startMaasSim({ machines: [] });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  t.teardown(async () => {
    client.close();
    await sim.stop();
  });
  return createMaasDriver(client);
}

async function clusterFind(driver: MaasDriver, log: Logger, fqdn: string): Promise<MaasClusterEvent | undefined> {
  const io: MachineIO<MaasClusterEvent> = { key: 'capi/c1', slot: undefined, draining: false, tell: () => undefined, run: () => false };
  const deps = { store: {} as ResourceStore, driver, clock: systemClock, log, resyncMs: 60_000, calls: new BackendCalls({ limits: {}, defaultLimit: 5 }) };
  const adapter = maasClusterKind('capi/c1', deps).adapter(io);
  return await adapter.perform({ type: 'dns', seq: 1, call: { op: 'find', fqdn } }, {} as MaasClusterState) ?? undefined;
}

test('maas dns domain gone - the cluster\'s find answers domainNotFound with MAAS\'s text, logged at info with the domain', async (t) => {
  const lines: Line[] = [];
  const answer = await clusterFind(await simDriver(t), recordingLogger(lines), 'c1-abcdef.gone.example');
  t.like(answer, { type: 'dnsResult', seq: 1, result: { kind: 'failed', reason: 'domainNotFound' } });
  t.regex(answer?.type === 'dnsResult' && answer.result.kind === 'failed' ? answer.result.message : '', /No Domain matches the given query\./);
  t.true(lines.some((l) => l.level === 'info' && l.fields['domain'] === 'gone.example'), JSON.stringify(lines));
});

test('maas dns domain gone - other DNS failures carry no reason: the cluster retries them as before', async (t) => {
  const failing = { endpoint: 'http://maas', pool: 'maas:http://maas', findDns: () => Promise.reject(new Error('GET /dnsresources/ answered 503')) } as unknown as MaasDriver;
  const answer = await clusterFind(failing, silentLogger, 'c1-abcdef.maas');
  t.deepEqual(answer, { type: 'dnsResult', seq: 1, result: { kind: 'failed', message: 'GET /dnsresources/ answered 503' } });
});

test('maas dns domain gone - a control-plane machine reading the record of a missing domain finds none; a failure stays transient', async (t) => {
  const driver = await simDriver(t);
  const { adapterOf, answered } = maasMachineCalls(driver, new BackendCalls({ limits: {}, defaultLimit: 5 }));
  const none = { slot: { phase: 'none' } } as unknown as MaasMachineState;
  void adapterOf('capi/cp-0').perform({ type: 'dnsLookup', seq: 3, fqdn: 'c1-abcdef.gone.example' }, none);
  await waitFor(() => answered.length === 1, 5_000, 'the lookup answered');
  t.deepEqual(answered[0], { type: 'dnsResult', seq: 3, result: { kind: 'none' } });
  const failing = { ...driver, findDns: () => Promise.reject(new Error('GET /dnsresources/ answered 503')) } as MaasDriver;
  const other = maasMachineCalls(failing, new BackendCalls({ limits: {}, defaultLimit: 5 }));
  void other.adapterOf('capi/cp-0').perform({ type: 'dnsLookup', seq: 4, fqdn: 'c1-abcdef.maas' }, none);
  await waitFor(() => other.answered.length === 1, 5_000, 'the lookup answered');
  t.like(other.answered[0], { type: 'dnsResult', seq: 4, result: { kind: 'transient' } });
});
