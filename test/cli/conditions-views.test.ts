// Conditions in the introspection output: `metalfleet hosts -o wide` and `metalfleet inspect`.
import test from 'ava';
import type { Condition } from '../../src/api/index.ts';
import { hostsView, inspectView, renderTable } from '../../src/cli/introspect/index.ts';
import { bmh, secret, startTestNode, statusOf } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';
import type { InspectedHost, OnNode } from '../../src/cli/introspect/rows.ts';
import { conditionLines, hostColumns, renderInspect } from '../../src/cli/introspect/views.ts';
import type { WideHostRow } from '../../src/cli/introspect/views.ts';
import { lines, metalfleet } from './run.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');

const bmhRow: OnNode<WideHostRow> = {
  key: 'lab/h-1', kind: 'BareMetalHost', backend: 'fixture', state: 'available', poweredOn: false, operationalStatus: 'OK',
  errorType: '', shard: 3, stateSinceMs: 1_000, node: 'a',
  conditions: [
    { type: 'Ready', status: 'False', reason: 'NotProvisioned' },
    { type: 'AvailableForProvisioning', status: 'True', reason: 'Available' },
    { type: 'Healthy', status: 'Unknown', reason: 'Unknown' },
    { type: 'Manageable', status: 'True', reason: 'Manageable' },
    { type: 'Progressing', status: 'False', reason: 'NotProgressing' },
    { type: 'Provisioned', status: 'False', reason: 'NotProvisioned' },
  ],
};

const maasRow: OnNode<WideHostRow> = {
  key: 'lab/m-1', kind: 'MaasMachine', backend: 'maas', state: 'Deploying', poweredOn: true, operationalStatus: 'pending',
  errorType: '', shard: 0, stateSinceMs: 2_000, node: 'a',
  conditions: [
    { type: 'Ready', status: 'False', reason: 'WaitingForDeployment' },
    { type: 'MachineDeployed', status: 'False', reason: 'WaitingForDeployment' },
  ],
};

const oldNodeRow: OnNode<WideHostRow> = { ...bmhRow, key: 'lab/h-2' };
delete (oldNodeRow as { conditions?: unknown }).conditions;

test('hosts -o wide - READY, PROGRESSING and the other conditions of both kinds, before the error column', (t) => {
  const out = renderTable(hostColumns(true), [bmhRow, maasRow, oldNodeRow], { width: 400 });
  t.log(out.join('\n'));
  t.regex(out[0]!, /STATUS +SHARD +NODE +IN STATE +READY +PROGRESSING +CONDITIONS +ERROR$/);
  t.regex(out[1]!, /^lab\/h-1 .* False \(NotProvisioned\) +False \(NotProgressing\) +AvailableForProvisioning=True Healthy=Unknown Manageable=True Provisioned=False +-$/);
  t.regex(out[2]!, /^lab\/m-1 .* False \(WaitingForDeployment\) +- +MachineDeployed=False +-$/);
  // A node that sends no conditions: dashes, not a crash.
  t.regex(out[3]!, /^lab\/h-2 .* - +- +- +-$/);
});

test('hosts - without -o wide the table has no condition columns', (t) => {
  const out = renderTable(hostColumns(), [bmhRow], { width: 400 });
  t.notRegex(out[0]!, /READY|PROGRESSING|CONDITIONS/);
});

function inspected(status: Record<string, unknown>): InspectedHost {
  return {
    key: 'lab/h-1', kind: 'BareMetalHost', backend: 'fixture', state: 'available', stateSinceMs: 60_000, spec: { online: true },
    status, recent: [], inFlight: null, slot: { phase: 'none' }, retryAt: null, nextAttemptInMs: null, shard: 3, epoch: 0,
  };
}

const written: Condition[] = [
  { type: 'Ready', status: 'False', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:57:00Z', reason: 'NotProvisioned', message: '' },
  { type: 'Manageable', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Manageable', message: '' },
];

test('inspect - a CONDITIONS table with TYPE STATUS REASON AGE, and the conditions not repeated among the status fields', (t) => {
  const out = renderInspect('a', inspected({ operationalStatus: 'OK', conditions: written }), 120, NOW);
  t.log(out.join('\n'));
  const at = out.indexOf('conditions:');
  t.true(at > out.indexOf('status:'));
  t.regex(out[at + 1]!, /^ {2}TYPE +STATUS +REASON +AGE$/);
  t.regex(out[at + 2]!, /^ {2}Ready +False +NotProvisioned +3m00s$/);
  t.regex(out[at + 3]!, /^ {2}Manageable +True +Manageable +1h00m$/);
  t.false(out.some((l) => /^ {2}conditions: /.test(l)));
});

test('inspect - condition messages (CAPMAAS sets them) get a MESSAGE column; no conditions print none', (t) => {
  const withMessage = conditionLines([{ type: 'MachineDeployed', status: 'False', reason: 'WaitingForDeployment', message: 'MAAS is deploying', lastTransitionTime: '2026-01-01T00:59:30Z' }], 120, NOW);
  t.regex(withMessage[0]!, /^ {2}TYPE +STATUS +REASON +AGE +MESSAGE$/);
  t.regex(withMessage[1]!, /^ {2}MachineDeployed +False +WaitingForDeployment +30s +MAAS is deploying$/);
  t.deepEqual(conditionLines(undefined, 120, NOW), ['  none']);
  t.deepEqual(conditionLines([{ type: 'Ready' }], 120, NOW), ['  (not a list of conditions; see --json)']);
});

test('hosts -o wide - accepted as a table format; refused together with --json (exit 2)', async (t) => {
  const both = await metalfleet('hosts', '-o', 'wide', '--json');
  t.is(both.code, 2);
  t.regex(both.stderr, /--json and -o wide/);
  // Past the flags: it fails only on the unreachable server.
  const wide = await metalfleet('hosts', '-o', 'wide', '--nats', 'nats://127.0.0.1:1', '--timeout', '0.5');
  t.is(wide.code, 1, wide.stderr);
  t.deepEqual(lines(wide.stderr).filter((l) => /format/.test(l)), []);
  t.regex(wide.stderr, /cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
});

test('inspect and hosts -o wide - a host driven to provisioned shows the conditions its machine wrote (Ready True Provisioned)', async (t) => {
  const { node, store } = await startTestNode();
  const served = serveEmbedded(node.introspection);
  const client = served.client;
  try {
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'pw-Conditions1' }), bmh('c-1')])).ok);
    await waitUntil(async () => (await statusOf(store, 'lab/c-1'))?.provisioning.state === 'provisioned', 15_000, 'lab/c-1 provisioned');
    const stored = (await statusOf(store, 'lab/c-1'))?.conditions ?? [];
    t.deepEqual(stored.map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`), [
      'Ready=True/Provisioned', 'AvailableForProvisioning=False/NotAvailable', 'Healthy=Unknown/Unknown',
      'Manageable=True/Manageable', 'Progressing=False/NotProgressing', 'Provisioned=True/Provisioned',
    ]);
    const base = { format: 'table', width: 300, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] } as const;
    const out = await inspectView(client, { host: 'lab/c-1', shardCount: 16 }, base);
    t.log(out.stdout);
    t.regex(out.stdout, /^conditions:\n {2}TYPE +STATUS +REASON +AGE\n {2}Ready +True +Provisioned +\S+$/m);
    const wide = (await hostsView(client, { wide: true }, base)).stdout.trim().split('\n');
    t.log(wide.join('\n'));
    t.regex(wide[1]!, /^lab\/c-1 .* True \(Provisioned\) +False \(NotProgressing\) +AvailableForProvisioning=False Healthy=Unknown Manageable=True Provisioned=True +-$/);
    // Without -o wide the rows do not carry conditions at all.
    const plain = JSON.parse((await hostsView(client, {}, { ...base, format: 'json' })).stdout) as { replies: Array<{ value: { hosts: Array<Record<string, unknown>> } }> };
    t.false('conditions' in plain.replies[0]!.value.hosts[0]!);
  } finally {
    await served.close();
    await node.stop();
  }
});
