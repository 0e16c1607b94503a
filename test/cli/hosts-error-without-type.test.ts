// A host can carry an errorMessage without an errorType: one waiting for a user-data Secret that
// does not exist yet (BMO's transient wait: `delayed`, no error type, the message says which
// Secret), or one whose KV record does not parse (the store's reason). `metalfleet hosts` shows
// that message in ERROR, as it shows a typed error's; a '-' there hid why the host stands still.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { hostsView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { NATS_HOSTS_BUCKET } from '../../src/adapters/store/nats-store.ts';
import { hostKvKey } from '../../src/adapters/store/nats-keys.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('hosts - a host waiting for a user-data Secret that does not exist shows the wait in ERROR, not "-"', async (t) => {
  const { node, store } = await startTestNode({ fixture: { latencyMs: 1 } });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 250, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    const waiting = bmh('ud-wait') as { spec: Record<string, unknown> };
    waiting.spec['userData'] = { name: 'ud-missing' };
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'Pw-ud-wait1' }), waiting, bmh('fine')])).ok);
    await waitUntil(async () => (await store.get('lab/ud-wait'))?.status?.operationalStatus === 'delayed', 15_000, 'lab/ud-wait delayed');
    await waitUntil(async () => (await store.get('lab/fine'))?.status?.provisioning.state === 'provisioned', 15_000, 'lab/fine provisioned');

    const json = JSON.parse((await hostsView(client, {}, { ...base, format: 'json' })).stdout) as { replies: Array<{ value: { hosts: Array<{ key: string; errorType: string; errorMessage?: string }> } }> };
    const row = json.replies[0]!.value.hosts.find((h) => h.key === 'lab/ud-wait')!;
    // The reply is as the README says: no error type, the message naming the Secret.
    t.is(row.errorType, '');
    t.regex(row.errorMessage ?? '', /^waiting for Secret lab\/ud-missing \(spec\.userData\)/);

    const lines = (await hostsView(client, {}, base)).stdout.split('\n');
    t.log(lines.join('\n'));
    const cells = (key: string): string[] => lines.find((l) => l.startsWith(`${key} `))?.trim().split(/\s{2,}/) ?? [];
    t.is(cells('lab/ud-wait')[5], 'delayed');
    t.regex(cells('lab/ud-wait').at(-1) ?? '', /^waiting for Secret lab\/ud-missing \(spec\.userData\), which does not exist/);
    // A host without any message still shows '-'.
    t.is(cells('lab/fine').at(-1), '-');
  } finally {
    await service.close();
    await node.stop();
  }
});

test('hosts - a host whose only record does not parse is listed unreadable with the store\'s reason in ERROR', async (t) => {
  const { node, store, substrate } = await startTestNode({ fixture: { latencyMs: 1 } });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 250, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'Pw-unreadable1' }), bmh('fine', { image: false })])).ok);
    await waitUntil(async () => (await store.get('lab/fine'))?.status?.provisioning.state === 'available', 15_000, 'lab/fine available');
    const hosts = await substrate.transport.kv(NATS_HOSTS_BUCKET);
    await hosts.put(hostKvKey('lab/never-good'), Uint8Array.from([0xff, 0x00, 0xc1, 0x92]));
    let lines: string[] = [];
    await waitUntil(async () => {
      lines = (await hostsView(client, {}, base)).stdout.split('\n');
      return lines.some((l) => l.startsWith('lab/never-good '));
    }, 10_000, 'lab/never-good listed');
    t.log(lines.join('\n'));
    const cells = lines.find((l) => l.startsWith('lab/never-good '))?.trim().split(/\s{2,}/) ?? [];
    t.is(cells[3], 'unreadable');
    // The README: "metalfleet hosts shows the error".
    t.regex(cells.at(-1) ?? '', /mf-hosts \(revision \d+\) does not parse/);
  } finally {
    await service.close();
    await node.stop();
  }
});
