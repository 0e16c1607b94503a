// `metalfleet host` with --json or -o json|yaml: one record per host of what the node answered,
// the flags and their conflicts as `hosts` and the other views have them, and the exit codes of
// the text output (1 when a host failed, 2 for a usage mistake). Driven end to end: the CLI
// process against a real nats-server and a node's command server on it.
import test, { type ExecutionContext } from 'ava';
import { parse } from 'yaml';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { connectNats } from '../../src/bus/index.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { openRequestLedger } from '../../src/cluster/request-ledger.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { natsServerInstalled, startNatsServer, type NatsServer } from '../support/nats-server.ts';
import { metalfleet } from './run.ts';

const SHARDS = 16;
const NO_NATS = ['--nats', 'nats://127.0.0.1:1', '--timeout', '1'];

if (!natsServerInstalled()) test('host output - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

/** A nats-server with one node's command server (unsigned commands) and one host, fleet/h-0. */
async function world(t: ExecutionContext): Promise<{ nats: NatsServer; args: string[] }> {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const transport = await connectNats({ servers: nats.url, name: 'node-a' });
  t.teardown(() => transport.close());
  const store = await openNatsStoreOn(transport);
  t.teardown(() => store.close());
  const server = startCommandServer({ transport, store: store.resources, shardCount: SHARDS, log: silentLogger, requests: await openRequestLedger(transport) });
  t.teardown(() => server.close());
  const applied = await store.apply([{
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h-0', namespace: 'fleet' },
    spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'bmc' } },
  }], 'test');
  t.true(applied.ok);
  return { nats, args: ['--nats', nats.url, '--shards', String(SHARDS), '--timeout', '10'] };
}

type Row = Record<string, unknown> & { error: null | Record<string, unknown> };

function rows(stdout: string, format: 'json' | 'yaml'): Row[] {
  const doc = (format === 'json' ? JSON.parse(stdout) : parse(stdout)) as { hosts: Row[] };
  return doc.hosts;
}

test('host output - --json prints one record per host, in the order given: what the node said, or the error with its type and whether a retry may help; exit 1 when one failed', async (t) => {
  const { args } = await world(t);
  const r = await metalfleet('host', 'pause', 'fleet/h-0', 'maasmachine/fleet/nope', '--json', '--request-id', 'req-1', ...args);
  t.is(r.code, 1, r.stderr);
  const [paused, missing] = rows(r.stdout, 'json');
  t.like(paused, { host: 'fleet/h-0', kind: null, action: 'pause', requestId: 'req-1', outcome: 'applied', applied: true, error: null });
  t.regex(String(paused?.message), /pause/i);
  t.true('state' in paused!);
  t.like(missing, { host: 'fleet/nope', kind: 'MaasMachine', action: 'pause', outcome: 'failed', applied: false, state: null, message: null });
  t.like(missing?.error, { type: 'notFound', retryable: false });
  t.regex(String(missing?.error?.message), /fleet\/nope/);
  // The failure is on stderr too, as without --json; stdout is the document alone.
  t.regex(r.stderr, /maasmachine\/fleet\/nope: error notFound/);
  t.notRegex(r.stderr, /fleet\/h-0/);
});

test('host output - -o yaml prints the same records; a repeat is "unchanged", not applied; exit 0 when every host answered', async (t) => {
  const { args } = await world(t);
  t.is((await metalfleet('host', 'power-off', 'fleet/h-0', ...args)).code, 0);
  const r = await metalfleet('host', 'power-off', 'fleet/h-0', '-o', 'yaml', ...args);
  t.is(r.code, 0, r.stderr);
  t.is(r.stderr, '');
  const [again] = rows(r.stdout, 'yaml');
  t.like(again, { host: 'fleet/h-0', action: 'power-off', outcome: 'unchanged', applied: false, error: null });
  t.regex(String(again?.requestId), /^mf-/, 'the id the command was sent with, to retry it by');
  const json = await metalfleet('host', 'power-off', 'fleet/h-0', '-o', 'json', ...args);
  t.is(json.code, 0, json.stderr);
  t.like(rows(json.stdout, 'json')[0], { outcome: 'unchanged' });
});

test('host output - nobody answering is a retryable error in the record, naming the subject; the NATS password is never printed', async (t) => {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const url = nats.url.replace('nats://', 'nats://admin:s3cret-Pw9@');
  const r = await metalfleet('host', 'reboot', 'fleet/h-0', '--json', '--nats', url, '--shards', String(SHARDS), '--timeout', '1');
  t.is(r.code, 1, r.stderr);
  const [row] = rows(r.stdout, 'json');
  t.like(row, { host: 'fleet/h-0', action: 'reboot', outcome: 'failed', applied: false });
  t.true(row?.error?.type === 'noResponders' || row?.error?.type === 'timeout', JSON.stringify(row));
  t.is(row?.error?.retryable, true);
  t.regex(String(row?.error?.hint), /is a metalfleet node running/);
  t.false(`${r.stdout}${r.stderr}`.includes('s3cret-Pw9'));
});

test('host output - the format flags are checked as the other views check them, before anything is sent (exit 2)', async (t) => {
  const both = await metalfleet('host', 'pause', 'fleet/h-0', '--json', '-o', 'yaml', ...NO_NATS);
  t.is(both.code, 2, both.stderr);
  t.is(both.stdout, '');
  t.regex(both.stderr, /--json and -o yaml ask for two formats: give one/);

  const unknown = await metalfleet('host', 'pause', 'fleet/h-0', '-o', 'xml', ...NO_NATS);
  t.is(unknown.code, 2, unknown.stderr);
  t.regex(unknown.stderr, /-o: unknown format "xml": use table, json or yaml/);

  const typo = await metalfleet('host', 'pause', 'fleet/h-0', '-o', 'jsno', ...NO_NATS);
  t.is(typo.code, 2, typo.stderr);
  t.regex(typo.stderr, /; did you mean json\?/);

  // --json with -o json agrees; the usage error of the host still wins over an unreachable server.
  const bad = await metalfleet('host', 'pause', 'Fleet/h-0', '--json', '-o', 'json', ...NO_NATS);
  t.is(bad.code, 2, bad.stderr);
  t.is(bad.stdout, '');
});
