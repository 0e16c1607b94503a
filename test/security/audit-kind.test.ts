// A BareMetalHost and a MaasMachine may share a namespace/name, and commands reach each by its
// kind. The audit kept no kind, so the dashboard's host page and `metalfleet audit --host` of one
// showed the other's commands as its own. Now each record keeps the kind the command was for (the
// kind the node resolved when the sender named none), and the host page and `--kind` read only
// that kind's; a record written before records had a kind cannot be told apart, and shows for both.
import test from 'ava';
import { pack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import { subjects } from '../../src/bus/index.ts';
import { readAudit, type AuditRecord } from '../../src/security/index.ts';
import { commandGate, startUiServer } from '../../src/ui/index.ts';
import { recentCommands } from '../../src/ui/host-commands.ts';
import { lines, metalfleet } from '../cli/run.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { KEY, SHARDS, twins } from './audit-twins.ts';

if (!natsServerInstalled()) test('audit kind - nats-server is installed', (t) => t.fail('nats-server is missing: these tests need a real server'));

const ids = (records: readonly AuditRecord[]): Array<string | null> => records.map((r) => r.requestId);

test('audit kind - each record keeps its kind (the resolved one when none was named); the reader and the host page show only that kind\'s, and kindless old records for both', async (t) => {
  const { client } = await twins(t);
  const all = await readAudit(client, subjects(), { host: KEY });
  t.deepEqual(all.map((r) => [r.requestId, r.kind]), [['old-1', undefined], ['bmh-off', 'BareMetalHost'], ['maas-pause', 'MaasMachine'], ['maas-release', 'MaasMachine']]);

  t.deepEqual(ids(await readAudit(client, subjects(), { host: KEY, kind: 'BareMetalHost' })), ['old-1', 'bmh-off']);
  t.deepEqual(ids(await readAudit(client, subjects(), { host: KEY, kind: 'MaasMachine' })), ['old-1', 'maas-pause', 'maas-release']);

  // The host page's Commands section, newest first.
  const page = async (kind: 'BareMetalHost' | 'MaasMachine'): Promise<Array<string | null>> => {
    const sent = await recentCommands(client, KEY, 10_000, kind);
    if (!sent.ok) throw new Error(sent.reason);
    return sent.commands.map((c) => c.command);
  };
  t.deepEqual(await page('BareMetalHost'), ['powerOff', 'reboot']);
  t.deepEqual(await page('MaasMachine'), ['release', 'pause', 'reboot']);

  // Its API, as the page asks it: the kind in the query; none is the BareMetalHost, as for the page itself.
  const ui = await startUiServer({ transport: client, gate: commandGate({ enabled: false }), shardCount: SHARDS, nodes: ['node-a'], intervalMs: 60_000, port: 0, bind: '127.0.0.1' });
  t.teardown(() => ui.close());
  const api = async (query: string): Promise<{ status: number; body: { ok?: boolean; commands?: Array<{ command: string | null }>; error?: string } }> => {
    const res = await fetch(`${ui.url}api/hosts/capi/twin/commands${query}`);
    return { status: res.status, body: await res.json() as { commands?: Array<{ command: string | null }> } };
  };
  const shown = async (query: string): Promise<Array<string | null> | undefined> => (await api(query)).body.commands?.map((c) => c.command);
  t.deepEqual(await shown('?kind=MaasMachine'), ['release', 'pause', 'reboot']);
  t.deepEqual(await shown('?kind=BareMetalHost'), ['powerOff', 'reboot']);
  t.deepEqual(await shown(''), ['powerOff', 'reboot']);
  const unknown = await api('?kind=Pod');
  t.is(unknown.status, 400);
  t.regex(unknown.body.error ?? '', /unknown kind "Pod"/);
});

test('audit kind - metalfleet audit --host --kind shows only that kind\'s records (and kindless old ones); the text line names a MaasMachine as metalfleet host does', async (t) => {
  const { url } = await twins(t);
  const json = async (...args: string[]): Promise<Array<string | null>> => {
    const r = await metalfleet('audit', '--nats', url, '--json', ...args);
    t.is(r.code, 0, r.stderr);
    return lines(r.stdout).map((l) => (JSON.parse(l) as AuditRecord).requestId);
  };
  t.deepEqual(await json('--host', KEY, '--kind', 'MaasMachine'), ['old-1', 'maas-pause', 'maas-release']);
  t.deepEqual(await json('--host', KEY, '--kind', 'BareMetalHost'), ['old-1', 'bmh-off']);
  t.deepEqual(await json('--host', KEY), ['old-1', 'bmh-off', 'maas-pause', 'maas-release'], 'no --kind: every kind');

  const text = await metalfleet('audit', '--nats', url, '--host', KEY);
  t.is(text.code, 0, text.stderr);
  const shown = lines(text.stdout);
  t.is(shown.length, 4, text.stdout);
  t.regex(shown[1] ?? '', / {2}command powerOff {2}capi\/twin {2}request bmh-off {2}/);
  t.regex(shown[2] ?? '', / {2}command pause {2}maasmachine\/capi\/twin {2}request maas-pause {2}/);

  const bad = await metalfleet('audit', '--nats', url, '--host', KEY, '--kind', 'Pod');
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--kind: unknown kind "Pod": .*BareMetalHost.*MaasMachine/);
});

test('audit kind - a request refused before it is read is recorded with the kind it names (if it reads as one), else its command type\'s', async (t) => {
  const { client } = await twins(t);
  const subject = subjects().command(shardOf(KEY, SHARDS));
  const raw = async (body: Record<string, unknown>): Promise<void> => {
    await client.request(subject, pack(body), { timeoutMs: 5_000 });
  };
  await raw({ type: 'powerOff', host: KEY, kind: 'MaasMachine', requestId: 'bad-1', extra: 1 }); // named: MaasMachine
  await raw({ type: 'release', host: KEY, requestId: 'bad-2', extra: 1 }); // none named: release is a MaasMachine's
  await raw({ type: 'reboot', host: KEY, requestId: 'bad-3', extra: 1 }); // none named: a BareMetalHost's
  await raw({ type: 'reboot', host: KEY, kind: 'Maas\nMachine', requestId: 'bad-4' }); // not a kind: none recorded
  const all = await readAudit(client, subjects(), { host: KEY });
  const bad = all.filter((r) => r.requestId?.startsWith('bad-'));
  t.deepEqual(bad.map((r) => [r.requestId, r.outcome, r.code, r.kind]), [
    ['bad-1', 'refused', 'invalidMessage', 'MaasMachine'],
    ['bad-2', 'refused', 'invalidMessage', 'MaasMachine'],
    ['bad-3', 'refused', 'invalidMessage', 'BareMetalHost'],
    ['bad-4', 'refused', 'invalidMessage', undefined],
  ]);
  t.deepEqual(ids(await readAudit(client, subjects(), { host: KEY, kind: 'MaasMachine' })).filter((id) => id?.startsWith('bad-')), ['bad-1', 'bad-2', 'bad-4']);
});
